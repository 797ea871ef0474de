/**
 * Preemption wired into the scheduling core (partition.ts → core/preemption/): the decision's rules are tested on
 * plain snapshots in preemption.test.ts; here the core's own objects drive it — the queue guarantee reached exactly,
 * `preemption.delay` from the ask's creation, the ask's own application never a victim, victims kept allocated until
 * released and the preemptor placed on the reserved node only then, the pod flags the resource manager sends, a
 * refused eviction, the partition switch. Follows apache/yunikorn-core partition_test.go TestPreemption*,
 * application_test.go TestTryAllocatePreemptQueue.
 */
import { describe, expect, it } from "vitest";
import { type AllocationResult, allocationOf } from "../../../src/scheduler/core/allocation-result.js";
import { decodeQueuesYaml } from "../../../src/scheduler/core/config.js";
import { Partition } from "../../../src/scheduler/core/partition.js";
import { allocationId } from "../../../src/scheduler/core/node.js";
import { preemptionAllocation } from "../../../src/scheduler/core/preemption/core-snapshot.js";
import { SchedulerCore } from "../../../src/scheduler/core/scheduler.js";
import { validateSchedulerConfig } from "../../../src/scheduler/core/validate.js";
import { allocationInfo } from "../../../src/scheduler/rest/app-dao.js";
import { applicationSummaries, pendingList } from "../../../src/scheduler/rest/corral-dao.js";
import { partitionInfo, queueInfo } from "../../../src/scheduler/rest/dao.js";

const CPU = 1000;

/** Queue a (guaranteed `aGuaranteed` cpu, default 4) and b (guaranteed `bGuaranteed` cpu), preemption.delay 1 s on both. */
function config(o: { aGuaranteed?: number; bGuaranteed?: number; enabled?: boolean } = {}): string {
  const g = (n: number | undefined) => (n ? `\n            resources: {guaranteed: {vcore: ${n}}}` : "");
  return `partitions:
  - name: default
    ${o.enabled === false ? "preemption: {enabled: false}" : ""}
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: a
            properties: {preemption.delay: 1s}${g(o.aGuaranteed ?? 4)}
          - name: b
            properties: {preemption.delay: 1s}${g(o.bGuaranteed)}
`;
}

const partition = (cfg: string) =>
  new Partition({ name: "default", config: validateSchedulerConfig(decodeQueuesYaml(cfg)).partitions[0]!, reservationDelayMs: 60_000 });

const results = (p: Partition, now: number): AllocationResult[] => {
  p.tick(now);
  const out: AllocationResult[] = [];
  for (let r = p.tryAllocate(now); r; r = p.tryAllocate(now)) out.push(r);
  return out;
};
const preempting = (rs: AllocationResult[]) =>
  rs.filter((r): r is Extract<AllocationResult, { kind: "preempting" }> => r.kind === "preempting");

/**
 * Two nodes of 4 cpu; application `b1` in queue b runs 8 pods of 1 cpu, pod i created at second i (b7 the youngest),
 * four per node; application `a1` of queue a asks `asks` pods of 1 cpu at t = 10 s.
 */
function fullCluster(o: { aGuaranteed?: number; bGuaranteed?: number; asks?: number; enabled?: boolean } = {}) {
  const p = partition(config(o));
  p.addNode("n1", { vcore: 4 * CPU });
  p.addNode("n2", { vcore: 4 * CPU });
  p.addApplication({ id: "b1", queue: "root.b", user: "bob", groups: [], tags: {}, now: 0 });
  for (let i = 0; i < 8; i++)
    p.addAsk({
      appId: "b1",
      key: `b${i}`,
      resource: { vcore: CPU },
      priority: 0,
      createTime: i * 1000,
      now: i * 1000,
      node: i < 4 ? "n1" : "n2",
    });
  p.addApplication({ id: "a1", queue: "root.a", user: "alice", groups: [], tags: {}, now: 10_000 });
  for (let i = 0; i < (o.asks ?? 4); i++)
    p.addAsk({ appId: "a1", key: `a${i}`, resource: { vcore: CPU }, priority: 0, createTime: 10_000, now: 10_000 });
  return p;
}

