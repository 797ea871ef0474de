/**
 * Ask-triggered preemption: one test per rule, each on real cluster data with a typed result, following the
 * upstream test named in its title (apache/yunikorn-core pkg/scheduler/objects/preemption_test.go,
 * preemption_queue_test.go, preemption_utilities_test.go, queue_test.go).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type PreemptionAsk, decidePreemption } from "../../../src/scheduler/core/preemption/preemptor.js";
import { QueueSnapshot, WorkingSet } from "../../../src/scheduler/core/preemption/guarantee.js";
import { applicationPriority, priorityValueByPolicy, queuePriority } from "../../../src/scheduler/core/preemption/priority.js";
import { allocationLogText } from "../../../src/scheduler/core/preemption/result.js";
import {
  type NodeSpec,
  type PreemptionAllocation,
  type QueueSpec,
  clusterSnapshot,
} from "../../../src/scheduler/core/preemption/snapshot.js";
import { compareVictims, sortVictims } from "../../../src/scheduler/core/preemption/victims.js";
import type { Res } from "../../../src/scheduler/core/resources.js";

const NOW = 1_000_000_000;
const MIN = 60_000;

type AllocOpts = Partial<Omit<PreemptionAllocation, "key" | "applicationId" | "queuePath" | "nodeId" | "resource">>;
const alloc = (
  key: string,
  applicationId: string,
  queuePath: string,
  nodeId: string,
  resource: Res,
  o: AllocOpts = {},
): PreemptionAllocation => ({
  key,
  applicationId,
  queuePath,
  nodeId,
  resource,
  priority: 0,
  createTime: NOW - 10 * MIN,
  allowPreemption: true,
  originator: false,
  placeholder: false,
  ...o,
});
const ask = (queuePath: string, resource: Res, o: Partial<PreemptionAsk> = {}): PreemptionAsk => ({
  key: "ask",
  applicationId: "app-ask",
  queuePath,
  priority: 0,
  resource,
  createTime: NOW - MIN,
  allowPreemptOther: true,
  ...o,
});
const decide = (
  queues: QueueSpec[],
  nodes: NodeSpec[],
  allocations: PreemptionAllocation[],
  a: PreemptionAsk,
  o: { enabled?: boolean; nodesTried?: boolean } = {},
) =>
  decidePreemption(clusterSnapshot({ queues, nodes, allocations }), a, { now: NOW, enabled: o.enabled ?? true, nodesTried: o.nodesTried });
const keys = (r: ReturnType<typeof decide>) => (r.outcome === "preempting" ? r.victims.map((v) => v.allocationKey) : r);

/** TestTryPreemption's cluster: parent (g first 10) with child1 holding node1, child2 asking. */
const basic = {
  queues: [
    { path: "root.parent", max: { first: 20 }, guaranteed: { first: 10 } },
    { path: "root.parent.child1", max: { first: 10 }, guaranteed: { first: 5 } },
    { path: "root.parent.child2", max: { first: 10 }, guaranteed: { first: 5 } },
  ] as QueueSpec[],
  nodes: [{ id: "node1", capacity: { first: 10, pods: 5 } }] as NodeSpec[],
  allocations: [
    alloc("alloc1", "app1", "root.parent.child1", "node1", { first: 5, pods: 1 }, { createTime: NOW - 2 * MIN }),
    alloc("alloc2", "app1", "root.parent.child1", "node1", { first: 5, pods: 1 }, { createTime: NOW - MIN }),
  ],
};

