/**
 * The REST API from a real browser (Debian's chromium through playwright-core): a page served from another origin,
 * as the YuniKorn web UI is, walks the UI's flows — dashboard (clusters, partitions, history, node utilisation),
 * applications of a queue with their last state change and allocation names (`namespace/podName` from the
 * allocationTags), the event stream — with fetch and CORS, and renders what it read.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { type Server, createServer } from "node:http";
import { pino } from "pino";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SchedulerCore } from "../../src/scheduler/core/scheduler.js";
import { EventSystem } from "../../src/scheduler/events/system.js";
import { type RestServer, startRestServer } from "../../src/scheduler/rest/server.js";

/**
 * Debian's chromium: found on PATH, or installed with apt-get when missing (root, Debian/Ubuntu).
 * @throws Error naming what to install when it can be neither found nor installed
 */
function chromiumPath(): string {
  const candidates = ["/usr/bin/chromium", "/usr/bin/chromium-browser"];
  const found = candidates.find((p) => existsSync(p));
  if (found) return found;
  if (process.getuid?.() === 0 && existsSync("/usr/bin/apt-get")) {
    execFileSync("apt-get", ["install", "-y", "--no-install-recommends", "chromium"], {
      stdio: "inherit",
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
    if (existsSync("/usr/bin/chromium")) return "/usr/bin/chromium";
  }
  throw new Error("the browser test needs Chromium: apt-get install chromium (Debian) or chromium-browser (Ubuntu)");
}

const PAGE = `<!doctype html><html><body>
<div id="cluster"></div><div id="partition"></div><div id="history"></div><div id="buckets"></div><div id="queues"></div>
<div id="apps"></div><div id="lastchange"></div><div id="allocs"></div><div id="stream"></div><div id="error"></div>
<script>
const api = new URLSearchParams(location.search).get("api");
const get = async (p) => { const r = await fetch(api + p); if (!r.ok) throw new Error(p + ": HTTP " + r.status); return r.json(); };
const show = (id, v) => { document.getElementById(id).textContent = v; };
(async () => {
  const [clusters, partitions, history, util] = await Promise.all(
    ["/ws/v1/clusters", "/ws/v1/partitions", "/ws/v1/history/apps", "/ws/v1/scheduler/node-utilizations"].map(get),
  );
  show("cluster", clusters[0].clusterName + "/" + clusters[0].partition);
  show("partition", partitions[0].name + " nodes=" + partitions[0].totalNodes + " preemption=" + partitions[0].preemptionEnabled);
  const last = history[history.length - 1];
  show("history", new Date(Math.floor(last.timestamp / 1e6)).getUTCFullYear() + " running=" + last.totalApplications);
  show("buckets", util[0].utilizations.map((u) => u.type + ":" + u.utilization.length).join(","));
  const root = await get("/ws/v1/partition/default/queues");
  show("queues", root.children.map((q) => q.queuename).join(","));
  const apps = await get("/ws/v1/partition/default/queue/root.a/applications");
  show("apps", apps.map((a) => a.applicationID + ":" + a.applicationState).join(","));
  const log = apps[0].stateLog;
  show("lastchange", new Date(log[log.length - 1].time / 1e6).toISOString());
  const tags = apps[0].allocations.map((a) => a.allocationTags);
  show("allocs", tags.map((t) => t["kubernetes.io/meta/namespace"] + "/" + t["kubernetes.io/meta/podName"]).sort().join(","));
  const res = await fetch(api + "/ws/v1/events/stream?count=1");
  const reader = res.body.getReader();
  let text = "";
  while (text.split("\\n").filter(Boolean).length < 2) text += new TextDecoder().decode((await reader.read()).value);
  const [id, rec] = text.split("\\n").filter(Boolean).map((l) => JSON.parse(l));
  show("stream", id.InstanceUUID + " type=" + rec.type);
  reader.cancel();
})().catch((e) => show("error", String(e))).finally(() => { document.body.dataset.done = "1"; });
</script></body></html>`;

const T0 = Date.UTC(2026, 10, 22, 9, 0, 0);
let now = T0;
let rest: RestServer;
let page: Server;
let browser: Browser;

beforeAll(async () => {
  const events = new EventSystem({ now: () => now, instanceUUID: "b7e0c7f4-3a52-4a8e-9d1c-2f9a9a0e1d11" });
  const core = new SchedulerCore(
    () => now,
    "partitions:\n  - name: default\n    queues:\n      - name: root\n        submitacl: '*'\n        queues:\n" +
      "          - name: a\n          - name: b\n",
    { events: events.add },
  );
  core.updateNode([{ nodeID: "n1", action: "CREATE", schedulableResource: { vcore: 4000, memory: 8 * 1024 ** 3, pods: 110 } }]);
  core.updateApplication({ new: [{ applicationID: "spark-1", queueName: "root.a", ugi: { user: "alice" } }] });
  core.updateAllocation({
    allocations: [0, 1].map((i) => ({
      allocationKey: `uid-${i}`,
      applicationID: "spark-1",
      resourcePerAlloc: { vcore: 1000, memory: 1024 ** 3, pods: 1 },
      allocationTags: { "kubernetes.io/meta/namespace": "analytics", "kubernetes.io/meta/podName": `spark-exec-${i}` },
    })),
  });
  now += 5000;
  core.schedule();
  rest = await startRestServer({
    host: "127.0.0.1",
    port: 0,
    log: pino({ level: "silent" }),
    config: () => core.appliedConfig,
    core,
    events,
    startTime: T0,
  });
  page = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(PAGE);
  });
  await new Promise<void>((r) => page.listen(0, "127.0.0.1", () => r()));
  browser = await chromium.launch({ executablePath: chromiumPath(), args: ["--no-sandbox"] });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  page?.close();
  await rest?.close();
});

describe("the REST API in Chromium", () => {
  it("a page from another origin reads the dashboard, a queue's applications and the event stream", async () => {
    const addr = page.address() as { port: number };
    const tab = await browser.newPage();
    const failed: string[] = [];
    tab.on("console", (m) => {
      if (m.type() === "error") failed.push(m.text());
    });
    await tab.goto(`http://127.0.0.1:${addr.port}/?api=${encodeURIComponent(`http://127.0.0.1:${rest.port}`)}`);
    await tab.waitForSelector("body[data-done='1']", { timeout: 20_000 });
    const text = async (id: string) => (await tab.textContent(`#${id}`))!;
    expect(await text("error")).toBe("");
    expect(failed).toEqual([]);
    expect(await text("cluster")).toBe("kubernetes/default");
    expect(await text("partition")).toBe("default nodes=1 preemption=true"); // preemption is on by default, as upstream
    expect(await text("history")).toMatch(/^20\d\d running=/);
    expect(await text("buckets")).toBe("memory:10,pods:10,vcore:10");
    expect(await text("queues")).toBe("root.a,root.b");
    expect(await text("apps")).toBe("spark-1:Running");
    expect(await text("lastchange")).toBe(new Date(T0 + 5000).toISOString()); // not 1970
    expect(await text("allocs")).toBe("analytics/spark-exec-0,analytics/spark-exec-1");
    expect(await text("stream")).toMatch(/^b7e0c7f4-3a52-4a8e-9d1c-2f9a9a0e1d11 type=[1-5]$/);
  }, 60_000);
});
