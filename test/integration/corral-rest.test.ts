/**
 * corral's own read endpoints (`/ws/v1/corral/pending`, `/ws/v1/corral/limits`) over a running core, and the
 * dashboard's static files at `/ui/` with their security headers.
 */
import { mkdtemp, mkdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SchedulerCore } from "../../src/scheduler/core/scheduler.js";
import type { ApplicationSummary, LimitInfo, NodeSummary, PendingList } from "../../src/scheduler/rest/api-types.js";
import { type RestServer, startRestServer } from "../../src/scheduler/rest/server.js";
import { CONTENT_SECURITY_POLICY, uiFile } from "../../src/scheduler/rest/ui-static.js";

const QUEUES = `partitions:
  - name: default
    queues:
      - name: root
        submitacl: '*'
        queues:
          - name: capped
            resources: {max: {vcore: 2, memory: 8Gi}}
          - name: limited
            limits:
              - limit: alice
                users: [alice]
                maxresources: {vcore: 1}
              - limit: dev
                groups: [dev]
                maxapplications: 4
              - limit: everyone
                groups: ["*"]
                maxapplications: 5
`;
const GI = 1024 ** 3;
const T0 = 1_700_000_000_000;

let rest: RestServer;
let core: SchedulerCore;
let uiDir: string;
const base = () => `http://127.0.0.1:${rest.port}`;

beforeAll(async () => {
  let now = T0;
  core = new SchedulerCore(() => now, QUEUES);
  core.updateNode([{ nodeID: "n1", action: "CREATE", schedulableResource: { vcore: 8000, memory: 32 * GI, pods: 110 } }]);
  core.updateApplication({
    new: [
      { applicationID: "capped-app", queueName: "root.capped", ugi: { user: "bob", groups: ["dev"] } },
      { applicationID: "lim-alice", queueName: "root.limited", ugi: { user: "alice", groups: ["dev"] } },
    ],
  });
  const ask = (app: string, key: string, pod: string) => ({
    allocationKey: key,
    applicationID: app,
    resourcePerAlloc: { vcore: 1000, memory: GI },
    allocationTags: { "kubernetes.io/meta/namespace": "batch", "kubernetes.io/meta/podName": pod },
  });
  for (let i = 0; i < 3; i++) {
    now = T0 + i * 1000;
    core.updateAllocation({ allocations: [ask("capped-app", `c${i}`, `cap-${i}`), ask("lim-alice", `l${i}`, `la-${i}`)] });
  }
  for (let i = 0; i < 5; i++) core.schedule();
  uiDir = await mkdtemp(join(tmpdir(), "corral-ui-"));
  await mkdir(join(uiDir, "assets"));
  await writeFile(join(uiDir, "index.html"), "<!doctype html><title>corral</title>");
  await writeFile(join(uiDir, "assets", "app-abc.js"), "console.log(1)");
  rest = await startRestServer({
    host: "127.0.0.1",
    port: 0,
    log: pino({ level: "silent" }),
    config: () => core.appliedConfig,
    core,
    uiDir,
  });
});
afterAll(async () => rest?.close());

describe("GET /ws/v1/corral/pending", () => {
  it("lists each waiting pod with its application, user, queue, since and the hold as data", async () => {
    const r = await fetch(`${base()}/ws/v1/corral/pending`);
    expect(r.status).toBe(200);
    const body = (await r.json()) as PendingList;
    expect(body.partition).toBe("default");
    const byPod = new Map(body.pending.map((p) => [p.pod, p]));
    expect([...byPod.keys()].sort()).toEqual(["cap-2", "la-1", "la-2"]);
    const cap = byPod.get("cap-2")!;
    expect(cap).toMatchObject({
      namespace: "batch",
      applicationId: "capped-app",
      user: "bob",
      groups: ["dev"],
      queue: "root.capped",
      since: T0 + 2000,
      resource: { vcore: 1000, memory: GI },
    });
    expect(cap.hold).toMatchObject({
      kind: "queueMax",
      state: "Skipped",
      queuePath: "root.capped",
      max: { vcore: 2000, memory: 8 * GI },
      used: { vcore: 2000, memory: 2 * GI },
      ask: { vcore: 1000, memory: GI },
    });
    expect(cap.hold!.message).toContain("queue root.capped maximum");
    const lim = byPod.get("la-1")!;
    expect(lim.hold).toMatchObject({
      kind: "limit",
      state: "Skipped",
      hold: {
        kind: "user",
        name: "alice",
        queuePath: "root.limited",
        wildcard: false,
        limit: { type: "resources", max: { vcore: 1000 }, used: { vcore: 1000, memory: GI }, ask: { vcore: 1000, memory: GI } },
      },
    });
    expect(lim.hold!.message).toBe("user alice quota reached on root.limited");
    // oldest first
    expect(body.pending.map((p) => p.since)).toEqual([...body.pending.map((p) => p.since)].sort((a, b) => a - b));
  });

  it("a pod larger than the cluster's free room is held with the capacity and usage", async () => {
    core.updateApplication({ new: [{ applicationID: "huge", queueName: "root.limited", ugi: { user: "carol" } }] });
    core.updateAllocation({ allocations: [{ allocationKey: "h0", applicationID: "huge", resourcePerAlloc: { vcore: 6000 } }] });
    const body = (await (await fetch(`${base()}/ws/v1/corral/pending`)).json()) as PendingList;
    const h = body.pending.find((p) => p.allocationKey === "h0")!;
    expect(h.pod).toBe("");
    expect(h.hold).toMatchObject({
      kind: "clusterCapacity",
      state: "Failed",
      capacity: { vcore: 8000 },
      used: { vcore: 3000 },
      ask: { vcore: 6000 },
    });
    core.updateAllocation({ releases: [{ applicationID: "huge", allocationKey: "h0" }] });
  });

  it("an unknown partition is a 404 in YuniKorn's error body", async () => {
    const r = await fetch(`${base()}/ws/v1/corral/pending?partition=nope`);
    expect(r.status).toBe(404);
    expect(await r.json()).toEqual({ status_code: 404, message: "Partition not found", description: "Partition not found" });
  });
});

