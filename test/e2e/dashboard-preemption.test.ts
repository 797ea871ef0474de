/**
 * Pending preemption on the dashboard, in Chromium, on the real control plane: queue b (guaranteed 4 cpu) fills two
 * fake 4-cpu nodes, then queue a (guaranteed 4 cpu, `preemption.delay: 1s`) asks one 2-cpu pod. The scheduler evicts
 * two of b's pods on one node through the Eviction API; with no kubelet the victims stay Terminating, so the
 * preemption stays under way while the page is read: "Why waiting" must show the preemptor's pending preemption in
 * words with its numbers and both victims by pod name, Applications must highlight the victims of b, and Queues must
 * show root.b's usage being preempted and root.a's preempting pod. Then the test plays the kubelet (the victims finish
 * terminating) and the page, without a reload, shows nothing waiting. Screenshots in .corral/reports/dashboard/.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { k8s } from "../../src/kube/client.js";
import { type CorralProcess, type Testbed, createFakeNodes, kubeConfigFor, prepareNamespace, waitFor } from "../../src/testbed/testbed.js";
import { type OpenBrowser, navigate, openBrowser, screenshot } from "./browser.js";
import {
  GUARANTEED_QUEUES,
  applyQueuesConfig,
  batchPod,
  deleteAllPods,
  resetCluster,
  startScheduler,
  terminate,
  testbed,
  podsByPrefix,
} from "./harness.js";

const CONF_NS = "corral-dash-preempt";
const NS = "dpre";
const NODES = "e2e-dpre";

let tb: Testbed;
let admin: k8s.KubeConfig;
let sched: { corral: CorralProcess; port: number } | undefined;
let browser: OpenBrowser;
let page: Page;
/** The pods evicted for a-0 (Terminating: no kubelet finishes them until the test does). */
let victims: k8s.V1Pod[] = [];
const core = () => kubeConfigFor(tb, "admin").makeApiClient(k8s.CoreV1Api);
const ui = (fragment: string) => `http://127.0.0.1:${sched!.port}/ui/${fragment}`;

const pod = (name: string, queue: string, app: string, cpu: string) => batchPod(name, { queue, app, cpu, schedulerName: "yunikorn" });

const list = (prefix: string) => podsByPrefix(tb, NS, prefix);
const terminating = (ps: k8s.V1Pod[]) => ps.filter((p) => p.metadata?.deletionTimestamp);

const open = (link: string, heading: string) => navigate(page, link, heading);

beforeAll(async () => {
  tb = await testbed();
  admin = kubeConfigFor(tb, "admin");
  await deleteAllPods(tb);
  await prepareNamespace(admin, CONF_NS, []);
  await prepareNamespace(admin, NS, []);
  await applyQueuesConfig(tb, CONF_NS, GUARANTEED_QUEUES);
  await createFakeNodes(admin, NODES, 2, { cpu: "4", memory: "16Gi", pods: "110" });
  sched = await startScheduler(tb, { namespace: CONF_NS, name: "dashboard-preempt" });
  // b fills the 8-cpu cluster; then a asks 2 cpu: two of b's pods on one node are preempted for it
  for (let i = 0; i < 8; i++) await core().createNamespacedPod({ namespace: NS, body: pod(`b-${i}`, "root.b", "b", "1") });
  await waitFor("8 b pods bound", async () => (await list("b-")).filter((p) => p.spec?.nodeName).length === 8);
  await core().createNamespacedPod({ namespace: NS, body: pod("a-0", "root.a", "a", "2") });
  victims = await waitFor(
    "two of b's pods evicted",
    async () => {
      const t = terminating(await list("b-"));
      return t.length === 2 ? t : undefined;
    },
    60_000,
  );
  browser = await openBrowser();
  page = browser.page;
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await sched?.corral.stop();
  // every pod, namespace and fake node of this file
  await resetCluster(tb);
});

