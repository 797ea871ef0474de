/**
 * Node reservations (yunikorn-core reference §4.6; apache/yunikorn-core partition_test.go TestTryAllocateReserve,
 * TestTryAllocateWithReserved, TestScheduleRemoveReservedAsk, TestRemoveNodeWithAllocations, application_test.go
 * TestAppReservation, TestRemoveReservedAllocAsk): an ask that fits a node's capacity but not its free space reserves
 * the node after 2 s; the node then takes no other ask; the reservation ends when the ask is placed (there or
 * elsewhere), removed, or the node goes.
 */
import { describe, expect, it } from "vitest";
import { type AllocationResult, allocationOf } from "../../../src/scheduler/core/allocation-result.js";
import { decodeQueuesYaml } from "../../../src/scheduler/core/config.js";
import { formatHoldReason } from "../../../src/scheduler/core/hold-reason.js";
import { Partition } from "../../../src/scheduler/core/partition.js";
import { SchedulerCore } from "../../../src/scheduler/core/scheduler.js";
import { validateSchedulerConfig } from "../../../src/scheduler/core/validate.js";

const CFG = `partitions:
  - name: default
    queues:
      - name: root
        submitacl: "*"
        queues: [{name: q}]
`;
const partition = (reservationDelayMs?: number) =>
  new Partition({ name: "default", config: validateSchedulerConfig(decodeQueuesYaml(CFG)).partitions[0]!, reservationDelayMs });
const results = (p: Partition, now: number): AllocationResult[] => {
  const out: AllocationResult[] = [];
  for (let r = p.tryAllocate(now); r; r = p.tryAllocate(now)) out.push(r);
  return out;
};

/**
 * Four nodes of 10 run small pods of 4 (two per node: 2 free each, 8 free in the cluster, so the queue headroom takes
 * it); a big ask of 8 waits behind an older application whose small pods keep arriving: every second one small pod
 * ends and a new one is asked.
 * @returns the second at which the big ask was placed, or undefined within 30 s
 */
function starvation(reservationDelayMs: number): { placedAt?: number; p: Partition; onReserved: number } {
  const p = partition(reservationDelayMs);
  for (let i = 1; i <= 4; i++) p.addNode(`n${i}`, { memory: 10 });
  p.addApplication({ id: "small", queue: "root.q", user: "u", groups: [], tags: {}, now: 0 });
  p.addApplication({ id: "big", queue: "root.q", user: "u", groups: [], tags: {}, now: 1 });
  let seq = 0,
    onReserved = 0;
  const running: string[] = [];
  const ask = (now: number) => p.addAsk({ appId: "small", key: `s${seq++}`, resource: { memory: 4 }, priority: 0, createTime: now, now });
  for (let i = 0; i < 8; i++) ask(0);
  p.addAsk({ appId: "big", key: "b", resource: { memory: 8 }, priority: 0, createTime: 1, now: 1 });
  for (let t = 0; t <= 30; t++) {
    const now = t * 1000;
    if (t > 0) {
      p.removeAsk("small", running.shift()!, now);
      ask(now);
    }
    const reservedNode = p.reservationList()[0]?.nodeId;
    for (const r of results(p, now)) {
      const a = allocationOf(r);
      if (a?.appId === "small") running.push(a.key);
      if (a?.appId === "small" && a.nodeId === reservedNode) onReserved++;
      if (a?.appId === "big") return { placedAt: t, p, onReserved };
    }
  }
  return { p, onReserved };
}

