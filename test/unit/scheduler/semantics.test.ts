/**
 * The core's semantics that follow YuniKorn, each next to the upstream test (apache/yunikorn-core) it follows:
 * queue cleanup, sibling ties, application ordering with priority sorting off, UpdateAllocation for an existing key,
 * rejected and completed applications and their expiry, the running count across Completing → Running, and the
 * application life cycle table.
 */
import { describe, expect, it } from "vitest";
import { allocationOf } from "../../../src/scheduler/core/allocation-result.js";
import { APPLICATION_TRANSITIONS, type AppState, nextState } from "../../../src/scheduler/core/application-state.js";
import { decodeQueuesYaml } from "../../../src/scheduler/core/config.js";
import { Partition } from "../../../src/scheduler/core/partition.js";
import { SchedulerCore } from "../../../src/scheduler/core/scheduler.js";
import { validateSchedulerConfig } from "../../../src/scheduler/core/validate.js";

const partitionFrom = (yaml: string) =>
  new Partition({ name: "default", config: validateSchedulerConfig(decodeQueuesYaml(yaml)).partitions[0]! });
const leaves = (names: string, props = "") => `partitions:
  - name: default
    queues:
      - name: root
        submitacl: "*"
        queues:
${names
  .split(",")
  .map((n) => `          - name: ${n}\n${props}`)
  .join("")}`;
const keysOf = (p: Partition, now = 0) => {
  const out: string[] = [];
  for (let r = p.tryAllocate(now); r; r = p.tryAllocate(now)) {
    const a = allocationOf(r);
    if (a) out.push(`${a.appId}/${a.key}`);
  }
  return out;
};

/** A partition whose `provided` placement rule creates queues, root's configured children given as YAML flow text. */
const providedRuleConfig = (children: string) => `partitions:
  - name: default
    placementrules: [{name: provided, create: true}]
    queues:
      - name: root
        submitacl: "*"
        queues: ${children}
`;

