/**
 * Property test of the preemption decision: over random queue trees (guarantees, preemption and priority policies,
 * offsets), nodes full of allocations (priorities, opt-outs, originators, placeholders) and asks, every preemption
 * the decision returns keeps rules 1-5 and 7 of the preemption issue, each checked by an independent computation
 * from the input data; and the early-stopping node search decides exactly as the full one.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { strictlyGreaterThanOnlyExisting } from "../../../src/scheduler/core/preemption/arith.js";
import { type PreemptionAsk, decidePreemption } from "../../../src/scheduler/core/preemption/preemptor.js";
import {
  type NodeSpec,
  type PreemptionAllocation,
  type QueueSpec,
  clusterSnapshot,
} from "../../../src/scheduler/core/preemption/snapshot.js";
import type { Res } from "../../../src/scheduler/core/resources.js";

const NOW = 10_000_000;
const LEAVES = ["root.p1.x", "root.p1.y", "root.p2.z", "root.p2.q.deep", "root.w"];
const PARENTS = ["root.p1", "root.p2", "root.p2.q"];
const TYPES = ["cpu", "mem"] as const;

const res = (maxCpu: number, maxMem: number) =>
  fc.record({ cpu: fc.integer({ min: 0, max: maxCpu }), mem: fc.integer({ min: 0, max: maxMem }) }).map((r) => {
    const out: Res = {};
    if (r.cpu > 0) out.cpu = r.cpu;
    if (r.mem > 0) out.mem = r.mem;
    return out;
  });

const queueSpec = (path: string) =>
  fc
    .record({
      guaranteed: fc.option(res(12, 12), { nil: undefined, freq: 2 }),
      max: fc.option(res(60, 60), { nil: undefined, freq: 3 }),
      preemptionPolicy: fc.constantFrom("default", "default", "default", "default", "fence", "disabled" as const),
      priorityPolicy: fc.constantFrom("default", "default", "default", "fence" as const),
      priorityOffset: fc.constantFrom(0, 0, -10, 10),
    })
    .map((q): QueueSpec => ({
      path,
      ...q,
      guaranteed: q.guaranteed && Object.keys(q.guaranteed).length > 0 ? q.guaranteed : undefined,
      max: q.max && Object.keys(q.max).length > 0 ? q.max : undefined,
      preemptionDelayMs: 0,
    }));

const allocSpec = fc.record({
  leaf: fc.constantFrom(...LEAVES),
  app: fc.integer({ min: 0, max: 2 }),
  cpu: fc.integer({ min: 1, max: 4 }),
  mem: fc.integer({ min: 0, max: 3 }),
  priority: fc.constantFrom(-5, 0, 5, 10, 20),
  age: fc.integer({ min: 1, max: 100 }),
  allowPreemption: fc.boolean(),
  originator: fc.boolean(),
  placeholder: fc.boolean(),
});

const clusterArb = fc.record({
  queues: fc.tuple(...[...PARENTS, ...LEAVES].map(queueSpec)),
  nodes: fc.array(fc.record({ cpu: fc.integer({ min: 2, max: 12 }), mem: fc.integer({ min: 2, max: 12 }) }), {
    minLength: 1,
    maxLength: 6,
  }),
  allocs: fc.array(allocSpec, { minLength: 10, maxLength: 50 }),
  ask: fc.record({
    leaf: fc.constantFrom(...LEAVES),
    ownApp: fc.boolean(),
    cpu: fc.integer({ min: 1, max: 6 }),
    mem: fc.integer({ min: 0, max: 4 }),
    priority: fc.constantFrom(-5, 0, 5, 10, 20),
    allowPreemptOther: fc.constantFrom(true, true, true, false),
    /** Most asks come from a queue with a generous guarantee, so that preemption happens often. */
    guaranteed: fc.option(res(40, 40), { nil: undefined, freq: 5 }),
  }),
  nodesTried: fc.boolean(),
});

