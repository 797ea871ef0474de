/**
 * Quota-change preemption: a managed queue whose max was lowered below its usage gives back the excess after its
 * `quota.preemption.delay` (apache/yunikorn-core pkg/scheduler/objects/quota_preemptor.go; queue.go setPreemptionTime,
 * tryAcquirePreemption, IncAllocatedResource, GetPreemptableResource; yunikorn-site design/quota_preemptor.md,
 * user_guide/quota_preemption.md). Pure: the core keeps the start time per queue and runs `decideQuotaPreemption`
 * once `quotaPreemptionDue` says so.
 *
 * The excess (usage − max, per type the max sets) is bounded by how far the queue and its parents are over their
 * guarantees; a parent's excess is shared among its children in proportion to their usage above guarantee, down to
 * the leaves. In a leaf, allocations sharing a type with the excess (not bound to a required node, not already
 * released or preempted) are taken in order — ordinary before opted-out before originators, then the larger share of
 * their types in the excess, lower priority, younger (by the hour), smaller — as long as the total stays within the
 * excess; no queue is left below its guarantee. Priorities, `preemption.policy` and fences do not apply (design).
 */
import type { Res } from "../resources.js";
import {
  componentWiseMin,
  componentWiseMinOnlyExisting,
  equals,
  isEmpty,
  isZero,
  matchAny,
  strictlyGreaterThanOrEqualsOnlyExisting,
  subOnlyExisting,
} from "./arith.js";
import { type VictimAllocation, victimAllocation } from "./result.js";
import type { PreemptionAllocation, PreemptionQueue, PreemptionSnapshot } from "./snapshot.js";

/**
 * The quota preemption start time after a configuration change of the queue (setPreemptionTime).
 * @returns the new start time (ms) or undefined (none pending)
 */
export function quotaPreemptionStartOnConfig(i: {
  readonly oldMax?: Readonly<Res>;
  readonly newMax?: Readonly<Res>;
  readonly oldDelayMs: number;
  readonly newDelayMs: number;
  readonly allocated: Readonly<Res>;
  readonly startTime?: number;
  readonly running: boolean;
  readonly now: number;
}): number | undefined {
  if (i.running) return i.startTime;
  if (i.newDelayMs === 0 || isZero(i.newMax)) return undefined;
  if (strictlyGreaterThanOrEqualsOnlyExisting(i.newMax, i.allocated)) return undefined;
  const shifted = i.startTime !== undefined && i.oldDelayMs !== i.newDelayMs ? i.startTime + i.newDelayMs - i.oldDelayMs : i.startTime;
  if (equals(i.oldMax, i.newMax)) {
    if (i.startTime === undefined) return i.oldDelayMs === 0 && i.newDelayMs > 0 ? i.now + i.newDelayMs : undefined;
    return shifted;
  }
  if (strictlyGreater(i.oldMax, i.newMax)) return i.startTime !== undefined ? shifted : i.now + i.newDelayMs;
  // Raised (or changed in a mixed way): a pending start only follows a delay change.
  return shifted;
}

/** resources.StrictlyGreaterThan: a ≥ b in every type of either and a ≠ b. */
function strictlyGreater(a: Readonly<Res> | undefined, b: Readonly<Res> | undefined): boolean {
  const l = a ?? {},
    r = b ?? {};
  for (const k in l) if ((r[k] ?? 0) > l[k]!) return false;
  for (const k in r) if ((l[k] ?? 0) < r[k]!) return false;
  return !equals(l, r);
}

/**
 * The start time after an allocation was added to a queue (IncAllocatedResource): usage pushed over the max starts
 * the delay now when none is pending.
 */
export function quotaPreemptionStartOnAllocation(
  q: PreemptionQueue,
  i: { readonly enabled: boolean; readonly startTime?: number; readonly now: number },
): number | undefined {
  const delay = q.quotaPreemptionDelayMs ?? 0;
  if (
    !i.enabled ||
    i.startTime !== undefined ||
    !q.managed ||
    delay === 0 ||
    isZero(q.max) ||
    strictlyGreaterThanOrEqualsOnlyExisting(q.max, q.allocated)
  )
    return i.startTime;
  return i.now + delay;
}

/** Whether quota preemption runs now for the queue (tryAcquirePreemption); `clear`: forget the start time. */
export type QuotaDue = { readonly due: true } | { readonly due: false; readonly clear: boolean };

