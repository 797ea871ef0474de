import { describe, expect, it } from "vitest";
import { allocationOf } from "../../../../src/scheduler/core/allocation-result.js";
import { SchedulerCore } from "../../../../src/scheduler/core/scheduler.js";
import { queueInfo } from "../../../../src/scheduler/rest/dao.js";
import { allocationInfo, lookupsOf } from "../../../../src/scheduler/rest/app-dao.js";

const cfg = (leaf: string) =>
  `partitions:\n  - name: default\n    queues:\n      - name: root\n        submitacl: '*'\n        queues:\n${leaf}`;
const CFG = cfg(
  "          - name: spark\n            resources: {max: {memory: 1000}}\n          - name: fair\n" +
    "            properties: {application.sort.policy: fair}\n",
);

/** A core with two nodes of 600 memory, and a gang `g` of driver 1 × 100 and executors 4 × 100 (plus pods: 1 each). */
function setup(o: { timeoutMs?: number; style?: "Soft" | "Hard"; queue?: string } = {}) {
  const clock = { now: 1_000 };
  const core = new SchedulerCore(() => clock.now, CFG);
  core.updateNode([
    { nodeID: "n1", action: "CREATE", schedulableResource: { memory: 600, pods: 100 } },
    { nodeID: "n2", action: "CREATE", schedulableResource: { memory: 600, pods: 100 } },
  ]);
  const r = core.updateApplication({
    new: [
      {
        applicationID: "g",
        queueName: o.queue ?? "root.spark",
        ugi: { user: "u" },
        placeholderAsk: { memory: 500, pods: 5 },
        executionTimeoutMilliSeconds: o.timeoutMs,
        gangSchedulingStyle: o.style,
      },
    ],
  });
  const p = core.partitions.get("default")!;
  const ask = (key: string, tg: string, memory: number, placeholder = false) =>
    core.updateAllocation({
      allocations: [{ allocationKey: key, applicationID: "g", resourcePerAlloc: { memory, pods: 1 }, placeholder, taskGroupName: tg }],
    });
  const usage = () => ({
    queue: p.find("root.spark")!.allocated.memory ?? 0,
    nodes: [...p.nodes.values()].reduce((s, n) => s + (n.allocated.memory ?? 0), 0),
    user: core.usageViews("users")[0]?.queues.find((q) => q.queuePath === "root.spark")?.resourceUsage.memory ?? 0,
  });
  return { clock, core, p, r, ask, usage };
}

const placeholders = (ask: ReturnType<typeof setup>["ask"]) => {
  ask("ph-d", "driver", 100, true);
  for (let i = 0; i < 4; i++) ask(`ph-e${i}`, "executor", 100, true);
};