/** Allocations placed first-fit on the nodes (those that fit nowhere are dropped). */
function build(c: typeof clusterArb extends fc.Arbitrary<infer T> ? T : never) {
  const nodes: NodeSpec[] = c.nodes.map((n, i) => ({ id: `n${i}`, capacity: { cpu: n.cpu, mem: n.mem } }));
  const free = nodes.map((n) => ({ ...n.capacity }));
  const allocations: PreemptionAllocation[] = [];
  c.allocs.forEach((a, i) => {
    const r: Res = a.mem > 0 ? { cpu: a.cpu, mem: a.mem } : { cpu: a.cpu };
    const at = free.findIndex((f) => f.cpu! >= r.cpu! && (f.mem ?? 0) >= (r.mem ?? 0));
    if (at < 0) return;
    free[at]!.cpu! -= r.cpu!;
    if (r.mem) free[at]!.mem! -= r.mem;
    allocations.push({
      key: `a${i}`,
      applicationId: `${a.leaf}#${a.app}`,
      queuePath: a.leaf,
      nodeId: `n${at}`,
      resource: r,
      priority: a.priority,
      createTime: NOW - a.age * 1000,
      allowPreemption: a.allowPreemption,
      originator: a.originator && !a.placeholder,
      placeholder: a.placeholder,
    });
  });
  const ask: PreemptionAsk = {
    key: "ask",
    applicationId: c.ask.ownApp ? `${c.ask.leaf}#0` : "the-ask-app",
    queuePath: c.ask.leaf,
    priority: c.ask.priority,
    resource: c.ask.mem > 0 ? { cpu: c.ask.cpu, mem: c.ask.mem } : { cpu: c.ask.cpu },
    createTime: NOW - 3_600_000,
    allowPreemptOther: c.ask.allowPreemptOther,
  };
  const queues = (c.queues as QueueSpec[]).map((q) =>
    q.path === c.ask.leaf && c.ask.guaranteed && Object.keys(c.ask.guaranteed).length > 0 ? { ...q, guaranteed: c.ask.guaranteed } : q,
  );
  return { queues, nodes, allocations, ask, nodesTried: c.nodesTried };
}

const ancestorsOrSelf = (path: string): string[] => path.split(".").map((_, i, parts) => parts.slice(0, i + 1).join("."));
const isAncestorOrSelf = (a: string, of: string) => of === a || of.startsWith(`${a}.`);

/** The ask's priority as the victim's queue sees it, computed independently; "fenced": a priority fence admits all. */
function askPriorityAt(
  queues: Map<string, QueueSpec>,
  askPath: string,
  victimLeaf: string,
  askPriority: number,
): number | "fenced" | "hidden" {
  const common = ancestorsOrSelf(askPath)
    .filter((p) => isAncestorOrSelf(p, victimLeaf))
    .pop()!;
  let p = askPriority;
  for (const q of ancestorsOrSelf(askPath).reverse()) {
    const spec = queues.get(q);
    p = spec?.priorityPolicy === "fence" ? (spec.priorityOffset ?? 0) : p + (spec?.priorityOffset ?? 0);
    if (q === common) break;
  }
  for (const q of ancestorsOrSelf(victimLeaf).filter((x) => !isAncestorOrSelf(x, common))) {
    const spec = queues.get(q);
    if (spec?.priorityPolicy === "fence") {
      if ((spec.priorityOffset ?? 0) > p) return "hidden";
      return "fenced";
    }
    p -= spec?.priorityOffset ?? 0;
  }
  return p;
}

function usage(allocs: readonly PreemptionAllocation[]): Map<string, Res> {
  const u = new Map<string, Res>();
  for (const a of allocs) {
    for (const q of ancestorsOrSelf(a.queuePath)) {
      const r = u.get(q) ?? {};
      for (const k in a.resource) r[k] = (r[k] ?? 0) + a.resource[k]!;
      u.set(q, r);
    }
  }
  return u;
}