export function quotaPreemptionDue(
  q: PreemptionQueue,
  i: { readonly enabled: boolean; readonly startTime?: number; readonly running: boolean; readonly now: number },
): QuotaDue {
  if (!i.enabled || !q.managed || i.running) return { due: false, clear: false };
  if (strictlyGreaterThanOrEqualsOnlyExisting(q.max, q.allocated)) return { due: false, clear: true };
  if (i.startTime === undefined || i.now < i.startTime) return { due: false, clear: false };
  return { due: true };
}

/**
 * Why a victim of quota preemption may be taken (rule 8): the queue's usage is above its lowered max, the queue's
 * `quota.preemption.delay` has passed, and the victim's removal keeps every queue from its leaf up at or above its
 * guarantee (rule 1).
 */
export interface QueueOverLoweredMax {
  readonly rule: "queue-over-lowered-max";
  /** The queue whose lowered max is enforced. */
  readonly queue: string;
  readonly max: Readonly<Res>;
  /** The queue's usage when decided, victims already being released excluded. */
  readonly used: Readonly<Res>;
  /** The queue's `quota.preemption.delay`, ms. */
  readonly delayMs: number;
  /** The victim's leaf queue's own guarantee (undefined: none set on it), kept after the victim is gone. */
  readonly leafGuaranteed?: Readonly<Res>;
}

/** A victim of quota preemption and the rule that allowed it; its node is `nodeId`. */
export interface QuotaVictim extends VictimAllocation {
  readonly rule: QueueOverLoweredMax;
}

/** What one leaf was asked to give (its share of the excess) and what it gives. */
export interface LeafQuotaShare {
  readonly queue: string;
  readonly preemptable: Readonly<Res>;
  readonly claimed: Readonly<Res>;
  /**
   * Allocations of the leaf that could be victims (a matching resource type, no required node, not released or
   * preempting already): upstream's `selectedVictims`, counted in the queue's QUOTA_PREEMPTION event.
   */
  readonly selected: number;
}

/** Victims chosen to bring `queue` back under its lowered max. */
export interface QuotaPreempting {
  readonly outcome: "preempting";
  readonly queue: string;
  /** The queue's (lowered) max, core units: the resource of YuniKorn's QUEUE_PREEMPTION event. */
  readonly max: Readonly<Res>;
  /** The excess to preempt (usage above max, bounded by the usage above guarantees on the path). */
  readonly preemptable: Readonly<Res>;
  readonly leaves: readonly LeafQuotaShare[];
  readonly victims: readonly QuotaVictim[];
}

/**
 * There is an excess to preempt and allocations that could be victims (the leaves' `selected`), but none fits within
 * it while keeping the guarantees: nothing is preempted. YuniKorn still reports such a pass (quota_preemptor.go
 * tryPreemption: its summary event with `preempted victims: 0`).
 */
export interface QuotaNoVictims {
  readonly outcome: "none";
  readonly queue: string;
  readonly reason: "no-victims";
  /** True when the queue is a leaf (its own excess is its only share); false for a parent. */
  readonly isLeaf: boolean;
  /** As in {@link QuotaPreempting}. */
  readonly max: Readonly<Res>;
  readonly preemptable: Readonly<Res>;
  readonly leaves: readonly LeafQuotaShare[];
}

/**
 * Why nothing is preempted, and nothing is reported: `unknown-queue`, `not-managed` (a dynamic queue), `no-delay` (no
 * `quota.preemption.delay`), `within-max` (usage no longer above the max), `nothing-preemptable` (the queue and its
 * parents are within their guarantees), `no-candidates` (no allocation could be a victim). With candidates but none
 * taken: {@link QuotaNoVictims}.
 */
export interface NoQuotaPreemption {
  readonly outcome: "none";
  readonly queue: string;
  readonly reason: "unknown-queue" | "not-managed" | "no-delay" | "within-max" | "nothing-preemptable" | "no-candidates";
}

export type QuotaPreemptionResult = QuotaPreempting | QuotaNoVictims | NoQuotaPreemption;

/** Queue usage above guarantee along the path, negative where over (Queue.GetPreemptableResource). */
function pathPreemptable(snapshot: PreemptionSnapshot, q: PreemptionQueue | undefined): Res | undefined {
  if (!q) return {};
  const parent = pathPreemptable(snapshot, q.parent !== undefined ? snapshot.queue(q.parent) : undefined);
  const own = q.guaranteed ? subOnlyExisting(q.guaranteed, q.allocated) : { ...q.allocated };
  return componentWiseMin(own, parent);
}

/** Absolute values of the negative entries. */
function negatives(r: Readonly<Res> | undefined): Res {
  const out: Res = {};
  if (r) for (const k in r) if (r[k]! < 0) out[k] = -r[k]!;
  return out;
}