describe("queues", () => {
  // partition_manager_test.go TestCleanQueues; partition_manager.go cleanQueues (every 10 s)
  it("an empty dynamic queue and a drained removed queue are removed by the 10 s cleanup, not before", () => {
    let now = 0;
    const cfg = providedRuleConfig("[{name: old}, {name: keep}]");
    const core = new SchedulerCore(() => now, cfg);
    core.updateNode([{ nodeID: "n", action: "CREATE", schedulableResource: { memory: 100 } }]);
    core.updateApplication({
      new: [
        { applicationID: "dyn", queueName: "root.dynamic", ugi: { user: "u" } },
        { applicationID: "o", queueName: "root.old", ugi: { user: "u" } },
      ],
    });
    core.updateAllocation({
      allocations: [
        { allocationKey: "k", applicationID: "dyn", resourcePerAlloc: { memory: 1 } },
        { allocationKey: "k", applicationID: "o", resourcePerAlloc: { memory: 1 } },
      ],
    });
    core.schedule();
    expect(core.updateConfiguration(cfg.replace("{name: old}, ", "")).ok).toBe(true);
    expect(core.queueView("root.old")!.draining).toBe(true);
    now = 10_000;
    core.schedule();
    expect(core.queueView("root.dynamic")).toBeDefined(); // still holds a running application
    expect(core.queueView("root.old")).toBeDefined();
    core.updateApplication({ remove: [{ applicationID: "dyn" }, { applicationID: "o" }] });
    now = 15_000;
    core.schedule();
    expect(core.queueView("root.dynamic")).toBeDefined(); // cleanup runs every 10 s
    now = 20_000;
    core.schedule();
    expect(core.queueView("root.dynamic")).toBeUndefined();
    expect(core.queueView("root.old")).toBeUndefined();
    expect(core.queueView("root.keep")).toBeDefined(); // managed and configured: kept while empty
    expect(core.queueView("root", { subtree: true })!.childNames).toEqual(["root.keep"]);
  });

  // queue.go applyConf "Change from unmanaged to managed"; partition_manager.go cleanQueues removes unmanaged queues only
  it("a dynamic queue a configuration names becomes managed: kept when empty, with its configured limits", () => {
    let now = 0;
    const core = new SchedulerCore(() => now, providedRuleConfig("[{name: keep}]"));
    core.updateNode([{ nodeID: "n", action: "CREATE", schedulableResource: { memory: 100 } }]);
    core.updateApplication({ new: [{ applicationID: "a1", queueName: "root.alice", ugi: { user: "alice" } }] });
    core.updateAllocation({ allocations: [{ allocationKey: "k", applicationID: "a1", resourcePerAlloc: { memory: 10 } }] });
    core.schedule();
    expect(core.queueView("root.alice")).toMatchObject({ managed: false });
    const named = providedRuleConfig("[{name: keep}, {name: alice, maxapplications: 5, resources: {max: {memory: 50}}}]");
    expect(core.updateConfiguration(named).ok).toBe(true);
    expect(core.queueView("root.alice")).toMatchObject({ managed: true, max: { memory: 50 }, maxApplications: 5 });
    core.updateApplication({ remove: [{ applicationID: "a1" }] });
    for (now = 10_000; now <= 40_000; now += 10_000) core.schedule();
    expect(core.queueView("root.alice")).toMatchObject({ managed: true, draining: false });
    // and like any configured queue, it drains once a configuration leaves it out
    expect(core.updateConfiguration(providedRuleConfig("[{name: keep}]")).ok).toBe(true);
    now = 50_000;
    core.schedule();
    expect(core.queueView("root.alice")).toBeUndefined();
  });

  // partition_manager.go cleanRoot: its loop waits `time.After(cleanRootInterval)` before every pass, the first too
  it("the first cleanup is one interval after the core started, not at its first scheduling cycle", () => {
    let now = 0;
    const core = new SchedulerCore(() => now, providedRuleConfig("[{name: keep}]"));
    core.updateApplication({ new: [{ applicationID: "dyn", queueName: "root.dynamic", ugi: { user: "u" } }] });
    core.updateApplication({ remove: [{ applicationID: "dyn" }] });
    now = 9_999;
    core.schedule(); // the first cycle
    expect(core.queueView("root.dynamic")).toBeDefined();
    now = 10_000;
    core.schedule();
    expect(core.queueView("root.dynamic")).toBeUndefined();
  });

  // partition_manager.go cleanQueues: children first, so a dynamic parent emptied by the same pass goes too
  it("the cleanup removes every empty dynamic sibling and a dynamic parent whose leaves it removed, in one pass", () => {
    let now = 0;
    const core = new SchedulerCore(() => now, providedRuleConfig("[{name: keep}]"));
    const queues = ["root.d1", "root.d2", "root.p.x", "root.p.y", "root.d3"];
    core.updateApplication({ new: queues.map((q, i) => ({ applicationID: `app-${i}`, queueName: q, ugi: { user: "u" } })) });
    expect(core.queueView("root", { subtree: true })!.childNames).toEqual(["root.d1", "root.d2", "root.d3", "root.keep", "root.p"]);
    core.schedule();
    core.updateApplication({ remove: queues.map((_, i) => ({ applicationID: `app-${i}` })) });
    now = 10_000;
    core.schedule();
    expect(core.queueView("root", { subtree: true })!.childNames).toEqual(["root.keep"]);
    for (const q of [...queues, "root.p"]) expect(core.queueView(q)).toBeUndefined();
  });

  // sorters.go sortQueuesByPriorityAndFairness / sorters_test.go TestSortQueuesNoGuarantees: equal priority and share,
  // then `pending − other.pending > 0` goes first
  it("siblings tied on priority and fair share: the one with more pending goes first, not the alphabetical first", () => {
    const p = partitionFrom(leaves("a,b"));
    p.addNode("n", { memory: 1 });
    p.addApplication({ id: "x", queue: "root.a", user: "u", groups: [], tags: {}, now: 0 });
    p.addApplication({ id: "y", queue: "root.b", user: "u", groups: [], tags: {}, now: 0 });
    p.addAsk({ appId: "x", key: "k0", resource: { memory: 1 }, priority: 0, createTime: 0, now: 0 });
    for (let i = 0; i < 3; i++) p.addAsk({ appId: "y", key: `k${i}`, resource: { memory: 1 }, priority: 0, createTime: 0, now: 0 });
    expect(keysOf(p)).toEqual(["y/k0"]);
  });
});

