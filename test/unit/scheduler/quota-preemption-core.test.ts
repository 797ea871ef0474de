/**
 * Quota-change preemption wired into the scheduling core (rule 8): a configuration change lowers a queue's max below
 * its usage and, once the queue's `quota.preemption.delay` has passed on the injected clock, the core hands out a
 * typed `quotaPreempting` result (the victims, each with its node and the rule that allowed it) and marks them
 * preempting. The decision itself is tested on plain snapshots in quota-preemption.test.ts. Follows apache/yunikorn-core
 * queue_test.go TestSetPreemptionTime / TestTryQuotaPreemption, quota_preemptor_test.go, and the scenarios tabled in
 * yunikorn-site user_guide/quota_preemption.md.
 */
import { describe, expect, it } from "vitest";
import type { AllocationResult } from "../../../src/scheduler/core/allocation-result.js";
import { SchedulerCore } from "../../../src/scheduler/core/scheduler.js";
import { partitionInfo } from "../../../src/scheduler/rest/dao.js";

const CPU = 1000;

/**
 * Queue `q` (max `max` cpu, `quota.preemption.delay` `delay`), queue `other`, parent `tenants` of dynamic queues
 * (template max 2 cpu); partition switch `enabled` (default on).
 */
function config(o: { max?: number; delay?: string; enabled?: boolean } = {}): string {
  const props = o.delay ? `\n            properties: {quota.preemption.delay: ${o.delay}}` : "";
  return `partitions:
  - name: default
    preemption: {quotapreemptionenabled: ${o.enabled ?? true}}
    placementrules:
      - name: provided
        create: true
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: q${o.max ? `\n            resources: {max: {vcore: ${o.max}}}` : ""}${props}
          - name: other
          - name: tenants
            parent: true
            childtemplate:
              resources: {max: {vcore: 2}}
`;
}

/** A configuration with quota preemption on and `queues` (YAML list items indented under root) below root. */
const nested = (queues: string) => `partitions:
  - name: default
    preemption: {quotapreemptionenabled: true}
    queues:
      - name: root
        submitacl: "*"
        queues:${queues}
`;

const quota = (rs: AllocationResult[]) =>
  rs.filter((r): r is Extract<AllocationResult, { kind: "quotaPreempting" }> => r.kind === "quotaPreempting");

/**
 * Two nodes of 4 cpu; application `app` in `queue` runs `pods` pods of 1 cpu, pod i created at second i (the last the
 * youngest), alternating nodes, priority `priority(i)` (default 0).
 */
function setup(cfg: string, o: { pods?: number; queue?: string; priority?: (i: number) => number } = {}) {
  const clock = { now: 100_000 };
  const core = new SchedulerCore(() => clock.now, cfg);
  core.updateNode([
    { nodeID: "n1", action: "CREATE", schedulableResource: { vcore: 4 * CPU } },
    { nodeID: "n2", action: "CREATE", schedulableResource: { vcore: 4 * CPU } },
  ]);
  core.updateApplication({ new: [{ applicationID: "app", queueName: o.queue ?? "root.q", ugi: { user: "u" } }] });
  core.updateAllocation({
    allocations: Array.from({ length: o.pods ?? 6 }, (_, i) => ({
      allocationKey: `p${i}`,
      applicationID: "app",
      resourcePerAlloc: { vcore: CPU },
      priority: o.priority?.(i) ?? 0,
      nodeID: i % 2 === 0 ? "n1" : "n2",
      allocationTags: { creationTime: String(i + 1) },
    })),
  });
  const run = (at: number) => {
    clock.now = at;
    return quota(core.scheduleResults());
  };
  const queue = (path: string) => core.queueView(path)!;
  return { clock, core, run, queue, partition: core.partitions.get("default")! };
}

