/**
 * Quota-change preemption (apache/yunikorn-core pkg/scheduler/objects/quota_preemptor_test.go
 * TestQuotaChangeTryPreemption, TestQuotaChangeTryPreemptionForParentQueue; queue.go setPreemptionTime and
 * tryAcquirePreemption as tabled in yunikorn-site user_guide/quota_preemption.md).
 */
import { describe, expect, it } from "vitest";
import {
  decideQuotaPreemption,
  quotaPreemptionDue,
  quotaPreemptionStartOnAllocation,
  quotaPreemptionStartOnConfig,
} from "../../../src/scheduler/core/preemption/quota.js";
import { type PreemptionAllocation, type QueueSpec, clusterSnapshot } from "../../../src/scheduler/core/preemption/snapshot.js";
import type { Res } from "../../../src/scheduler/core/resources.js";

const HOUR = 3_600_000;
const NOW = 100 * HOUR + 30 * 60_000;
const MIN = 60_000;

const victim = (
  key: string,
  queuePath: string,
  first: number,
  ageMin: number,
  o: Partial<PreemptionAllocation> = {},
): PreemptionAllocation => ({
  key,
  applicationId: "app1",
  queuePath,
  nodeId: "node",
  resource: { first },
  priority: 10,
  createTime: NOW - ageMin * MIN,
  allowPreemption: true,
  originator: false,
  placeholder: false,
  ...o,
});
const leafCase = (guaranteed: Res | undefined, allocations: PreemptionAllocation[], max: Res = { first: 10 }) =>
  decideQuotaPreemption(
    clusterSnapshot({
      queues: [{ path: "root.leaf", max, guaranteed, quotaPreemptionDelayMs: 60_000 }],
      nodes: [{ id: "node", capacity: { first: 500 } }],
      allocations,
    }),
    "root.leaf",
  );
const keys = (r: ReturnType<typeof decideQuotaPreemption>) =>
  r.outcome === "preempting" ? r.victims.map((v) => v.allocationKey) : r.reason;