describe("preemption in the scheduling core", () => {
  it("waits preemption.delay from the ask's creation, then preempts b's youngest pods for a's guarantee exactly", () => {
    const p = fullCluster({ asks: 5 });
    expect(preempting(results(p, 10_999))).toEqual([]);
    // one preemption in flight per node (a node holds one reservation): a0 on n1, a1 on n2
    const first = preempting(results(p, 11_000));
    expect(first.map((r) => [r.key, r.nodeId, r.victims.map((v) => v.key)])).toEqual([
      ["a0", "n1", ["b3"]],
      ["a1", "n2", ["b7"]],
    ]);
    for (const r of first) {
      expect(r.preemption.victims[0]!.queueRule).toMatchObject({ rule: "victim-queue-over-guarantee", queue: "root.b" });
      expect(r.preemption.victims[0]!.helps).toEqual({ rule: "frees-node", nodeId: r.nodeId });
    }
    // victims stay allocated (and counted) until released; they are marked preempting
    expect(p.find("root.b")!.allocated).toEqual({ vcore: 8 * CPU });
    expect(p.find("root.b")!.preempting).toEqual({ vcore: 2 * CPU });
    expect(p.apps.get("b1")!.asks.get("b7")!.preempted).toBe(true);
    p.removeAsk("b1", "b3", 12_000);
    p.removeAsk("b1", "b7", 12_000);
    expect(results(p, 12_000).map((r) => r.kind)).toEqual(["allocatedReserved", "allocatedReserved"]);
    // a2 and a3 tried at 11 s without a node: again 15 s later, on the next youngest of each node
    expect(preempting(results(p, 25_999))).toEqual([]);
    const second = preempting(results(p, 26_000));
    expect(second.map((r) => [r.key, r.nodeId, r.victims.map((v) => v.key)])).toEqual([
      ["a2", "n1", ["b2"]],
      ["a3", "n2", ["b6"]],
    ]);
    p.removeAsk("b1", "b2", 27_000);
    p.removeAsk("b1", "b6", 27_000);
    expect(results(p, 27_000).map((r) => r.kind)).toEqual(["allocatedReserved", "allocatedReserved"]);
    // a holds exactly its guarantee: the fifth ask never preempts
    expect(p.find("root.a")!.allocated).toEqual({ vcore: 4 * CPU });
    expect(preempting(results(p, 60_000))).toEqual([]);
    expect(preempting(results(p, 120_000))).toEqual([]);
    expect(p.find("root.b")!.allocated).toEqual({ vcore: 4 * CPU });
  });

  // upstream queue.go TryAllocate gives each leaf maxPreemptionsPerQueue attempts afresh in every walk
  it("at most 10 preemption attempts per leaf in one walk, not in one pass: twelve asks preempt twelve nodes at once", () => {
    const p = partition(config({ aGuaranteed: 12 }));
    p.addApplication({ id: "b1", queue: "root.b", user: "bob", groups: [], tags: {}, now: 0 });
    for (let i = 0; i < 12; i++) {
      p.addNode(`n${i}`, { vcore: CPU });
      p.addAsk({ appId: "b1", key: `b${i}`, resource: { vcore: CPU }, priority: 0, createTime: 0, now: 0, node: `n${i}` });
    }
    p.addApplication({ id: "a1", queue: "root.a", user: "alice", groups: [], tags: {}, now: 10_000 });
    for (let i = 0; i < 12; i++)
      p.addAsk({ appId: "a1", key: `a${i}`, resource: { vcore: CPU }, priority: 0, createTime: 10_000, now: 10_000 });
    expect(preempting(results(p, 11_000))).toHaveLength(12);
  });

  it("a victim resized in place before it is released keeps its queues' preempting usage at its size", () => {
    const p = fullCluster({ asks: 5 });
    expect(preempting(results(p, 11_000)).flatMap((r) => r.victims.map((v) => v.key))).toEqual(["b3", "b7"]);
    expect(p.find("root.b")!.preempting).toEqual({ vcore: 2 * CPU });
    // the resource manager reports b3 resized in place to 2 cpu (its node's truth) while it is being evicted
    p.addAsk({ appId: "b1", key: "b3", resource: { vcore: 2 * CPU }, priority: 0, createTime: 3000, now: 11_500, node: "n1" });
    expect(p.find("root.b")!.preempting).toEqual({ vcore: 3 * CPU });
    expect(p.root.preempting).toEqual({ vcore: 3 * CPU });
    p.removeAsk("b1", "b3", 12_000);
    p.removeAsk("b1", "b7", 12_000);
    expect(p.find("root.b")!.preempting).toEqual({ vcore: 0 });
    expect(p.root.preempting).toEqual({ vcore: 0 });
  });

  it("places the preemptor on its reserved node only once its victims are released", () => {
    const p = fullCluster({ asks: 1 });
    const [r] = preempting(results(p, 11_000));
    expect(r).toMatchObject({ appId: "a1", key: "a0", nodeId: "n1", victims: [{ key: "b3", appId: "b1", nodeId: "n1" }] });
    expect(p.reservationList()).toEqual([{ appId: "a1", key: "a0", nodeId: "n1", since: 11_000 }]);
    // nothing moves while the victim runs
    expect(results(p, 12_000)).toEqual([]);
    expect(p.holdReason("a1", "a0")).toMatchObject({
      kind: "preemption",
      nodeId: "n1",
      victims: [{ allocationKey: "b3", released: false }],
    });
    // room on the other node does not take the preemptor away from its node
    p.removeAsk("b1", "b4", 12_500);
    expect(results(p, 12_500)).toEqual([]);
    p.removeAsk("b1", "b3", 13_000);
    const placed = results(p, 13_000);
    expect(placed).toEqual([
      { kind: "allocatedReserved", reservedNode: "n1", allocation: expect.objectContaining({ appId: "a1", key: "a0", nodeId: "n1" }) },
    ]);
    expect(p.find("root.b")!.preempting.vcore ?? 0).toBe(0);
    expect(p.reservationList()).toEqual([]);
  });

  // partition_test.go TestPreemption, application_test.go TestTryAllocatePreemptQueue: an ask held by a parent's max while
  // nodes have room (upstream tryPreemption with nodesTried false) takes a node that needs no victim of its own
  it("an ask held by a parent's max preempts a sibling over its guarantee, then goes to the node that had room", () => {
    const p = partition(`partitions:
  - name: default
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: parent
            resources: {max: {vcore: 10}}
            queues:
              - name: leaf1
                resources: {guaranteed: {vcore: 5}}
                properties: {preemption.delay: 1s}
              - name: leaf2
                resources: {guaranteed: {vcore: 5}}
                properties: {preemption.delay: 1s}
`);
    p.addNode("node-1", { vcore: 10 * CPU });
    p.addNode("node-2", { vcore: 10 * CPU });
    p.addApplication({ id: "app-1", queue: "root.parent.leaf1", user: "u", groups: [], tags: {}, now: 0 });
    p.addAsk({ appId: "app-1", key: "alloc-1", resource: { vcore: 5 * CPU }, priority: 2, createTime: 0, now: 0, node: "node-1" });
    p.addAsk({ appId: "app-1", key: "alloc-2", resource: { vcore: 5 * CPU }, priority: 1, createTime: 0, now: 0, node: "node-2" });
    p.addApplication({ id: "app-2", queue: "root.parent.leaf2", user: "u", groups: [], tags: {}, now: 0 });
    p.addAsk({ appId: "app-2", key: "alloc-3", resource: { vcore: 5 * CPU }, priority: 1, createTime: 0, now: 0 });
    expect(results(p, 500)).toEqual([]);
    expect(p.holdReason("app-2", "alloc-3")).toMatchObject({ kind: "queueMax", queuePath: "root.parent" });
    const [r] = preempting(results(p, 1_000));
    expect(r).toMatchObject({ appId: "app-2", key: "alloc-3", nodeId: "node-1", victims: [{ key: "alloc-2", nodeId: "node-2" }] });
    expect(results(p, 2_000)).toEqual([]);
    p.removeAsk("app-1", "alloc-2", 3_000);
    expect(results(p, 3_000)).toEqual([
      { kind: "allocatedReserved", reservedNode: "node-1", allocation: expect.objectContaining({ key: "alloc-3", nodeId: "node-1" }) },
    ]);
  });

  /**
   * Reservation delay 2 s, preemption.delay 30 s (the defaults): two nodes of 4 cpu, each running a 1-cpu and a 2-cpu
   * pod (2 cpu free in all, no node takes 2); n1's of queue `n1Queue`, n2's of b; `a1` (queue a, guaranteed 2 cpu)
   * asks 2 cpu at 10 s.
   */
  const fragmented = (n1Queue: "b" | "c") => {
    const cfg = validateSchedulerConfig(
      decodeQueuesYaml(`partitions:
  - name: default
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: a
            resources: {guaranteed: {vcore: 2}}
            properties: {preemption.delay: 30s}
          - name: b
          - name: c
            resources: {guaranteed: {vcore: 3}}
`),
    ).partitions[0]!;
    const p = new Partition({ name: "default", config: cfg, reservationDelayMs: 2_000 });
    for (const n of ["n1", "n2"]) p.addNode(n, { vcore: 4 * CPU });
    for (const [app, queue, node] of [
      [`${n1Queue}1`, `root.${n1Queue}`, "n1"],
      ["b2", "root.b", "n2"],
    ] as const) {
      p.addApplication({ id: app, queue, user: "u", groups: [], tags: {}, now: 0 });
      for (let i = 0; i < 2; i++)
        p.addAsk({ appId: app, key: `${app}-${i}`, resource: { vcore: (1 + i) * CPU }, priority: 0, createTime: 1 + i, now: 0, node });
    }
    p.addApplication({ id: "a1", queue: "root.a", user: "alice", groups: [], tags: {}, now: 10_000 });
    p.addAsk({ appId: "a1", key: "ask", resource: { vcore: 2 * CPU }, priority: 0, createTime: 10_000, now: 10_000 });
    return p;
  };

  // application_test.go TestTryAllocatePreemptNode: an ask that reserved a node while preemption was not yet due (the
  // reservation delay is shorter than preemption.delay) still preempts once it is
  it("an ask holding an ordinary reservation preempts once preemption.delay has passed; its reservation gives way", () => {
    const p = fragmented("b");
    expect(results(p, 10_500)).toEqual([]);
    expect(results(p, 13_000)).toEqual([{ kind: "reserved", appId: "a1", key: "ask", nodeId: "n1" }]);
    expect(results(p, 30_000)).toEqual([]);
    const [r] = preempting(results(p, 41_000));
    expect(r).toMatchObject({ key: "ask", nodeId: "n1", victims: [{ key: "b1-1" }] });
    expect(p.reservationList()).toEqual([{ appId: "a1", key: "ask", nodeId: "n1", since: 41_000 }]);
    p.removeAsk("b1", "b1-1", 42_000);
    expect(results(p, 42_000)).toEqual([
      { kind: "allocatedReserved", reservedNode: "n1", allocation: expect.objectContaining({ key: "ask", nodeId: "n1" }) },
    ]);
  });

  it("a reserved ask preempting on another node leaves its first node free", () => {
    // n1 runs c's pods (c at its guarantee: no victims there)
    const p = fragmented("c");
    expect(results(p, 13_000)).toEqual([{ kind: "reserved", appId: "a1", key: "ask", nodeId: "n1" }]);
    expect(preempting(results(p, 41_000))).toMatchObject([{ key: "ask", nodeId: "n2", victims: [{ key: "b2-1" }] }]);
    expect(p.reservationList()).toEqual([{ appId: "a1", key: "ask", nodeId: "n2", since: 41_000 }]);
    expect(p.nodes.get("n1")!.reservation).toBeUndefined();
  });

  it("holds a preemptor with its decision as data: victims, rules, node, its queue's guarantee; victims marked released as they go", () => {
    const p = fullCluster({ asks: 0 });
    p.addAsk({ appId: "a1", key: "big", resource: { vcore: 2 * CPU }, priority: 0, createTime: 10_000, now: 10_000 });
    const [r] = preempting(results(p, 11_000));
    expect(r!.victims.map((v) => v.key)).toEqual(["b3", "b2"]);
    const victim = (key: string, createTime: number, released: boolean) => ({
      allocationKey: key,
      applicationId: "b1",
      queuePath: "root.b",
      nodeId: "n1",
      resource: { vcore: CPU },
      priority: 0,
      createTime,
      placeholder: false,
      originator: false,
      allowPreemption: true,
      released,
      queueRule: { rule: "victim-queue-over-guarantee", queue: "root.b", allocated: { vcore: 8 * CPU } },
      priorityRule: { rule: "priority-lower-or-equal", victimPriority: 0, askPriority: 0 },
      helps: { rule: "frees-node", nodeId: "n1" },
    });
    expect(p.holdReason("a1", "big")).toEqual({
      kind: "preemption",
      nodeId: "n1",
      ask: { vcore: 2 * CPU },
      available: { vcore: 0 },
      queuePath: "root.a",
      guarantee: { queuePath: "root.a", guaranteed: { vcore: 4 * CPU }, allocated: {} },
      fence: "root",
      since: 11_000,
      victims: [victim("b3", 3000, false), victim("b2", 2000, false)],
    });
    // one victim gone: still waiting on the node, that victim marked released
    p.removeAsk("b1", "b3", 12_000);
    expect(results(p, 12_000)).toEqual([]);
    const h = p.holdReason("a1", "big");
    expect(h).toMatchObject({ kind: "preemption", available: { vcore: CPU } });
    expect(h?.kind === "preemption" && h.victims.map((v) => [v.allocationKey, v.released])).toEqual([
      ["b3", true],
      ["b2", false],
    ]);
    p.removeAsk("b1", "b2", 13_000);
    expect(results(p, 13_000).map((x) => x.kind)).toEqual(["allocatedReserved"]);
    expect(p.holdReason("a1", "big")).toBeUndefined();
  });

  it("keeps the victim queue at its guarantee", () => {
    const p = fullCluster({ bGuaranteed: 6, asks: 4 });
    expect(preempting(results(p, 11_000)).flatMap((r) => r.victims.map((v) => v.key))).toEqual(["b3", "b7"]);
    p.removeAsk("b1", "b3", 12_000);
    p.removeAsk("b1", "b7", 12_000);
    results(p, 12_000);
    // b is at its guarantee (6 cpu): a's other asks find no victim
    expect(preempting(results(p, 30_000))).toEqual([]);
    expect(p.find("root.b")!.allocated).toEqual({ vcore: 6 * CPU });
  });

  it("never takes the ask's own application (or queue) as victim", () => {
    const p = partition(config({ aGuaranteed: 6 }));
    p.addNode("n1", { vcore: 8 * CPU });
    p.addApplication({ id: "b1", queue: "root.b", user: "bob", groups: [], tags: {}, now: 0 });
    for (let i = 0; i < 4; i++)
      p.addAsk({ appId: "b1", key: `b${i}`, resource: { vcore: CPU }, priority: 0, createTime: i * 1000, now: i * 1000, node: "n1" });
    p.addApplication({ id: "a1", queue: "root.a", user: "alice", groups: [], tags: {}, now: 0 });
    // a1's own pods are the youngest on the node
    for (let i = 0; i < 4; i++)
      p.addAsk({ appId: "a1", key: `own${i}`, resource: { vcore: CPU }, priority: 0, createTime: 5000 + i * 1000, now: 9000, node: "n1" });
    p.addAsk({ appId: "a1", key: "x", resource: { vcore: 2 * CPU }, priority: 0, createTime: 10_000, now: 10_000 });
    const [r] = preempting(results(p, 11_000));
    expect(r!.victims.map((v) => v.appId)).toEqual(["b1", "b1"]);
    expect(r!.victims.map((v) => v.key)).toEqual(["b3", "b2"]);
  });

  it("does not preempt for an ask of a queue without a guarantee, with preemptionPolicy Never, or with preemption off", () => {
    const noGuarantee = fullCluster({ asks: 1 });
    // queue b asks more: b has no guarantee
    noGuarantee.addAsk({ appId: "b1", key: "more", resource: { vcore: CPU }, priority: 0, createTime: 10_000, now: 10_000 });
    noGuarantee.removeAsk("a1", "a0", 10_000);
    expect(preempting(results(noGuarantee, 20_000))).toEqual([]);

    const never = fullCluster({ asks: 0 });
    never.addAsk({
      appId: "a1",
      key: "n",
      resource: { vcore: CPU },
      priority: 0,
      createTime: 10_000,
      now: 10_000,
      allowPreemptOther: false,
    });
    expect(preempting(results(never, 20_000))).toEqual([]);

    const off = fullCluster({ asks: 1, enabled: false });
    expect(off.preemptionEnabled).toBe(false);
    expect(preempting(results(off, 20_000))).toEqual([]);
  });

  it("takes opted-out pods and the originator last", () => {
    const p = partition(config());
    p.addNode("n1", { vcore: 4 * CPU });
    p.addApplication({ id: "b1", queue: "root.b", user: "bob", groups: [], tags: {}, now: 0 });
    p.addAsk({
      appId: "b1",
      key: "driver",
      resource: { vcore: CPU },
      priority: 0,
      createTime: 3000,
      now: 3000,
      node: "n1",
      originator: true,
    });
    p.addAsk({
      appId: "b1",
      key: "optout",
      resource: { vcore: CPU },
      priority: 0,
      createTime: 2000,
      now: 3000,
      node: "n1",
      allowPreemptSelf: false,
    });
    p.addAsk({ appId: "b1", key: "old", resource: { vcore: CPU }, priority: 0, createTime: 0, now: 3000, node: "n1" });
    p.addAsk({ appId: "b1", key: "older", resource: { vcore: CPU }, priority: 0, createTime: -1000, now: 3000, node: "n1" });
    p.addApplication({ id: "a1", queue: "root.a", user: "alice", groups: [], tags: {}, now: 10_000 });
    p.addAsk({ appId: "a1", key: "a0", resource: { vcore: 3 * CPU }, priority: 0, createTime: 10_000, now: 10_000 });
    const [r] = preempting(results(p, 11_000));
    expect(r!.victims.map((v) => v.key)).toEqual(["old", "older", "optout"]);
    expect(r!.preemption.victims.map((v) => [v.allowPreemption, v.originator])).toEqual([
      [true, false],
      [true, false],
      [false, false],
    ]);
  });

  it("after a refused eviction releases the reservation and later chooses another victim", () => {
    const p = fullCluster({ asks: 1 });
    const [r] = preempting(results(p, 11_000));
    expect(r!.victims.map((v) => v.key)).toEqual(["b3"]);
    expect(p.preemptionBlocked("a1", "a0", { appId: "b1", key: "b3" })).toBe(true);
    expect(p.reservationList()).toEqual([]);
    expect(p.find("root.b")!.preempting.vcore ?? 0).toBe(0);
    expect(p.apps.get("b1")!.asks.get("b3")!.preempted).toBe(false);
    // 15 s between attempts of one ask
    expect(preempting(results(p, 25_999))).toEqual([]);
    const [again] = preempting(results(p, 26_000));
    expect(again!.victims.map((v) => v.key)).toEqual(["b2"]);
    expect(p.preemptionBlocked("a1", "nope", { appId: "b1", key: "b6" })).toBe(false);
  });

  it("a gang's placeholders preempt like any ask (upstream walks them the same way); the gang runs once they are placed", () => {
    const p = fullCluster({ asks: 0 });
    p.addApplication({
      id: "g1",
      queue: "root.a",
      user: "alice",
      groups: [],
      tags: {},
      now: 10_000,
      gang: { placeholderAsk: { vcore: 2 * CPU } },
    });
    for (let i = 0; i < 2; i++)
      p.addAsk({
        appId: "g1",
        key: `ph${i}`,
        resource: { vcore: CPU },
        priority: 0,
        createTime: 10_000,
        now: 10_000,
        placeholder: true,
        taskGroup: "tg",
      });
    p.addAsk({ appId: "g1", key: "driver", resource: { vcore: CPU }, priority: 0, createTime: 10_000, now: 10_000, taskGroup: "tg" });
    expect(p.apps.get("g1")!.state).toBe("Reserving");
    expect(preempting(results(p, 10_999))).toEqual([]);
    const rs = preempting(results(p, 11_000));
    expect(rs.map((r) => [r.key, r.nodeId, r.victims.map((v) => v.key)])).toEqual([
      ["ph0", "n1", ["b3"]],
      ["ph1", "n2", ["b7"]],
    ]);
    p.removeAsk("b1", "b3", 12_000);
    p.removeAsk("b1", "b7", 12_000);
    const placed = results(p, 12_000);
    expect(placed.filter((r) => r.kind === "allocatedReserved").map((r) => allocationOf(r)!.key)).toEqual(["ph0", "ph1"]);
    expect(p.apps.get("g1")!.state).toBe("Running");
    expect(p.find("root.b")!.allocated).toEqual({ vcore: 6 * CPU });
  });

  it("ends a preemption whose victims are gone when the node still has no room", () => {
    const p = fullCluster({ asks: 1 });
    preempting(results(p, 11_000));
    // the victim goes, but a pod the core does not manage takes its place
    p.updateNode("n1", { occupied: { vcore: CPU } });
    p.removeAsk("b1", "b3", 12_000);
    expect(results(p, 12_000)).toEqual([{ kind: "unreserved", appId: "a1", key: "a0", nodeId: "n1", cause: "preemptionEnded" }]);
    expect(p.reservationList()).toEqual([]);
  });

  it("reads the pod flags from the resource manager's allocation messages", () => {
    let now = 0;
    const core = new SchedulerCore(() => now, config());
    core.updateNode([{ nodeID: "n1", action: "CREATE", schedulableResource: { vcore: 2 * CPU } }]);
    core.updateApplication({
      new: [
        { applicationID: "b1", queueName: "root.b", ugi: { user: "bob" } },
        { applicationID: "a1", queueName: "root.a", ugi: { user: "alice" } },
      ],
    });
    core.updateAllocation({
      allocations: [
        {
          allocationKey: "young-optout",
          applicationID: "b1",
          resourcePerAlloc: { vcore: CPU },
          nodeID: "n1",
          allocationTags: { creationTime: "5" },
          preemptionPolicy: { allowPreemptSelf: false, allowPreemptOther: true },
        },
        {
          allocationKey: "old",
          applicationID: "b1",
          resourcePerAlloc: { vcore: CPU },
          nodeID: "n1",
          allocationTags: { creationTime: "1" },
        },
        {
          allocationKey: "never",
          applicationID: "a1",
          resourcePerAlloc: { vcore: CPU },
          allocationTags: { creationTime: "10" },
          preemptionPolicy: { allowPreemptSelf: true, allowPreemptOther: false },
        },
        { allocationKey: "ask", applicationID: "a1", resourcePerAlloc: { vcore: CPU }, allocationTags: { creationTime: "10" } },
      ],
    });
    now = 11_000;
    const rs = preempting(core.scheduleResults());
    expect(rs.map((r) => [r.key, r.victims.map((v) => v.key)])).toEqual([["ask", ["old"]]]);
    expect(core.preemptionBlocked("a1", "ask", { appId: "b1", key: "old" })).toBe(true);
  });

  it("reports preemption on the REST shapes: partition and queue switches, preempting usage, preempted allocations", () => {
    let now = 0;
    const core = new SchedulerCore(
      () => now,
      config().replace(
        "properties: {preemption.delay: 1s}\n            resources: {guaranteed: {vcore: 4}}",
        "properties: {preemption.delay: 1s, priority.policy: fence}\n            resources: {guaranteed: {vcore: 4}}",
      ),
    );
    core.updateNode([{ nodeID: "n1", action: "CREATE", schedulableResource: { vcore: CPU } }]);
    core.updateApplication({
      new: [
        { applicationID: "b1", queueName: "root.b", ugi: { user: "bob" } },
        { applicationID: "a1", queueName: "root.a", ugi: { user: "alice" } },
      ],
    });
    core.updateAllocation({
      allocations: [
        {
          allocationKey: "v",
          applicationID: "b1",
          resourcePerAlloc: { vcore: CPU },
          nodeID: "n1",
          allocationTags: { creationTime: "1", "kubernetes.io/meta/namespace": "batch", "kubernetes.io/meta/podName": "victim-0" },
          originator: true,
        },
        { allocationKey: "p", applicationID: "a1", resourcePerAlloc: { vcore: CPU }, allocationTags: { creationTime: "10" } },
      ],
    });
    now = 11_000;
    expect(preempting(core.scheduleResults())).toHaveLength(1);
    expect(partitionInfo(core.partitionView()!)).toMatchObject({ preemptionEnabled: true, quotaPreemptionEnabled: false });
    expect(queueInfo(core.queueView("root.b")!)).toMatchObject({
      preemptionEnabled: true,
      isPreemptionFence: false,
      preemptingResource: { vcore: CPU },
    });
    expect(queueInfo(core.queueView("root.a")!)).toMatchObject({ isPreemptionFence: false, isPriorityFence: true });
    const b1 = core.applicationViews("active").find((a) => a.id === "b1")!;
    expect(allocationInfo(b1.allocations[0]!, { tags: () => undefined, maxUsed: () => undefined, allocationLog: () => [] })).toMatchObject({
      allocationKey: "v",
      preempted: true,
      originator: true,
    });
    // corral's endpoints: the preemptor's hold names its victims' pods; the victim's application counts them
    const [pending] = pendingList(core, "default", now).pending;
    expect(pending!.hold).toMatchObject({
      kind: "preemption",
      state: "Failed",
      nodeId: "n1",
      queuePath: "root.a",
      guarantee: { queuePath: "root.a", guaranteed: { vcore: 4 * CPU } },
      victims: [{ allocationKey: "v", applicationId: "b1", namespace: "batch", pod: "victim-0", released: false, originator: true }],
    });
    expect(pending!.hold!.message).toBe(
      "preempting 1 allocation of root.b on node n1 reserved for it; waiting for it to be released to have " +
        "map[vcore:1000] free (available map[vcore:0])",
    );
    expect(applicationSummaries(core, "default", "active").map((a) => [a.applicationID, a.preempted])).toEqual([
      ["b1", 1],
      ["a1", 0],
    ]);

    const off = new SchedulerCore(() => 0, config({ enabled: false }));
    expect(partitionInfo(off.partitionView()!).preemptionEnabled).toBe(false);
    expect(queueInfo(off.queueView("root.b")!).preemptionEnabled).toBe(false);
  });
});