describe("application order with priority sorting off", () => {
  // sorters_test.go TestSortAppsFifo ("fifo first, priority second")
  it("fifo: earlier submission first; equal submission times by priority", () => {
    const p = partitionFrom(leaves("q", "            properties: {application.sort.priority: disabled}\n"));
    p.addNode("n", { memory: 4 });
    p.addApplication({ id: "app-0", queue: "root.q", user: "u", groups: [], tags: {}, now: 0 });
    for (const id of ["app-1", "app-2", "app-3"]) p.addApplication({ id, queue: "root.q", user: "u", groups: [], tags: {}, now: 3000 });
    p.addAsk({ appId: "app-0", key: "k", resource: { memory: 1 }, priority: 0, createTime: 0, now: 0 });
    p.addAsk({ appId: "app-1", key: "k", resource: { memory: 1 }, priority: 3, createTime: 3000, now: 0 });
    p.addAsk({ appId: "app-2", key: "k", resource: { memory: 1 }, priority: 0, createTime: 3000, now: 0 });
    p.addAsk({ appId: "app-3", key: "k", resource: { memory: 1 }, priority: 5, createTime: 3000, now: 0 });
    expect(keysOf(p)).toEqual(["app-0/k", "app-3/k", "app-1/k", "app-2/k"]);
  });

  // sorters.go sortApplicationsByFairnessAndPriority (share first, then ask priority); sorters_test.go TestSortAppsFair
  it("fair: lower share first; equal shares by priority", () => {
    const p = partitionFrom(
      leaves(
        "q",
        "            properties: {application.sort.policy: fair, application.sort.priority: disabled}\n" +
          "            resources: {guaranteed: {memory: 100}}\n",
      ),
    );
    p.addNode("n", { memory: 100 });
    for (const id of ["a", "b", "c"]) p.addApplication({ id, queue: "root.q", user: "u", groups: [], tags: {}, now: 0 });
    p.addAsk({ appId: "a", key: "used", resource: { memory: 10 }, priority: 0, createTime: 0, now: 0 }); // a runs with a share of 0.1
    expect(keysOf(p)).toEqual(["a/used"]);
    p.addAsk({ appId: "a", key: "k", resource: { memory: 1 }, priority: 9, createTime: 1, now: 1 });
    p.addAsk({ appId: "b", key: "k", resource: { memory: 1 }, priority: 1, createTime: 1, now: 1 });
    p.addAsk({ appId: "c", key: "k", resource: { memory: 1 }, priority: 7, createTime: 1, now: 1 });
    expect(keysOf(p)).toEqual(["c/k", "b/k", "a/k"]);
  });

  // sorters.go sortApplications (fair: CompUsageRatio against the leaf's guaranteed); resources.go GetShares (a type
  // the total lacks, or no total at all, counts its raw quantity), compareShares (largest share first, then the next)
  it("fair with several resource types: usage shares as upstream, largest first, then the next", () => {
    const Gi = 1024 ** 3;
    /** Which of two applications, each running `a` / `b`, gets the next ask in a fair leaf with `guaranteed`. */
    const first = (a: Record<string, number>, b: Record<string, number>, guaranteed = "") => {
      const resources = guaranteed ? `            resources: {guaranteed: ${guaranteed}}\n` : "";
      const p = partitionFrom(leaves("q", `            properties: {application.sort.policy: fair}\n${resources}`));
      p.addNode("n", { memory: 64 * Gi, vcore: 100_000 });
      p.addApplication({ id: "a", queue: "root.q", user: "u", groups: [], tags: {}, now: 0 });
      p.addApplication({ id: "b", queue: "root.q", user: "u", groups: [], tags: {}, now: 0 });
      p.addAsk({ appId: "a", key: "run", resource: a, priority: 0, createTime: 0, now: 0 });
      p.addAsk({ appId: "b", key: "run", resource: b, priority: 0, createTime: 0, now: 0 });
      expect(keysOf(p)).toHaveLength(2);
      p.addAsk({ appId: "a", key: "next", resource: { memory: 1, vcore: 1 }, priority: 0, createTime: 1, now: 1 });
      p.addAsk({ appId: "b", key: "next", resource: { memory: 1, vcore: 1 }, priority: 0, createTime: 1, now: 1 });
      return keysOf(p)[0]!.split("/")[0];
    };
    // no guarantee: raw quantities, so memory in bytes outweighs cores (the one with less memory goes first)
    expect(first({ memory: Gi, vcore: 100 }, { memory: Gi / 2, vcore: 4000 })).toBe("b");
    expect(first({ memory: 500, vcore: 100 }, { memory: 100, vcore: 2000 })).toBe("a");
    // the largest shares tie: the next largest decides
    expect(first({ memory: 100, vcore: 7 }, { memory: 100, vcore: 5 })).toBe("b");
    // a guarantee of memory only: memory as a share of it, cores raw (900 millicores outweigh any memory share)
    expect(first({ memory: 500, vcore: 10 }, { memory: 100, vcore: 900 }, "{memory: 1000}")).toBe("a");
    // a guarantee of both (1 core: 1,000 millicores): the dominant share first
    expect(first({ memory: 500, vcore: 10 }, { memory: 100, vcore: 900 }, "{memory: 1000, vcore: 1}")).toBe("a");
    expect(first({ memory: 950, vcore: 10 }, { memory: 100, vcore: 900 }, "{memory: 1000, vcore: 1}")).toBe("b");
  });
});