describe("quota-change preemption victims (TestQuotaChangeTryPreemption)", () => {
  it("takes victims in order while the total stays within the excess", () => {
    const r = leafCase(undefined, [
      victim("ask4", "root.leaf", 5, 3),
      victim("ask41", "root.leaf", 6, 2),
      victim("ask42", "root.leaf", 9, 1),
    ]);
    expect(r).toEqual({
      outcome: "preempting",
      queue: "root.leaf",
      max: { first: 10 },
      preemptable: { first: 10 },
      // upstream "guaranteed not set": 3 selected victims, 1 preempted
      leaves: [{ queue: "root.leaf", preemptable: { first: 10 }, claimed: { first: 5 }, selected: 3 }],
      victims: [
        {
          allocationKey: "ask4",
          applicationId: "app1",
          queuePath: "root.leaf",
          nodeId: "node",
          resource: { first: 5 },
          priority: 10,
          createTime: NOW - 3 * MIN,
          placeholder: false,
          originator: false,
          allowPreemption: true,
          rule: { rule: "queue-over-lowered-max", queue: "root.leaf", max: { first: 10 }, used: { first: 20 }, delayMs: 60_000 },
        },
      ],
    });
  });

  it("skips a victim larger than the excess", () => {
    expect(keys(leafCase(undefined, [victim("ask21", "root.leaf", 9, 4), victim("ask3", "root.leaf", 11, 3)]))).toEqual(["ask21"]);
  });

  it("best effort when guaranteed equals max: never below the guarantee", () => {
    const r = leafCase({ first: 10 }, [
      victim("ask5", "root.leaf", 5, 4),
      victim("ask51", "root.leaf", 6, 3),
      victim("ask52", "root.leaf", 3, 2),
      victim("ask53", "root.leaf", 4, 1),
    ]);
    expect(r).toMatchObject({ outcome: "preempting", preemptable: { first: 8 }, leaves: [{ claimed: { first: 7 } }] });
    expect(keys(r)).toEqual(["ask52", "ask53"]);
  });

  it("among equal allocations of the same hour the younger goes first (corral's tie-break); the rule names the leaf's guarantee", () => {
    const r = leafCase(
      { first: 2 },
      [victim("old", "root.leaf", 4, 25), victim("young", "root.leaf", 4, 5), victim("mid", "root.leaf", 4, 15)],
      {
        first: 4,
      },
    );
    expect(keys(r)).toEqual(["young", "mid"]);
    if (r.outcome === "preempting") expect(r.victims[0]!.rule).toMatchObject({ used: { first: 12 }, leafGuaranteed: { first: 2 } });
  });

  it("no suitable victim: nothing preempted, the allocation looked at is counted (upstream 'victims available but none is suitable')", () => {
    expect(leafCase(undefined, [victim("ask6", "root.leaf", 11, 3)])).toEqual({
      outcome: "none",
      queue: "root.leaf",
      reason: "no-victims",
      isLeaf: true,
      max: { first: 10 },
      preemptable: { first: 1 },
      leaves: [{ queue: "root.leaf", preemptable: { first: 1 }, claimed: {}, selected: 1 }],
    });
  });

  it("ordinary pods before opted-out pods before originators; lower priority first; required-node and released allocations are never taken", () => {
    const r = leafCase(
      undefined,
      [
        victim("driver", "root.leaf", 2, 1, { originator: true }),
        victim("optout", "root.leaf", 2, 1, { allowPreemption: false }),
        victim("hi", "root.leaf", 2, 1, { priority: 20 }),
        victim("lo", "root.leaf", 2, 1, { priority: 0 }),
        victim("ds", "root.leaf", 2, 1, { requiredNode: true }),
        victim("gone", "root.leaf", 2, 1, { released: true }),
      ],
      { first: 4 },
    );
    expect(keys(r)).toEqual(["lo", "hi", "optout", "driver"]);
    const r2 = leafCase(
      undefined,
      [
        victim("driver", "root.leaf", 2, 1, { originator: true }),
        victim("optout", "root.leaf", 2, 1, { allowPreemption: false }),
        victim("plain", "root.leaf", 2, 1),
      ],
      { first: 2 },
    );
    expect(keys(r2)).toEqual(["plain", "optout"]);
  });

  it("a parent's excess is shared by its children in proportion to their usage above guarantee (TestQuotaChangeTryPreemptionForParentQueue)", () => {
    const leaves = ["root.parent2.l1", "root.parent2.l2", "root.parent2.sub.l3", "root.parent2.sub.l4", "root.parent2.l5"];
    const allocations = leaves.flatMap((l, i) => [victim(`ask${15 + 2 * i}`, l, 13, 4), victim(`ask${16 + 2 * i}`, l, 12, 4)]);
    const queues: QueueSpec[] = [
      { path: "root.parent2", max: { first: 20 }, guaranteed: { first: 20 }, quotaPreemptionDelayMs: 60_000 },
      ...leaves.map((path) => ({ path })),
    ];
    const r = decideQuotaPreemption(
      clusterSnapshot({ queues, nodes: [{ id: "node", capacity: { first: 500 } }], allocations }),
      "root.parent2",
    );
    expect(r).toMatchObject({ outcome: "preempting", preemptable: { first: 105 } });
    expect(keys(r)).toEqual(["ask16", "ask18", "ask20", "ask22", "ask24"]);
    if (r.outcome !== "preempting") return;
    expect(r.leaves.map((l) => [l.queue, l.preemptable.first, l.claimed.first])).toEqual([
      ["root.parent2.l1", 21, 12],
      ["root.parent2.l2", 21, 12],
      ["root.parent2.sub.l3", 21, 12],
      ["root.parent2.sub.l4", 21, 12],
      ["root.parent2.l5", 21, 12],
    ]);
  });

  it("not on dynamic queues, not without a delay, not within max", () => {
    const snap = (q: Partial<QueueSpec>) =>
      clusterSnapshot({
        queues: [{ path: "root.leaf", max: { first: 10 }, quotaPreemptionDelayMs: 60_000, ...q }],
        nodes: [{ id: "node", capacity: { first: 50 } }],
        allocations: [victim("a", "root.leaf", 12, 1)],
      });
    expect(decideQuotaPreemption(snap({ managed: false }), "root.leaf")).toMatchObject({ outcome: "none", reason: "not-managed" });
    expect(decideQuotaPreemption(snap({ quotaPreemptionDelayMs: 0 }), "root.leaf")).toMatchObject({ outcome: "none", reason: "no-delay" });
    expect(decideQuotaPreemption(snap({ max: { first: 12 } }), "root.leaf")).toMatchObject({ outcome: "none", reason: "within-max" });
  });
});