/**
 * The excess to preempt in the queue itself (setPreemptableResources).
 * @param used the queue's usage, victims already being released excluded
 */
function queueExcess(snapshot: PreemptionSnapshot, q: PreemptionQueue, used: Readonly<Res>): Res | undefined {
  if (isEmpty(q.max) || isEmpty(used)) return undefined;
  const net = negatives(subOnlyExisting(q.max, used));
  const result = componentWiseMinOnlyExisting(net, negatives(pathPreemptable(snapshot, q)));
  return isEmpty(result) ? undefined : result;
}

/** Shares of the parent's excess for each leaf below (getChildQueuesPreemptableResource). */
function leafShares(snapshot: PreemptionSnapshot, parent: PreemptionQueue, parentExcess: Readonly<Res>, out: Map<string, Res>): void {
  const own = new Map<PreemptionQueue, Res>();
  const total: Res = {};
  for (const c of snapshot.children(parent.path)) {
    if (isEmpty(c.allocated) || strictlyGreaterThanOrEqualsOnlyExisting(c.guaranteed, c.allocated)) continue;
    const used = !isEmpty(c.guaranteed) ? subOnlyExisting(c.guaranteed, c.allocated)! : c.allocated;
    const p: Res = {};
    for (const k in used) p[k] = Math.abs(used[k]!);
    own.set(c, p);
    for (const k in p) total[k] = (total[k] ?? 0) + p[k]!;
  }
  for (const [c, p] of own) {
    const share: Res = {};
    for (const k in p) {
      if (parentExcess[k] === undefined) continue;
      const per = p[k] !== 0 && total[k] ? p[k]! / total[k]! : 0;
      share[k] = Math.floor(per * parentExcess[k]!);
    }
    if (c.isLeaf) out.set(c.path, share);
    else leafShares(snapshot, c, share, out);
  }
}

/** Kind of a victim for ordering: 1 ordinary, 2 opted out, 3 originator. */
const kind = (a: PreemptionAllocation) => (a.originator ? 3 : a.allowPreemption ? 1 : 2);

/** Resource.TypeMatching: percentage of the allocation's types that are in the excess. */
function typeMatching(r: Readonly<Res>, excess: Readonly<Res>): number {
  const types = Object.keys(r);
  if (types.length === 0) return 0;
  return Math.floor((types.filter((k) => k in excess).length * 100) / types.length);
}

/** Shares of `r` in `total` for the excess types, ascending (CompUsageRatioSpecificTypes). */
function shares(r: Readonly<Res>, total: Readonly<Res> | undefined, excess: Readonly<Res>): number[] {
  const out: number[] = [];
  for (const k in excess) {
    const v = r[k];
    if (v === undefined || v === 0) continue;
    const t = total?.[k];
    out.push(t ? v / t : v);
  }
  return out.sort((a, b) => a - b);
}

function compareShares(l: number[], r: number[]): number {
  let i = l.length - 1,
    j = r.length - 1;
  for (; i >= 0 && j >= 0; i--, j--) if (l[i] !== r[j]) return l[i]! > r[j]! ? 1 : -1;
  for (; i >= 0; i--) if (l[i] !== 0) return l[i]! > 0 ? 1 : -1;
  for (; j >= 0; j--) if (r[j] !== 0) return r[j]! > 0 ? -1 : 1;
  return 0;
}

const HOUR = 3_600_000;

/**
 * Victim order for quota preemption (SortAllocationsBasedOnAsk, with rule 7's kind order): ordinary, opted-out,
 * originator; more of their types in the excess; lower priority; younger by the hour; smaller share; then (corral's
 * tie-break) younger, then the key.
 */
export function compareQuotaVictims(
  l: PreemptionAllocation,
  r: PreemptionAllocation,
  total: Readonly<Res> | undefined,
  excess: Readonly<Res>,
): number {
  const k = kind(l) - kind(r);
  if (k !== 0) return k;
  const tm = typeMatching(r.resource, excess) - typeMatching(l.resource, excess);
  if (tm !== 0) return tm;
  if (l.priority !== r.priority) return l.priority - r.priority;
  const lh = Math.floor(l.createTime / HOUR),
    rh = Math.floor(r.createTime / HOUR);
  if (lh !== rh) return rh - lh;
  const c = compareShares(shares(l.resource, total, excess), shares(r.resource, total, excess));
  if (c !== 0) return c;
  // upstream leaves the rest to its (random) map order; corral takes the younger, then the key
  if (l.createTime !== r.createTime) return r.createTime - l.createTime;
  return l.key < r.key ? -1 : l.key > r.key ? 1 : 0;
}

