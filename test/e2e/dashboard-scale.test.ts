/**
 * The dashboard at scale, in Chromium: a scheduler core holding 5,000 nodes and 10,000 applications (running and
 * held pods over a queue tree with maxima and user limits) behind the real REST server; each page's first render is
 * timed with the browser's own clock (performance.now() from navigation start until the page's data is on screen).
 * After one warm-up load that starts the browser's processes, each page is loaded once more to warm the server (not
 * counted) and then timed in three loads, each in a fresh tab with the browser cache disabled; the best of the three
 * must be under 1 s (on a shared 2-core machine other work only adds time). Figures — every load's time, and where the
 * time of the best one went (the API reads) — go to .corral/reports/dashboard/scale.json.
 */
import { randomUUID } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SchedulerCore } from "../../src/scheduler/core/scheduler.js";
import { EventSystem } from "../../src/scheduler/events/system.js";
import { forwardDecision } from "../../src/scheduler/rest/forward.js";
import { error as restError } from "../../src/scheduler/rest/router.js";
import { type RestServer, startRestServer } from "../../src/scheduler/rest/server.js";
import { REPORTS, type OpenBrowser, openBrowser, screenshot, timeUntil } from "./browser.js";

const NODES = 5000;
const APPS = 10_000;
const GI = 1024 ** 3;
const TEAMS = ["analytics", "ml", "etl", "web", "research"];
const USERS = Array.from({ length: 40 }, (_, i) => `user${String(i).padStart(2, "0")}`);

/** Five team parents with four leaves each; maxima that hold part of the load back, and a per-user limit. */
function queues(): string {
  const leaves = (_team: string) =>
    ["batch", "adhoc", "nightly", "interactive"]
      .map((l) => `              - name: ${l}\n                resources: {guaranteed: {vcore: 500, memory: 2000Gi}}\n`)
      .join("");
  return `partitions:
  - name: default
    queues:
      - name: root
        submitacl: '*'
        queues:
${TEAMS.map(
  (t, i) => `          - name: ${t}
            resources: {max: {vcore: ${4000 + i * 2000}, memory: ${16000 + i * 8000}Gi}}
            limits:
              - limit: per user
                users: ["*"]
                maxresources: {vcore: 1200}
            queues:
${leaves(t)}`,
).join("")}`;
}

let rest: RestServer;
let browser: OpenBrowser;
const figures: Record<string, unknown> = {};

beforeAll(async () => {
  const t0 = Date.now();
  const now = () => Date.now();
  const events = new EventSystem({ now, instanceUUID: randomUUID() });
  const core = new SchedulerCore(now, queues(), { events: events.add });
  core.updateNode(
    Array.from({ length: NODES }, (_, i) => ({
      nodeID: `node-${String(i).padStart(4, "0")}`,
      action: "CREATE" as const,
      schedulableResource: { vcore: 16_000, memory: 64 * GI, pods: 110 },
    })),
  );
  const leaves = TEAMS.flatMap((t) => ["batch", "adhoc", "nightly", "interactive"].map((l) => `root.${t}.${l}`));
  core.updateApplication({
    new: Array.from({ length: APPS }, (_, i) => ({
      applicationID: `app-${String(i).padStart(5, "0")}`,
      queueName: leaves[i % leaves.length]!,
      ugi: { user: USERS[i % USERS.length]!, groups: ["staff"] },
    })),
  });
  core.updateAllocation({
    allocations: Array.from({ length: APPS * 2 }, (_, k) => {
      const app = Math.floor(k / 2);
      return {
        allocationKey: `pod-${k}`,
        applicationID: `app-${String(app).padStart(5, "0")}`,
        resourcePerAlloc: { vcore: 1000 + (k % 4) * 500, memory: (2 + (k % 8)) * GI, pods: 1 },
        allocationTags: { "kubernetes.io/meta/namespace": TEAMS[app % TEAMS.length]!, "kubernetes.io/meta/podName": `job-${app}-${k % 2}` },
      };
    }),
  });
  for (let i = 0; i < 50; i++) if (core.schedule().length === 0) break;
  core.stateChanges();
  figures.stateBuildMs = Date.now() - t0;
  rest = await startRestServer({
    host: "127.0.0.1",
    port: 0,
    log: pino({ level: "silent" }),
    config: () => core.appliedConfig,
    core,
    events,
  });
  browser = await openBrowser();
  // Start-up of the browser process itself is not the page's: one load first, then each page in a fresh tab
  const warm = await browser.context.newPage();
  await warm.goto(`http://127.0.0.1:${rest.port}/ui/#/queues`);
  await warm.waitForSelector("tr[data-queue] .bar");
  await warm.close();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await rest?.close();
  await mkdir(REPORTS, { recursive: true });
  await writeFile(join(REPORTS, "scale.json"), `${JSON.stringify({ nodes: NODES, applications: APPS, ...figures }, null, 2)}\n`);
});

