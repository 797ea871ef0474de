/**
 * The core's data behind REST fields upstream has and corral filled late: a pending ask's allocation log, an
 * application's resource history, a queue's properties, child template and headroom (read.ts views), and Go's
 * duration text for the queue delays.
 */
import { describe, expect, it } from "vitest";
import { ALLOCATION_LOG_ENTRIES, AllocationLogs } from "../../../src/scheduler/core/allocation-log.js";
import { formatGoDuration, parseGoDuration } from "../../../src/scheduler/core/queue-properties.js";
import { SchedulerCore } from "../../../src/scheduler/core/scheduler.js";
import { allocationId } from "../../../src/scheduler/core/node.js";
import { lookupsOf } from "../../../src/scheduler/rest/app-dao.js";
import { absUsedCapacity, health, nodeInfo, partitionInfo, queueInfo, userUsage } from "../../../src/scheduler/rest/dao.js";

const G = 1024 ** 3;
/** A core at 1,000 ms whose root (submitacl '*') has `rootYaml` below it (YAML indented 8). */
const coreUnderRoot = (rootYaml: string) =>
  new SchedulerCore(
    () => 1_000,
    `partitions:
  - name: default
    queues:
      - name: root
        submitacl: '*'
${rootYaml}`,
  );
const CFG = `partitions:
  - name: default
    placementrules:
      - {name: provided, create: false}
      - {name: tag, value: namespace, create: true, parent: {name: fixed, value: root.tenants}}
    queues:
      - name: root
        submitacl: '*'
        properties: {custom.key: from-root, priority.offset: "5"}
        queues:
          - name: small
            resources: {max: {vcore: 1}}
            properties: {application.sort.policy: fair}
          - name: tenants
            parent: true
            resources: {max: {vcore: 6, memory: 4Gi}}
            childtemplate:
              maxapplications: 2
              resources: {max: {vcore: 2}}
              properties: {preemption.policy: disabled, "": ignored}
            queues:
              - name: nested
                parent: true
`;

describe("allocation log", () => {
  it("counts each reason, keeps them in order of last occurrence, at most ALLOCATION_LOG_ENTRIES per ask", () => {
    const logs = new AllocationLogs();
    logs.record("a", "x", 1);
    logs.record("a", "y", 2);
    logs.record("a", "x", 3);
    expect(logs.entries("a")).toEqual([
      { message: "y", lastOccurrence: 2, count: 1 },
      { message: "x", lastOccurrence: 3, count: 2 },
    ]);
    for (let i = 0; i < ALLOCATION_LOG_ENTRIES + 5; i++) logs.record("b", `m${i}`, i);
    expect(logs.entries("b")).toHaveLength(ALLOCATION_LOG_ENTRIES);
    expect(logs.entries("b")[0]!.message).toBe("m5");
    logs.forget("a");
    expect(logs.entries("a")).toEqual([]);
  });

  it("checkHold fills a pending ask's log; allocation forgets it", () => {
    let now = 1_000;
    const core = new SchedulerCore(() => now, CFG);
    core.updateNode([{ nodeID: "n1", action: "CREATE", schedulableResource: { vcore: 4000, memory: 8 * G } }]);
    core.updateApplication({ new: [{ applicationID: "s", queueName: "root.small", ugi: { user: "u" } }] });
    core.updateAllocation({
      allocations: ["k1", "k2"].map((k) => ({ allocationKey: k, applicationID: "s", resourcePerAlloc: { vcore: 1000 } })),
    });
    core.schedule();
    core.checkHold("s", "k2");
    now = 2_000;
    core.checkHold("s", "k2");
    expect(core.allocationLog("s", "k2")).toEqual([
      { message: "queue root.small maximum map[vcore:1000] reached (used map[vcore:1000])", lastOccurrence: 2_000, count: 2 },
    ]);
    core.updateAllocation({ releases: [{ applicationID: "s", allocationKey: "k1" }] });
    core.schedule();
    expect(core.allocationLog("s", "k2")).toEqual([]);
  });
});