// upstream sorted_asks.go insert: an ask equal in priority and creation time to those before it goes after them
describe("asks of equal priority and creation time", () => {
  it("are placed in the order they came, not by key", () => {
    const p = partitionFrom(leaves("a"));
    p.addNode("n", { vcore: 10 });
    p.addApplication({ id: "x", queue: "root.a", user: "u", groups: [], tags: {}, now: 0 });
    for (const key of ["pod-c", "pod-a", "pod-b"])
      p.addAsk({ appId: "x", key, resource: { vcore: 1 }, priority: 0, createTime: 1000, now: 1 });
    p.addAsk({ appId: "x", key: "pod-0", resource: { vcore: 1 }, priority: 0, createTime: 2000, now: 1 });
    p.addAsk({ appId: "x", key: "pod-z", resource: { vcore: 1 }, priority: 5, createTime: 3000, now: 1 });
    expect(keysOf(p)).toEqual(["x/pod-z", "x/pod-c", "x/pod-a", "x/pod-b", "x/pod-0"]);
  });
});

describe("UpdateAllocation for an existing allocation key", () => {
  // partition_test.go TestUpdateAllocationWithAsk: the same key again updates the ask
  it("a pending ask takes the new size and priority", () => {
    const p = partitionFrom(leaves("q"));
    p.addNode("n", { memory: 100 });
    p.addApplication({ id: "a", queue: "root.q", user: "u", groups: [], tags: {}, now: 0 });
    p.addAsk({ appId: "a", key: "k", resource: { memory: 10 }, priority: 0, createTime: 0, now: 0 });
    p.addAsk({ appId: "a", key: "k", resource: { memory: 30 }, priority: 5, createTime: 0, now: 0 });
    expect(p.find("root.q")!.pending).toEqual({ memory: 30 });
    expect(p.apps.get("a")!.maxPendingPriority()).toBe(5);
    expect(keysOf(p)).toEqual(["a/k"]);
    expect(p.nodes.get("n")!.allocated).toEqual({ memory: 30 });
  });

  // partition_test.go TestUpdateAllocation: an allocation the RM reports for a known key (bound pod, in-place resize)
  it("a pending ask reported with a node becomes that allocation; an allocation is resized in place", () => {
    const core = new SchedulerCore(() => 0, leaves("q"));
    core.updateNode([
      { nodeID: "n1", action: "CREATE", schedulableResource: { memory: 100 } },
      { nodeID: "n2", action: "CREATE", schedulableResource: { memory: 100 } },
    ]);
    core.updateApplication({ new: [{ applicationID: "a", queueName: "root.q", ugi: { user: "u" } }] });
    const ask = { allocationKey: "k", applicationID: "a", resourcePerAlloc: { memory: 10 } };
    core.updateAllocation({ allocations: [ask] });
    expect(core.updateAllocation({ allocations: [{ ...ask, nodeID: "n2" }] }).rejectedAllocations).toEqual([]);
    expect(core.nodeView("n2")!.allocations.map((x) => x.key)).toEqual(["k"]);
    expect(core.queueView("root.q")!.pending).toEqual({ memory: 0 });
    expect(
      core.updateAllocation({ allocations: [{ ...ask, resourcePerAlloc: { memory: 25 }, nodeID: "n2" }] }).rejectedAllocations,
    ).toEqual([]);
    expect(core.nodeView("n2")!.allocated).toEqual({ memory: 25 });
    expect(core.queueView("root.q")!.allocated).toEqual({ memory: 25 });
    expect(core.applicationView("a")!.allocated).toEqual({ memory: 25 });
    expect(core.usageViews("users")[0]!.queues.find((q) => q.queuePath === "root.q")!.resourceUsage).toEqual({ memory: 25 });
    expect(core.schedule()).toEqual([]);
  });
});