describe("quota-change preemption in the scheduling core", () => {
  it("a max lowered below usage preempts the excess after quota.preemption.delay: typed victims with node and rule", () => {
    const s = setup(config({ max: 8, delay: "10s" }), { priority: (i) => (i >= 4 ? 0 : 10) });
    expect(s.run(101_000)).toEqual([]);
    // 6 cpu used; the max goes to 4 at t = 102 s
    s.clock.now = 102_000;
    expect(s.core.updateConfiguration(config({ max: 4, delay: "10s" }))).toEqual({ ok: true });
    expect(s.partition.quotaPreemption.startOf(s.partition.find("root.q")!)).toBe(112_000);
    expect(s.run(111_000)).toEqual([]);
    const [r, ...more] = s.run(112_000);
    expect(more).toEqual([]);
    // the two lowest-priority pods (p4, p5) go; the other four stay
    expect(r).toMatchObject({ kind: "quotaPreempting", queue: "root.q" });
    expect(r!.victims.map((v) => [v.key, v.nodeId]).sort()).toEqual([
      ["p4", "n1"],
      ["p5", "n2"],
    ]);
    expect(r!.preemption).toMatchObject({ outcome: "preempting", queue: "root.q", preemptable: { vcore: 2 * CPU } });
    for (const v of r!.preemption.victims) {
      expect(v.nodeId).toBe(v.allocationKey === "p4" ? "n1" : "n2");
      expect(v.rule).toEqual({
        rule: "queue-over-lowered-max",
        queue: "root.q",
        max: { vcore: 4 * CPU },
        used: { vcore: 6 * CPU },
        delayMs: 10_000,
      });
    }
    // victims stay allocated and counted until released, marked preempting; nothing runs twice
    expect(s.queue("root.q")).toMatchObject({ allocated: { vcore: 6 * CPU }, preempting: { vcore: 2 * CPU } });
    expect(s.run(113_000)).toEqual([]);
    s.core.updateAllocation({
      releases: [
        { applicationID: "app", allocationKey: "p4" },
        { applicationID: "app", allocationKey: "p5" },
      ],
    });
    expect(s.queue("root.q")).toMatchObject({ allocated: { vcore: 4 * CPU }, preempting: { vcore: 0 } });
    expect(s.run(200_000)).toEqual([]);
  });

  it("never takes a queue below its guarantee, its parents' included (best effort)", () => {
    const cfg = (max: number) =>
      nested(`
          - name: g
            resources: {guaranteed: {vcore: 5}}
            queues:
              - name: q
                resources: {max: {vcore: ${max}}}
                properties: {quota.preemption.delay: 1s}`);
    const s = setup(cfg(8), { queue: "root.g.q" });
    s.core.updateConfiguration(cfg(3));
    const [r] = s.run(101_000);
    // 6 used, max 3, but the parent is guaranteed 5: only 1 cpu may go
    expect(r!.preemption.preemptable).toEqual({ vcore: CPU });
    expect(r!.victims.map((v) => v.key)).toEqual(["p5"]);
    expect(r!.preemption.victims[0]!.rule).toMatchObject({ queue: "root.g.q", used: { vcore: 6 * CPU }, max: { vcore: 3 * CPU } });
    expect(s.run(200_000)).toEqual([]);
  });

  it("is opt-in: no delay on the queue, or the partition switch off, preempts nothing", () => {
    const noDelay = setup(config({ max: 8 }));
    noDelay.core.updateConfiguration(config({ max: 2 }));
    expect(noDelay.run(200_000)).toEqual([]);
    expect(noDelay.queue("root.q").preempting).toEqual({});

    const off = setup(config({ max: 8, delay: "1s", enabled: false }));
    off.core.updateConfiguration(config({ max: 2, delay: "1s", enabled: false }));
    expect(off.run(200_000)).toEqual([]);
    expect(partitionInfo(off.core.partitionView()!)).toMatchObject({ quotaPreemptionEnabled: false });
    expect(partitionInfo(noDelay.core.partitionView()!)).toMatchObject({ quotaPreemptionEnabled: true });
  });

  it("usage back within the max, or the max raised again, before the delay: nothing is preempted", () => {
    const s = setup(config({ max: 8, delay: "10s" }));
    s.core.updateConfiguration(config({ max: 5, delay: "10s" }));
    s.clock.now = 105_000;
    s.core.updateAllocation({ releases: [{ applicationID: "app", allocationKey: "p0" }] });
    expect(s.run(110_000)).toEqual([]);
    expect(s.partition.quotaPreemption.startOf(s.partition.find("root.q")!)).toBeUndefined();

    const t = setup(config({ max: 8, delay: "10s" }));
    t.core.updateConfiguration(config({ max: 4, delay: "10s" }));
    t.clock.now = 105_000;
    t.core.updateConfiguration(config({ max: 7, delay: "10s" }));
    expect(t.run(110_000)).toEqual([]);
  });

  it("consecutive lowering keeps the first start; a delay change moves it by the difference", () => {
    const s = setup(config({ max: 8, delay: "10s" }));
    const q = s.partition.find("root.q")!;
    s.core.updateConfiguration(config({ max: 5, delay: "10s" }));
    s.clock.now = 104_000;
    s.core.updateConfiguration(config({ max: 4, delay: "10s" }));
    expect(s.partition.quotaPreemption.startOf(q)).toBe(110_000);
    s.core.updateConfiguration(config({ max: 4, delay: "30s" }));
    expect(s.partition.quotaPreemption.startOf(q)).toBe(130_000);
    expect(s.run(129_000)).toEqual([]);
    expect(s.run(130_000).flatMap((r) => r.victims.map((v) => v.key))).toEqual(["p5", "p4"]);
  });

  it("an allocation recorded over the max (recovery) starts the delay", () => {
    const s = setup(config({ max: 4, delay: "5s" }), { pods: 4 });
    const q = s.partition.find("root.q")!;
    expect(s.partition.quotaPreemption.startOf(q)).toBeUndefined();
    s.clock.now = 120_000;
    s.core.updateAllocation({
      allocations: [{ allocationKey: "late", applicationID: "app", resourcePerAlloc: { vcore: CPU }, nodeID: "n2" }],
    });
    expect(s.partition.quotaPreemption.startOf(q)).toBe(125_000);
    expect(s.run(124_000)).toEqual([]);
    expect(s.run(125_000).flatMap((r) => r.victims.map((v) => v.key))).toHaveLength(1);
  });

  it("not on dynamic queues", () => {
    // a dynamic leaf of root.tenants (template max 2 cpu) recovered with 3 cpu: never preempted
    const s = setup(config({ delay: "1s" }), { pods: 3, queue: "root.tenants.x" });
    const x = s.partition.find("root.tenants.x")!;
    expect(x.managed).toBe(false);
    expect(x.allocated).toEqual({ vcore: 3 * CPU });
    expect(s.partition.quotaPreemption.startOf(x)).toBeUndefined();
    // even with a delay of its own (dynamic queues have none), an allocation over its max starts nothing
    x.preemption.quotaPreemptionDelayMs = 1_000;
    s.partition.quotaPreemption.allocationAdded(x, 150_000);
    expect(s.partition.quotaPreemption.startOf(x)).toBeUndefined();
    expect(s.run(200_000)).toEqual([]);
  });

  it("a lowered parent shares its excess among its children in proportion to their usage", () => {
    const cfg = (parentMax: number) =>
      nested(`
          - name: p
            resources: {max: {vcore: ${parentMax}}}
            properties: {quota.preemption.delay: 1s}
            queues:
              - name: x
              - name: y`);
    const s = setup(cfg(8), { pods: 4, queue: "root.p.x" });
    s.core.updateApplication({ new: [{ applicationID: "app2", queueName: "root.p.y", ugi: { user: "u" } }] });
    s.core.updateAllocation({
      allocations: [0, 1].map((i) => ({
        allocationKey: `y${i}`,
        applicationID: "app2",
        resourcePerAlloc: { vcore: CPU },
        nodeID: "n2",
        allocationTags: { creationTime: String(10 + i) },
      })),
    });
    // 6 used (4 in x, 2 in y), max 3: x gives 2, y gives 1 (floor of 3 × 4/6 and 3 × 2/6)
    s.core.updateConfiguration(cfg(3));
    const rs = s.run(101_000);
    expect(rs.map((r) => r.queue)).toEqual(["root.p"]);
    expect(rs[0]!.preemption.leaves.map((l) => [l.queue, l.preemptable.vcore, l.claimed.vcore])).toEqual([
      ["root.p.x", 2 * CPU, 2 * CPU],
      ["root.p.y", 1 * CPU, 1 * CPU],
    ]);
    for (const v of rs[0]!.preemption.victims) expect(v.rule).toMatchObject({ rule: "queue-over-lowered-max", queue: "root.p" });
  });

  it("a refused eviction keeps the victim and retries the queue after 15 s without it", () => {
    const s = setup(config({ max: 8, delay: "1s" }));
    s.core.updateConfiguration(config({ max: 5, delay: "1s" }));
    const [r] = s.run(101_000);
    expect(r!.victims.map((v) => v.key)).toEqual(["p5"]);
    s.clock.now = 102_000;
    expect(s.core.quotaPreemptionBlocked("root.q", { appId: "app", key: "p5" })).toBe(true);
    expect(s.queue("root.q").preempting).toEqual({ vcore: 0 });
    expect(s.core.quotaPreemptionBlocked("root.q", { appId: "app", key: "p5" })).toBe(false);
    expect(s.run(116_000)).toEqual([]);
    const [again] = s.run(117_000);
    expect(again!.victims.map((v) => v.key)).toEqual(["p4"]);
  });
});
