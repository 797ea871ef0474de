/**
 * The scheduler REST API over real HTTP, and the admission controller's client of its validate-conf endpoint.
 */
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultAdmissionConfig } from "../../src/admission/config.js";
import { validateConfigMap } from "../../src/admission/config-validation.js";
import { decodeQueuesYaml } from "../../src/scheduler/core/config.js";
import { validateSchedulerConfig } from "../../src/scheduler/core/validate.js";
import { type RestServer, startRestServer } from "../../src/scheduler/rest/server.js";
import { schedulerQueueValidator } from "../../src/server/scheduler-client.js";
import type { AdmissionRequest } from "../../src/webhook/admission-review.js";

let rest: RestServer;
const cfg = validateSchedulerConfig(
  decodeQueuesYaml("partitions:\n  - name: default\n    queues:\n      - name: root\n        submitacl: '*'\n"),
);

beforeAll(async () => {
  rest = await startRestServer({ host: "127.0.0.1", port: 0, log: pino({ level: "silent" }), config: () => cfg });
});
afterAll(async () => rest?.close());

const base = () => `http://127.0.0.1:${rest.port}`;

describe("scheduler REST API", () => {
  it("POST /ws/v1/validate-conf: always 200, allowed or the reason", async () => {
    const ok = await fetch(`${base()}/ws/v1/validate-conf`, { method: "POST", body: "partitions: []\n" });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("content-type")).toBe("application/json; charset=UTF-8");
    expect(ok.headers.get("access-control-allow-methods")).toBe("OPTIONS, POST");
    expect(await ok.json()).toEqual({ allowed: true });
    const bad = await fetch(`${base()}/ws/v1/validate-conf`, {
      method: "POST",
      body: "partitions:\n  - name: default\n    nodesortpolicy: {type: invalid}\n    queues: [{name: root}]\n",
    });
    expect(await bad.json()).toEqual({ allowed: false, reason: "undefined policy: invalid" });
  });

  it("GET /ws/v1/config as YAML or JSON; unknown paths give YuniKorn's error body", async () => {
    const yaml = await (await fetch(`${base()}/ws/v1/config`)).text();
    expect(yaml).toContain("partitions:");
    expect(yaml).toMatch(/^checksum: [0-9A-F]{64}$/m);
    expect(yaml).toContain("deadlockdetectionenabled: false\ndeadlocktimeoutseconds: 60\n");
    // upstream's ConfigDAOInfo as encoding/json writes it: Go field names
    const j = await (await fetch(`${base()}/ws/v1/config`, { headers: { accept: "application/json" } })).json();
    expect(j.Partitions[0].Name).toBe("default");
    expect(j).toMatchObject({
      Checksum: expect.stringMatching(/^[0-9A-F]{64}$/),
      DeadlockDetectionEnabled: false,
      DeadlockTimeoutSeconds: 60,
    });
    // JSON only for exactly that Accept header (upstream getClusterConfig); the YAML answer has the CORS headers
    const browser = await fetch(`${base()}/ws/v1/config`, { headers: { accept: "application/json, text/plain, */*" } });
    expect(browser.headers.get("content-type")).toBe("application/x-yaml; charset=UTF-8");
    expect(browser.headers.get("access-control-allow-origin")).toBe("*");
    expect(await browser.text()).toContain("partitions:");
    const nf = await fetch(`${base()}/ws/v1/nope`);
    expect([nf.status, await nf.text()]).toEqual([404, "404 page not found\n"]);
  });

  it("the admission controller validates yunikorn-configs through it", async () => {
    const admission = defaultAdmissionConfig("corral");
    const validator = schedulerQueueValidator(`127.0.0.1:${rest.port}`, 2000);
    const req = (queues: string): AdmissionRequest => ({
      uid: "u",
      kind: { group: "", version: "v1", kind: "ConfigMap" },
      namespace: "corral",
      operation: "UPDATE",
      object: { metadata: { name: "yunikorn-configs", namespace: "corral" }, data: { "queues.yaml": queues } },
    });
    const lookups = { configMap: () => undefined };
    const good = await validateConfigMap(
      req("partitions:\n  - name: default\n    queues: [{name: root}]\n"),
      admission,
      lookups,
      validator,
    );
    expect(good.allowed).toBe(true);
    const bad = await validateConfigMap(
      req("partitions:\n  - name: default\n    queues:\n      - name: root\n        queues: [{name: a.b}]\n"),
      admission,
      lookups,
      validator,
    );
    expect(bad).toMatchObject({ allowed: false, message: expect.stringMatching(/^invalid queue name/) });
    const down = await validateConfigMap(req("partitions: []\n"), admission, lookups, schedulerQueueValidator("127.0.0.1:1", 500));
    expect(down.allowed).toBe(true);
    expect(down.warnings[0]).toMatch(/not validated/);
  });
});