describe("rejected, completed and expired applications", () => {
  // partition_test.go TestCleanupRejectedApps, TestCleanupCompletedApps; application.go terminatedTimeout (3 days)
  it("a rejected application is an object in state Rejected with its reason, listed until it expires after 3 days", () => {
    let now = 1_000;
    const core = new SchedulerCore(() => now, leaves("q"));
    expect(
      core.updateApplication({ new: [{ applicationID: "r", queueName: "root.nope", ugi: { user: "u" } }] }).rejectedApplications,
    ).toHaveLength(1);
    const v = core.applicationView("r")!;
    expect([v.state, v.rejectedMessage, v.stateLog.map((s) => s.state)]).toEqual([
      "Rejected",
      // upstream PartitionContext.AddApplication wraps the placement error
      "failed to place application r: application rejected: no placement rule matched",
      ["New", "Rejected"],
    ]);
    expect(core.applicationViews("rejected").map((a) => a.id)).toEqual(["r"]);
    expect(core.stateChanges()).toEqual([]); // no UpdatedApplication for Rejected, as upstream
    now += 3 * 86_400_000 - 1;
    core.schedule();
    expect(core.applicationViews("rejected")).toHaveLength(1);
    now += 1;
    core.schedule();
    expect(core.applicationViews("rejected")).toEqual([]);
    expect(core.applicationView("r")).toBeUndefined();
  });

  it("a completed application is listed as completed, can run again under its id, and expires after 3 days", () => {
    let now = 0;
    const core = new SchedulerCore(() => now, leaves("q"));
    core.updateNode([{ nodeID: "n", action: "CREATE", schedulableResource: { memory: 10 } }]);
    core.updateApplication({ new: [{ applicationID: "a", queueName: "root.q", ugi: { user: "u" } }] });
    core.updateAllocation({ allocations: [{ allocationKey: "k", applicationID: "a", resourcePerAlloc: { memory: 1 } }] });
    core.schedule();
    core.updateAllocation({ releases: [{ applicationID: "a" }] });
    now = 30_000;
    core.schedule();
    expect(core.applicationViews("completed").map((a) => [a.id, a.state])).toEqual([["a", "Completed"]]);
    expect(core.applicationViews("active")).toEqual([]);
    core.updateAllocation({ allocations: [{ allocationKey: "k2", applicationID: "a", resourcePerAlloc: { memory: 1 } }] });
    expect(core.applicationView("a")!.state).toBe("Accepted"); // a new run of the same id
    expect(core.schedule().map((x) => x.key)).toEqual(["k2"]);
    now = 30_000 + 3 * 86_400_000;
    core.schedule();
    expect(core.applicationViews("completed")).toEqual([]);
    expect(core.applicationView("a")!.state).toBe("Running"); // the new run, Starting → Running after 5 minutes
  });
});

