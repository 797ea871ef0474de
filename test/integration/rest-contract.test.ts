/**
 * Contract tests of the REST API: one per endpoint, each response checked against YuniKorn's response shapes
 * (test/fixtures/yunikorn-rest-dao.json, written from apache/yunikorn-core pkg/webservice/dao and
 * apache/yunikorn-site docs/api/scheduler.md): every field corral sends is one of upstream's with upstream's JSON
 * type, the fields upstream always sends are there, and values are in YuniKorn's units (bytes, millicores, Unix ns).
 * The core holds queues (managed and dynamic), nodes, running, completed and rejected applications and two users.
 */
import { readFileSync } from "node:fs";
import { type IncomingHttpHeaders, request as httpRequest } from "node:http";
import { gunzipSync } from "node:zlib";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SchedulerCore } from "../../src/scheduler/core/scheduler.js";
import { EventSystem } from "../../src/scheduler/events/system.js";
import { type RestServer, startRestServer } from "../../src/scheduler/rest/server.js";

type Schema = Record<string, { fields: Record<string, string>; extensions?: Record<string, string>; required: string[] }>;
const DAO = JSON.parse(readFileSync(new URL("../fixtures/yunikorn-rest-dao.json", import.meta.url), "utf8")) as Schema;

/** The differences between `value` and upstream's `type` (empty: it conforms). */
function conform(value: unknown, type: string, at = "$"): string[] {
  const out: string[] = [];
  const [kind, ...rest] = type.split(":");
  const inner = rest.join(":");
  switch (kind) {
    case "any":
      break;
    case "string":
      if (typeof value !== "string") out.push(`${at}: ${JSON.stringify(value)} is not a string`);
      break;
    case "boolean":
      if (typeof value !== "boolean") out.push(`${at}: ${JSON.stringify(value)} is not a boolean`);
      break;
    case "number":
      if (!Number.isInteger(value)) out.push(`${at}: ${JSON.stringify(value)} is not an integer`);
      break;
    case "float":
      if (typeof value !== "number") out.push(`${at}: ${JSON.stringify(value)} is not a number`);
      break;
    case "array":
      if (!Array.isArray(value)) out.push(`${at}: not an array`);
      else value.forEach((v, i) => out.push(...conform(v, inner, `${at}[${i}]`)));
      break;
    case "map":
      if (!value || typeof value !== "object" || Array.isArray(value)) out.push(`${at}: not an object`);
      else for (const [k, v] of Object.entries(value)) out.push(...conform(v, inner, `${at}.${k}`));
      break;
    case "object": {
      const t = DAO[inner];
      if (!t) throw new Error(`no type ${inner}`);
      if (!value || typeof value !== "object" || Array.isArray(value)) {
        out.push(`${at}: not an object (${inner})`);
        break;
      }
      const v = value as Record<string, unknown>;
      for (const [k, x] of Object.entries(v)) {
        const ft = t.fields[k] ?? t.extensions?.[k];
        if (!ft) out.push(`${at}.${k}: not a field of ${inner}`);
        else out.push(...conform(x, ft, `${at}.${k}`));
      }
      for (const k of t.required) if (!(k in v)) out.push(`${at}.${k}: missing (${inner} always has it)`);
      break;
    }
    default:
      throw new Error(`bad type ${type}`);
  }
  return out;
}

const G = 1024 ** 3;
const T0 = 1_700_000_000_000;
let now = T0;
const CONFIG = `partitions:
  - name: default
    placementrules:
      - {name: provided, create: false}
      - name: tag
        value: namespace
        create: true
        filter: {type: deny, users: [mallory, eve]}
    queues:
      - name: root
        submitacl: '*'
        queues:
          - name: a
            resources: {guaranteed: {vcore: 2}, max: {vcore: 3, memory: 6Gi}}
          - name: b
`;
let core: SchedulerCore;
let events: EventSystem;
let rest: RestServer;
const base = () => `http://127.0.0.1:${rest.port}`;
const get = async (path: string) => {
  const res = await fetch(`${base()}${path}`);
  return { status: res.status, headers: res.headers, body: (await res.json()) as unknown };
};
/** GETs `path` and checks the answer against upstream's type. */
const conforming = async (path: string, type: string) => {
  const r = await get(path);
  expect(r.status, path).toBe(200);
  expect(r.headers.get("content-type")).toBe("application/json; charset=UTF-8");
  expect(conform(r.body, type), path).toEqual([]);
  return r.body as never;
};
const refused = async (path: string, status: number, message: string | RegExp) => {
  const r = await get(path);
  expect(r.status, path).toBe(status);
  expect(conform(r.body, "object:YAPIError")).toEqual([]);
  expect((r.body as { message: string }).message).toMatch(message);
  expect((r.body as { status_code: number }).status_code).toBe(status);
};