describe("ask-triggered preemption", () => {
  it("takes the younger task of a queue over its guarantee and reserves its node (TestTryPreemption)", () => {
    const r = decide(basic.queues, basic.nodes, basic.allocations, ask("root.parent.child2", { first: 5, pods: 1 }));
    expect(r).toEqual({
      outcome: "preempting",
      ask: { key: "ask", applicationId: "app-ask", queuePath: "root.parent.child2" },
      nodeId: "node1",
      // root.parent is the fence: with the ask its usage (15) would pass the cluster size (10) that caps its max.
      fence: "root.parent",
      cancelledReservations: [],
      nodesExamined: 1,
      victims: [
        {
          allocationKey: "alloc2",
          applicationId: "app1",
          queuePath: "root.parent.child1",
          nodeId: "node1",
          resource: { first: 5, pods: 1 },
          priority: 0,
          createTime: NOW - MIN,
          placeholder: false,
          originator: false,
          allowPreemption: true,
          queueRule: {
            rule: "victim-queue-over-guarantee",
            queue: "root.parent.child1",
            guaranteed: { first: 5 },
            allocated: { first: 10, pods: 2 },
          },
          priorityRule: { rule: "priority-lower-or-equal", victimPriority: 0, askPriority: 0 },
          helps: { rule: "frees-node", nodeId: "node1" },
        },
      ],
    });
  });

  describe("rule 1: a victim queue never goes below its guarantee", () => {
    it("a queue exactly at its guarantee gives nothing (TestCheckPreemptionQueueGuarantees)", () => {
      const queues = basic.queues.map((q) => (q.path === "root.parent.child1" ? { ...q, guaranteed: { first: 10 } } : q));
      const r = decide(queues, basic.nodes, basic.allocations, ask("root.parent.child2", { first: 5, pods: 1 }));
      // The ask fits its own queue's guarantee, so the guarantee check passes; no node offers a victim.
      expect(r).toMatchObject({ outcome: "none", reason: "does-not-help", nodesExamined: 1 });
      expect(allocationLogText(r as never)).toBe("Preemption does not help");
    });

    it("a victim that would take its queue below the guarantee in a type is not taken, even when the queue is over before (stricter than upstream)", () => {
      // child1 guaranteed 7, usage 10: upstream would take a 5 and leave 5 < 7.
      const queues = basic.queues.map((q) => (q.path === "root.parent.child1" ? { ...q, guaranteed: { first: 7 } } : q));
      const r = decide(queues, basic.nodes, basic.allocations, ask("root.parent.child2", { first: 5, pods: 1 }));
      expect(r).toMatchObject({ outcome: "none", reason: "does-not-help", nodesExamined: 1 });
    });

    it("a parent's guarantee protects the subtree outside the ask's branch", () => {
      const r = decide(
        [{ path: "root.a", guaranteed: { cpu: 8 } }, { path: "root.a.x" }, { path: "root.b", guaranteed: { cpu: 4 } }],
        [{ id: "n1", capacity: { cpu: 8 } }],
        [alloc("x1", "ax", "root.a.x", "n1", { cpu: 4 }), alloc("x2", "ax", "root.a.x", "n1", { cpu: 4 })],
        ask("root.b", { cpu: 4 }),
      );
      expect(r).toMatchObject({ outcome: "none", reason: "does-not-help" });
    });
  });

  describe("guarantees through the hierarchy", () => {
    it("a sibling without guarantee under an over-guarantee parent gives to a starving sibling (TestTryPreemptionOnNodeWithOGParentAndUGPreemptor)", () => {
      const allocations = [1, 2, 3, 4, 5, 6].map((i) =>
        alloc(`alloc${i}`, "app1", "root.parent.child1", i % 2 === 0 ? "node1" : "node2", { first: 1 }, { createTime: NOW - i * MIN }),
      );
      const r = decidePreemption(
        clusterSnapshot({
          queues: [
            { path: "root.parent", max: { first: 20 }, guaranteed: { first: 2 } },
            { path: "root.parent.child1" },
            { path: "root.parent.child2", max: { first: 10 }, guaranteed: { first: 1 } },
          ],
          nodes: [
            { id: "node1", capacity: { first: 3, pods: 1 } },
            { id: "node2", capacity: { first: 3, pods: 1 } },
          ],
          allocations,
        }),
        { ...ask("root.parent.child2", { first: 1 }), key: "alloc7" },
        {
          now: NOW,
          enabled: true,
          predicate: ({ nodeId, startIndex }) => ({ success: nodeId === "node2", index: startIndex }),
        },
      );
      expect(r).toMatchObject({
        outcome: "preempting",
        nodeId: "node2",
        victims: [{ allocationKey: "alloc1", queueRule: { queue: "root.parent.child1", guaranteed: undefined } }],
      });
    });

    it("siblings under an under-guarantee parent: the over-guarantee sibling gives, only down to its guarantee (TestTryPreemption_OnNode_UGParent_With_UGPreemptorChild_OGVictimChild_As_Siblings)", () => {
      const r = decide(
        [
          { path: "root.parent", max: { vcores: 20 } },
          { path: "root.parent.parent1", guaranteed: { vcores: 10 } },
          { path: "root.parent.parent2" },
          { path: "root.parent.parent1.child1", guaranteed: { vcores: 1 } },
          { path: "root.parent.parent1.child2", guaranteed: { vcores: 1 } },
          { path: "root.parent.parent2.child3" },
        ],
        [{ id: "node1", capacity: { vcores: 2 } }],
        [
          alloc("alloc1", "app1", "root.parent.parent1.child1", "node1", { vcores: 1 }, { createTime: NOW - 2 * MIN }),
          alloc("alloc2", "app2", "root.parent.parent1.child1", "node1", { vcores: 1 }, { createTime: NOW - MIN }),
        ],
        { ...ask("root.parent.parent1.child2", { vcores: 1 }), key: "alloc3" },
      );
      expect(keys(r)).toEqual(["alloc2"]);
    });
  });

  describe("rule 2: never its own application (upstream: never its own queue)", () => {
    it("tasks of the ask's own application and queue are not victims", () => {
      const r = decide(
        [{ path: "root.a", guaranteed: { cpu: 8 } }, { path: "root.b" }],
        [{ id: "n1", capacity: { cpu: 4 } }],
        [alloc("own", "app-ask", "root.a", "n1", { cpu: 2 }), alloc("sib", "other", "root.a", "n1", { cpu: 2 })],
        ask("root.a", { cpu: 2 }),
      );
      expect(r).toMatchObject({ outcome: "none", reason: "does-not-help" });
    });
  });

  describe("rule 3: only an ask under its guarantee triggers, only queues over theirs give victims", () => {
    it("an ask whose queue is at its guarantee does not preempt (TestCheckPreemptionQueueGuarantees)", () => {
      const r = decide(
        [{ path: "root.a", guaranteed: { cpu: 2 } }, { path: "root.b" }],
        [{ id: "n1", capacity: { cpu: 4 } }],
        [alloc("mine", "app-ask", "root.a", "n1", { cpu: 2 }), alloc("b1", "b", "root.b", "n1", { cpu: 2 })],
        ask("root.a", { cpu: 2 }),
      );
      expect(r).toMatchObject({ outcome: "none", reason: "queue-guarantees" });
    });

    it("an ask in a queue without any guarantee does not preempt (TestCheckPreemptionQueueGuaranteesWithNoGuaranteedResources)", () => {
      const r = decide(
        [{ path: "root.a" }, { path: "root.b" }],
        [{ id: "n1", capacity: { cpu: 2 } }],
        [alloc("b1", "b", "root.b", "n1", { cpu: 2 })],
        ask("root.a", { cpu: 2 }),
      );
      expect(r).toMatchObject({ outcome: "none", reason: "queue-guarantees" });
    });

    it("a queue without a guarantee counts as over it (guarantee 0) and gives victims", () => {
      const r = decide(
        [{ path: "root.a", guaranteed: { cpu: 2 } }, { path: "root.b" }],
        [{ id: "n1", capacity: { cpu: 2 } }],
        [alloc("b1", "b", "root.b", "n1", { cpu: 2 })],
        ask("root.a", { cpu: 2 }),
      );
      expect(r).toMatchObject({
        outcome: "preempting",
        victims: [{ allocationKey: "b1", queueRule: { queue: "root.b", guaranteed: undefined } }],
      });
    });

    it("a victim queue over its guarantee only in types the ask does not use gives nothing (TestTryPreemption_AskResTypesDifferent_GuaranteedSetOnVictimAndPreemptorSides)", () => {
      const r = decide(
        [
          { path: "root.a", guaranteed: { cpu: 4 } },
          { path: "root.b", guaranteed: { cpu: 4, gpu: 1 } },
        ],
        [{ id: "n1", capacity: { cpu: 4, gpu: 2 } }],
        [alloc("b1", "b", "root.b", "n1", { cpu: 2, gpu: 1 }), alloc("b2", "b", "root.b", "n1", { cpu: 2, gpu: 1 })],
        ask("root.a", { cpu: 2 }),
      );
      expect(r).toMatchObject({ outcome: "none" });
    });
  });

  describe("rule 4: lower or equal priority only; preemptionPolicy Never never preempts", () => {
    const queues: QueueSpec[] = [{ path: "root.a", guaranteed: { cpu: 2 } }, { path: "root.b" }];
    const nodes: NodeSpec[] = [
      { id: "n1", capacity: { cpu: 2 } },
      { id: "n2", capacity: { cpu: 2 } },
    ];

    it("an equal-priority task is a victim, a higher one is not (TestTryPreemption_OnQueue_VictimsAvailable_LowerPriority)", () => {
      const r = decide(
        queues,
        nodes,
        [alloc("hi", "b", "root.b", "n1", { cpu: 2 }, { priority: 11 }), alloc("eq", "b", "root.b", "n2", { cpu: 2 }, { priority: 10 })],
        ask("root.a", { cpu: 2 }, { priority: 10 }),
      );
      expect(r).toMatchObject({
        outcome: "preempting",
        nodeId: "n2",
        victims: [{ allocationKey: "eq", priorityRule: { rule: "priority-lower-or-equal", victimPriority: 10, askPriority: 10 } }],
      });
    });

    it("only higher-priority tasks: no preemption", () => {
      const r = decide(
        queues,
        nodes,
        [alloc("hi", "b", "root.b", "n1", { cpu: 2 }, { priority: 11 })],
        ask("root.a", { cpu: 2 }, { priority: 10 }),
      );
      expect(r).toMatchObject({ outcome: "none", reason: "does-not-help" });
    });

    it("an ask with preemptionPolicy Never does not preempt (CheckPreconditions: IsAllowPreemptOther)", () => {
      const r = decide(
        queues,
        nodes,
        [alloc("lo", "b", "root.b", "n1", { cpu: 2 })],
        ask("root.a", { cpu: 2 }, { allowPreemptOther: false }),
      );
      expect(r).toEqual({
        outcome: "none",
        ask: { key: "ask", applicationId: "app-ask", queuePath: "root.a" },
        reason: "preconditions",
        failed: "not-allowed",
      });
    });
  });

  describe("rule 5: preemption and priority policies", () => {
    const nodes: NodeSpec[] = [
      { id: "n1", capacity: { cpu: 2 } },
      { id: "n2", capacity: { cpu: 2 } },
    ];

    it("preemption.policy fence: no victims outside the fenced subtree (queue_test.go TestFindEligiblePreemptionVictims)", () => {
      const queues: QueueSpec[] = [
        { path: "root.a", preemptionPolicy: "fence" },
        { path: "root.a.a1", guaranteed: { cpu: 2 } },
        { path: "root.a.a2" },
        { path: "root.b" },
      ];
      const outside = decide(queues, nodes, [alloc("b1", "b", "root.b", "n1", { cpu: 2 })], ask("root.a.a1", { cpu: 2 }));
      expect(outside).toMatchObject({ outcome: "none", reason: "does-not-help" });
      const inside = decide(
        queues,
        nodes,
        [alloc("b1", "b", "root.b", "n1", { cpu: 2 }), alloc("a2", "a2", "root.a.a2", "n2", { cpu: 2 })],
        ask("root.a.a1", { cpu: 2 }),
      );
      expect(inside).toMatchObject({ outcome: "preempting", fence: "root.a", nodeId: "n2", victims: [{ allocationKey: "a2" }] });
    });

    it("preemption.policy disabled: the queue's tasks are never victims", () => {
      const r = decide(
        [
          { path: "root.a", guaranteed: { cpu: 2 } },
          { path: "root.b", preemptionPolicy: "disabled" },
        ],
        nodes,
        [alloc("b1", "b", "root.b", "n1", { cpu: 2 }), alloc("b2", "b", "root.b", "n2", { cpu: 2 })],
        ask("root.a", { cpu: 2 }),
      );
      expect(r).toMatchObject({ outcome: "none", reason: "does-not-help" });
    });

    it("priority.offset of the victim's queue raises its tasks above the ask (priorities.md)", () => {
      const queues: QueueSpec[] = [
        { path: "root.a", guaranteed: { cpu: 2 } },
        { path: "root.b", priorityOffset: 100 },
      ];
      const allocs = [
        alloc("b1", "b", "root.b", "n1", { cpu: 2 }, { priority: 0 }),
        alloc("b2", "b", "root.b", "n2", { cpu: 2 }, { priority: 0 }),
      ];
      expect(decide(queues, nodes, allocs, ask("root.a", { cpu: 2 }, { priority: 50 }))).toMatchObject({
        outcome: "none",
        reason: "does-not-help",
      });
      expect(decide(queues, nodes, allocs, ask("root.a", { cpu: 2 }, { priority: 100 }))).toMatchObject({
        outcome: "preempting",
        victims: [{ priorityRule: { rule: "priority-lower-or-equal", victimPriority: 0, askPriority: 0 } }],
      });
    });

    it("priority.offset of the ask's queue raises the ask", () => {
      const r = decide(
        [{ path: "root.a", guaranteed: { cpu: 2 }, priorityOffset: 100 }, { path: "root.b" }],
        nodes,
        [alloc("b1", "b", "root.b", "n1", { cpu: 2 }, { priority: 90 }), alloc("b2", "b", "root.b", "n2", { cpu: 2 }, { priority: 90 })],
        ask("root.a", { cpu: 2 }, { priority: 0 }),
      );
      expect(r).toMatchObject({
        outcome: "preempting",
        victims: [{ priorityRule: { rule: "priority-lower-or-equal", victimPriority: 90, askPriority: 100 } }],
      });
    });

    it("priority.policy fence: hidden when its offset is above the ask, else every task inside is eligible", () => {
      const queues: QueueSpec[] = [
        { path: "root.a", guaranteed: { cpu: 2 } },
        { path: "root.b", priorityPolicy: "fence", priorityOffset: 10 },
      ];
      const allocs = [
        alloc("b1", "b", "root.b", "n1", { cpu: 2 }, { priority: 1000 }),
        alloc("b2", "b", "root.b", "n2", { cpu: 2 }, { priority: 1000 }),
      ];
      expect(decide(queues, nodes, allocs, ask("root.a", { cpu: 2 }, { priority: 5 }))).toMatchObject({
        outcome: "none",
        reason: "does-not-help",
      });
      expect(decide(queues, nodes, allocs, ask("root.a", { cpu: 2 }, { priority: 10 }))).toMatchObject({
        outcome: "preempting",
        victims: [{ priority: 1000, priorityRule: { rule: "inside-priority-fence", fence: "root.b" } }],
      });
    });
  });

  describe("rule 6: preemption.delay and the partition switch", () => {
    const queues: QueueSpec[] = [{ path: "root.a", guaranteed: { cpu: 2 }, preemptionDelayMs: 2 * MIN }, { path: "root.b" }];
    const nodes: NodeSpec[] = [{ id: "n1", capacity: { cpu: 2 } }];
    const allocs = [alloc("b1", "b", "root.b", "n1", { cpu: 2 })];

    it("waits the leaf's preemption.delay from the ask's creation (TestCheckPreconditions)", () => {
      expect(decide(queues, nodes, allocs, ask("root.a", { cpu: 2 }, { createTime: NOW - MIN }))).toMatchObject({
        outcome: "none",
        reason: "preconditions",
        failed: "delay",
        waitMs: MIN,
      });
      expect(decide(queues, nodes, allocs, ask("root.a", { cpu: 2 }, { createTime: NOW - 2 * MIN }))).toMatchObject({
        outcome: "preempting",
      });
    });

    it("default delay 30 s; 15 s between attempts; a triggered ask and a required-node ask are left out (TestCheckPreconditions)", () => {
      const q2: QueueSpec[] = [{ path: "root.a", guaranteed: { cpu: 2 } }, { path: "root.b" }];
      expect(decide(q2, nodes, allocs, ask("root.a", { cpu: 2 }, { createTime: NOW - 29_000 }))).toMatchObject({
        failed: "delay",
        waitMs: 1_000,
      });
      expect(decide(q2, nodes, allocs, ask("root.a", { cpu: 2 }, { lastPreemptionCheck: NOW - 14_000 }))).toMatchObject({
        failed: "checked-recently",
      });
      expect(decide(q2, nodes, allocs, ask("root.a", { cpu: 2 }, { lastPreemptionCheck: NOW - 15_000 }))).toMatchObject({
        outcome: "preempting",
      });
      expect(decide(q2, nodes, allocs, ask("root.a", { cpu: 2 }, { triggeredPreemption: true }))).toMatchObject({
        failed: "already-triggered",
      });
      expect(decide(q2, nodes, allocs, ask("root.a", { cpu: 2 }, { requiredNode: "n1" }))).toMatchObject({ failed: "required-node" });
    });

    it("preemption.enabled false turns it off", () => {
      expect(decide(queues, nodes, allocs, ask("root.a", { cpu: 2 }, { createTime: 0 }), { enabled: false })).toMatchObject({
        outcome: "none",
        reason: "disabled",
      });
    });
  });

  describe("rule 7: victim choice", () => {
    const queues: QueueSpec[] = [{ path: "root.a", guaranteed: { cpu: 4 } }, { path: "root.b" }];

    it("ordinary pods before opted-out pods before originators on a node", () => {
      const r = decide(
        queues,
        [{ id: "n1", capacity: { cpu: 3 } }],
        [
          alloc("driver", "b", "root.b", "n1", { cpu: 1 }, { originator: true, createTime: NOW - MIN }),
          alloc("optout", "b", "root.b", "n1", { cpu: 1 }, { allowPreemption: false, createTime: NOW - MIN }),
          alloc("plain", "b", "root.b", "n1", { cpu: 1 }, { createTime: NOW - 5 * MIN }),
        ],
        ask("root.a", { cpu: 2 }),
      );
      expect(keys(r)).toEqual(["plain", "optout"]);
    });

    it("prefers the node whose victims are not opted out, and an opted-out pod over an originator (solution score)", () => {
      const r = decide(
        queues,
        [
          { id: "n1", capacity: { cpu: 1 } },
          { id: "n2", capacity: { cpu: 1 } },
          { id: "n3", capacity: { cpu: 1 } },
        ],
        [
          alloc("driver", "b", "root.b", "n1", { cpu: 1 }, { originator: true }),
          alloc("optout", "b", "root.b", "n2", { cpu: 1 }, { allowPreemption: false }),
        ],
        ask("root.a", { cpu: 1 }),
      );
      expect(r).toMatchObject({ outcome: "preempting", nodeId: "n2", victims: [{ allocationKey: "optout", allowPreemption: false }] });
      const plain = decide(
        queues,
        [
          { id: "n1", capacity: { cpu: 1 } },
          { id: "n2", capacity: { cpu: 1 } },
          { id: "n3", capacity: { cpu: 1 } },
        ],
        [
          alloc("driver", "b", "root.b", "n1", { cpu: 1 }, { originator: true }),
          alloc("optout", "b", "root.b", "n2", { cpu: 1 }, { allowPreemption: false }),
          alloc("plain", "b", "root.b", "n3", { cpu: 1 }),
        ],
        ask("root.a", { cpu: 1 }),
      );
      expect(plain).toMatchObject({ outcome: "preempting", nodeId: "n3" });
    });

    it("lower priority, then younger, then smaller first (TestSortAllocations)", () => {
      const base = alloc("x", "b", "root.b", "n1", { cpu: 2 });
      const sorted = [
        { ...base, key: "old-small", createTime: NOW - 9 * MIN, resource: { cpu: 1 } },
        { ...base, key: "prio5", priority: 5 },
        { ...base, key: "young", createTime: NOW - MIN },
        { ...base, key: "same-age-big", createTime: NOW - 9 * MIN, resource: { cpu: 3 } },
        { ...base, key: "optout", allowPreemption: false, priority: -5 },
        { ...base, key: "driver", originator: true, priority: -10 },
      ]
        .sort(compareVictims)
        .map((a) => a.key);
      expect(sorted).toEqual(["young", "old-small", "same-age-big", "prio5", "optout", "driver"]);
    });

    it("sortVictims orders exactly as the built-in sort, also allocations the order cannot rank (incomparable sizes)", () => {
      const base = alloc("x", "b", "root.b", "n1", { cpu: 1 });
      const one = fc.record({
        key: fc.constantFrom("a", "b", "c"),
        originator: fc.boolean(),
        allowPreemption: fc.boolean(),
        priority: fc.constantFrom(0, 1),
        createTime: fc.constantFrom(NOW - MIN, NOW),
        cpu: fc.integer({ min: 0, max: 3 }),
        mem: fc.integer({ min: 0, max: 3 }),
      });
      fc.assert(
        fc.property(fc.array(one, { maxLength: 12 }), fc.constantFrom("as is", "sorted", "reversed"), (raw, arrangement) => {
          let list = raw.map((r, i) => ({ ...base, ...r, applicationId: `app${i}`, resource: { cpu: r.cpu, mem: r.mem } }));
          if (arrangement !== "as is") list = [...list].sort(compareVictims);
          if (arrangement === "reversed") list.reverse();
          const expected = [...list].sort(compareVictims);
          const got = [...list];
          sortVictims(got);
          expect(got).toEqual(expected);
        }),
        { numRuns: 3000 },
      );
    });

    it("victims are on one node; fewer victims win; on the node the smaller goes first (TestTryPreemption_VictimsAvailableOnDifferentNodes)", () => {
      const r = decide(
        queues,
        [
          { id: "n1", capacity: { cpu: 4 } },
          { id: "n2", capacity: { cpu: 4 } },
        ],
        [
          alloc("n1-a", "b", "root.b", "n1", { cpu: 1 }),
          alloc("n1-b", "b", "root.b", "n1", { cpu: 1 }),
          alloc("n1-c", "b", "root.b", "n1", { cpu: 2 }),
          alloc("n2-a", "b", "root.b", "n2", { cpu: 3 }),
          alloc("n2-b", "b", "root.b", "n2", { cpu: 1 }),
        ],
        ask("root.a", { cpu: 3 }),
      );
      expect(r).toMatchObject({
        outcome: "preempting",
        nodeId: "n2",
        victims: [
          { allocationKey: "n2-b", nodeId: "n2" },
          { allocationKey: "n2-a", nodeId: "n2" },
        ],
      });
    });

    it("placeholders count as their application's pods", () => {
      const r = decide(
        queues,
        [{ id: "n1", capacity: { cpu: 2 } }],
        [alloc("ph", "gang", "root.b", "n1", { cpu: 2 }, { placeholder: true })],
        ask("root.a", { cpu: 2 }),
      );
      expect(r).toMatchObject({ outcome: "preempting", victims: [{ allocationKey: "ph", applicationId: "gang", placeholder: true }] });
    });

    it("nothing is evicted when the victims together are smaller than the ask (TestTryPreemption_VictimsOnDifferentNodes_InsufficientResource)", () => {
      const r = decide(
        [
          { path: "root.parent", max: { first: 6 } },
          { path: "root.parent.child1" },
          { path: "root.parent.child2", guaranteed: { first: 5 } },
        ],
        [
          { id: "node1", capacity: { first: 5, pods: 1 } },
          { id: "node2", capacity: { first: 5, pods: 1 } },
        ],
        [
          alloc("alloc1", "app1", "root.parent.child1", "node1", { first: 2, pods: 1 }),
          alloc("alloc2", "app1", "root.parent.child1", "node2", { first: 2, pods: 1 }),
        ],
        ask("root.parent.child2", { first: 5 }),
      );
      expect(r).toMatchObject({ outcome: "none", reason: "shortfall", nodeId: "node1", victimsTotal: { first: 2, pods: 1 } });
      expect(allocationLogText(r as never)).toBe("Preemption helped but short of resources");
    });

    it("queue quota: the node has room, victims inside the fence free the parent's max (TestTryPreemptionOnQueue)", () => {
      const queues2: QueueSpec[] = [
        { path: "root.parent", max: { first: 10 } },
        { path: "root.parent.child1", guaranteed: { first: 5 } },
        { path: "root.parent.child2", guaranteed: { first: 5 } },
      ];
      const r = decidePreemption(
        clusterSnapshot({
          queues: queues2,
          nodes: [
            { id: "node1", capacity: { first: 10, pods: 2 } },
            { id: "node2", capacity: { first: 10, pods: 2 } },
          ],
          allocations: [
            alloc("alloc1", "app1", "root.parent.child1", "node1", { first: 5, pods: 1 }, { createTime: NOW - 2 * MIN }),
            alloc("alloc2", "app1", "root.parent.child1", "node2", { first: 5, pods: 1 }, { createTime: NOW - MIN }),
          ],
        }),
        ask("root.parent.child2", { first: 5, pods: 1 }),
        {
          now: NOW,
          enabled: true,
          nodesTried: false,
          predicate: ({ nodeId, startIndex }) => ({ success: nodeId === "node2", index: startIndex }),
        },
      );
      expect(r).toMatchObject({
        outcome: "preempting",
        nodeId: "node2",
        fence: "root.parent",
        victims: [{ allocationKey: "alloc2", helps: { rule: "frees-queue-quota", fence: "root.parent" } }],
      });
    });

    it("cancels a lower-priority reservation older than the wait limit to use its node, keeps a younger one; a node reserved for the ask is used (initWorkingState)", () => {
      const reservation = { askKey: "big", applicationId: "c", priority: -1, createTime: NOW - 121 * MIN };
      const spec = (createTime: number) => ({
        queues,
        nodes: [{ id: "n1", capacity: { cpu: 2 }, reservations: [{ ...reservation, createTime }] }],
        allocations: [alloc("b1", "b", "root.b", "n1", { cpu: 2 })],
      });
      expect(
        decidePreemption(clusterSnapshot(spec(NOW - 121 * MIN)), ask("root.a", { cpu: 2 }), { now: NOW, enabled: true }),
      ).toMatchObject({
        outcome: "preempting",
        nodeId: "n1",
        cancelledReservations: [{ nodeId: "n1", askKey: "big", applicationId: "c" }],
      });
      expect(decidePreemption(clusterSnapshot(spec(NOW - 60 * MIN)), ask("root.a", { cpu: 2 }), { now: NOW, enabled: true })).toMatchObject(
        { outcome: "none", reason: "does-not-help" },
      );
      const own = {
        queues,
        nodes: [{ id: "n1", capacity: { cpu: 2 }, reservations: [{ ...reservation, askKey: "ask", createTime: NOW }] }],
        allocations: [alloc("b1", "b", "root.b", "n1", { cpu: 2 })],
      };
      expect(decidePreemption(clusterSnapshot(own), ask("root.a", { cpu: 2 }), { now: NOW, enabled: true })).toMatchObject({
        outcome: "preempting",
        nodeId: "n1",
        cancelledReservations: [],
      });
    });
  });

  it("the search stops after the first satisfactory batch of 10 nodes, however many nodes there are", () => {
    const nodes: NodeSpec[] = [];
    const allocs: PreemptionAllocation[] = [];
    for (let i = 0; i < 500; i++) {
      nodes.push({ id: `n${String(i).padStart(3, "0")}`, capacity: { cpu: 4 } });
      for (let j = 0; j < 4; j++) allocs.push(alloc(`b-${i}-${j}`, `b${i}`, "root.b", `n${String(i).padStart(3, "0")}`, { cpu: 1 }));
    }
    const r = decide([{ path: "root.a", guaranteed: { cpu: 8 } }, { path: "root.b" }], nodes, allocs, ask("root.a", { cpu: 2 }));
    expect(r).toMatchObject({ outcome: "preempting", nodesExamined: 10, nodeId: "n000" });
    expect(r.outcome === "preempting" && r.victims.length).toBe(2);
  });
});