describe("preemption properties", () => {
  it("every preemption keeps rules 1-5 and 7", () => {
    let preempted = 0;
    const outcomes: Record<string, number> = {};
    fc.assert(
      fc.property(clusterArb, (raw) => {
        const c = build(raw);
        const snapshot = clusterSnapshot({ queues: c.queues, nodes: c.nodes, allocations: c.allocations });
        const r = decidePreemption(snapshot, c.ask, { now: NOW, enabled: true, nodesTried: c.nodesTried });
        // The early-stopping search (no resource-manager check) decides exactly as the full one.
        const full = decidePreemption(snapshot, c.ask, {
          now: NOW,
          enabled: true,
          nodesTried: c.nodesTried,
          predicate: ({ startIndex }) => ({ success: true, index: startIndex }),
        });
        expect(r).toEqual(full);
        outcomes[r.outcome === "none" ? r.reason : r.outcome] = (outcomes[r.outcome === "none" ? r.reason : r.outcome] ?? 0) + 1;
        if (r.outcome !== "preempting") return;
        preempted++;
        const queues = new Map(c.queues.map((q) => [q.path, q]));
        const byKey = new Map(c.allocations.map((a) => [a.key, a]));
        const victims = r.victims.map((v) => byKey.get(v.allocationKey)!);
        // Victims are real, distinct, not protected.
        expect(victims.every((v) => v !== undefined)).toBe(true);
        expect(new Set(r.victims.map((v) => v.allocationKey)).size).toBe(victims.length);
        // Rule 4: an ask with preemptionPolicy Never never preempts.
        expect(c.ask.allowPreemptOther).toBe(true);
        // Rule 2: never its own application (nor its own queue).
        for (const v of victims) {
          expect(v.applicationId).not.toBe(c.ask.applicationId);
          expect(v.queuePath).not.toBe(c.ask.queuePath);
        }
        const before = usage(c.allocations);
        const after = usage(c.allocations.filter((a) => !r.victims.some((v) => v.allocationKey === a.key)));
        // Rule 1: no queue outside the ask's branch ends below its guarantee in a type it gave up.
        for (const q of c.queues) {
          if (!q.guaranteed || isAncestorOrSelf(q.path, c.ask.queuePath)) continue;
          for (const k of TYPES) {
            const g = q.guaranteed[k];
            if (g === undefined) continue;
            const b = before.get(q.path)?.[k] ?? 0,
              a = after.get(q.path)?.[k] ?? 0;
            if (a < b) expect(a).toBeGreaterThanOrEqual(g);
          }
        }
        // Rule 3: the ask's queue path has a guarantee, and the ask fits the leaf's own guarantee where it has one.
        expect(ancestorsOrSelf(c.ask.queuePath).some((p) => queues.get(p)?.guaranteed !== undefined)).toBe(true);
        const own = queues.get(c.ask.queuePath)?.guaranteed;
        for (const k in c.ask.resource) {
          if (own?.[k] !== undefined) expect((before.get(c.ask.queuePath)?.[k] ?? 0) + c.ask.resource[k]!).toBeLessThanOrEqual(own[k]!);
        }
        // Rule 4: each victim's priority is at most the ask's as seen from its queue, or it is inside a priority fence.
        for (const v of victims) {
          const seen = askPriorityAt(queues, c.ask.queuePath, v.queuePath, c.ask.priority);
          expect(seen).not.toBe("hidden");
          if (seen !== "fenced") expect(v.priority).toBeLessThanOrEqual(seen as number);
        }
        // Rule 5: no victim outside the lowest preemption fence on the ask's path, none from a disabled queue.
        const fence = ancestorsOrSelf(c.ask.queuePath)
          .filter((p) => queues.get(p)?.preemptionPolicy === "fence")
          .pop();
        for (const v of victims) {
          if (fence) expect(isAncestorOrSelf(fence, v.queuePath)).toBe(true);
          expect(queues.get(v.queuePath)?.preemptionPolicy).not.toBe("disabled");
        }
        // Rule 7: victims cover the ask (upstream's shortfall rule); none is taken that was not needed; when they free a
        // node they are all on it and make the ask fit, else (queue quota) the node fits the ask as it is.
        const sum = (list: readonly PreemptionAllocation[]) => {
          const t: Res = {};
          for (const v of list) for (const k in v.resource) t[k] = (t[k] ?? 0) + v.resource[k]!;
          return t;
        };
        const total = sum(victims),
          withoutLast = sum(victims.slice(0, -1));
        expect(strictlyGreaterThanOnlyExisting(c.ask.resource, total)).toBe(false);
        const node = c.nodes.find((n) => n.id === r.nodeId)!;
        const free: Res = { ...node.capacity };
        for (const a of c.allocations) if (a.nodeId === node.id) for (const k in a.resource) free[k]! -= a.resource[k]!;
        const fits = (extra: Res) => Object.keys(c.ask.resource).every((k) => (free[k] ?? 0) + (extra[k] ?? 0) >= c.ask.resource[k]!);
        if (r.victims[0]!.helps.rule === "frees-node") {
          expect(victims.every((v) => v.nodeId === r.nodeId)).toBe(true);
          expect(fits(total)).toBe(true);
          expect(fits(withoutLast)).toBe(false);
        } else {
          expect(fits({})).toBe(true);
          expect(strictlyGreaterThanOnlyExisting(c.ask.resource, withoutLast)).toBe(true);
        }
      }),
      { numRuns: 2500, seed: 20261122 },
    );
    // The generator must produce real preemptions for the property to mean anything.
    expect(preempted, JSON.stringify(outcomes)).toBeGreaterThan(120);
  });
});