describe("quota preemption timing (setPreemptionTime, tryAcquirePreemption, IncAllocatedResource)", () => {
  const base = { oldDelayMs: 60_000, newDelayMs: 60_000, allocated: { first: 15 }, running: false, now: NOW };

  it("max lowered below usage: start = now + delay; consecutive lowering keeps the earliest", () => {
    expect(quotaPreemptionStartOnConfig({ ...base, oldMax: { first: 20 }, newMax: { first: 10 } })).toBe(NOW + 60_000);
    expect(quotaPreemptionStartOnConfig({ ...base, oldMax: { first: 10 }, newMax: { first: 8 }, startTime: NOW - 5_000 })).toBe(
      NOW - 5_000,
    );
  });

  it("delay changed while pending: start moves by the difference; a delay set later starts the clock", () => {
    expect(
      quotaPreemptionStartOnConfig({ ...base, oldMax: { first: 10 }, newMax: { first: 10 }, newDelayMs: 90_000, startTime: NOW + 10_000 }),
    ).toBe(NOW + 40_000);
    expect(quotaPreemptionStartOnConfig({ ...base, oldMax: { first: 10 }, newMax: { first: 10 }, oldDelayMs: 0 })).toBe(NOW + 60_000);
  });

  it("quota raised above usage, max removed, delay 0: cleared; running preemption is left alone", () => {
    expect(quotaPreemptionStartOnConfig({ ...base, oldMax: { first: 10 }, newMax: { first: 20 }, startTime: NOW })).toBeUndefined();
    expect(quotaPreemptionStartOnConfig({ ...base, oldMax: { first: 10 }, newMax: undefined, startTime: NOW })).toBeUndefined();
    expect(quotaPreemptionStartOnConfig({ ...base, oldMax: { first: 20 }, newMax: { first: 10 }, newDelayMs: 0 })).toBeUndefined();
    expect(quotaPreemptionStartOnConfig({ ...base, oldMax: { first: 20 }, newMax: { first: 10 }, running: true, startTime: 5 })).toBe(5);
  });

  it("an allocation pushing a managed queue over its max starts the clock when the partition allows it", () => {
    const snap = (managed: boolean) =>
      clusterSnapshot({
        queues: [{ path: "root.leaf", max: { first: 10 }, quotaPreemptionDelayMs: 60_000, managed }],
        nodes: [{ id: "node", capacity: { first: 50 } }],
        allocations: [victim("a", "root.leaf", 12, 1)],
      }).queue("root.leaf")!;
    expect(quotaPreemptionStartOnAllocation(snap(true), { enabled: true, now: NOW })).toBe(NOW + 60_000);
    expect(quotaPreemptionStartOnAllocation(snap(true), { enabled: false, now: NOW })).toBeUndefined();
    expect(quotaPreemptionStartOnAllocation(snap(false), { enabled: true, now: NOW })).toBeUndefined();
    expect(quotaPreemptionStartOnAllocation(snap(true), { enabled: true, now: NOW, startTime: NOW - 1 })).toBe(NOW - 1);
  });

  it("due once the start time has passed and usage is still over max; usage back under max clears it", () => {
    const q = (alloc: number) =>
      clusterSnapshot({
        queues: [{ path: "root.leaf", max: { first: 10 }, quotaPreemptionDelayMs: 60_000 }],
        nodes: [{ id: "node", capacity: { first: 50 } }],
        allocations: [victim("a", "root.leaf", alloc, 1)],
      }).queue("root.leaf")!;
    expect(quotaPreemptionDue(q(12), { enabled: true, startTime: NOW, running: false, now: NOW })).toEqual({ due: true });
    expect(quotaPreemptionDue(q(12), { enabled: true, startTime: NOW + 1, running: false, now: NOW })).toEqual({
      due: false,
      clear: false,
    });
    expect(quotaPreemptionDue(q(12), { enabled: true, startTime: NOW, running: true, now: NOW })).toEqual({ due: false, clear: false });
    expect(quotaPreemptionDue(q(8), { enabled: true, startTime: NOW, running: false, now: NOW })).toEqual({ due: false, clear: true });
    expect(quotaPreemptionDue(q(12), { enabled: false, startTime: NOW, running: false, now: NOW })).toEqual({ due: false, clear: false });
  });
});