describe("guarantee arithmetic (preemption_queue_test.go)", () => {
  it("remaining guarantee takes the tighter of queue and parents; unset when no guarantee anywhere (TestGetRemainingGuaranteedResource)", () => {
    const root = new QueueSnapshot({ path: "root", leaf: false, allocated: { cpu: 10 } });
    const parent = new QueueSnapshot({ path: "root.p", parent: root, leaf: false, allocated: { cpu: 8 }, guaranteed: { cpu: 6 } });
    const leaf = new QueueSnapshot({ path: "root.p.l", parent, leaf: true, allocated: { cpu: 3 }, guaranteed: { cpu: 5, mem: 4 } });
    expect(leaf.remainingGuaranteed()).toEqual({ cpu: -2, mem: 4 });
    expect(new QueueSnapshot({ path: "root.x", parent: root, leaf: true, allocated: { cpu: 1 } }).remainingGuaranteed()).toBeUndefined();
  });

  it("preemptable resource: usage above guarantee only, bounded by parents (TestGetPreemptableResource)", () => {
    const root = new QueueSnapshot({ path: "root", leaf: false, allocated: { cpu: 10 } });
    const parent = new QueueSnapshot({
      path: "root.p",
      parent: root,
      leaf: false,
      allocated: { cpu: 8, mem: 10 },
      guaranteed: { cpu: 6, mem: 20 },
    });
    const leaf = new QueueSnapshot({
      path: "root.p.l",
      parent,
      leaf: true,
      allocated: { cpu: 8, mem: 10 },
      preempting: { cpu: 1 },
      guaranteed: { cpu: 3, mem: 5 },
    });
    expect(parent.preemptable()).toEqual({ cpu: 2 });
    expect(leaf.preemptable()).toEqual({ cpu: 2, mem: 5 });
  });

  it("working set: trials start from the same usage; independent queues share no guaranteed queue with the ask's", () => {
    const root = new QueueSnapshot({ path: "root", leaf: false, allocated: { cpu: 10 } });
    const p = new QueueSnapshot({ path: "root.p", parent: root, leaf: false, allocated: { cpu: 8 }, guaranteed: { cpu: 6 } });
    const a = new QueueSnapshot({ path: "root.p.a", parent: p, leaf: true, allocated: {} });
    const b = new QueueSnapshot({ path: "root.p.b", parent: p, leaf: true, allocated: { cpu: 8 } });
    const c = new QueueSnapshot({ path: "root.c", parent: root, leaf: true, allocated: { cpu: 2 } });
    const work = new WorkingSet(new Map([a, b, c].map((q) => [q.path, q])));
    /** A usage change on `q` and every parent (root included, which has no guarantee), as a trial may make one. */
    const use = (q: QueueSnapshot, cpu: number) => {
      for (let x: QueueSnapshot | undefined = q; x; x = x.parent) x.allocated.cpu = (x.allocated.cpu ?? 0) + cpu;
    };
    const outer = work.begin();
    use(b, -3);
    const inner = work.begin();
    use(a, 1);
    expect(root.allocated).toEqual({ cpu: 8 });
    work.end(inner);
    expect([root.allocated, p.allocated, a.allocated, b.allocated]).toEqual([{ cpu: 7 }, { cpu: 5 }, {}, { cpu: 5 }]);
    work.end(outer);
    expect([root.allocated, p.allocated, a.allocated, b.allocated]).toEqual([{ cpu: 10 }, { cpu: 8 }, {}, { cpu: 8 }]);
    // b shares root.p (guaranteed) with the ask's queue a; c shares only root (no guarantee)
    expect([...work.independentOf(a)].sort()).toEqual(["root.c"]);
    expect([...work.independentOf(c)].sort()).toEqual(["root.c", "root.p.a", "root.p.b"]);
  });

  it("trial usage changes only on queues with a guarantee on their path (addUsage, removeUsage)", () => {
    const root = new QueueSnapshot({ path: "root", leaf: false, allocated: { cpu: 10 } });
    const p = new QueueSnapshot({ path: "root.p", parent: root, leaf: false, allocated: { cpu: 8 }, guaranteed: { cpu: 6 } });
    const a = new QueueSnapshot({ path: "root.p.a", parent: p, leaf: true, allocated: { cpu: 2 } });
    const c = new QueueSnapshot({ path: "root.c", parent: root, leaf: true, allocated: { cpu: 2 }, guaranteed: {} });
    expect([root.guaranteeOnPath, p.guaranteeOnPath, a.guaranteeOnPath, c.guaranteeOnPath]).toEqual([false, true, true, false]);
    a.addUsage({ cpu: 1 });
    expect([root.allocated, p.allocated, a.allocated]).toEqual([{ cpu: 10 }, { cpu: 9 }, { cpu: 3 }]);
    c.removeUsage({ cpu: 1 });
    expect([root.allocated, c.allocated]).toEqual([{ cpu: 10 }, { cpu: 2 }]);
    // no guarantee on the path: no remaining guarantee whatever the usage
    expect(c.remainingGuaranteed()).toBeUndefined();
    expect(a.remainingGuaranteed()).toEqual({ cpu: -3 });
  });

  it("preemptable resource never has a negative type, whatever the usage (the victim check relies on it)", () => {
    const res = fc.dictionary(fc.constantFrom("cpu", "mem", "gpu"), fc.integer({ min: -20, max: 20 }), { maxKeys: 3 });
    const level = fc.record({
      allocated: res,
      preempting: fc.option(res, { nil: undefined }),
      guaranteed: fc.option(res, { nil: undefined }),
    });
    fc.assert(
      fc.property(fc.array(level, { minLength: 1, maxLength: 4 }), (levels) => {
        let q: QueueSnapshot | undefined;
        levels.forEach((l, i) => {
          q = new QueueSnapshot({ path: i === 0 ? "root" : `${q!.path}.q${i}`, parent: q, leaf: i === levels.length - 1, ...l });
        });
        for (let s = q; s; s = s.parent) for (const v of Object.values(s.preemptable() ?? {})) expect(v).toBeGreaterThan(0);
      }),
    );
  });
});

describe("priorities (queue_test.go TestPriorityCalc, application_test.go TestAskMaxPriority)", () => {
  it("application priority is its highest pending ask; a queue adds its offset, a fence shows only the offset", () => {
    expect(applicationPriority([1, 7, 3])).toBe(7);
    expect(applicationPriority([])).toBe(-2147483648);
    expect(queuePriority({ priorityPolicy: "default", priorityOffset: 10 }, [applicationPriority([1, 7]), applicationPriority([2])])).toBe(
      17,
    );
    expect(queuePriority({ priorityPolicy: "fence", priorityOffset: 10 }, [1000])).toBe(10);
    expect(queuePriority({ priorityPolicy: "fence", priorityOffset: 10 }, [])).toBe(-2147483648);
    expect(priorityValueByPolicy("default", 2147483647, 5)).toBe(2147483647);
    expect(priorityValueByPolicy("default", -5, -2147483640)).toBe(-2147483645);
  });
});