describe("GET /ws/v1/corral/limits", () => {
  it("lists named and wildcard limits in core units", async () => {
    const body = (await (await fetch(`${base()}/ws/v1/corral/limits`)).json()) as LimitInfo[];
    expect(body).toEqual([
      { queuePath: "root.limited", kind: "user", name: "alice", maxResources: { vcore: 1000 }, maxApplications: 0 },
      { queuePath: "root.limited", kind: "group", name: "dev", maxApplications: 4 },
      { queuePath: "root.limited", kind: "group", name: "*", maxApplications: 5 },
    ]);
  });
});

describe("GET /ws/v1/corral/applications and /ws/v1/corral/nodes", () => {
  it("summarise applications (counts, not lists) and nodes", async () => {
    const apps = (await (await fetch(`${base()}/ws/v1/corral/applications`)).json()) as ApplicationSummary[];
    const capped = apps.find((a) => a.applicationID === "capped-app")!;
    expect(capped).toMatchObject({
      queueName: "root.capped",
      user: "bob",
      groups: ["dev"],
      applicationState: "Running",
      running: 2,
      waiting: 1,
      usedResource: { vcore: 2000, memory: 2 * GI },
      pendingResource: { vcore: 1000, memory: GI },
    });
    expect(capped.submissionTime).toBeGreaterThanOrEqual(T0);
    expect((await fetch(`${base()}/ws/v1/corral/applications?state=bogus`)).status).toBe(400);
    // one application in any state (YuniKorn's route finds active ones only)
    const one = await (await fetch(`${base()}/ws/v1/corral/application?id=capped-app&partition=default`)).json();
    expect(one).toMatchObject({ applicationID: "capped-app", queueName: "root.capped", applicationState: "Running" });
    core.updateApplication({ new: [{ applicationID: "nowhere", queueName: "root.none", ugi: { user: "bob", groups: [] } }] });
    const rejected = await (await fetch(`${base()}/ws/v1/corral/application?id=nowhere`)).json();
    expect(rejected).toMatchObject({ applicationID: "nowhere", applicationState: "Rejected" });
    expect((await fetch(`${base()}/ws/v1/partition/default/application/nowhere`)).status).toBe(404);
    const unknown = await fetch(`${base()}/ws/v1/corral/application?id=none`);
    expect([unknown.status, (await unknown.json()).message]).toEqual([404, "Application not found"]);
    // an id with the characters an annotation may hold reaches the core as written (decoded once)
    core.updateApplication({ new: [{ applicationID: "job+1 50%done", queueName: "root.capped", ugi: { user: "bob", groups: [] } }] });
    const odd = await fetch(`${base()}/ws/v1/corral/application?id=${encodeURIComponent("job+1 50%done")}`);
    expect([odd.status, (await odd.json()).applicationID]).toEqual([200, "job+1 50%done"]);
    expect((await fetch(`${base()}/ws/v1/corral/application`)).status).toBe(400);
    const nodes = (await (await fetch(`${base()}/ws/v1/corral/nodes`)).json()) as NodeSummary[];
    expect(nodes).toHaveLength(1);
    expect(nodes[0]).toMatchObject({
      nodeID: "n1",
      schedulable: true,
      allocations: 3,
      capacity: { vcore: 8000 },
      allocated: { vcore: 3000 },
      utilized: { vcore: 37 },
    });
  });
});

describe("the dashboard at /ui/", () => {
  it("serves index.html and assets with a Content-Security-Policy, redirects / and /ui", async () => {
    const index = await fetch(`${base()}/ui/`);
    expect(index.status).toBe(200);
    expect(index.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(index.headers.get("content-security-policy")).toBe(CONTENT_SECURITY_POLICY);
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self'");
    expect(CONTENT_SECURITY_POLICY).not.toContain("unsafe");
    expect(index.headers.get("cache-control")).toBe("no-cache");
    expect(await index.text()).toContain("<title>corral</title>");
    const js = await fetch(`${base()}/ui/assets/app-abc.js`);
    expect(js.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(js.headers.get("cache-control")).toContain("immutable");
    for (const p of ["/", "/ui"]) {
      const r = await fetch(`${base()}${p}`, { redirect: "manual" });
      expect(r.status).toBe(302);
      expect(r.headers.get("location")).toBe("/ui/");
    }
    expect((await fetch(`${base()}/ui/nope.js`)).status).toBe(404);
  });

  it("never serves a file outside its directory", () => {
    expect(uiFile("/srv/ui", "/ui/../etc/passwd")).toBeUndefined();
    expect(uiFile("/srv/ui", "/ui/%2e%2e/etc/passwd")).toBeUndefined();
    expect(uiFile("/srv/ui", "/ui/a%00b")).toBeUndefined();
    expect(uiFile("/srv/ui", "/ui/%zz")).toBeUndefined();
    expect(uiFile("/srv/ui", "/ui/")).toBe("/srv/ui/index.html");
    expect(uiFile("/srv/ui", "/ui/assets/x.js")).toBe("/srv/ui/assets/x.js");
  });

  it("answers only reads: a POST to /ui/ is not served", async () => {
    const r = await fetch(`${base()}/ui/`, { method: "POST", body: "x" });
    expect(r.status).toBe(404);
  });
});
