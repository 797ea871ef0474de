import { describe, expect, it } from "vitest";
import { SchedulerCore } from "../../../src/scheduler/core/scheduler.js";

const CFG = "partitions:\n  - name: default\n    queues:\n      - name: root\n        submitacl: '*'\n        queues: [{name: a}]\n";

describe("SchedulerCore (scheduler interface)", () => {
  it("an invalid configuration update is refused whole and the running one stays", () => {
    const core = new SchedulerCore(() => 0, CFG);
    const r = core.updateConfiguration(
      "partitions:\n  - name: default\n    queues:\n      - name: root\n        queues: [{name: 'a.b'}]\n",
    );
    expect(r).toEqual({ ok: false, error: expect.stringMatching(/^update of configuration failed: invalid queue name/) });
    expect(core.config).toBe(CFG);
    expect(core.partitions.get("default")!.find("root.a")).toBeDefined();
  });

  it("application lifecycle: New → Accepted → Starting → Running → Completing → Completed, with timers", () => {
    let now = 1_000;
    const core = new SchedulerCore(() => now, CFG);
    core.updateNode([{ nodeID: "n", action: "CREATE", schedulableResource: { memory: 100 } }]);
    core.updateApplication({ new: [{ applicationID: "x", queueName: "root.a", ugi: { user: "u", groups: ["g"] } }] });
    core.updateAllocation({
      allocations: [
        { allocationKey: "1", applicationID: "x", resourcePerAlloc: { memory: 10 } },
        { allocationKey: "2", applicationID: "x", resourcePerAlloc: { memory: 10 } },
      ],
    });
    expect(core.schedule(1)).toHaveLength(1);
    now += 1;
    expect(core.schedule()).toHaveLength(1);
    core.updateAllocation({ releases: [{ applicationID: "x" }] });
    now += 31_000;
    core.schedule();
    expect(core.stateChanges().map((c) => c.to)).toEqual(["Accepted", "Starting", "Running", "Completing", "Completed"]);
  });

  it("disableStateAware skips Starting; a stateaware app left alone runs after 5 minutes", () => {
    let now = 0;
    const core = new SchedulerCore(() => now, CFG);
    core.updateNode([{ nodeID: "n", action: "CREATE", schedulableResource: { memory: 100 } }]);
    core.updateApplication({
      new: [
        { applicationID: "gen", queueName: "root.a", ugi: { user: "u" }, tags: { disableStateAware: "true" } },
        { applicationID: "slow", queueName: "root.a", ugi: { user: "u" } },
      ],
    });
    core.updateAllocation({
      allocations: [
        { allocationKey: "1", applicationID: "gen", resourcePerAlloc: { memory: 1 } },
        { allocationKey: "1", applicationID: "slow", resourcePerAlloc: { memory: 1 } },
      ],
    });
    core.schedule();
    const p = core.partitions.get("default")!;
    expect(p.apps.get("gen")!.state).toBe("Running");
    expect(p.apps.get("slow")!.state).toBe("Starting");
    now += 5 * 60_000;
    core.schedule();
    expect(p.apps.get("slow")!.state).toBe("Running");
  });

  it("rejections carry reasons: unknown partition, unknown application, unknown node on recovery", () => {
    const core = new SchedulerCore(() => 0, CFG);
    expect(core.updateNode([{ nodeID: "n", action: "CREATE", partition: "gpu" }]).rejectedNodes[0]!.reason).toBe(
      "failed to find partition gpu for new node n",
    );
    // a node added twice: upstream's joined text (context.go addNode, partition.go addNodeToList, node_collection.go)
    core.updateNode([{ nodeID: "n1", action: "CREATE", schedulableResource: { memory: 10 } }]);
    expect(core.updateNode([{ nodeID: "n1", action: "CREATE_DRAIN", schedulableResource: { memory: 10 } }]).rejectedNodes).toEqual([
      {
        id: "n1",
        reason:
          "failure while adding new node, node rejected with error: \nfailed to add node n1 to partition default, error: " +
          "partition default has an existing node n1, node name must be unique",
      },
    ]);
    expect(
      core.updateAllocation({ allocations: [{ allocationKey: "k", applicationID: "none", resourcePerAlloc: { memory: 1 } }] })
        .rejectedAllocations,
    ).toEqual([{ id: "k", reason: "failed to find application none" }]);
    core.updateApplication({ new: [{ applicationID: "x", queueName: "root.a", ugi: { user: "u" } }] });
    expect(
      core.updateAllocation({ allocations: [{ allocationKey: "k", applicationID: "x", resourcePerAlloc: { memory: 1 }, nodeID: "ghost" }] })
        .rejectedAllocations[0]!.reason,
    ).toBe("failed to find node ghost");
  });

  it("recovered allocations count even above the queue max, and removing the node releases them", () => {
    const core = new SchedulerCore(
      () => 0,
      "partitions:\n  - name: default\n    queues:\n      - name: root\n        submitacl: '*'\n        queues:\n" +
        "          - name: a\n            resources: {max: {memory: 5}}\n",
    );
    core.updateNode([{ nodeID: "n", action: "CREATE", schedulableResource: { memory: 100 } }]);
    core.updateApplication({ new: [{ applicationID: "x", queueName: "root.a", ugi: { user: "u" } }] });
    core.updateAllocation({ allocations: [{ allocationKey: "k", applicationID: "x", resourcePerAlloc: { memory: 10 }, nodeID: "n" }] });
    expect(core.partitions.get("default")!.find("root.a")!.allocated.memory).toBe(10);
    const r = core.updateNode([{ nodeID: "n", action: "DECOMISSION" }]);
    expect(r.released.map((a) => a.key)).toEqual(["k"]);
    expect(core.partitions.get("default")!.find("root.a")!.allocated.memory).toBe(0);
  });
  it("read API: queues, applications with their state history, nodes with allocations, user and group usage", () => {
    let now = 1_000;
    const core = new SchedulerCore(
      () => now,
      CFG.replace("queues: [{name: a}]", "queues: [{name: a}]\n        limits: [{groups: [g], maxapplications: 5}]"),
    );
    core.updateNode([{ nodeID: "n", action: "CREATE", schedulableResource: { memory: 100 } }]);
    core.updateApplication({ new: [{ applicationID: "x", queueName: "root.a", ugi: { user: "u", groups: ["g"] } }] });
    core.updateAllocation({ allocations: [{ allocationKey: "1", applicationID: "x", resourcePerAlloc: { memory: 10 }, priority: 3 }] });
    now = 2_000;
    core.schedule();
    expect(core.partitionNames()).toEqual(["default"]);
    expect(core.partitionView()).toMatchObject({
      name: "default",
      capacity: { memory: 100 },
      allocated: { memory: 10 },
      nodes: 1,
      allocations: 1,
      applications: { total: 1, Starting: 1 },
    });
    expect(core.queueView("root", { subtree: true })).toMatchObject({
      path: "root",
      childNames: ["root.a"],
      children: [{ path: "root.a", allocated: { memory: 10 }, runningApplications: 1, isLeaf: true }],
    });
    expect(core.queueView("root.nope")).toBeUndefined();
    const app = core.applicationView("x")!;
    expect(app).toMatchObject({
      id: "x",
      queue: "root.a",
      state: "Starting",
      allocated: { memory: 10 },
      allocations: [{ key: "1", nodeId: "n", priority: 3, allocatedAt: 2_000 }],
    });
    expect(app.stateLog).toEqual([
      { time: 1_000, state: "New" },
      { time: 1_000, state: "Accepted" },
      { time: 2_000, state: "Starting" },
    ]);
    expect(core.nodeView("n")).toMatchObject({
      id: "n",
      allocated: { memory: 10 },
      available: { memory: 90 },
      allocations: [{ key: "1", appId: "x", resource: { memory: 10 } }],
    });
    expect(core.nodeViews().map((n) => n.id)).toEqual(["n"]);
    expect(core.usageViews("users")).toEqual([
      {
        name: "u",
        queues: [
          { queuePath: "root", resourceUsage: { memory: 10 }, runningApplications: ["x"] },
          { queuePath: "root.a", resourceUsage: { memory: 10 }, runningApplications: ["x"] },
        ],
        // the group x is tracked under (the group limit on root)
        groups: { x: "g" },
      },
    ]);
    expect(core.usageViews("groups")).toEqual([
      {
        name: "g",
        queues: [
          { queuePath: "root", resourceUsage: { memory: 10 }, runningApplications: ["x"], maxApplications: 5 },
          { queuePath: "root.a", resourceUsage: { memory: 10 }, runningApplications: ["x"] },
        ],
      },
    ]);
    expect(core.applicationViews("all").map((a) => a.id)).toEqual(["x"]);
  });
});