describe("pending preemption on the dashboard, in Chromium", () => {
  it("Why waiting: the preemptor's pending preemption in words and numbers, its victims by pod, what unblocks it", async () => {
    const node = victims[0]!.spec!.nodeName!;
    expect(victims.map((v) => v.spec!.nodeName)).toEqual([node, node]);
    const r = await page.goto(ui("#/waiting"));
    expect(r!.status()).toBe(200);
    await page.evaluate(() => {
      (window as unknown as { noReload: boolean }).noReload = true;
    });
    const table = page.getByRole("table", { name: "Waiting pods" });
    const row = table.locator("tbody tr", { hasText: "dpre/a-0" });
    await row.waitFor();
    const text = await row.innerText();
    expect(text).toContain("preemption");
    expect(text).toContain(
      `Preempting 2 pods on node ${node} in root.b (over its guarantee of 4 cores, using 8 cores) to get root.a its ` +
        `guarantee of 4 cores (using 0 cores now); waiting for them to go.`,
    );
    expect(text).toContain(`Node ${node} is reserved for this pod (free now: `);
    expect(text).toMatch(/victims chosen \d+ s ago/);
    expect(text).toContain("it needs cpu 2 cores, memory 256 Mi");
    expect(text).toContain(`The victims' pods terminating (2 pods left); it then runs on ${node}.`);
    // the victims, listed by pod, each being evicted, with the rule that allowed it
    const listed = row.getByRole("list", { name: "Victims preempted for a-0" }).locator("li");
    await expect.poll(() => listed.count()).toBe(2);
    const names = await listed.evaluateAll((els) => els.map((e) => e.getAttribute("data-victim")));
    expect(names.sort()).toEqual(victims.map((v) => `dpre/${v.metadata!.name}`).sort());
    for (const li of await listed.all()) {
      const t = await li.innerText();
      expect(t).toContain("being evicted");
      expect(t).toContain(`on ${node}, cpu 1 core, memory 256 Mi`);
      expect(t).toContain("root.b over its guarantee of 4 cores, using 8 cores; priority 0, not above 0");
    }
    // the reason filter has the kind
    await page.getByLabel("Reason").selectOption({ label: "preemption (1)" });
    await expect.poll(() => table.locator("tbody tr").count()).toBe(1);
    await screenshot(page, "preemption-why-waiting");
  });

  it("Applications: b's victims highlighted, with the pod they are evicted for", async () => {
    await open("Applications", "Applications");
    const apps = page.getByRole("table", { name: "Applications" });
    const bRow = apps.locator("tbody tr.victim-row");
    await expect.poll(() => bRow.count()).toBe(1);
    expect(await bRow.innerText()).toContain("2 being preempted");
    await apps.getByRole("link", { name: "b", exact: true }).click();
    await page.getByRole("heading", { level: 1, name: "Application b" }).waitFor();
    const running = page.getByRole("table", { name: "Running pods" });
    const marked = running.locator("tbody tr[data-preempted='true']");
    await expect.poll(() => marked.count()).toBe(2);
    const texts = await marked.allInnerTexts();
    expect(texts.map((t) => t.match(/dpre\/(b-\d)/)![1]).sort()).toEqual(victims.map((v) => v.metadata!.name).sort());
    for (const t of texts) {
      expect(t).toContain("being preempted");
      expect(t).toContain("evicted for dpre/a-0 of a (root.a)");
    }
    // highlighted: a tinted row with a bar at its start, not only a colour
    const bg = await marked
      .first()
      .locator("td")
      .first()
      .evaluate((e) => getComputedStyle(e).backgroundColor);
    const plain = await running
      .locator("tbody tr:not([data-preempted])")
      .first()
      .locator("td")
      .first()
      .evaluate((e) => getComputedStyle(e).backgroundColor);
    expect(bg).not.toBe(plain);
    expect(await page.locator("dl.facts").innerText()).toContain("2 of its pods chosen as preemption victims, being evicted");
    await screenshot(page, "preemption-application");
  });

  it("Queues: root.b's usage being preempted, root.a's preempting pod", async () => {
    await open("Queues", "Queues");
    const b = page.locator("[data-preempting='root.b']");
    await b.waitFor();
    expect(await b.innerText()).toContain("being preempted cpu 2 cores, memory 512 Mi, pods 2 of its usage chosen as preemption victims");
    const a = page.locator("[data-preemptor='root.a']");
    expect(await a.innerText()).toContain("1 waiting pod preempting other queues' pods for it");
    expect(await page.locator("[data-preempting='root.a']").count()).toBe(0);
    await screenshot(page, "preemption-queues");
  });

  it("once the victims finish terminating, the preemptor runs and the page says so without a reload", async () => {
    await open("Why waiting", "Why waiting");
    await page.getByLabel("Reason").selectOption("");
    await terminate(core(), NS, victims);
    await waitFor("a-0 bound", async () => (await list("a-0"))[0]?.spec?.nodeName === victims[0]!.spec!.nodeName, 30_000);
    await page.getByText("No pod is waiting.").waitFor({ timeout: 30_000 });
    await open("Queues", "Queues");
    await page.locator("tr[data-queue='root.b']").waitFor();
    expect(await page.locator("[data-preempting]").count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { noReload?: boolean }).noReload)).toBe(true);
  });
});