describe("preemption's view of an allocation (core-snapshot.ts)", () => {
  it("is reused while the allocation is unchanged and rebuilt with every field that changed", () => {
    const p = partition(config());
    p.addNode("n1", { vcore: 8 * CPU });
    p.addApplication({ id: "b1", queue: "root.b", user: "u", groups: [], tags: {}, now: 0 });
    p.addAsk({ appId: "b1", key: "v", resource: { vcore: CPU }, priority: 1, createTime: 5, now: 5, node: "n1" });
    const app = p.apps.get("b1")!;
    const ask = app.asks.get("v")!;
    const first = preemptionAllocation(app, ask);
    expect(first).toMatchObject({ key: "v", applicationId: "b1", queuePath: "root.b", nodeId: "n1", priority: 1, preempted: false });
    expect(preemptionAllocation(app, ask)).toBe(first);
    // refused for one preemptor: preempted in its view only
    expect(preemptionAllocation(app, ask, new Set([allocationId("b1", "v")])).preempted).toBe(true);
    expect(preemptionAllocation(app, ask, new Set()).preempted).toBe(false);
    p.addAsk({ appId: "b1", key: "v", resource: { vcore: 2 * CPU }, priority: 7, createTime: 5, now: 6, node: "n1" });
    expect(preemptionAllocation(app, ask)).toMatchObject({ resource: { vcore: 2 * CPU }, priority: 7 });
    ask.preempted = true;
    expect(preemptionAllocation(app, ask).preempted).toBe(true);
    ask.allowPreemptSelf = false;
    ask.originator = true;
    expect(preemptionAllocation(app, ask)).toMatchObject({ allowPreemption: false, originator: true });
  });
});

describe("the guarantee a preemptor is brought towards", () => {
  it("is the nearest queue with a guarantee on its path, the leaf first, then each parent", () => {
    const p = partition(`partitions:
  - name: default
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: p
            resources: {guaranteed: {vcore: 8000}}
            queues:
              - name: a
                resources: {guaranteed: {vcore: 4000}}
              - name: b
          - name: c
`);
    expect(p.find("root.p.a")!.nearestGuaranteed()?.path).toBe("root.p.a");
    expect(p.find("root.p.b")!.nearestGuaranteed()?.path).toBe("root.p");
    expect(p.find("root.c")!.nearestGuaranteed()).toBeUndefined();
  });
});