describe("node reservations", () => {
  it("a reserved ask leaves the application's walk but stays pending at its priority; it returns when the reservation ends", () => {
    const p = partition(0);
    p.addNode("n1", { memory: 10 });
    p.addNode("n2", { memory: 10 });
    p.addApplication({ id: "a", queue: "root.q", user: "u", groups: [], tags: {}, now: 0 });
    p.addAsk({ appId: "a", key: "run1", resource: { memory: 6 }, priority: 0, createTime: 0, now: 0 });
    p.addAsk({ appId: "a", key: "run2", resource: { memory: 6 }, priority: 0, createTime: 0, now: 0 });
    expect(results(p, 0).map((r) => r.kind)).toEqual(["allocated", "allocated"]);
    p.addAsk({ appId: "a", key: "big", resource: { memory: 8 }, priority: 5, createTime: 1, now: 1 });
    p.addAsk({ appId: "a", key: "small", resource: { memory: 5 }, priority: 1, createTime: 1, now: 1 });
    // neither fits the 4 free on each node: each reserves one
    expect(results(p, 10).map((r) => (r.kind === "reserved" ? r.key : r.kind))).toEqual(["big", "small"]);
    const app = p.apps.get("a")!;
    expect(app.unreservedPending().length).toBe(0);
    expect(app.hasPending()).toBe(true);
    expect(app.maxPendingPriority()).toBe(5);
    // the node small reserved goes: its reservation ends and it is back in the walk
    const smallNode = p.reservationList().find((r) => r.key === "small")!.nodeId;
    p.removeNode(smallNode, 20);
    expect(app.unreservedPending().map((x) => x.key)).toEqual(["small"]);
    p.removeAsk("a", "big", 20);
    expect(app.maxPendingPriority()).toBe(1);
    p.removeAsk("a", "run1", 21);
    p.removeAsk("a", "run2", 21);
    // room on the node left: small is placed by the walk
    expect(results(p, 22).map((r) => r.kind)).toEqual(["allocated"]);
    expect(app.hasPending()).toBe(false);
    expect(app.maxPendingPriority()).toBe(Number.NEGATIVE_INFINITY);
    p.addAsk({ appId: "a", key: "next", resource: { memory: 1 }, priority: 0, createTime: 30, now: 30 });
    expect(app.unreservedPending().map((x) => x.key)).toEqual(["next"]);
  });

  it("a large ask does not starve behind a stream of small ones: it reserves a node and gets it once it drains", () => {
    const without = starvation(Number.POSITIVE_INFINITY);
    expect(without.placedAt).toBeUndefined();
    const withRes = starvation(2000);
    expect(withRes.placedAt).toBeDefined();
    expect(withRes.placedAt!).toBeLessThanOrEqual(10);
    expect(withRes.p.reservationList()).toEqual([]);
    expect(withRes.onReserved).toBe(0); // the reserved node took no small pod while reserved
  });

  it("reserves only after the delay, the node with the best fit; the hold reason names the reserved node", () => {
    let now = 0;
    const core = new SchedulerCore(() => now, CFG);
    core.updateNode([
      { nodeID: "n1", action: "CREATE", schedulableResource: { memory: 10 } },
      { nodeID: "n2", action: "CREATE", schedulableResource: { memory: 10 } },
    ]);
    core.updateApplication({
      new: [
        { applicationID: "a", queueName: "root.q", ugi: { user: "u" } },
        { applicationID: "b", queueName: "root.q", ugi: { user: "u" } },
      ],
    });
    core.updateAllocation({
      allocations: [
        { allocationKey: "x", applicationID: "a", resourcePerAlloc: { memory: 6 } },
        { allocationKey: "y", applicationID: "a", resourcePerAlloc: { memory: 3 } },
      ],
    });
    expect(core.schedule().map((a) => `${a.key}@${a.nodeId}`)).toEqual(["x@n1", "y@n2"]);
    core.updateAllocation({ allocations: [{ allocationKey: "big", applicationID: "b", resourcePerAlloc: { memory: 8 } }] });
    expect(core.scheduleResults()).toEqual([]);
    expect(formatHoldReason(core.holdReason("b", "big")!)).toBe("no node has map[memory:8] free (nodes: 2)");
    now = 2000;
    // n2 (7 free) fits 8 worse than n1 (4 free)? Both too small now; the fit score prefers the node the ask uses most of
    expect(core.scheduleResults()).toEqual([{ kind: "reserved", appId: "b", key: "big", nodeId: "n2" }]);
    expect(core.holdReason("b", "big")).toEqual({ kind: "reservation", nodeId: "n2", ask: { memory: 8 }, available: { memory: 7 } });
    expect(core.pendingReason("b", "big")).toEqual({
      state: "Failed",
      reason: "waiting on node n2 reserved for it to have map[memory:8] free (available map[memory:7])",
    });
    expect(core.nodeView("n2")!.reservation).toEqual({ appId: "b", key: "big", since: 2000 });
    // the reserved node takes no other ask, even one that fits it
    core.updateAllocation({ allocations: [{ allocationKey: "z", applicationID: "a", resourcePerAlloc: { memory: 4 } }] });
    expect(core.schedule().map((a) => `${a.key}@${a.nodeId}`)).toEqual(["z@n1"]);
    core.updateAllocation({ allocations: [{ allocationKey: "w", applicationID: "a", resourcePerAlloc: { memory: 1 } }] });
    expect(core.schedule()).toEqual([]);
    // room on the reserved node: the reserved ask goes there first
    core.updateAllocation({ releases: [{ applicationID: "a", allocationKey: "y" }] });
    expect(core.scheduleResults()).toEqual([
      {
        kind: "allocatedReserved",
        reservedNode: "n2",
        allocation: { key: "big", appId: "b", nodeId: "n2", resource: { memory: 8 }, queue: "root.q" },
      },
      { kind: "allocated", allocation: { key: "w", appId: "a", nodeId: "n2", resource: { memory: 1 }, queue: "root.q" } },
    ]);
    expect(core.nodeView("n2")!.reservation).toBeUndefined();
  });

  describe("release on every path", () => {
    const reserved = () => {
      const p = partition(2000);
      p.addNode("n1", { memory: 10 });
      p.addNode("n2", { memory: 10 });
      p.addApplication({ id: "a", queue: "root.q", user: "u", groups: [], tags: {}, now: 0 });
      p.addApplication({ id: "b", queue: "root.q", user: "u", groups: [], tags: {}, now: 0 });
      p.addAsk({ appId: "a", key: "x", resource: { memory: 6 }, priority: 0, createTime: 0, now: 0 });
      p.addAsk({ appId: "a", key: "y", resource: { memory: 6 }, priority: 0, createTime: 0, now: 0 });
      results(p, 0);
      p.addAsk({ appId: "b", key: "big", resource: { memory: 8 }, priority: 0, createTime: 0, now: 0 });
      expect(results(p, 2000)).toEqual([{ kind: "reserved", appId: "b", key: "big", nodeId: "n1" }]);
      return p;
    };
    const clear = (p: Partition, node = "n1") => {
      expect(p.reservationList()).toEqual([]);
      expect(p.nodes.get(node)?.reservation).toBeUndefined();
    };

    it("placed elsewhere: room appears on another node first", () => {
      const p = reserved();
      p.removeAsk("a", "y", 3000); // n2 is empty now, n1 still holds x
      expect(results(p, 3000)).toEqual([
        {
          kind: "allocatedReserved",
          reservedNode: "n1",
          allocation: { key: "big", appId: "b", nodeId: "n2", resource: { memory: 8 }, queue: "root.q" },
        },
      ]);
      clear(p);
      p.addAsk({ appId: "a", key: "z", resource: { memory: 4 }, priority: 0, createTime: 3000, now: 3000 });
      expect(results(p, 3000).map((r) => allocationOf(r)?.nodeId)).toEqual(["n1"]); // n1 takes asks again
    });

    it("the ask is removed (the pod went away)", () => {
      const p = reserved();
      p.removeAsk("b", "big", 3000);
      clear(p);
      expect(p.holdReason("b", "big")).toBeUndefined();
    });

    it("the ask is updated (resized)", () => {
      const p = reserved();
      p.addAsk({ appId: "b", key: "big", resource: { memory: 9 }, priority: 0, createTime: 0, now: 3000 });
      expect(p.apps.get("b")!.asks.get("big")!.reservedNode).toBeUndefined();
      expect(p.reservationList()).toEqual([]);
    });

    it("the application is removed", () => {
      const p = reserved();
      p.removeApplication("b", 3000);
      clear(p);
    });

    it("the node is removed, or becomes unschedulable; the ask reserves again elsewhere", () => {
      const p = reserved();
      p.removeNode("n1", 3000);
      expect(p.reservationList()).toEqual([]);
      expect(p.apps.get("b")!.asks.get("big")!.reservedNode).toBeUndefined();
      p.addNode("n3", { memory: 10 }, { memory: 5 }); // 5 used by pods the core does not manage
      expect(results(p, 3000)).toEqual([{ kind: "reserved", appId: "b", key: "big", nodeId: "n3" }]);
      p.updateNode("n3", { schedulable: false });
      clear(p, "n3");
      expect(p.apps.get("b")!.asks.get("big")!.reservedNode).toBeUndefined();
    });
  });
});