/** Cache-disabled loads of each page that are timed; the figure is the best of them. */
const TIMED_LOADS = 3;

/**
 * Times the first render of a page: one warm-up load first (not counted: the server's JIT and caches warm, as they
 * are on a scheduler that has been running), then {@link TIMED_LOADS} loads, each in a fresh tab with the browser
 * cache disabled so that every one is a first load of the page; the figure is the best of them (a shared, noisy
 * machine only ever adds time) and every load's time is reported.
 */
async function firstRender(name: string, fragment: string, ready: string): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i <= TIMED_LOADS; i++) {
    const page = await browser.context.newPage();
    try {
      // no cached script or stylesheet: every load is a first one
      await (await browser.context.newCDPSession(page)).send("Network.setCacheDisabled", { cacheDisabled: true });
      await page.goto(`http://127.0.0.1:${rest.port}/ui/${fragment}`);
      const ms = await timeUntil(page, ready);
      if (i === 0) continue;
      times.push(Math.round(ms));
      if (ms > Math.min(...times)) continue;
      // where the time went in the best load: the page's own loading and each API read (start → end of the answer)
      figures[`${name}Timing`] = await page.evaluate(() => {
        const nav = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming;
        const reads = (performance.getEntriesByType("resource") as PerformanceResourceTiming[])
          .filter((r) => r.name.includes("/ws/v1/") && !r.name.includes("/events/stream"))
          .map(
            (r) =>
              `${new URL(r.name).pathname} ${Math.round(r.startTime)}→${Math.round(r.responseEnd)} ms ` +
              `${Math.round(r.encodedBodySize / 1024)} KiB`,
          );
        return { domContentLoadedMs: Math.round(nav.domContentLoadedEventEnd), reads };
      });
      await screenshot(page, `scale-${name}`);
    } finally {
      await page.close();
    }
  }
  figures[`${name}FirstRenderMs`] = Math.min(...times);
  figures[`${name}FirstRenderLoadsMs`] = times;
  return Math.min(...times);
}

describe(`dashboard with ${NODES} nodes and ${APPS} applications`, () => {
  const pages: [name: string, fragment: string, ready: string, what: string][] = [
    ["queues", "#/queues", "tr[data-queue='root.analytics.batch'] .bar", "the queue tree"],
    ["waiting", "#/waiting", "table[aria-label='Waiting pods'] tbody tr .reason-text", "a page of held pods"],
    ["apps", "#/apps", "table[aria-label='Applications'] tbody tr a", "a page of the 10,000 applications"],
    ["nodes", "#/nodes", "table[aria-label='Nodes'] tbody tr td", "the histogram and a page of the 5,000 nodes"],
    ["users", "#/users", "table[aria-label='User usage'] tbody tr[data-usage]", "user usage against limits"],
  ];
  for (const [name, fragment, ready, what] of pages) {
    it(`${name}: ${what} on screen under 1 s`, async () => {
      expect(await firstRender(name, fragment, ready)).toBeLessThan(1000);
    });
  }

  it("a table pages through all rows without a request per row", async () => {
    const page = await browser.context.newPage();
    const requests: string[] = [];
    page.on("request", (r) => requests.push(r.url()));
    await page.goto(`http://127.0.0.1:${rest.port}/ui/#/nodes`);
    await page.waitForSelector("table[aria-label='Nodes'] tbody tr td");
    await expect
      .poll(() => page.locator("nav[aria-label='Nodes: pages'] span").textContent())
      .toBe(`Rows 1–50 of ${NODES.toLocaleString("en")}`);
    const before = requests.length;
    await page.getByRole("button", { name: "Last" }).click();
    const pager = page.locator("nav[aria-label='Nodes: pages'] span");
    expect(await pager.textContent()).toBe(`Rows 4951–5000 of ${NODES.toLocaleString("en")}`);
    expect(requests.length).toBe(before);
    await page.close();
  });
});

describe("a follower that knows no leader", () => {
  it("shows the not-the-leader banner", async () => {
    const core = new SchedulerCore(() => Date.now());
    // as `corral scheduler --leader-elect` on a replica that does not lead and sees no leader address on the Lease
    const follower = await startRestServer({
      host: "127.0.0.1",
      port: 0,
      log: pino({ level: "silent" }),
      config: () => core.appliedConfig,
      core,
      intercept: (req, res) => {
        const d = forwardDecision(req.method ?? "GET", (req.url ?? "/").split("?")[0]!, false, { leading: false });
        if (d.action !== "unavailable") return false;
        restError(res, 503, d.reason);
        return true;
      },
    });
    const page = await browser.context.newPage();
    try {
      await page.goto(`http://127.0.0.1:${follower.port}/ui/#/queues`);
      const banner = page.getByRole("alert");
      await banner.waitFor();
      expect(await banner.innerText()).toMatch(/^Not the leader\. no leader known/);
      await screenshot(page, "not-leader");
    } finally {
      await page.close();
      await follower.close();
    }
  });
});