beforeAll(async () => {
  events = new EventSystem({ now: () => now, instanceUUID: "5b9b9c3e-1b43-4a5e-9c55-5a2fbd1b6b30" });
  core = new SchedulerCore(() => now, CONFIG, { events: events.add });
  core.updateNode([
    {
      nodeID: "n1",
      action: "CREATE",
      schedulableResource: { vcore: 4000, memory: 8 * G, pods: 110 },
      attributes: { "si/hostname": "n1", "si/rackname": "/rack-default" },
    },
    {
      nodeID: "n2",
      action: "CREATE",
      schedulableResource: { vcore: 4000, memory: 8 * G, pods: 110 },
      attributes: { "si/hostname": "n2", "si/rackname": "/rack-default" },
    },
  ]);
  const tags = (ns: string, pod: string) => ({
    "kubernetes.io/meta/namespace": ns,
    "kubernetes.io/meta/podName": pod,
    "kubernetes.io/label/app": "sleep",
    creationTime: String(T0 / 1000),
  });
  core.updateApplication({
    new: [
      { applicationID: "app-run", queueName: "root.a", ugi: { user: "alice", groups: ["dev"] } },
      { applicationID: "app-done", queueName: "root.b", ugi: { user: "bob", groups: ["ops"] } },
      { applicationID: "app-dyn", queueName: "", ugi: { user: "alice", groups: ["dev"] }, tags: { namespace: "ml" } },
      { applicationID: "app-rej", queueName: "root.nope", ugi: { user: "mallory" } },
    ],
  });
  core.updateAllocation({
    allocations: [
      {
        allocationKey: "run-1",
        applicationID: "app-run",
        resourcePerAlloc: { vcore: 1000, memory: G, pods: 1 },
        allocationTags: tags("batch", "run-1"),
      },
      {
        allocationKey: "run-2",
        applicationID: "app-run",
        resourcePerAlloc: { vcore: 1000, memory: G, pods: 1 },
        allocationTags: tags("batch", "run-2"),
      },
      {
        allocationKey: "run-3",
        applicationID: "app-run",
        resourcePerAlloc: { vcore: 2000, memory: G, pods: 1 },
        allocationTags: tags("batch", "run-3"),
      },
      {
        allocationKey: "done-1",
        applicationID: "app-done",
        resourcePerAlloc: { vcore: 500, memory: G / 2, pods: 1 },
        allocationTags: tags("ops", "done-1"),
      },
      {
        allocationKey: "dyn-1",
        applicationID: "app-dyn",
        resourcePerAlloc: { vcore: 250, memory: G / 4, pods: 1 },
        allocationTags: tags("ml", "dyn-1"),
      },
    ],
  });
  now += 1000;
  expect(
    core
      .schedule()
      .map((a) => a.key)
      .sort(),
  ).toEqual(["done-1", "dyn-1", "run-1", "run-2"]);
  core.updateAllocation({ releases: [{ applicationID: "app-done", allocationKey: "done-1" }] });
  now += 31_000;
  core.schedule(); // app-done: Completing → Completed
  rest = await startRestServer({
    host: "127.0.0.1",
    port: 0,
    log: pino({ level: "silent" }),
    config: () => core.appliedConfig,
    core,
    events,
    startTime: T0,
    build: { buildVersion: "0.1.0", buildDate: "", isPluginVersion: "false" },
    rmDiagnostics: () => ({ tasks: 3 }),
  });
});
afterAll(async () => rest?.close());