describe("scheduler REST API over a running core", () => {
  it("partitions, queues, nodes, applications and user usage in YuniKorn's shapes", async () => {
    const { SchedulerCore } = await import("../../src/scheduler/core/scheduler.js");
    const core = new SchedulerCore(
      () => 1_700_000_000_000,
      "partitions:\n  - name: default\n    queues:\n      - name: root\n        submitacl: '*'\n        queues:\n" +
        "          - name: a\n            resources: {max: {memory: 100}}\n",
    );
    const r = await startRestServer({ host: "127.0.0.1", port: 0, log: pino({ level: "silent" }), config: () => cfg, core });
    try {
      expect(
        core.updateNode([{ nodeID: "n1", action: "CREATE", schedulableResource: { memory: 1000, vcore: 4000 } }]).acceptedNodes,
      ).toEqual(["n1"]);
      expect(
        core.updateApplication({ new: [{ applicationID: "app-1", queueName: "root.a", ugi: { user: "alice", groups: ["users"] } }] })
          .acceptedApplications,
      ).toEqual(["app-1"]);
      expect(
        core.updateApplication({ new: [{ applicationID: "app-2", queueName: "root.zzz", ugi: { user: "bob" } }] }).rejectedApplications,
      ).toEqual([{ id: "app-2", reason: "failed to place application app-2: application rejected: no placement rule matched" }]);
      core.updateAllocation({
        allocations: [1, 2, 3].map((i) => ({
          allocationKey: `k${i}`,
          applicationID: "app-1",
          resourcePerAlloc: { memory: 40, vcore: 100 },
        })),
      });
      expect(core.schedule().map((a) => a.key)).toEqual(["k1", "k2"]);
      const get = async (path: string) => {
        const res = await fetch(`http://127.0.0.1:${r.port}${path}`);
        return { status: res.status, body: await res.json() };
      };
      expect((await get("/ws/v1/partitions")).body[0]).toMatchObject({
        name: "default",
        totalNodes: 1,
        totalContainers: 2,
        capacity: { capacity: { memory: 1000, vcore: 4000 } },
      });
      const queues = (await get("/ws/v1/partition/default/queues")).body;
      expect(queues).toMatchObject({
        queuename: "root",
        partition: "default",
        children: [
          {
            queuename: "root.a",
            allocatedResource: { memory: 80, vcore: 200 },
            pendingResource: { memory: 40, vcore: 100 },
            maxResource: { memory: 100 },
            isLeaf: true,
          },
        ],
      });
      expect((await get("/ws/v1/partition/default/queue/root.a")).body.absUsedCapacity).toEqual({ memory: 80 });
      expect((await get("/ws/v1/partition/default/nodes")).body[0]).toMatchObject({
        nodeID: "n1",
        allocated: { memory: 80, vcore: 200 },
        available: { memory: 920, vcore: 3800 },
        schedulable: true,
      });
      const app = (await get("/ws/v1/partition/default/application/app-1")).body;
      expect(app).toMatchObject({
        applicationID: "app-1",
        queueName: "root.a",
        user: "alice",
        groups: ["users"],
        usedResource: { memory: 80, vcore: 200 },
      });
      expect(app.requests.map((x: { allocationKey: string }) => x.allocationKey)).toEqual(["k3"]);
      expect((await get("/ws/v1/partition/default/applications/rejected")).body).toMatchObject([
        {
          applicationID: "app-2",
          partition: "default",
          applicationState: "Rejected",
          rejectedMessage: "failed to place application app-2: application rejected: no placement rule matched",
        },
      ]);
      expect((await get("/ws/v1/partition/default/applications/bogus")).status).toBe(400);
      expect((await get("/ws/v1/partition/default/usage/users")).body).toContainEqual({
        userName: "alice",
        queues: {
          queuePath: "root",
          resourceUsage: { memory: 80, vcore: 200 },
          runningApplications: ["app-1"],
          children: [{ queuePath: "root.a", resourceUsage: { memory: 80, vcore: 200 }, runningApplications: ["app-1"] }],
        },
      });
      expect(await get("/ws/v1/partition/nope/queues")).toEqual({
        status: 404,
        body: { status_code: 404, message: "Partition not found", description: "Partition not found" },
      });
      expect((await get("/ws/v1/partition/default/application/none")).body.message).toBe("Application not found");
      const metrics = await (await fetch(`http://127.0.0.1:${r.port}/ws/v1/metrics`)).text();
      expect(metrics).toContain('yunikorn_queue_resource{queue="root.a",resource="memory",state="allocated"} 80');
      expect(metrics).toContain('yunikorn_queue_app{queue="root.a",state="running"} 1');
      expect(metrics).toContain('yunikorn_scheduler_node{state="active"} 1');
      // YuniKorn's counters and the per-name families, as a scrape over HTTP sees them (rest/metrics.ts)
      expect(metrics).toContain('yunikorn_scheduler_container_allocation_attempt_total{state="allocated"} 2');
      expect(metrics).toContain('yunikorn_scheduler_application_submission_total{result="rejected"} 1');
      expect(metrics).toContain("# TYPE yunikorn_root_a_queue_container counter");
      expect(metrics).toContain('yunikorn_root_a_queue_container{state="allocated"} 2');
      expect(metrics).toContain('yunikorn_scheduler_memory_node_usage_total{range="[0,10%]"} 1');
      expect(metrics).toContain('yunikorn_queue_app_total{queue="",state="rejected"} 1');
      // Prometheus asks for gzip: compressed once, and it reads back as the same exposition
      const zipped = await fetch(`http://127.0.0.1:${r.port}/ws/v1/metrics`, { headers: { "accept-encoding": "gzip" } });
      expect(zipped.headers.get("content-encoding")).toBe("gzip");
      expect(await zipped.text()).toContain('yunikorn_root_a_queue_container{state="allocated"} 2');
      const h = (await get("/ws/v1/scheduler/healthcheck")).body;
      expect(h.Healthy).toBe(true);
      // upstream's nine checks, in its order (health_checker.go)
      expect(h.HealthChecks.map((c: { Name: string }) => c.Name)).toEqual([
        "Scheduling errors",
        "Failed nodes",
        "Negative resources",
        "Negative resources",
        "Consistency of data",
        "Consistency of data",
        "Reservation check",
        "Orphan allocation on node check",
        "Orphan allocation on app check",
      ]);
      expect(h.HealthChecks[0].DiagnosisMessage).toBe("There were 0 scheduling errors logged in the metrics");
      expect(h.HealthChecks[2].DiagnosisMessage).toBe("Partitions with negative resources: []");
      expect(h.HealthChecks[6].DiagnosisMessage).toBe("Reservation/node nr ratio: [0.000000]");
    } finally {
      await r.close();
    }
  });
  it("the new states and typed hold reasons: state log, rejected application record, a held request's reason, a reserved node", async () => {
    const { SchedulerCore } = await import("../../src/scheduler/core/scheduler.js");
    let now = 1_700_000_000_000;
    const core = new SchedulerCore(
      () => now,
      "partitions:\n  - name: default\n    queues:\n      - name: root\n        submitacl: '*'\n        queues:\n" +
        "          - name: a\n            resources: {max: {memory: 100}}\n          - name: b\n",
    );
    const r = await startRestServer({ host: "127.0.0.1", port: 0, log: pino({ level: "silent" }), config: () => cfg, core });
    try {
      core.updateNode([
        { nodeID: "n1", action: "CREATE", schedulableResource: { memory: 100 } },
        { nodeID: "n2", action: "CREATE", schedulableResource: { memory: 100 } },
      ]);
      core.updateApplication({
        new: [
          { applicationID: "app-1", queueName: "root.a", ugi: { user: "alice" } },
          { applicationID: "app-3", queueName: "root.b", ugi: { user: "carol" } },
        ],
      });
      core.updateApplication({ new: [{ applicationID: "app-2", queueName: "root.zzz", ugi: { user: "bob" } }] });
      core.updateAllocation({
        allocations: [60, 60].map((m, i) => ({ allocationKey: `k${i}`, applicationID: "app-1", resourcePerAlloc: { memory: m } })),
      });
      core.updateAllocation({ allocations: [{ allocationKey: "w", applicationID: "app-3", resourcePerAlloc: { memory: 50 } }] });
      expect(core.schedule().map((a) => a.key)).toEqual(["k0", "w"]);
      core.updateAllocation({ allocations: [{ allocationKey: "big", applicationID: "app-3", resourcePerAlloc: { memory: 70 } }] });
      now += 2000;
      expect(core.scheduleResults()).toEqual([{ kind: "reserved", appId: "app-3", key: "big", nodeId: "n2" }]);
      const get = async (path: string) => (await fetch(`http://127.0.0.1:${r.port}${path}`)).json();
      const app1 = await get("/ws/v1/partition/default/application/app-1");
      expect(app1.applicationState).toBe("Starting");
      // states entered: upstream never logs the initial New
      expect(app1.stateLog.map((x: { applicationState: string }) => x.applicationState)).toEqual(["Accepted", "Starting"]);
      expect(app1.requests[0].holdReason).toEqual({
        kind: "queueMax",
        queuePath: "root.a",
        max: { memory: 100 },
        used: { memory: 60 },
        ask: { memory: 60 },
        state: "Skipped",
        message: "queue root.a maximum map[memory:100] reached (used map[memory:60])",
      });
      const app3 = await get("/ws/v1/partition/default/application/app-3");
      expect(app3.requests[0]).toMatchObject({
        allocationKey: "big",
        reservedNodeId: "n2",
        holdReason: { kind: "reservation", nodeId: "n2", state: "Failed" },
      });
      // application.go HasReserved, GetReservations: the reserving asks' keys
      expect(app3).toMatchObject({ hasReserved: true, reservations: ["big"] });
      expect(await get("/ws/v1/partition/default/application/app-1")).not.toHaveProperty("hasReserved");
      // a rejected application is not found by id (upstream PartitionContext.GetApplication): it is listed as rejected
      expect(await get("/ws/v1/partition/default/application/app-2")).toMatchObject({ status_code: 404 });
      const app2 = (await get("/ws/v1/partition/default/applications/rejected")).find(
        (a: { applicationID: string }) => a.applicationID === "app-2",
      );
      expect(app2).toMatchObject({
        applicationState: "Rejected",
        rejectedMessage: "failed to place application app-2: application rejected: no placement rule matched",
        queueName: "",
      });
      expect(app2.stateLog.map((x: { applicationState: string }) => x.applicationState)).toEqual(["Rejected"]);
      expect(app2.rejectionReason).toMatchObject({
        kind: "placementRefused",
        state: "Skipped",
        message: "application rejected: no placement rule matched",
      });
      expect(await get("/ws/v1/partition/default/node/n2")).toMatchObject({ isReserved: true, reservations: ["big"] });
      expect((await get("/ws/v1/partitions"))[0].applications).toEqual({ total: 3, Starting: 2, Rejected: 1 });
    } finally {
      await r.close();
    }
  });

  it("nodes list other schedulers' pods as foreignAllocations, from the shim (YuniKorn 1.6+ NodeDAOInfo)", async () => {
    const { SchedulerCore } = await import("../../src/scheduler/core/scheduler.js");
    const { ShimContext } = await import("../../src/scheduler/shim/context.js");
    const { fakeNode, shimPod } = await import("../unit/shim/fixtures.js");
    const core = new SchedulerCore(() => 1_700_000_000_000);
    const ctx = new ShimContext(core);
    ctx.syncNode(fakeNode("n1", { cpu: "4", memory: "8Gi" }));
    ctx.syncNode(fakeNode("n2", { cpu: "4", memory: "8Gi" }));
    const created = "2026-01-05T09:00:00Z";
    ctx.syncPod(
      shimPod("web", {
        namespace: "apps",
        created,
        requests: { cpu: "500m", memory: "1Gi" },
        container: "main",
        node: "n1",
        scheduler: "default-scheduler",
        labels: { tier: "front" },
      }),
    );
    // a static pod (owned by its Node) of another scheduler: tagged `static`, never preemptable
    const mirror = shimPod("kube-proxy-n1", {
      namespace: "kube-system",
      created,
      requests: { cpu: "100m" },
      node: "n1",
      scheduler: "default-scheduler",
    });
    mirror.metadata!.ownerReferences = [{ apiVersion: "v1", kind: "Node", name: "n1", uid: "node-uid-n1" }];
    ctx.syncPod(mirror);
    const r = await startRestServer({
      host: "127.0.0.1",
      port: 0,
      log: pino({ level: "silent" }),
      config: () => cfg,
      core,
      foreignAllocations: (id) => ctx.foreignPods(id),
    });
    try {
      const get = async (path: string) => (await fetch(`http://127.0.0.1:${r.port}${path}`)).json();
      const nodes = (await get("/ws/v1/partition/default/nodes")) as Record<string, unknown>[];
      const n1 = nodes.find((n) => n.nodeID === "n1")!;
      // tags as upstream's shim sends a foreign pod's (si_helper.go CreateAllocationForForeignPod): the web UI names the
      // pod `namespace/podName` from them (yunikorn-web scheduler.service.ts), "<nil>" without them
      const creationTime = String(Date.parse(created) / 1000);
      expect(n1.foreignAllocations).toEqual([
        {
          allocationKey: "uid-kube-proxy-n1",
          allocationTags: {
            "kubernetes.io/meta/namespace": "kube-system",
            "kubernetes.io/meta/podName": "kube-proxy-n1",
            creationTime,
            foreign: "static",
          },
          allocationTime: Date.parse(created) * 1e6,
          resource: { vcore: 100, pods: 1 },
          priority: "0",
          nodeId: "n1",
        },
        {
          allocationKey: "uid-web",
          allocationTags: {
            "kubernetes.io/meta/namespace": "apps",
            "kubernetes.io/meta/podName": "web",
            "kubernetes.io/label/tier": "front",
            creationTime,
            foreign: "default",
          },
          allocationTime: Date.parse(created) * 1e6,
          resource: { vcore: 500, memory: 2 ** 30, pods: 1 },
          priority: "0",
          nodeId: "n1",
          preemptable: true,
        },
      ]);
      // still counted as occupied, as before
      expect(n1.occupied).toEqual({ vcore: 600, memory: 2 ** 30, pods: 2 });
      expect(nodes.find((n) => n.nodeID === "n2")).not.toHaveProperty("foreignAllocations");
      expect(((await get("/ws/v1/partition/default/node/n1")) as Record<string, unknown>).foreignAllocations).toEqual(
        n1.foreignAllocations,
      );
    } finally {
      await r.close();
    }
  });

  it("?status= filters corral's own Starting and Reserving applications too", async () => {
    const { SchedulerCore } = await import("../../src/scheduler/core/scheduler.js");
    const core = new SchedulerCore(
      () => 1_700_000_000_000,
      "partitions:\n  - name: default\n    queues:\n      - name: root\n        submitacl: '*'\n        queues: [{name: a}]\n",
    );
    core.updateNode([{ nodeID: "n1", action: "CREATE", schedulableResource: { memory: 1000 } }]);
    core.updateApplication({
      new: [
        { applicationID: "plain", queueName: "root.a", ugi: { user: "u" } },
        { applicationID: "gang", queueName: "root.a", ugi: { user: "u" }, placeholderAsk: { memory: 2000 } },
      ],
    });
    core.updateAllocation({
      allocations: [
        { allocationKey: "p1", applicationID: "plain", resourcePerAlloc: { memory: 10 } },
        { allocationKey: "g1", applicationID: "gang", resourcePerAlloc: { memory: 10 }, taskGroupName: "tg" },
      ],
    });
    core.schedule();
    expect([core.applicationState("plain"), core.applicationState("gang")]).toEqual(["Starting", "Reserving"]);
    const r = await startRestServer({ host: "127.0.0.1", port: 0, log: pino({ level: "silent" }), config: () => cfg, core });
    try {
      const ids = async (q: string) => {
        const res = await fetch(`http://127.0.0.1:${r.port}/ws/v1/partition/default/applications/active${q}`);
        expect(res.status).toBe(200);
        return ((await res.json()) as { applicationID: string }[]).map((a) => a.applicationID).sort();
      };
      expect(await ids("")).toEqual(["gang", "plain"]);
      expect(await ids("?status=starting")).toEqual(["plain"]);
      expect(await ids("?status=Reserving")).toEqual(["gang"]);
      expect(await ids("?status=accepted")).toEqual([]);
    } finally {
      await r.close();
    }
  });
});