describe("resource history", () => {
  it("resource × whole seconds of each released allocation, by the instance type of its node", () => {
    let now = 10_000;
    const core = new SchedulerCore(() => now, CFG);
    core.updateNode([
      { nodeID: "n1", action: "CREATE", schedulableResource: { vcore: 1000 }, attributes: { "si/instance-type": "m5.large" } },
      { nodeID: "n2", action: "CREATE", schedulableResource: { vcore: 1000 } },
    ]);
    core.updateApplication({ new: [{ applicationID: "a", queueName: "", ugi: { user: "u" }, tags: { namespace: "x" } }] });
    core.updateAllocation({
      allocations: ["k1", "k2"].map((k) => ({ allocationKey: k, applicationID: "a", resourcePerAlloc: { vcore: 1000 } })),
    });
    expect(core.schedule()).toHaveLength(2);
    now += 90_500;
    core.updateAllocation({ releases: [{ applicationID: "a" }] });
    const v = core.applicationView("a")!;
    expect(v.resourceHistory).toEqual({
      used: { UNKNOWN: { vcore: 90_000 }, "m5.large": { vcore: 90_000 } },
      preempted: {},
      placeholder: {},
    });
  });
});

describe("queue views: properties, template, headroom", () => {
  it("properties inherited and own; the child template (inherited by a parent without its own); headroom down the path", () => {
    const core = new SchedulerCore(() => 0, CFG);
    core.updateNode([{ nodeID: "n1", action: "CREATE", schedulableResource: { vcore: 8000, memory: 16 * G } }]);
    const root = core.queueView("root", { subtree: true })!;
    expect(root.properties).toEqual({ "custom.key": "from-root", "priority.offset": "5" });
    expect(root.priorityOffset).toBe(5);
    expect(root.headroom).toEqual({ vcore: 8000, memory: 16 * G });
    expect(root.sortPolicy).toBe("fair"); // a parent, as upstream reports it
    const small = core.queueView("root.small")!;
    // priority.offset is not inherited (0), other keys are
    expect(small.properties).toEqual({ "custom.key": "from-root", "priority.offset": "0", "application.sort.policy": "fair" });
    expect(small.headroom).toEqual({ vcore: 1000, memory: 16 * G });
    const tenants = core.queueView("root.tenants")!;
    const template = { maxApplications: 2, max: { vcore: 2000 }, guaranteed: undefined, properties: { "preemption.policy": "disabled" } };
    expect(tenants.template).toEqual(template);
    expect(core.queueView("root.tenants.nested")!.template).toEqual(template);
    expect(small.template).toBeUndefined();
    core.updateApplication({ new: [{ applicationID: "a", queueName: "", ugi: { user: "u" }, tags: { namespace: "team" } }] });
    core.updateAllocation({ allocations: [{ allocationKey: "k", applicationID: "a", resourcePerAlloc: { vcore: 500, memory: G } }] });
    core.schedule();
    const leaf = core.queueView("root.tenants.team")!;
    expect(leaf.managed).toBe(false);
    // a dynamic leaf takes the template's properties and reads its preemption policy from them
    expect(leaf.properties).toEqual({ "preemption.policy": "disabled" });
    expect(leaf.preemptionEnabled).toBe(false);
    expect(leaf.maxApplications).toBe(2);
    // min of own (2 − 0.5 vcore) and the parent's (6 − 0.5 vcore, 4Gi − 1Gi) per type
    expect(leaf.headroom).toEqual({ vcore: 1500, memory: 3 * G });
  });
});

describe("Go durations", () => {
  it("formats as time.Duration.String() and round-trips through the parser", () => {
    const cases: [number, string][] = [
      [0, "0s"],
      [30_000, "30s"],
      [1_500, "1.5s"],
      [90_000, "1m30s"],
      [7_200_000, "2h0m0s"],
      [300, "300ms"],
      [0.0015, "1.5\u00b5s"],
      [-2_000, "-2s"],
    ];
    for (const [ms, text] of cases) {
      expect(formatGoDuration(ms)).toBe(text);
      expect(parseGoDuration(text)).toBeCloseTo(ms, 9);
    }
  });
});