describe("REST contract (YuniKorn DAO shapes)", () => {
  it("GET /ws/v1/clusters → []ClusterDAOInfo", async () => {
    const b = await conforming("/ws/v1/clusters", "array:object:ClusterDAOInfo");
    expect(b).toEqual([
      {
        startTime: T0 * 1e6,
        rmBuildInformation: [{ buildVersion: "0.1.0", buildDate: "", isPluginVersion: "false", rmId: "mycluster" }],
        partition: "default",
        clusterName: "kubernetes",
      },
    ]);
  });

  it("GET /ws/v1/partitions → []PartitionInfo; preemption on (upstream's default without a preemption key)", async () => {
    const [p] = (await conforming("/ws/v1/partitions", "array:object:PartitionInfo")) as Record<string, any>[];
    expect(p).toMatchObject({
      name: "default",
      preemptionEnabled: true,
      quotaPreemptionEnabled: false,
      totalNodes: 2,
      totalContainers: 3,
      lastStateTransitionTime: T0 * 1e6,
      capacity: { capacity: { vcore: 8000, memory: 16 * G, pods: 220 } },
    });
    expect(p!.applications).toMatchObject({ Completed: 1, Rejected: 1, total: 4 });
  });

  it("GET /ws/v1/partition/{p}/placementrules → []RuleDAO with the trailing recovery rule", async () => {
    const b = await conforming("/ws/v1/partition/default/placementrules", "array:object:RuleDAO");
    expect(b).toEqual([
      { name: "provided", parameters: { create: "false" } },
      { name: "tag", parameters: { create: "true", tagName: "namespace" }, filter: { type: "deny", userList: ["mallory", "eve"] } },
      { name: "recovery", parameters: { queue: "root.@recovery@" } },
    ]);
    await refused("/ws/v1/partition/nope/placementrules", 404, "Partition not found");
  });

  it("GET /ws/v1/partition/{p}/queues and /queue/{q} → PartitionQueueDAOInfo", async () => {
    const root = (await conforming("/ws/v1/partition/default/queues", "object:PartitionQueueDAOInfo")) as Record<string, any>;
    expect(root.children.map((c: { queuename: string }) => c.queuename)).toEqual(["root.a", "root.b", "root.ml"]);
    const a = (await conforming("/ws/v1/partition/default/queue/root.a", "object:PartitionQueueDAOInfo")) as Record<string, any>;
    expect(a).toMatchObject({
      queuename: "root.a",
      maxResource: { vcore: 3000, memory: 6 * G },
      guaranteedResource: { vcore: 2000 },
      allocatedResource: { vcore: 2000, memory: 2 * G, pods: 2 },
      preemptionEnabled: true,
      isPreemptionFence: false,
      isPriorityFence: false,
    });
    expect(a.preemptingResource).toBeUndefined();
    await refused("/ws/v1/partition/default/queue/root.zz", 404, "Queue not found");
    // upstream common.ErrorInvalidQueueName (handlers_test.go assertQueueInvalid)
    await refused(
      "/ws/v1/partition/default/queue/root.a%20b",
      400,
      "invalid queue name, max 64 characters consisting of alphanumeric characters and '-', '_', '#', '@', '/', ':' allowed",
    );
  });

  it("GET /ws/v1/partition/{p}/queue/{q}/applications[/active] → []ApplicationDAOInfo with stateLog, allocationTags, pendingResource, maxUsedResource", async () => {
    const list = (await conforming("/ws/v1/partition/default/queue/root.a/applications", "array:object:ApplicationDAOInfo")) as Record<
      string,
      any
    >[];
    expect(list.map((a) => a.applicationID)).toEqual(["app-run"]);
    const app = list[0]!;
    expect(app).toMatchObject({
      queueName: "root.a",
      user: "alice",
      groups: ["dev"],
      usedResource: { vcore: 2000, memory: 2 * G, pods: 2 },
      maxUsedResource: { vcore: 2000, memory: 2 * G, pods: 2 },
      pendingResource: { vcore: 2000, memory: G, pods: 1 },
      submissionTime: T0 * 1e6,
    });
    expect(app.stateLog).toEqual([
      { time: T0 * 1e6, applicationState: "Accepted" },
      { time: (T0 + 1000) * 1e6, applicationState: "Starting" },
      { time: (T0 + 1000) * 1e6, applicationState: "Running" },
    ]);
    expect(app.allocations[0]).toMatchObject({
      allocationKey: "run-1",
      nodeId: expect.stringMatching(/^n[12]$/),
      allocationTags: {
        "kubernetes.io/meta/namespace": "batch",
        "kubernetes.io/meta/podName": "run-1",
        "kubernetes.io/label/app": "sleep",
      },
      resource: { vcore: 1000, memory: G, pods: 1 },
      priority: "0",
      allocationTime: (T0 + 1000) * 1e6,
      requestTime: T0 * 1e6,
      allocationDelay: 1000 * 1e6,
    });
    expect(app.requests[0].holdReason).toMatchObject({ state: "Skipped" });
    expect(app.requests[0]).toMatchObject({
      allocationKey: "run-3",
      priority: "0",
      allocationTags: { "kubernetes.io/meta/podName": "run-3" },
    });
    expect(app).not.toHaveProperty("finishedTime");
    expect(
      await conforming("/ws/v1/partition/default/queue/root.a/applications/active?status=new", "array:object:ApplicationDAOInfo"),
    ).toEqual([]);
    expect(
      (
        (await conforming(
          "/ws/v1/partition/default/queue/root.a/applications/active?status=running",
          "array:object:ApplicationDAOInfo",
        )) as unknown[]
      ).length,
    ).toBe(1);
    await refused(
      "/ws/v1/partition/default/queue/root.a/applications/completed",
      400,
      "Only following application states are allowed: active",
    );
    await refused(
      "/ws/v1/partition/default/queue/root.a/applications/active?status=bogus",
      400,
      /Only following active statuses are allowed/,
    );
    await refused("/ws/v1/partition/default/queue/root.zz/applications", 404, "Queue not found");
    await refused("/ws/v1/partition/nope/queue/root.a/applications", 404, "Partition not found");
  });

  it("GET /ws/v1/partition/{p}/queue/{q}/application/{app} → ApplicationDAOInfo", async () => {
    const app = (await conforming("/ws/v1/partition/default/queue/root.ml/application/app-dyn", "object:ApplicationDAOInfo")) as Record<
      string,
      any
    >;
    expect(app).toMatchObject({ applicationID: "app-dyn", queueName: "root.ml" });
    await refused("/ws/v1/partition/default/queue/root.a/application/app-dyn", 404, "Application not found");
    await refused("/ws/v1/partition/default/queue/root.a/application/none", 404, "Application not found");
  });

  it("GET /ws/v1/partition/{p}/applications/{active|completed|rejected} and /application/{app}: finishedTime, rejectedMessage", async () => {
    const active = (await conforming("/ws/v1/partition/default/applications/active", "array:object:ApplicationDAOInfo")) as Record<
      string,
      any
    >[];
    expect(active.map((a) => a.applicationID).sort()).toEqual(["app-dyn", "app-run"]);
    const [done] = (await conforming("/ws/v1/partition/default/applications/completed", "array:object:ApplicationDAOInfo")) as Record<
      string,
      any
    >[];
    expect(done).toMatchObject({
      applicationID: "app-done",
      applicationState: "Completed",
      finishedTime: (T0 + 32_000) * 1e6,
      maxUsedResource: { vcore: 500, memory: G / 2, pods: 1 },
    });
    expect(done!.stateLog.map((s: { applicationState: string }) => s.applicationState)).toEqual([
      "Accepted",
      "Starting",
      "Completing",
      "Completed",
    ]);
    const [rej] = (await conforming("/ws/v1/partition/default/applications/rejected", "array:object:ApplicationDAOInfo")) as Record<
      string,
      any
    >[];
    expect(rej).toMatchObject({
      applicationID: "app-rej",
      applicationState: "Rejected",
      rejectedMessage: "failed to place application app-rej: application rejected: no placement rule matched",
      finishedTime: T0 * 1e6,
      queueName: "",
    });
    await conforming("/ws/v1/partition/default/application/app-run", "object:ApplicationDAOInfo");
    // by id, the partition's and the queue's active applications only (PartitionContext.GetApplication,
    // Queue.GetApplication): a finished or rejected one is listed under /applications/{completed|rejected}
    await refused("/ws/v1/partition/default/application/app-done", 404, "Application not found");
    await refused("/ws/v1/partition/default/application/app-rej", 404, "Application not found");
    await refused("/ws/v1/partition/default/queue/root.b/application/app-done", 404, "Application not found");
    await refused(
      "/ws/v1/partition/default/applications/bogus",
      400,
      "Only following application states are allowed: active, rejected, completed",
    );
    await refused("/ws/v1/partition/default/application/none", 404, "Application not found");
  });

  it("GET /ws/v1/partition/{p}/nodes and /node/{n} → NodeDAOInfo with the allocations' tags", async () => {
    const nodes = (await conforming("/ws/v1/partition/default/nodes", "array:object:NodeDAOInfo")) as Record<string, any>[];
    expect(nodes.map((n) => n.nodeID)).toEqual(["n1", "n2"]);
    const allocs = nodes.flatMap((n) => n.allocations ?? []);
    expect(allocs.map((a: { allocationTags: Record<string, string> }) => a.allocationTags["kubernetes.io/meta/podName"]).sort()).toEqual([
      "dyn-1",
      "run-1",
      "run-2",
    ]);
    await conforming("/ws/v1/partition/default/node/n1", "object:NodeDAOInfo");
    await refused("/ws/v1/partition/default/node/n9", 404, "Node not found");
  });

  it("GET /ws/v1/scheduler/node-utilizations → []PartitionNodesUtilDAOInfo: 10 buckets per resource type", async () => {
    const [u] = (await conforming("/ws/v1/scheduler/node-utilizations", "array:object:PartitionNodesUtilDAOInfo")) as Record<string, any>[];
    expect(u!.utilizations.map((x: { type: string }) => x.type)).toEqual(["memory", "pods", "vcore"]);
    for (const x of u!.utilizations) {
      expect(x.utilization.map((b: { bucketName: string }) => b.bucketName)).toEqual([
        "0-10%",
        "10-20%",
        "20-30%",
        "30-40%",
        "40-50%",
        "50-60%",
        "60-70%",
        "70-80%",
        "80-90%",
        "90-100%",
      ]);
      expect(x.utilization.reduce((n: number, b: { numOfNodes?: number }) => n + (b.numOfNodes ?? 0), 0)).toBe(2);
    }
  });

  it("GET /ws/v1/history/apps and /history/containers: ns timestamps, counts as strings", async () => {
    const apps = (await conforming("/ws/v1/history/apps", "array:object:ApplicationHistoryDAOInfo")) as Record<string, any>[];
    expect(apps.at(-1)).toMatchObject({ totalApplications: "2" });
    expect(apps.at(-1)!.timestamp).toBeGreaterThan(1e18);
    expect(
      ((await conforming("/ws/v1/history/containers", "array:object:ContainerHistoryDAOInfo")) as Record<string, any>[]).at(-1),
    ).toMatchObject({ totalContainers: "3" });
  });

  it("GET /ws/v1/partition/{p}/usage/users|user/{u}|groups|group/{g} → usage trees from root", async () => {
    const users = (await conforming("/ws/v1/partition/default/usage/users", "array:object:UserResourceUsageDAOInfo")) as Record<
      string,
      any
    >[];
    // bob's only application completed: nothing is left in his usage, so he is not listed (upstream drops the tracker)
    expect(users.map((u) => u.userName)).toEqual(["alice"]);
    const alice = (await conforming("/ws/v1/partition/default/usage/user/alice", "object:UserResourceUsageDAOInfo")) as Record<string, any>;
    expect(alice.queues).toMatchObject({ queuePath: "root", resourceUsage: { vcore: 2250 }, runningApplications: ["app-dyn", "app-run"] });
    expect(alice.queues.children.map((c: { queuePath: string }) => c.queuePath)).toEqual(["root.a", "root.ml"]);
    await conforming("/ws/v1/partition/default/usage/groups", "array:object:GroupResourceUsageDAOInfo");
    await refused("/ws/v1/partition/default/usage/user/nobody-here", 404, "User not found");
    await refused("/ws/v1/partition/default/usage/user/9bad", 400, "Invalid user name");
    await refused("/ws/v1/partition/default/usage/group/9bad", 400, "Invalid group name");
    await refused("/ws/v1/partition/default/usage/group/nogroup", 404, "Group not found");
  });

  it("GET /ws/v1/events/batch → EventRecordDAO; bad count/start are 400", async () => {
    const b = (await conforming("/ws/v1/events/batch?count=6", "object:EventRecordDAO")) as Record<string, any>;
    expect(b).toMatchObject({ InstanceUUID: "5b9b9c3e-1b43-4a5e-9c55-5a2fbd1b6b30", LowestID: 0 });
    expect(b.EventRecords).toHaveLength(6);
    // the configured queues first (QUEUE ADD, no detail: managed), then the first node: schedulable, root's max, added
    expect(b.EventRecords[0]).toEqual({ type: 4, objectID: "root", timestampNano: T0 * 1e6, eventChangeType: 2, resource: {} });
    expect(b.EventRecords.slice(0, 3).map((e: { objectID: string }) => e.objectID)).toEqual(["root", "root.a", "root.b"]);
    expect(b.EventRecords[3]).toEqual({
      type: 3,
      objectID: "n1",
      message: "schedulable: true",
      timestampNano: T0 * 1e6,
      eventChangeType: 1,
      eventChangeDetail: 302,
      resource: {},
    });
    expect(b.EventRecords[4]).toMatchObject({ type: 4, objectID: "root", eventChangeType: 1, eventChangeDetail: 403 });
    expect(b.EventRecords[5]).toEqual({
      type: 3,
      objectID: "n1",
      message: "Node added to the scheduler",
      timestampNano: T0 * 1e6,
      eventChangeType: 2,
      resource: { resources: { memory: { value: 8 * G }, pods: { value: 110 }, vcore: { value: 4000 } } },
    });
    const all = (await conforming(`/ws/v1/events/batch?start=${b.HighestID}`, "object:EventRecordDAO")) as Record<string, any>;
    expect(all.EventRecords).toHaveLength(1);
    expect(((await conforming("/ws/v1/events/batch?start=999999", "object:EventRecordDAO")) as Record<string, any>).EventRecords).toEqual(
      [],
    );
    await refused("/ws/v1/events/batch?count=0", 400, '0 is not a valid value for "count"');
    await refused("/ws/v1/events/batch?count=-1", 400, 'strconv.ParseUint: parsing "-1": invalid syntax');
    await refused("/ws/v1/events/batch?start=x", 400, 'strconv.ParseUint: parsing "x": invalid syntax');
  });

  it("GET /ws/v1/events/stream: the instance id, the history asked for, then live events as NDJSON", async () => {
    const ac = new AbortController();
    const res = await fetch(`${base()}/ws/v1/events/stream?count=2`, { signal: ac.signal });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    let text = "";
    const lines = async (n: number) => {
      while (text.split("\n").filter(Boolean).length < n) text += new TextDecoder().decode((await reader.read()).value);
      return text
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l));
    };
    const first = await lines(3);
    expect(conform(first[0], "object:YunikornID")).toEqual([]);
    for (const e of first.slice(1)) expect(conform(e, "object:EventRecord")).toEqual([]);
    core.updateNode([{ nodeID: "n1", action: "DRAIN_NODE" }]);
    const more = await lines(4);
    expect(more[3]).toMatchObject({ type: 3, objectID: "n1", message: "schedulable: false", eventChangeType: 1, eventChangeDetail: 302 });
    core.updateNode([{ nodeID: "n1", action: "DRAIN_TO_SCHEDULABLE" }]);
    ac.abort();
    await refused("/ws/v1/events/stream?count=abc", 400, /invalid syntax/);
  });

  it("GET /ws/v1/scheduler/healthcheck → SchedulerHealthDAOInfo", async () => {
    expect(((await conforming("/ws/v1/scheduler/healthcheck", "object:SchedulerHealthDAOInfo")) as Record<string, any>).Healthy).toBe(true);
  });

  it("GET /debug/fullstatedump → one AggregatedStateInfo document; /debug/stack → the process report", async () => {
    const d = (await conforming("/debug/fullstatedump", "object:AggregatedStateInfo")) as Record<string, any>;
    expect(d.applications.map((a: { applicationID: string }) => a.applicationID).sort()).toEqual([
      "app-done",
      "app-dyn",
      "app-rej",
      "app-run",
    ]);
    expect(d.rmDiagnostics).toEqual({ tasks: 3 });
    const stack = await fetch(`${base()}/debug/stack`);
    expect(stack.status).toBe(200);
    expect(JSON.parse(await stack.text())).toHaveProperty("javascriptStack");
    const moved = await fetch(`${base()}/ws/v1/fullstatedump`, { redirect: "manual" });
    expect([moved.status, moved.headers.get("location")]).toEqual([301, "/debug/fullstatedump"]);
    // the query goes along (upstream redirects to the request's URL with /debug/ for /ws/v1/)
    const withQuery = await fetch(`${base()}/ws/v1/stack?a=1&b=x%20y`, { redirect: "manual" });
    expect([withQuery.status, withQuery.headers.get("location")]).toEqual([301, "/debug/stack?a=1&b=x%20y"]);
    expect(await withQuery.text()).toBe('<a href="/debug/stack?a=1&#38;b=x%20y">Moved Permanently</a>.\n');
  });

  it("around the routes as upstream's server: double escapes, 405 and OPTIONS, redirects, gzip from 1,400 bytes", async () => {
    const raw = (path: string, o: { method?: string; headers?: Record<string, string> } = {}) =>
      new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
        const req = httpRequest({ host: "127.0.0.1", port: rest.port, path, method: o.method ?? "GET", headers: o.headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
        });
        req.on("error", reject);
        req.end();
      });
    // handlers_test.go: a queue name escaped twice is found (the server unescapes the path, the handler the name)
    const twice = await raw("/ws/v1/partition/default/queue/root%252Ea");
    expect([twice.status, JSON.parse(twice.body.toString()).queuename]).toEqual([200, "root.a"]);
    expect(JSON.parse((await raw("/ws/v1/partition/default/queue/%25Zt")).body.toString()).message).toBe('invalid URL escape "%Zt"');
    // the queue name is checked before the partition (getQueueApplications)
    expect((await raw("/ws/v1/partition/nope/queue/root.bad!/applications")).status).toBe(400);
    // httprouter: another method on a known path, OPTIONS, a trailing slash, a path differing in case
    const head = await raw("/ws/v1/clusters", { method: "POST" });
    expect([head.status, head.headers.allow, head.body.toString()]).toEqual([405, "GET, OPTIONS", "Method Not Allowed\n"]);
    const options = await raw("/ws/v1/validate-conf", { method: "OPTIONS" });
    expect([options.status, options.headers.allow, options.body.length]).toEqual([200, "OPTIONS, POST", 0]);
    expect((await raw("/ws/v1/nothing", { method: "OPTIONS" })).status).toBe(404);
    for (const path of ["/ws/v1/clusters/?x=1", "/WS/V1/CLUSTERS?x=1", "//ws/v1//clusters?x=1"]) {
      const moved = await raw(path);
      expect([moved.status, moved.headers.location], path).toEqual([301, "/ws/v1/clusters?x=1"]);
    }
    // a redirect keeps the escapes (no header the server cannot write, no query made of a name); a target no URL
    // parser takes is a 400, and the server answers on
    const escaped = await raw("/ws/v1/partition/default/application/%E4%B8%AD%3Fx/");
    expect([escaped.status, escaped.headers.location]).toEqual([301, "/ws/v1/partition/default/application/%E4%B8%AD%3Fx"]);
    expect((await raw("//a:b/")).status).toBe(400);
    expect((await raw("/ws/v1/clusters")).status).toBe(200);
    // gzip.go: compressed from 1,400 bytes for a client taking gzip, never below, never when refused with q=0
    const plain = await raw("/ws/v1/partition/default/queues");
    expect(plain.body.length).toBeGreaterThanOrEqual(1400);
    const zipped = await raw("/ws/v1/partition/default/queues", { headers: { "accept-encoding": "br, gzip" } });
    expect([zipped.headers["content-encoding"], zipped.headers.vary]).toEqual(["gzip", "Accept-Encoding"]);
    expect(zipped.body.length).toBeLessThan(plain.body.length);
    expect(JSON.parse(gunzipSync(zipped.body).toString())).toEqual(JSON.parse(plain.body.toString()));
    const refusedZip = await raw("/ws/v1/partition/default/queues", { headers: { "accept-encoding": "gzip;q=0" } });
    expect([refusedZip.headers["content-encoding"], refusedZip.body.length]).toEqual([undefined, plain.body.length]);
    const small = await raw("/ws/v1/clusters", { headers: { "accept-encoding": "gzip" } });
    expect([small.body.length < 1400, small.headers["content-encoding"]]).toEqual([true, undefined]);
    // strconv.ParseUint: up to 2^64 − 1 (a count is capped), above it out of range
    expect((await raw("/ws/v1/events/batch?count=18446744073709551615")).status).toBe(200);
    expect(JSON.parse((await raw("/ws/v1/events/batch?count=18446744073709551616")).body.toString()).message).toBe(
      'strconv.ParseUint: parsing "18446744073709551616": value out of range',
    );
  });

  it("unknown partitions, paths and bad escapes answer YuniKorn's error body", async () => {
    for (const p of [
      "/ws/v1/partition/nope/queues",
      "/ws/v1/partition/nope/nodes",
      "/ws/v1/partition/nope/applications/active",
      "/ws/v1/partition/nope/application/x",
    ]) {
      await refused(p, 404, "Partition not found");
    }
    await refused("/ws/v1/partition/default/queue/%E0%A4%A", 400, 'invalid URL escape "%A"');
    // upstream's usage handlers never read the partition (one user/group manager): the default partition's usage
    expect((await get("/ws/v1/partition/nope/usage/users")).body).toEqual((await get("/ws/v1/partition/default/usage/users")).body);
    expect((await get("/ws/v1/partition/nope/usage/group/nobody")).status).toBe(404);
    // Go's http.NotFound for a path no route has
    const nf = await fetch(`${base()}/ws/v1/nothing`);
    expect([nf.status, nf.headers.get("content-type"), await nf.text()]).toEqual([
      404,
      "text/plain; charset=utf-8",
      "404 page not found\n",
    ]);
  });
});