/** Every queue from `leaf` up keeps its guarantee in the victim's types once `removed` is gone. */
function keepsGuarantees(snapshot: PreemptionSnapshot, leaf: string, removed: ReadonlyMap<string, Res>, victim: Readonly<Res>): boolean {
  for (let q = snapshot.queue(leaf); q; q = q.parent !== undefined ? snapshot.queue(q.parent) : undefined) {
    if (!q.guaranteed) continue;
    const gone = removed.get(q.path) ?? {};
    for (const k in victim) {
      const g = q.guaranteed[k];
      if (g === undefined || victim[k]! <= 0) continue;
      if ((q.allocated[k] ?? 0) - (q.preempting?.[k] ?? 0) - (gone[k] ?? 0) - victim[k]! < g) return false;
    }
  }
  return true;
}

/**
 * Victims that bring a queue back under its lowered max.
 * @param queuePath the queue whose max was lowered (the caller checked `quotaPreemptionDue`)
 */
export function decideQuotaPreemption(snapshot: PreemptionSnapshot, queuePath: string): QuotaPreemptionResult {
  const q = snapshot.queue(queuePath);
  if (!q) return { outcome: "none", queue: queuePath, reason: "unknown-queue" };
  if (!q.managed) return { outcome: "none", queue: queuePath, reason: "not-managed" };
  if (!q.quotaPreemptionDelayMs) return { outcome: "none", queue: queuePath, reason: "no-delay" };
  if (strictlyGreaterThanOrEqualsOnlyExisting(q.max, q.allocated)) return { outcome: "none", queue: queuePath, reason: "within-max" };
  const used = subOnlyExisting(q.allocated, q.preempting)!;
  const excess = queueExcess(snapshot, q, used);
  if (!excess || isZero(excess)) return { outcome: "none", queue: queuePath, reason: "nothing-preemptable" };
  const targets = new Map<string, Res>();
  if (q.isLeaf) targets.set(q.path, excess);
  else leafShares(snapshot, q, excess, targets);
  const max = q.max ?? {};
  const removed = new Map<string, Res>();
  const leaves: LeafQuotaShare[] = [];
  const victims: QuotaVictim[] = [];
  for (const [leaf, target] of targets) {
    if (isZero(target)) continue;
    const leafQueue = snapshot.queue(leaf)!;
    const candidates = [...snapshot.allocations(leaf)].filter(
      (a) => matchAny(target, a.resource) && !a.requiredNode && !a.released && !a.preempted,
    );
    candidates.sort((l, r) => compareQuotaVictims(l, r, leafQueue.max, target));
    const claimed: Res = {};
    for (const a of candidates) {
      if (!fitInMaxUndefined(target, a.resource)) continue;
      const next: Res = { ...claimed };
      for (const k in a.resource) next[k] = (next[k] ?? 0) + a.resource[k]!;
      if (!strictlyGreaterThanOrEqualsOnlyExisting(target, next)) continue;
      if (!keepsGuarantees(snapshot, leaf, removed, a.resource)) continue;
      Object.assign(claimed, next);
      for (let p: PreemptionQueue | undefined = leafQueue; p; p = p.parent !== undefined ? snapshot.queue(p.parent) : undefined) {
        const gone = removed.get(p.path) ?? {};
        for (const k in a.resource) gone[k] = (gone[k] ?? 0) + a.resource[k]!;
        removed.set(p.path, gone);
      }
      victims.push({
        ...victimAllocation(a),
        rule: {
          rule: "queue-over-lowered-max",
          queue: queuePath,
          max,
          used,
          delayMs: q.quotaPreemptionDelayMs,
          ...(leafQueue.guaranteed ? { leafGuaranteed: leafQueue.guaranteed } : {}),
        },
      });
    }
    leaves.push({ queue: leaf, preemptable: target, claimed, selected: candidates.length });
  }
  if (victims.length === 0)
    return leaves.some((l) => l.selected > 0)
      ? { outcome: "none", queue: queuePath, reason: "no-victims", isLeaf: q.isLeaf, max, preemptable: excess, leaves }
      : { outcome: "none", queue: queuePath, reason: "no-candidates" };
  return { outcome: "preempting", queue: queuePath, max, preemptable: excess, leaves, victims };
}

/** FitInMaxUndef: `small` within `max` for the types `max` sets (negatives in max count as 0). */
function fitInMaxUndefined(max: Readonly<Res>, small: Readonly<Res>): boolean {
  for (const k in small) {
    const m = max[k];
    if (m !== undefined && small[k]! > Math.max(0, m)) return false;
  }
  return true;
}