// application.go maxAllocatedResource (ApplicationDAOInfo maxUsedResource): per type, the largest usage reached
describe("an application's largest usage", () => {
  const run = (asks: Record<string, number>[]) => {
    let now = 0;
    const core = new SchedulerCore(() => now, providedRuleConfig("[{name: q}]"));
    core.updateNode([{ nodeID: "n", action: "CREATE", schedulableResource: { memory: 2, vcore: 10 } }]);
    core.updateApplication({ new: [{ applicationID: "a", queueName: "root.q", ugi: { user: "u" } }] });
    core.updateAllocation({
      allocations: asks.map((r, i) => ({
        allocationKey: `k${i}`,
        applicationID: "a",
        resourcePerAlloc: r,
        allocationTags: { creationTime: String(i + 1) },
      })),
    });
    const step = (release?: string) => {
      if (release) core.updateAllocation({ releases: [{ applicationID: "a", allocationKey: release }] });
      now += 1000;
      core.schedule();
      return core.maxUsedResource("a");
    };
    return { step };
  };

  it("is the first allocation's usage, raised type by type by later ones, and kept after releases", () => {
    const { step } = run([
      { memory: 2, vcore: 1 },
      { memory: 1, vcore: 3 },
    ]);
    expect(step()).toEqual({ memory: 2, vcore: 1 }); // k1 does not fit beside k0
    expect(step("k0")).toEqual({ memory: 2, vcore: 3 });
    expect(step("k1")).toEqual({ memory: 2, vcore: 3 });
  });

  it("leaves out a type whose usage never went above 0", () => {
    const { step } = run([{ memory: 1, vcore: 0 }]);
    expect(step()).toEqual({ memory: 1 });
  });

  /** A core with node n (memory 100) and application a in root.q, on the clock `now()`. */
  const oneApp = (now: () => number = () => 0) => {
    const core = new SchedulerCore(now, providedRuleConfig("[{name: q}]"));
    core.updateNode([{ nodeID: "n", action: "CREATE", schedulableResource: { memory: 100 } }]);
    core.updateApplication({ new: [{ applicationID: "a", queueName: "root.q", ugi: { user: "u" } }] });
    return core;
  };

  // partition_test.go TestUpdateAllocation (in-place resize): usage going down in place leaves the largest reached
  it("keeps the largest when an allocation is resized down in place, and rises when it is resized up", () => {
    const core = oneApp();
    const ask = { allocationKey: "k", applicationID: "a", resourcePerAlloc: { memory: 30 } };
    core.updateAllocation({ allocations: [ask] });
    core.schedule();
    core.updateAllocation({ allocations: [{ ...ask, resourcePerAlloc: { memory: 10 }, nodeID: "n" }] });
    expect([core.applicationView("a")!.allocated, core.maxUsedResource("a")]).toEqual([{ memory: 10 }, { memory: 30 }]);
    core.updateAllocation({ allocations: [{ ...ask, resourcePerAlloc: { memory: 40 }, nodeID: "n" }] });
    expect(core.maxUsedResource("a")).toEqual({ memory: 40 });
  });

  it("carries over to a completed application's next run under the same id", () => {
    let now = 0;
    const core = oneApp(() => now);
    core.updateAllocation({ allocations: [{ allocationKey: "k", applicationID: "a", resourcePerAlloc: { memory: 30 } }] });
    core.schedule();
    core.updateAllocation({ releases: [{ applicationID: "a" }] });
    now = 30_000;
    core.schedule();
    expect(core.applicationViews("completed").map((x) => x.id)).toEqual(["a"]);
    core.updateAllocation({ allocations: [{ allocationKey: "k2", applicationID: "a", resourcePerAlloc: { memory: 5 } }] });
    expect(core.maxUsedResource("a")).toEqual({ memory: 30 }); // the new run, nothing allocated yet
    core.schedule();
    expect(core.maxUsedResource("a")).toEqual({ memory: 30 });
  });
});