/**
 * Fields the stock YuniKorn web UI (apache/yunikorn-web) and upstream's DAO read that corral left out or reported
 * differently: each pinned against a core of its own, so the shared fixture above stays as it is.
 */
describe("REST contract: fields found missing running the stock YuniKorn web UI", () => {
  const CFG = `partitions:
  - name: default
    placementrules:
      - {name: provided, create: false}
      - {name: tag, value: namespace, create: true, parent: {name: fixed, value: root.tenants}}
    queues:
      - name: root
        submitacl: '*'
        queues:
          - name: a
            resources: {max: {vcore: 2000m}}
            properties: {application.sort.policy: fair, preemption.delay: 90s}
          - name: tenants
            parent: true
            childtemplate:
              maxapplications: 4
              resources: {max: {memory: 2Gi}}
              properties: {application.sort.policy: fifo}
`;
  let t = T0;
  let own: RestServer;
  let ownCore: SchedulerCore;
  const ownGet = async (path: string, type: string) => {
    const res = await fetch(`http://127.0.0.1:${own.port}${path}`);
    expect(res.status, path).toBe(200);
    const body = (await res.json()) as unknown;
    expect(conform(body, type), path).toEqual([]);
    return body as Record<string, any>;
  };
  beforeAll(async () => {
    ownCore = new SchedulerCore(() => t, CFG);
    ownCore.updateNode([
      {
        nodeID: "n1",
        action: "CREATE",
        schedulableResource: { vcore: 4000, memory: 8 * G },
        attributes: { "si/instance-type": "m5.xlarge" },
      },
    ]);
    ownCore.updateApplication({
      new: [
        { applicationID: "full", queueName: "root.a", ugi: { user: "alice" } },
        { applicationID: "done", queueName: "root.a", ugi: { user: "alice" } },
        { applicationID: "dyn", queueName: "", ugi: { user: "bob" }, tags: { namespace: "team" } },
      ],
    });
    const ask = (app: string, key: string, vcore: number) => ({
      allocationKey: key,
      applicationID: app,
      resourcePerAlloc: { vcore, memory: G },
      allocationTags: { "kubernetes.io/meta/namespace": "ns", "kubernetes.io/meta/podName": key },
    });
    ownCore.updateAllocation({
      allocations: [ask("done", "d1", 1000), ask("full", "f1", 1000), ask("full", "f2", 1000), ask("dyn", "y1", 500)],
    });
    t += 1000;
    ownCore.schedule();
    ownCore.checkHold("full", "f2");
    t += 2000;
    ownCore.checkHold("full", "f2");
    t += 60_000;
    ownCore.updateAllocation({ releases: [{ applicationID: "done" }] });
    own = await startRestServer({
      host: "127.0.0.1",
      port: 0,
      log: pino({ level: "silent" }),
      config: () => ownCore.appliedConfig,
      core: ownCore,
    });
  });
  afterAll(async () => own?.close());

  it("clusters: corral's build version and date (the UI's info card showed them empty)", async () => {
    const [c] = (await ownGet("/ws/v1/clusters", "array:object:ClusterDAOInfo")) as unknown as Record<string, any>[];
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
    expect(c!.rmBuildInformation).toEqual([
      {
        buildVersion: pkg.version,
        buildDate: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        isPluginVersion: "false",
        rmId: "mycluster",
      },
    ]);
  });

  it("a pending ask's allocationLog: each hold reason with its count and last occurrence (ns)", async () => {
    const app = await ownGet("/ws/v1/partition/default/application/full", "object:ApplicationDAOInfo");
    expect(app.requests).toHaveLength(1);
    expect(app.requests[0].allocationLog).toEqual([
      {
        message: "queue root.a maximum map[vcore:2000] reached (used map[memory:2147483648 vcore:2000])",
        lastOccurrence: (T0 + 3000) * 1e6,
        count: 2,
      },
    ]);
  });

  it("resourceHistory always present; a released allocation's resource × seconds under its node's instance type", async () => {
    const done = await ownGet("/ws/v1/partition/default/application/done", "object:ApplicationDAOInfo");
    expect(done.resourceHistory).toEqual({ resourceUsage: { "m5.xlarge": { vcore: 1000 * 62, memory: G * 62 } } });
    const full = await ownGet("/ws/v1/partition/default/application/full", "object:ApplicationDAOInfo");
    expect(full.resourceHistory).toEqual({});
  });

  it("usedResource and pendingResource keep zero values (the UI showed n/a where YuniKorn shows 0)", async () => {
    const done = await ownGet("/ws/v1/partition/default/application/done", "object:ApplicationDAOInfo");
    expect(done.usedResource).toEqual({ vcore: 0, memory: 0 });
    expect(done.pendingResource).toEqual({ vcore: 0, memory: 0 });
  });

  it("queues: properties, template (own or inherited), headroom, delays as Go durations, parents sorted fair", async () => {
    const root = await ownGet("/ws/v1/partition/default/queues", "object:PartitionQueueDAOInfo");
    expect(root).toMatchObject({
      sortingPolicy: "fair",
      preemptionDelay: "30s",
      quotaPreemptionDelay: "0s",
      headroom: { vcore: 2500, memory: 6 * G },
    });
    const a = await ownGet("/ws/v1/partition/default/queue/root.a", "object:PartitionQueueDAOInfo");
    expect(a).toMatchObject({
      properties: { "application.sort.policy": "fair", "preemption.delay": "90s" },
      preemptionDelay: "1m30s",
      sortingPolicy: "fair",
      headroom: { vcore: 1000, memory: 6 * G },
    });
    expect(a).not.toHaveProperty("template");
    const tenants = await ownGet("/ws/v1/partition/default/queue/root.tenants", "object:PartitionQueueDAOInfo");
    expect(tenants.template).toEqual({
      maxApplications: 4,
      maxResource: { memory: 2 * G },
      properties: { "application.sort.policy": "fifo" },
    });
    const team = await ownGet("/ws/v1/partition/default/queue/root.tenants.team", "object:PartitionQueueDAOInfo");
    expect(team).toMatchObject({
      isManaged: false,
      maxRunningApps: 4,
      maxResource: { memory: 2 * G },
      properties: { "application.sort.policy": "fifo" },
      headroom: { vcore: 2500, memory: G },
    });
  });
});
