import { describe, expect, it } from "vitest";
import { SchedulerCore } from "../../../src/scheduler/core/scheduler.js";

const CFG = "partitions:\n  - name: default\n    queues:\n      - name: root\n        submitacl: '*'\n        queues: [{name: a}]\n";

describe("SchedulerCore (scheduler interface)", () => {
  it("an invalid configuration update is refused whole and the running one stays", () => {
    const core = new SchedulerCore(() => 0, CFG);
    const r = core.updateConfiguration("partitions:\n  - name: default\n    queues:\n      - name: root\n        queues: [{name: 'a.b'}]\n");
    expect(r).toEqual({ ok: false, error: expect.stringMatching(/^update of configuration failed: invalid queue name/) });
    expect(core.config).toBe(CFG);
    expect(core.partitions.get("default")!.find("root.a")).toBeDefined();
  });

  it("application lifecycle: New → Accepted → Starting → Running → Completing → Completed, with timers", () => {
    let now = 1_000;
    const core = new SchedulerCore(() => now, CFG);
    core.updateNode([{ nodeID: "n", action: "CREATE", schedulableResource: { memory: 100 } }]);
    core.updateApplication({ new: [{ applicationID: "x", queueName: "root.a", ugi: { user: "u", groups: ["g"] } }] });
    core.updateAllocation({ allocations: [{ allocationKey: "1", applicationID: "x", resourcePerAlloc: { memory: 10 } }, { allocationKey: "2", applicationID: "x", resourcePerAlloc: { memory: 10 } }] });
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
    core.updateApplication({ new: [
      { applicationID: "gen", queueName: "root.a", ugi: { user: "u" }, tags: { disableStateAware: "true" } },
      { applicationID: "slow", queueName: "root.a", ugi: { user: "u" } },
    ] });
    core.updateAllocation({ allocations: [{ allocationKey: "1", applicationID: "gen", resourcePerAlloc: { memory: 1 } }, { allocationKey: "1", applicationID: "slow", resourcePerAlloc: { memory: 1 } }] });
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
    expect(core.updateNode([{ nodeID: "n", action: "CREATE", partition: "gpu" }]).rejectedNodes[0]!.reason).toBe("failed to find partition gpu for new node n");
    expect(core.updateAllocation({ allocations: [{ allocationKey: "k", applicationID: "none", resourcePerAlloc: { memory: 1 } }] }).rejectedAllocations).toEqual([{ id: "k", reason: "failed to find application none" }]);
    core.updateApplication({ new: [{ applicationID: "x", queueName: "root.a", ugi: { user: "u" } }] });
    expect(core.updateAllocation({ allocations: [{ allocationKey: "k", applicationID: "x", resourcePerAlloc: { memory: 1 }, nodeID: "ghost" }] }).rejectedAllocations[0]!.reason).toBe("failed to find node ghost");
  });

  it("recovered allocations count even above the queue max, and removing the node releases them", () => {
    const core = new SchedulerCore(() => 0, "partitions:\n  - name: default\n    queues:\n      - name: root\n        submitacl: '*'\n        queues:\n          - name: a\n            resources: {max: {memory: 5}}\n");
    core.updateNode([{ nodeID: "n", action: "CREATE", schedulableResource: { memory: 100 } }]);
    core.updateApplication({ new: [{ applicationID: "x", queueName: "root.a", ugi: { user: "u" } }] });
    core.updateAllocation({ allocations: [{ allocationKey: "k", applicationID: "x", resourcePerAlloc: { memory: 10 }, nodeID: "n" }] });
    expect(core.partitions.get("default")!.find("root.a")!.allocated.memory).toBe(10);
    const r = core.updateNode([{ nodeID: "n", action: "DECOMISSION" }]);
    expect(r.released.map((a) => a.key)).toEqual(["k"]);
    expect(core.partitions.get("default")!.find("root.a")!.allocated.memory).toBe(0);
  });
});
