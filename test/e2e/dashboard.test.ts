/**
 * The dashboard as a person uses it, in Chromium, on the real control plane: the admission controller and the
 * scheduler run as processes; alice's and bob's pods go through the API server; one of bob's is held by root.capped's
 * max, one of alice's by her user limit on root.limited. The page at /ui/ (served by `corral scheduler` itself) must
 * show the queue at 2 of 2 cores, both holds with their numbers, and — without a reload — the held pod running once
 * another completes; and a banner when the scheduler goes away. Screenshots of each page go to
 * .corral/reports/dashboard/.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { k8s } from "../../src/kube/client.js";
import { type CorralProcess, type Testbed, createFakeNodes, kubeConfigFor, prepareNamespace, waitFor } from "../../src/testbed/testbed.js";
import { type OpenBrowser, navigate, openBrowser, screenshot } from "./browser.js";
import {
  applyQueuesConfig,
  batchPod,
  deleteAllPods,
  podsByPrefix,
  resetCluster,
  startAdmission,
  startScheduler,
  testbed,
} from "./harness.js";

const CONF_NS = "corral-dash";
const NS = "dash";
const NODES = "e2e-dash";
const QUEUES = `partitions:
  - name: default
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: capped
            resources: {guaranteed: {vcore: 1}, max: {vcore: 2, memory: 8Gi}}
          - name: limited
            limits:
              - limit: alice is capped
                users: [alice]
                maxresources: {vcore: 1}
          - name: big
`;

let tb: Testbed;
let admin: k8s.KubeConfig;
let adm: { corral: CorralProcess; port: number } | undefined;
let sched: { corral: CorralProcess; port: number } | undefined;
let browser: OpenBrowser;
let page: Page;
const core = (user: "admin" | "alice" | "bob" = "admin") => kubeConfigFor(tb, user).makeApiClient(k8s.CoreV1Api);
const ui = (fragment: string) => `http://127.0.0.1:${sched!.port}/ui/${fragment}`;

const pod = (name: string, queue: string, app: string) => batchPod(name, { queue, app });

const pods = (prefix: string) => podsByPrefix(tb, NS, prefix);
const bound = (ps: k8s.V1Pod[]) => ps.filter((p) => p.spec?.nodeName);

const open = (link: string, heading: string) => navigate(page, link, heading);

beforeAll(async () => {
  tb = await testbed();
  admin = kubeConfigFor(tb, "admin");
  await deleteAllPods(tb);
  await prepareNamespace(admin, CONF_NS, []);
  await prepareNamespace(admin, NS, ["alice", "bob"]);
  await applyQueuesConfig(tb, CONF_NS, QUEUES);
  await createFakeNodes(admin, NODES, 2, { cpu: "4", memory: "16Gi", pods: "110" });
  sched = await startScheduler(tb, { namespace: CONF_NS, name: "dashboard" });
  adm = await startAdmission(tb, CONF_NS, {
    env: {
      ADMISSION_CONTROLLER_DEFAULT_QUEUE: "",
      ADMISSION_CONTROLLER_BYPASS_NAMESPACES: "^kube-system$",
      SCHEDULER_SERVICE_ADDRESS: `127.0.0.1:${sched.port}`,
    },
  });
  // bob: three 1-cpu pods in root.capped (max 2 cpu); alice: two in root.limited (her limit: 1 cpu); bob in root.big
  for (const i of [1, 2, 3]) await core("bob").createNamespacedPod({ namespace: NS, body: pod(`cap-${i}`, "root.capped", "capped") });
  for (const i of [1, 2]) await core("alice").createNamespacedPod({ namespace: NS, body: pod(`lim-${i}`, "root.limited", "lim-alice") });
  await core("bob").createNamespacedPod({ namespace: NS, body: pod("big-1", "root.big", "big") });
  await waitFor(
    "2 capped, 1 limited and 1 big pod bound",
    async () => bound(await pods("cap-")).length === 2 && bound(await pods("lim-")).length === 1 && bound(await pods("big-")).length === 1,
  );
  browser = await openBrowser();
  page = browser.page;
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await sched?.corral.stop();
  await adm?.corral.stop();
  await resetCluster(tb);
});

describe("corral dashboard in Chromium", () => {
  it("is served at /ui/ with a Content-Security-Policy, and the page runs under it", async () => {
    const violations: string[] = [];
    page.on("console", (m) => {
      if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
    });
    const r = await page.goto(ui("#/queues"));
    expect(r!.status()).toBe(200);
    expect(r!.headers()["content-security-policy"]).toContain("script-src 'self'");
    await page.getByRole("heading", { level: 1, name: "Queues" }).waitFor();
    await page.locator("tr[data-queue='root.capped']").waitFor();
    expect(violations).toEqual([]);
    // the page is kept from now on: any reload would lose this mark
    await page.evaluate(() => {
      (window as unknown as { noReload: boolean }).noReload = true;
    });
  });

  it("Queues: root.capped's cpu bar shows 2 of 2 cores, at max, with its guarantee", async () => {
    const bar = page.locator("tr[data-queue='root.capped'] [role='img'][aria-label^='cpu']");
    await expect.poll(() => bar.getAttribute("aria-label")).toBe("cpu: 2 of 2 cores, guaranteed 1 core");
    expect(await bar.innerText()).toContain("2 of 2 cores");
    expect(await bar.innerText()).toContain("at max");
    const row = page.locator("tr[data-queue='root.capped']");
    // bob's application runs (pending applications count those not started yet)
    expect(await row.locator("td").nth(2).innerText()).toBe("0");
    expect(await row.locator("td").nth(3).innerText()).toBe("1");
    await screenshot(page, "queues");
  });

  it("Why waiting: the queue-max hold and alice's limit, with the numbers and since when", async () => {
    await open("Why waiting", "Why waiting");
    const table = page.getByRole("table", { name: "Waiting pods" });
    const capRow = table.locator("tbody tr", { hasText: "cap-" });
    await expect.poll(() => capRow.count()).toBe(1);
    const cap = await capRow.innerText();
    expect(cap).toContain("root.capped is at its max: cpu 2 of 2 cores used; this pod needs 1 core");
    expect(cap).toContain("Pods in root.capped finishing and freeing 1 core, or a higher max for root.capped.");
    expect(cap).toMatch(/bob/);
    expect(cap).toMatch(/\d+ (s|min) ago/);
    const lim = await table.locator("tbody tr", { hasText: "lim-" }).innerText();
    expect(lim).toContain("alice's limit on root.limited: cpu 1 of 1 core used; this pod needs 1 core");
    // search narrows the list by user
    await page.getByLabel("Search waiting pods").fill("alice");
    await expect.poll(() => table.locator("tbody tr").count()).toBe(1);
    expect(await table.locator("tbody tr").innerText()).toContain("lim-");
    await page.getByLabel("Search waiting pods").fill("");
    await expect.poll(() => table.locator("tbody tr").count()).toBe(2);
    await screenshot(page, "why-waiting");
  });

  it("Users and groups: alice at her limit on root.limited", async () => {
    await open("Users and groups", "Users and groups");
    const row = page.locator("tr[data-usage='user:alice@root.limited']");
    await row.waitFor();
    expect(await row.locator("[role='img']").getAttribute("aria-label")).toBe("cpu: 1 of 1 core");
    await screenshot(page, "users");
  });

  it("Nodes: the histogram and the table", async () => {
    await open("Nodes", "Nodes");
    await page.getByRole("table", { name: "Nodes" }).locator("tbody tr").first().waitFor();
    expect(await page.getByRole("table", { name: "Nodes" }).locator("tbody tr").count()).toBe(2);
    expect(await page.getByRole("list", { name: "Nodes by cpu utilisation" }).locator("li").count()).toBe(10);
    await screenshot(page, "nodes");
  });

  it("Applications: after one of bob's pods completes, the held one shows as running, without a reload", async () => {
    await open("Applications", "Applications");
    await page.getByRole("table", { name: "Applications" }).getByRole("link", { name: "capped" }).click();
    await page.getByRole("heading", { level: 1, name: "Application capped" }).waitFor();
    const running = page.getByRole("table", { name: "Running pods" });
    const waiting = page.getByRole("table", { name: "Waiting pods of the application" });
    await expect.poll(() => waiting.locator("tbody tr").innerText()).toMatch(/dash\/cap-\d/);
    const held = (await waiting.locator("tbody tr").innerText()).match(/dash\/(cap-\d)/)![1]!;
    expect(await page.getByText("User", { exact: true }).locator("xpath=following-sibling::dd[1]").innerText()).toBe("bob");
    expect(await page.getByRole("list", { name: "State timeline" }).innerText()).toMatch(/Accepted[\s\S]*Running/);
    await screenshot(page, "application");
    const done = bound(await pods("cap-"))[0]!.metadata!.name!;
    await core().patchNamespacedPodStatus(
      { name: done, namespace: NS, body: { status: { phase: "Succeeded" } } },
      k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch),
    );
    const heldRow = running.locator("tbody tr", { hasText: `dash/${held}` });
    await heldRow.waitFor({ timeout: 30_000 });
    expect(await heldRow.innerText()).toMatch(new RegExp(`${NODES}-\\d`));
    expect(await waiting.locator("tbody tr").innerText()).toBe("No pod waits.");
    expect(await page.evaluate(() => (window as unknown as { noReload?: boolean }).noReload)).toBe(true);
  });

  it("is usable with the keyboard and in the dark scheme", async () => {
    await page.goto(ui("#/queues"));
    await page.reload(); // focus starts at the top of a freshly loaded page
    await page.locator("tr[data-queue='root.capped']").waitFor();
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Skip to content");
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Queues");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { level: 1, name: "Why waiting" }).waitFor();
    // every form control has a label
    const unlabelled = await page.evaluate(
      () =>
        Array.from(document.querySelectorAll("input, select")).filter(
          (e) => !(e as HTMLInputElement).labels?.length && !e.getAttribute("aria-label"),
        ).length,
    );
    expect(unlabelled).toBe(0);
    await page.emulateMedia({ colorScheme: "dark" });
    const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(bg).toBe("rgb(18, 20, 23)");
    await screenshot(page, "why-waiting-dark");
    await page.emulateMedia({ colorScheme: "light" });
  });

  it("shows a banner when the scheduler is unreachable", async () => {
    await page.goto(ui("#/queues"));
    await page.locator("tr[data-queue='root.capped']").waitFor();
    await sched!.corral.stop();
    const banner = page.getByRole("alert");
    await banner.waitFor({ timeout: 20_000 });
    expect(await banner.innerText()).toContain("The scheduler is unreachable.");
    // the last data stays on the page
    expect(await page.locator("tr[data-queue='root.capped']").count()).toBe(1);
    await screenshot(page, "unreachable");
  });
});