describe("gang scheduling in the core", () => {
  it("New → Accepted → Reserving on the first ask; only placeholders are scheduled; Running once all are allocated", () => {
    const { core, p, ask } = setup();
    ask("driver", "driver", 100);
    expect(p.apps.get("g")!.state).toBe("Reserving");
    expect(core.schedule()).toEqual([]);
    expect(core.holdReason("g", "driver")).toMatchObject({ kind: "gangReservation", appId: "g" });
    placeholders(ask);
    const results = core.scheduleResults();
    // the five placeholders first; then the driver (now Running) takes the driver placeholder's place
    expect(results.slice(0, 5).map((r) => r.kind)).toEqual(["allocated", "allocated", "allocated", "allocated", "allocated"]);
    expect(results.slice(0, 5).every((r) => allocationOf(r)!.placeholder)).toBe(true);
    expect(results[5]).toMatchObject({ kind: "replaced", placeholderKey: "ph-d", allocation: { key: "driver", taskGroup: "driver" } });
    expect(core.stateChanges().map((c) => c.to)).toEqual(["Accepted", "Reserving", "Running"]);
  });

  it("an allocation that took a placeholder's place was requested when the placeholder was (handlers.go getAllocationDAO placeholderUsed)", () => {
    const { clock, core, ask } = setup();
    ask("driver", "driver", 100);
    clock.now = 4_000;
    placeholders(ask);
    clock.now = 9_000;
    expect(core.scheduleResults().map((r) => r.kind)).toContain("replaced");
    const ms = 1e6;
    const info = (key: string) =>
      allocationInfo(
        core.applicationView("g")!.allocations.find((a) => a.key === key)!,
        lookupsOf(core, "default"),
      );
    expect(info("driver")).toMatchObject({
      requestTime: 4_000 * ms,
      allocationTime: 9_000 * ms,
      allocationDelay: 5_000 * ms,
      placeholderUsed: true,
      taskGroupName: "driver",
    });
    // a placeholder itself used none: requested at its own creation, the field left out (omitempty)
    const ph = info("ph-e0");
    expect(ph).toMatchObject({ requestTime: 4_000 * ms, placeholder: true });
    expect(ph).not.toHaveProperty("placeholderUsed");
  });

  it("a gang placing its placeholders is listed in allocatingAcceptedApps of its queue and the parents, until it runs (queue.go setAllocatingAccepted)", () => {
    const { core, ask } = setup();
    ask("driver", "driver", 100);
    ask("ph-d", "driver", 100, true);
    ask("ph-e0", "executor", 100, true);
    // no allocation yet: the field is left out (omitempty)
    expect(queueInfo(core.queueView("root.spark")!)).not.toHaveProperty("allocatingAcceptedApps");
    expect(core.schedule()).toHaveLength(2);
    // two of five placeholders placed (the task groups ask for five): still Reserving, allocating
    expect(core.applicationState("g")).toBe("Reserving");
    expect(queueInfo(core.queueView("root.spark")!).allocatingAcceptedApps).toEqual(["g"]);
    expect(queueInfo(core.queueView("root")!).allocatingAcceptedApps).toEqual(["g"]);
    expect(queueInfo(core.queueView("root.fair")!)).not.toHaveProperty("allocatingAcceptedApps");
    for (let i = 1; i < 4; i++) ask(`ph-e${i}`, "executor", 100, true);
    core.schedule();
    expect(core.applicationState("g")).toBe("Running");
    expect(queueInfo(core.queueView("root.spark")!)).not.toHaveProperty("allocatingAcceptedApps");
    expect(queueInfo(core.queueView("root")!)).not.toHaveProperty("allocatingAcceptedApps");
  });

  it("the Reserving hold counts the placeholders asked and allocated per task group", () => {
    const { core, ask } = setup();
    ask("driver", "driver", 100);
    ask("ph-d", "driver", 100, true);
    core.schedule();
    for (let i = 0; i < 4; i++) ask(`ph-e${i}`, "executor", 100, true);
    expect(core.holdReason("g", "driver")).toEqual({
      kind: "gangReservation",
      appId: "g",
      allocated: { memory: 100, pods: 1 },
      reservation: { memory: 500, pods: 5 },
      taskGroups: [
        { taskGroupName: "driver", minMember: 1, allocated: 1 },
        { taskGroupName: "executor", minMember: 4, allocated: 0 },
      ],
    });
  });

  it("replacement swaps on the same node without counting twice in queue, node or user usage", () => {
    const { core, p, ask, usage } = setup();
    ask("driver", "driver", 100);
    placeholders(ask);
    core.schedule();
    const phNode = (k: string) => p.apps.get("g")!.asks.get(k)?.node;
    const nodes = [0, 1, 2, 3].map((i) => phNode(`ph-e${i}`));
    expect(usage()).toEqual({ queue: 500, nodes: 500, user: 500 });
    for (let i = 0; i < 4; i++) ask(`exec-${i}`, "executor", 80);
    const r = core.scheduleResults();
    expect(r.map((x) => x.kind)).toEqual(["replaced", "replaced", "replaced", "replaced"]);
    for (const x of r) {
      if (x.kind !== "replaced") continue;
      expect(x.allocation.nodeId).toBe(nodes[Number(x.placeholderKey.slice(-1))]);
    }
    // the real pods are smaller than their placeholders: usage drops, never rises
    expect(usage()).toEqual({ queue: 420, nodes: 420, user: 420 });
    expect(p.apps.get("g")!.placeholderAllocations).toBe(0);
    expect(core.applicationView("g")!.state).toBe("Running");
    // a fifth executor beyond minMember is scheduled normally
    ask("exec-4", "executor", 80);
    expect(core.scheduleResults().map((x) => x.kind)).toEqual(["allocated"]);
  });

  // upstream partition_test.go TestPreemptedPlaceholderSkip (application.go tryPlaceholderAllocate, canReplace)
  it("a placeholder chosen as a victim is not replaced: the real pod waits until it is released, then schedules normally", () => {
    const V = 1000;
    let now = 1_000_000;
    const leaves =
      "          - name: a\n            resources: {guaranteed: {vcore: 1}}\n            properties: {preemption.delay: 1s}\n" +
      "          - name: b\n";
    const core = new SchedulerCore(() => now, cfg(leaves));
    const results = () =>
      core.scheduleResults().map((r) => (r.kind === "preempting" ? `preempting ${r.victims.map((v) => v.key)}` : r.kind));
    core.updateNode([
      { nodeID: "n1", action: "CREATE", schedulableResource: { vcore: V } },
      { nodeID: "n2", action: "CREATE", schedulableResource: { vcore: 2 * V } },
    ]);
    core.updateApplication({ new: [{ applicationID: "g", queueName: "root.b", ugi: { user: "u" }, placeholderAsk: { vcore: V } }] });
    core.updateAllocation({
      allocations: [{ allocationKey: "ph-1", applicationID: "g", resourcePerAlloc: { vcore: V }, placeholder: true, taskGroupName: "tg" }],
    });
    core.updateAllocation({ allocations: [{ allocationKey: "fill", applicationID: "g", resourcePerAlloc: { vcore: 2 * V } }] });
    expect(results()).toEqual(["allocated", "allocated"]);
    expect(core.applicationView("g")!.state).toBe("Running");
    // root.a's pod, under its guarantee, preempts the placeholder on the full cluster
    core.updateApplication({ new: [{ applicationID: "x", queueName: "root.a", ugi: { user: "u" } }] });
    core.updateAllocation({ allocations: [{ allocationKey: "x-0", applicationID: "x", resourcePerAlloc: { vcore: V } }] });
    now += 1500;
    expect(results()).toEqual(["preempting ph-1"]);
    // the gang's real pod arrives while the placeholder's eviction is in flight: it does not take the victim's room
    core.updateAllocation({
      allocations: [{ allocationKey: "exec-1", applicationID: "g", resourcePerAlloc: { vcore: V }, taskGroupName: "tg" }],
    });
    now += 100;
    expect(results()).toEqual([]);
    expect(
      core
        .applicationView("g")!
        .allocations.map((a) => a.key)
        .sort(),
    ).toEqual(["fill", "ph-1"]);
    // released: the preemptor gets its reserved node; the real pod is an ordinary ask now (it waits for room)
    core.updateAllocation({ releases: [{ applicationID: "g", allocationKey: "ph-1", message: "Preempted" }] });
    now += 100;
    expect(results()).toEqual(["allocatedReserved"]);
    core.updateAllocation({ releases: [{ applicationID: "g", allocationKey: "fill" }] });
    const placed = core.scheduleResults().flatMap((r) => (r.kind === "allocated" ? [[r.allocation.key, r.allocation.nodeId]] : []));
    expect(placed).toEqual([["exec-1", "n2"]]);
  });

  it("a real pod larger than its placeholder releases it with a reason and is scheduled normally", () => {
    const { core, ask } = setup();
    ask("driver", "driver", 100);
    placeholders(ask);
    core.schedule();
    core.releases();
    ask("big", "executor", 150);
    const r = core.scheduleResults();
    const rel = core.releases();
    expect(rel).toHaveLength(4);
    expect(rel[0]).toMatchObject({ cause: "tooLarge", allocated: true, allocation: { placeholder: true, taskGroup: "executor" } });
    expect(rel[0]!.message).toMatch(/are not matching placeholder/);
    expect(r).toEqual([expect.objectContaining({ kind: "allocated", allocation: expect.objectContaining({ key: "big" }) })]);
  });

  it("submission: a gang needs a FIFO leaf queue and must fit the queue max", () => {
    expect(setup({ queue: "root.fair" }).r.rejectedApplications[0]!.reason).toBe(
      "queue root.fair cannot run application g with task group request: unsupported sort type",
    );
    const core = new SchedulerCore(() => 0, CFG);
    const r = core.updateApplication({
      new: [{ applicationID: "big", queueName: "root.spark", ugi: { user: "u" }, placeholderAsk: { memory: 1001 } }],
    });
    expect(r.rejectedApplications[0]!.reason).toMatch(
      /^queue root.spark cannot fit application big: task group request .* larger than max queue allocation/,
    );
    expect(core.applicationView("big")!.state).toBe("Rejected");
  });

  it("placeholders count against the queue max: a second gang waits whole while the first holds the queue", () => {
    const core = new SchedulerCore(() => 0, cfg("          - name: one\n            resources: {max: {memory: 500}}\n"));
    core.updateNode([{ nodeID: "n", action: "CREATE", schedulableResource: { memory: 5000 } }]);
    for (const id of ["a", "b"])
      core.updateApplication({ new: [{ applicationID: id, queueName: "root.one", ugi: { user: "u" }, placeholderAsk: { memory: 500 } }] });
    for (const id of ["a", "b"]) {
      core.updateAllocation({
        allocations: [{ allocationKey: `${id}-driver`, applicationID: id, resourcePerAlloc: { memory: 100 }, taskGroupName: "tg" }],
      });
      for (let i = 0; i < 5; i++)
        core.updateAllocation({
          allocations: [
            { allocationKey: `${id}-ph${i}`, applicationID: id, resourcePerAlloc: { memory: 100 }, placeholder: true, taskGroupName: "tg" },
          ],
        });
    }
    const first = core.schedule();
    expect(first.filter((a) => a.appId === "a")).toHaveLength(6); // 5 placeholders + the driver replacing one
    expect(first.filter((a) => a.appId === "b")).toHaveLength(0);
    expect(core.holdReason("b", "b-ph0")).toMatchObject({ kind: "queueMax", queuePath: "root.one" });
    core.updateAllocation({ releases: [{ applicationID: "a" }] });
    expect(core.schedule().filter((a) => a.appId === "b")).toHaveLength(6);
  });

  it("Soft timeout from the first placeholder allocation: placeholders released, Resuming → Accepted, real asks scheduled normally", () => {
    const { clock, core, p, ask } = setup({ timeoutMs: 10_000 });
    ask("driver", "driver", 100);
    ask("ph-d", "driver", 100, true);
    ask("ph-e0", "executor", 100, true);
    ask("ph-e1", "executor", 100, true); // the gang needs 4 executors: incomplete
    core.schedule();
    clock.now += 9_999;
    core.schedule();
    expect(p.apps.get("g")!.state).toBe("Reserving");
    clock.now += 1;
    const allocated = core.schedule();
    const rel = core.releases();
    expect(rel.map((r) => [r.allocation.key, r.cause])).toEqual([
      ["ph-d", "timeout"],
      ["ph-e0", "timeout"],
      ["ph-e1", "timeout"],
    ]);
    expect(core.stateChanges().map((c) => [c.to, c.message])).toEqual([
      ["Accepted", undefined],
      ["Reserving", undefined],
      ["Resuming", "ResourceReservationTimeout"],
      ["Accepted", undefined],
      ["Starting", undefined],
    ]);
    expect(allocated.map((a) => a.key)).toEqual(["driver"]);
    expect(core.applicationView("g")!.placeholderData).toEqual([
      { taskGroupName: "driver", count: 1, minResource: { memory: 100, pods: 1 }, replaced: 0, timedOut: 1 },
      { taskGroupName: "executor", count: 2, minResource: { memory: 100, pods: 1 }, replaced: 0, timedOut: 2 },
    ]);
  });

  it("Hard timeout: Failing with ResourceReservationTimeout, Failed once the real asks are gone", () => {
    const { clock, core, p, ask, usage } = setup({ timeoutMs: 1_000, style: "Hard" });
    ask("driver", "driver", 100);
    ask("ph-d", "driver", 100, true);
    core.schedule();
    clock.now += 1_000;
    core.schedule();
    expect(core.stateChanges().map((c) => [c.to, c.message])).toEqual([
      ["Accepted", undefined],
      ["Reserving", undefined],
      ["Failing", "ResourceReservationTimeout"],
    ]);
    expect(usage().queue).toBe(0);
    expect(core.releases().map((r) => r.allocation.key)).toEqual(["ph-d"]);
    core.updateAllocation({ releases: [{ applicationID: "g", allocationKey: "driver" }] });
    expect(core.stateChanges().map((c) => c.to)).toEqual(["Failed"]);
    expect(p.apps.has("g")).toBe(false);
  });

  it("a running gang releases the placeholders no real pod took when the timer fires", () => {
    const { clock, core, ask } = setup({ timeoutMs: 5_000 });
    ask("driver", "driver", 100);
    placeholders(ask);
    core.schedule();
    ask("exec-0", "executor", 100);
    core.schedule();
    clock.now += 5_000;
    core.schedule();
    expect(
      core
        .releases()
        .map((r) => r.allocation.key)
        .sort(),
    ).toEqual(["ph-e1", "ph-e2", "ph-e3"]);
    expect(core.applicationView("g")!.state).toBe("Running");
  });

  it("after a restart the timer lasts what remains of the timeout counted from the pod's creation", () => {
    let now = 100_000;
    const core = new SchedulerCore(() => now, CFG);
    core.updateNode([{ nodeID: "n", action: "CREATE", schedulableResource: { memory: 5000 } }]);
    // the driver was created 10 s before this core accepted the application; the timeout is 30 s
    core.updateApplication({
      new: [
        {
          applicationID: "g",
          queueName: "root.spark",
          ugi: { user: "u" },
          placeholderAsk: { memory: 200 },
          executionTimeoutMilliSeconds: 30_000,
          gangSchedulingStyle: "Hard",
          tags: { "yunikorn.apache.org/creationTime": "90" },
        },
      ],
    });
    core.updateAllocation({
      allocations: [
        { allocationKey: "driver", applicationID: "g", resourcePerAlloc: { memory: 100 }, taskGroupName: "d" },
        { allocationKey: "ph", applicationID: "g", resourcePerAlloc: { memory: 100 }, placeholder: true, taskGroupName: "d" },
      ],
    });
    core.schedule();
    now += 19_999;
    core.schedule();
    expect(core.applicationState("g")).toBe("Reserving");
    now += 1;
    core.schedule();
    expect(core.applicationState("g")).toBe("Failing");
  });

  it("a gang whose pods all go while Reserving completes; its timer firing later changes nothing", () => {
    const { clock, core, ask } = setup({ timeoutMs: 1_000 });
    ask("driver", "driver", 100);
    ask("ph-d", "driver", 100, true);
    core.schedule();
    core.updateAllocation({ releases: [{ applicationID: "g" }] });
    clock.now += 2_000;
    expect(() => core.schedule()).not.toThrow();
    expect(core.stateChanges().map((c) => c.to)).toEqual(["Accepted", "Reserving", "Completing"]);
    expect(core.releases()).toEqual([]);
  });

  it("placeholders count against user limits as real pods would", () => {
    const core = new SchedulerCore(
      () => 0,
      cfg(
        "          - name: lim\n            limits:\n              - limit: u capped\n                users: [u]\n" +
          "                maxresources: {memory: 250}\n",
      ),
    );
    core.updateNode([{ nodeID: "n", action: "CREATE", schedulableResource: { memory: 5000 } }]);
    core.updateApplication({ new: [{ applicationID: "g", queueName: "root.lim", ugi: { user: "u" }, placeholderAsk: { memory: 300 } }] });
    for (let i = 0; i < 3; i++)
      core.updateAllocation({
        allocations: [
          { allocationKey: `ph${i}`, applicationID: "g", resourcePerAlloc: { memory: 100 }, placeholder: true, taskGroupName: "tg" },
        ],
      });
    expect(core.schedule()).toHaveLength(2);
    expect(core.holdReason("g", "ph2")).toMatchObject({ kind: "limit" });
    expect(core.usageViews("users")[0]!.queues.find((q) => q.queuePath === "root.lim")!.resourceUsage.memory).toBe(200);
  });

  it("recovery: bound placeholders become allocations and complete the reservation", () => {
    const { core, ask } = setup();
    ask("driver", "driver", 100);
    const bound = (k: string, tg: string) =>
      core.updateAllocation({
        allocations: [
          {
            allocationKey: k,
            applicationID: "g",
            resourcePerAlloc: { memory: 100, pods: 1 },
            placeholder: true,
            taskGroupName: tg,
            nodeID: "n1",
          },
        ],
      });
    bound("ph-d", "driver");
    for (let i = 0; i < 4; i++) bound(`ph-e${i}`, "executor");
    expect(core.applicationView("g")!.state).toBe("Running");
    expect(core.schedule()).toEqual([expect.objectContaining({ key: "driver", nodeId: "n1" })]);
  });
});