describe("running count across Completing → Running", () => {
  // queue_test.go TestQueueRunningAppsForSingleAllocationApp; application_state.go: entering Running from another
  // state increments the queue's running count, leaving it decrements
  it("an application that gets a new ask while Completing counts as running again: maxapplications 1 keeps a second one out", () => {
    const p = partitionFrom(leaves("q", "            maxapplications: 1\n"));
    p.addNode("n", { memory: 100 });
    p.addApplication({ id: "a", queue: "root.q", user: "u", groups: [], tags: { disableStateAware: "true" }, now: 0 });
    p.addApplication({ id: "b", queue: "root.q", user: "u", groups: [], tags: { disableStateAware: "true" }, now: 1 });
    p.addAsk({ appId: "a", key: "1", resource: { memory: 1 }, priority: 0, createTime: 0, now: 0 });
    expect(keysOf(p)).toEqual(["a/1"]);
    p.removeAsk("a", "1", 1);
    expect([p.apps.get("a")!.state, p.find("root.q")!.runningApps]).toEqual(["Completing", 0]);
    p.addAsk({ appId: "a", key: "2", resource: { memory: 1 }, priority: 0, createTime: 2, now: 2 });
    expect([p.apps.get("a")!.state, p.find("root.q")!.runningApps, p.root.runningApps]).toEqual(["Running", 1, 1]);
    p.addAsk({ appId: "b", key: "1", resource: { memory: 1 }, priority: 0, createTime: 2, now: 2 });
    expect(keysOf(p, 2)).toEqual(["a/2"]);
    expect(p.apps.get("b")!.state).toBe("Accepted");
    p.removeAsk("a", "2", 3);
    expect(p.find("root.q")!.runningApps).toBe(0);
    expect(keysOf(p, 3)).toEqual(["b/1"]);
    expect(p.find("root.q")!.runningApps).toBe(1);
    expect(p.apps.get("a")!.stateLog.map((s) => s.state)).toEqual(["New", "Accepted", "Running", "Completing", "Running", "Completing"]);
  });

  // queue.go canRunApp and setAllocatingAccepted (queue_test.go TestQueue_canRunApp, TestQueue_setAllocatingAccepted):
  // an application with an allocation that does not run yet (a gang placing its placeholders) counts as running
  it("a gang placing its placeholders holds its place under maxapplications 1: a second gang waits", () => {
    let now = 0;
    const core = new SchedulerCore(() => now, leaves("one", "            maxapplications: 1\n"));
    core.updateNode([{ nodeID: "n", action: "CREATE", schedulableResource: { memory: 5000 } }]);
    const gang = (id: string, priority: number) => {
      core.updateApplication({ new: [{ applicationID: id, queueName: "root.one", ugi: { user: "u" }, placeholderAsk: { memory: 300 } }] });
      core.updateAllocation({
        allocations: [0, 1, 2].map((i) => ({
          allocationKey: `${id}-ph${i}`,
          applicationID: id,
          resourcePerAlloc: { memory: 100 },
          placeholder: true,
          taskGroupName: "tg",
          priority,
        })),
      });
    };
    gang("a", 0);
    expect(core.schedule(1).map((x) => x.key)).toEqual(["a-ph0"]);
    expect(core.queueView("root.one")!.runningApplications).toBe(0);
    now = 10;
    // b asks at a higher priority: it goes first in the queue, but a already holds the one place
    gang("b", 10);
    expect(core.schedule().map((x) => x.key)).toEqual(["a-ph1", "a-ph2"]);
    expect([core.applicationState("a"), core.applicationState("b")]).toEqual(["Running", "Reserving"]);
    expect(core.holdReason("b", "b-ph0")).toMatchObject({ kind: "queueMaxApplications", queuePath: "root.one" });
  });
});