describe("resource maps as upstream's DAOs", () => {
  // apache/yunikorn-core pkg/common/resources/resources_test.go TestCalculateAbsUsedCapacity
  it("absUsedCapacity: types in both, nothing used 0 %, any use of a zero capacity 100 %, capped at 2^31 − 1", () => {
    const zero = { memory: 0, vcores: 0 };
    const set = { memory: 2048, vcores: 3 };
    const usage = { memory: 1024, vcores: 1 };
    const partial = { memory: 1024 };
    expect(absUsedCapacity(undefined, undefined)).toBeUndefined();
    expect(absUsedCapacity(zero, undefined)).toBeUndefined();
    expect(absUsedCapacity(set, undefined)).toBeUndefined();
    expect(absUsedCapacity(set, zero)).toEqual(zero);
    expect(absUsedCapacity(set, usage)).toEqual({ memory: 50, vcores: 33 });
    expect(absUsedCapacity(partial, usage)).toEqual({ memory: 100 });
    expect(absUsedCapacity(set, partial)).toEqual({ memory: 50 });
    expect(absUsedCapacity({ memory: 1 }, { memory: Number.MAX_SAFE_INTEGER })).toEqual({ memory: 2 ** 31 - 1 });
    expect(absUsedCapacity(zero, usage)).toEqual({ memory: 100, vcores: 100 });
  });

  it("a queue's max and guarantee keep their zeros; a node's utilized covers its allocated types only", () => {
    const core = coreUnderRoot(
      `        queues:
          - name: cpu
            resources: {max: {vcore: 3, nvidia.com/gpu: 0}, guaranteed: {vcore: 1, memory: 0}}
`,
    );
    core.updateNode([{ nodeID: "n1", action: "CREATE", schedulableResource: { vcore: 4000, memory: 8 * G, pods: 110 } }]);
    core.updateApplication({ new: [{ applicationID: "a", queueName: "root.cpu", ugi: { user: "u" } }] });
    core.updateAllocation({ allocations: [{ allocationKey: "k", applicationID: "a", resourcePerAlloc: { vcore: 1500, memory: G } }] });
    expect(core.schedule()).toHaveLength(1);
    const q = queueInfo(core.queueView("root.cpu")!);
    expect(q.maxResource).toEqual({ vcore: 3000, "nvidia.com/gpu": 0 });
    expect(q.guaranteedResource).toEqual({ vcore: 1000, memory: 0 });
    // the max's GPU type is in no allocation: left out, as upstream
    expect(q.absUsedCapacity).toEqual({ vcore: 50 });
    const node = nodeInfo(core.nodeViews()[0]!, lookupsOf(core, "default"));
    expect(node.utilized).toEqual({ vcore: 37, memory: 12 });
    // no pods of other schedulers: foreignAllocations left out (omitempty)
    expect(node).not.toHaveProperty("foreignAllocations");
    // ForeignAllocationDAOInfo (handlers.go getForeignAllocationDAO): key, tags (omitempty), creation in ns, resource,
    // priority as a string, node, preemptable only when true
    const created = Date.parse("2026-01-05T09:00:00Z");
    const tags = { "kubernetes.io/meta/namespace": "apps", "kubernetes.io/meta/podName": "web", foreign: "default" };
    const withForeign = nodeInfo(core.nodeViews()[0]!, lookupsOf(core, "default"), [
      { uid: "u1", node: "n1", resource: { vcore: 500, memory: G }, priority: 10, createdMs: created, preemptable: true, tags },
      { uid: "u2", node: "n1", resource: { vcore: 100 }, priority: 0, createdMs: undefined, preemptable: false, tags: {} },
    ]);
    expect(withForeign.foreignAllocations).toEqual([
      {
        allocationKey: "u1",
        allocationTags: tags,
        allocationTime: created * 1e6,
        resource: { vcore: 500, memory: G },
        priority: "10",
        nodeId: "n1",
        preemptable: true,
      },
      { allocationKey: "u2", resource: { vcore: 100 }, priority: "0", nodeId: "n1" },
    ]);
    const p = partitionInfo(core.partitionView()!);
    expect(p.capacity).toEqual({
      capacity: { vcore: 4000, memory: 8 * G, pods: 110 },
      usedCapacity: { vcore: 1500, memory: G },
      utilization: { vcore: 37, memory: 12 },
    });
  });
});

// apache/yunikorn-core pkg/scheduler/health_checker.go (health_checker_test.go TestGetSchedulerHealthStatusContext)
// apache/yunikorn-core pkg/webservice/dao/ugm_info.go; ugm queue_tracker.go getResourceUsageDAOInfo (maxResources,
// maxRunningApps: the named limit, else the wildcard user limit, newQueueTracker), user_tracker.go (groups)
describe("user and group usage with their limits", () => {
  it("each queue of the tree carries the limit that applies there; a user lists the group of each application", () => {
    const core = coreUnderRoot(
      `        limits:
          - {users: ["*"], maxresources: {memory: 8Gi}}
          - {groups: [dev], maxapplications: 3}
        queues:
          - name: a
            limits:
              - {users: [alice], maxresources: {vcore: 2}, maxapplications: 2}
`,
    );
    core.updateNode([{ nodeID: "n1", action: "CREATE", schedulableResource: { vcore: 4000, memory: 8 * G } }]);
    core.updateApplication({ new: [{ applicationID: "x", queueName: "root.a", ugi: { user: "alice", groups: ["dev"] } }] });
    core.updateAllocation({ allocations: [{ allocationKey: "k", applicationID: "x", resourcePerAlloc: { vcore: 500, memory: G } }] });
    expect(core.schedule()).toHaveLength(1);
    expect(userUsage(core.usageViews("users"), "users")).toEqual([
      {
        userName: "alice",
        groups: { x: "dev" },
        queues: {
          queuePath: "root",
          resourceUsage: { vcore: 500, memory: G },
          runningApplications: ["x"],
          maxResources: { memory: 8 * G },
          children: [
            {
              queuePath: "root.a",
              resourceUsage: { vcore: 500, memory: G },
              runningApplications: ["x"],
              maxResources: { vcore: 2000 },
              maxApplications: 2,
            },
          ],
        },
      },
    ]);
    expect(userUsage(core.usageViews("groups"), "groups")).toEqual([
      {
        groupName: "dev",
        applications: ["x"],
        queues: {
          queuePath: "root",
          resourceUsage: { vcore: 500, memory: G },
          runningApplications: ["x"],
          maxApplications: 3,
          children: [{ queuePath: "root.a", resourceUsage: { vcore: 500, memory: G }, runningApplications: ["x"] }],
        },
      },
    ]);
  });
});