describe("application life cycle table", () => {
  // application_state_test.go TestAcceptStateTransition … TestFailedStateTransition; application_state.go eventDesc
  it("follows upstream's rows, with corral's Starting and Reserving", () => {
    const t = (s: AppState, e: Parameters<typeof nextState>[1]) => nextState(s, e);
    expect(t("New", "runApplication")).toBe("Accepted");
    expect(t("Resuming", "runApplication")).toBe("Accepted");
    for (const s of ["Accepted", "Starting", "Running", "Completing", "Reserving"] as const) expect(t(s, "runApplication")).toBe("Running");
    expect(t("Accepted", "startApplication")).toBe("Starting");
    expect(t("Accepted", "reserveApplication")).toBe("Reserving");
    expect(t("Reserving", "resumeApplication")).toBe("Resuming");
    expect(t("Running", "completeApplication")).toBe("Completing");
    expect(t("Completing", "completeApplication")).toBe("Completed");
    expect(t("Running", "failApplication")).toBe("Failing");
    expect(t("Failing", "failApplication")).toBe("Failed");
    expect(t("New", "rejectApplication")).toBe("Rejected");
    for (const s of ["Completed", "Failed", "Rejected"] as const) expect(t(s, "expireApplication")).toBe("Expired");
    expect(() => t("Completed", "runApplication")).toThrow("event runApplication inappropriate in current state Completed");
    expect(() => t("Rejected", "runApplication")).toThrow("event runApplication inappropriate in current state Rejected");
    const states = new Set(Object.values(APPLICATION_TRANSITIONS).flatMap((rows) => rows.flatMap(([from, to]) => [...from, to])));
    expect([...states].sort()).toEqual([
      "Accepted",
      "Completed",
      "Completing",
      "Expired",
      "Failed",
      "Failing",
      "New",
      "Rejected",
      "Reserving",
      "Resuming",
      "Running",
      "Starting",
    ]);
  });
});

// queue.go getCurrentPriority / recalculatePriority, sorters.go sortQueues (queue_test.go TestPriorityCalc,
// TestPriorityCalcWithFencedQueue): siblings are ordered by their priority with priority.offset added, or only the
// offset under priority.policy: fence
describe("queue priority in the allocation order: offset and fence", () => {
  const twoLeaves = (aProps: string, bProps: string) => `partitions:
  - name: default
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: a
            properties: {${aProps}}
          - name: b
            properties: {${bProps}}
`;
  const firstQueue = (yaml: string, aPriority: number, bPriority: number) => {
    const core = new SchedulerCore(() => 0, yaml);
    core.updateNode([{ nodeID: "n", action: "CREATE", schedulableResource: { memory: 10 } }]);
    core.updateApplication({
      new: [
        { applicationID: "x", queueName: "root.a", ugi: { user: "u" } },
        { applicationID: "y", queueName: "root.b", ugi: { user: "u" } },
      ],
    });
    core.updateAllocation({
      allocations: [
        { allocationKey: "k", applicationID: "x", resourcePerAlloc: { memory: 10 }, priority: aPriority },
        { allocationKey: "k", applicationID: "y", resourcePerAlloc: { memory: 10 }, priority: bPriority },
      ],
    });
    return core.schedule(1)[0]!.appId;
  };
  it("an offset lifts a queue above a sibling with higher-priority asks", () => {
    expect(firstQueue(twoLeaves("", ""), 0, 10)).toBe("y");
    expect(firstQueue(twoLeaves('priority.offset: "100"', ""), 0, 10)).toBe("x");
    expect(firstQueue(twoLeaves('priority.offset: "-100"', ""), 50, 10)).toBe("y");
  });
  it("a fence shows only its offset: high-priority asks behind it do not lift it", () => {
    expect(firstQueue(twoLeaves("", "priority.policy: fence"), 10, 50)).toBe("x");
    expect(firstQueue(twoLeaves("", 'priority.policy: fence, priority.offset: "20"'), 10, 0)).toBe("y");
  });
  it("the queue view's priority is that value (REST currentPriority), none when nothing is pending", () => {
    const core = new SchedulerCore(() => 0, twoLeaves('priority.offset: "100"', ""));
    expect(core.queueView("root.a")!.priority).toBeUndefined();
    core.updateApplication({ new: [{ applicationID: "x", queueName: "root.a", ugi: { user: "u" } }] });
    core.updateAllocation({ allocations: [{ allocationKey: "k", applicationID: "x", resourcePerAlloc: { memory: 1 }, priority: 5 }] });
    expect(core.queueView("root.a")!.priority).toBe(105);
    expect(core.queueView("root")!.priority).toBe(105);
  });
});