describe("health check", () => {
  const cfg = "partitions:\n  - name: default\n    queues:\n      - name: root\n        submitacl: '*'\n        queues: [{name: a}]\n";

  it("counts upstream's scheduling errors and failed nodes, not corral's own refusals", () => {
    const core = new SchedulerCore(() => 1_000, cfg);
    core.updateNode([{ nodeID: "n1", action: "CREATE", schedulableResource: { memory: 100 } }]);
    core.updateApplication({ new: [{ applicationID: "app", queueName: "root.a", ugi: { user: "u" } }] });
    expect(health(core.healthViews(), core.failures).Healthy).toBe(true);
    // partition.go addAllocation: unknown application, no resources, negative resources, unknown node
    core.updateAllocation({
      allocations: [
        { allocationKey: "k1", applicationID: "nope", resourcePerAlloc: { memory: 1 } },
        { allocationKey: "k2", applicationID: "app", resourcePerAlloc: {} },
        { allocationKey: "k3", applicationID: "app", resourcePerAlloc: { memory: -1 } },
        { allocationKey: "k4", applicationID: "app", resourcePerAlloc: { memory: 1 }, nodeID: "gone" },
        // corral's own refusal (larger than every node) is not a scheduling error
        { allocationKey: "k5", applicationID: "app", resourcePerAlloc: { memory: 1000 } },
      ],
    });
    // context.go addNode: a new node of an unknown partition
    core.updateNode([{ nodeID: "n2", action: "CREATE", partition: "other", schedulableResource: { memory: 1 } }]);
    expect(core.failures).toEqual({ schedulingErrors: 4, failedNodes: 1 });
    const h = health(core.healthViews(), core.failures);
    expect(h.Healthy).toBe(false);
    expect(h.HealthChecks.slice(0, 2)).toEqual([
      {
        Name: "Scheduling errors",
        Succeeded: false,
        Description: "Check for scheduling error entries in metrics",
        DiagnosisMessage: "There were 4 scheduling errors logged in the metrics",
      },
      {
        Name: "Failed nodes",
        Succeeded: false,
        Description: "Check for failed nodes entries in metrics",
        DiagnosisMessage: "There were 1 failed nodes logged in the metrics",
      },
    ]);
    expect(h.HealthChecks.slice(2).every((c) => c.Succeeded)).toBe(true);
  });

  it("finds allocations a node or an application holds alone (checkNodeAllocations, checkAppAllocations)", () => {
    const core = new SchedulerCore(() => 1_000, cfg);
    core.updateNode([{ nodeID: "n1", action: "CREATE", schedulableResource: { memory: 100, vcore: 1000 } }]);
    core.updateApplication({ new: [{ applicationID: "app", queueName: "root.a", ugi: { user: "u" } }] });
    core.updateAllocation({
      allocations: ["k1", "k2"].map((k) => ({ allocationKey: k, applicationID: "app", resourcePerAlloc: { memory: 10, vcore: 100 } })),
    });
    expect(core.schedule()).toHaveLength(2);
    const ok = health(core.healthViews(), core.failures);
    expect(ok.Healthy).toBe(true);
    expect(ok.HealthChecks.map((c) => c.DiagnosisMessage).slice(2)).toEqual([
      "Partitions with negative resources: []",
      "Nodes with negative resources: []",
      "Partitions with inconsistent data: []",
      "Nodes with inconsistent data: []",
      "Reservation/node nr ratio: [0.000000]",
      "Orphan allocations: []",
      "OrphanAllocations: []",
    ]);
    // corrupt the core's own state: the node forgets k1; it holds k2 under another application's id
    const node = core.partitions.get("default")!.nodes.get("n1")!;
    node.allocations.delete(allocationId("app", "k1"));
    const k2 = node.allocations.get(allocationId("app", "k2"))!;
    node.allocations.delete(allocationId("app", "k2"));
    node.allocations.set(allocationId("ghost", "k2"), { ...k2, appId: "ghost" });
    const h = health(core.healthViews(), core.failures);
    expect(h.Healthy).toBe(false);
    expect(h.HealthChecks.slice(7).map((c) => [c.Succeeded, c.DiagnosisMessage])).toEqual([
      [false, "Orphan allocations: [allocationKey k2, applicationID ghost, Resource map[memory:10 vcore:100], Allocated true]"],
      [
        false,
        "OrphanAllocations: [allocationKey k1, applicationID app, Resource map[memory:10 vcore:100], Allocated true " +
          "allocationKey k2, applicationID app, Resource map[memory:10 vcore:100], Allocated true]",
      ],
    ]);
  });

  it("finds negative resources and capacities that do not add up, and reports the reservations per node", () => {
    const core = new SchedulerCore(() => 1_000, cfg);
    core.updateNode(["n1", "n2"].map((id) => ({ nodeID: id, action: "CREATE" as const, schedulableResource: { memory: 100 } })));
    const [view] = core.healthViews();
    const n1 = view!.nodes[0]!;
    const bad = {
      ...view!,
      allocated: { memory: -10 },
      capacity: { memory: 300 },
      nodes: [{ ...n1, allocated: { memory: -1 }, reserved: true }, view!.nodes[1]!],
    };
    const h = health([bad], { schedulingErrors: 0, failedNodes: 0 });
    expect(h.Healthy).toBe(false);
    expect(h.HealthChecks.slice(2, 7).map((c) => [c.Succeeded, c.DiagnosisMessage])).toEqual([
      [false, 'Partitions with negative resources: ["default"]'],
      [false, 'Nodes with negative resources: ["n1"]'],
      [false, 'Partitions with inconsistent data: ["default"]'],
      [false, 'Nodes with inconsistent data: ["n1"]'],
      [true, "Reservation/node nr ratio: [0.500000]"],
    ]);
  });
});
