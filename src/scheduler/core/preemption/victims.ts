/**
 * Which running allocations may be victims of an ask, and in which order they are taken
 * (apache/yunikorn-core pkg/scheduler/objects/queue.go FindEligiblePreemptionVictims, findPreemptionFenceRoot,
 * findEligiblePreemptionVictims; preemption_utilities.go SortAllocations).
 *
 * Candidates come from the leaf queues below the preemption fence — the first queue up from the ask's leaf that has
 * `preemption.policy: fence`, or whose max the ask would exceed, else root — except the ask's own queue, queues with
 * `preemption.policy: disabled` and queues within their guarantee. An allocation is a candidate when it shares a
 * resource type with the ask, is not bound to a required node, not already released or preempted, and its priority
 * is at most the ask's as seen from its queue (inside a `priority.policy: fence` subtree every allocation is).
 */
import type { Res } from "../resources.js";
import {
  componentWiseMin,
  matchAny,
  strictlyGreaterThanOrEquals,
  strictlyGreaterThanOrEqualsOnlyExisting,
  strictlyGreaterThanZero,
} from "./arith.js";
import { type QueueSnapshot, WorkingSet, snapshotQueue } from "./guarantee.js";
import { type PriorityDown, askPriorityDown, askPriorityUp } from "./priority.js";
import type { PriorityAllowance, QueueOverGuarantee } from "./result.js";
import type { PreemptionAllocation, PreemptionQueue, PreemptionSnapshot } from "./snapshot.js";

/** The ask as the victim search needs it. */
export interface AskForVictims {
  readonly key: string;
  readonly applicationId: string;
  readonly queuePath: string;
  readonly priority: number;
  readonly resource: Readonly<Res>;
}

/** A leaf queue that may give victims, with the priority rule that applies in it. */
export interface EligibleLeaf {
  readonly path: string;
  readonly priority: Exclude<PriorityDown, { kind: "hidden" }>;
  readonly queueRule: QueueOverGuarantee;
}

export interface VictimQueues {
  /** The fence queue the search was limited to. */
  readonly fence: string;
  /**
   * Working copies (`work.queues`: the ask's queue and its parents, every eligible leaf and its parents), worked on in
   * what-if trials (one set per decision).
   */
  readonly work: WorkingSet;
  readonly leaves: Map<string, EligibleLeaf>;
}

/** The queue's max with its parents' (GetMaxResource). */
function effectiveMax(snapshot: PreemptionSnapshot, q: PreemptionQueue): Res | undefined {
  const parent = q.parent !== undefined ? snapshot.queue(q.parent) : undefined;
  const limit = parent ? effectiveMax(snapshot, parent) : undefined;
  if (!limit) return q.max ? { ...q.max } : undefined;
  if (!q.max) return limit;
  return componentWiseMin(limit, q.max);
}

/** What the walk down from the fence reads and fills. */
interface WalkDown {
  readonly snapshot: PreemptionSnapshot;
  readonly askPath: string;
  /** The ask's priority at each queue of its own path. */
  readonly priorityAt: ReadonlyMap<string, number>;
  readonly queues: Map<string, QueueSnapshot>;
  readonly leaves: Map<string, EligibleLeaf>;
}

/** Down from the fence: the ask's priority as each queue sees it; `fencedBy` once inside a priority fence. */
function walkDown(w: WalkDown, q: PreemptionQueue, priority: number, fencedBy: string | undefined): void {
  if (q.path === w.askPath) return;
  if (q.isLeaf) {
    if (q.preemptionPolicy === "disabled") return;
    const created = !w.queues.has(q.path);
    const s = snapshotQueue(w.snapshot, w.queues, q.path, w.askPath)!;
    const remaining = s.remainingGuaranteed();
    if (remaining !== undefined && strictlyGreaterThanOrEquals(remaining, {})) {
      if (created) w.queues.delete(q.path);
      return;
    }
    w.leaves.set(q.path, {
      path: q.path,
      priority: fencedBy !== undefined ? { kind: "fenced", fence: fencedBy } : { kind: "compare", priority },
      queueRule: { rule: "victim-queue-over-guarantee", queue: q.path, guaranteed: q.guaranteed, allocated: q.allocated },
    });
    return;
  }
  for (const child of w.snapshot.children(q.path)) {
    const onPath = w.priorityAt.get(child.path);
    if (onPath !== undefined) {
      walkDown(w, child, onPath, fencedBy);
      continue;
    }
    const down = askPriorityDown(child, priority);
    if (down.kind === "hidden") continue;
    if (down.kind === "fenced") walkDown(w, child, priority, fencedBy ?? down.fence);
    else walkDown(w, child, down.priority, fencedBy);
  }
}

/**
 * The leaf queues that may give victims for the ask, with working copies of the queues involved.
 * @returns undefined when the ask's queue is unknown
 */
export function findVictimQueues(snapshot: PreemptionSnapshot, ask: AskForVictims): VictimQueues | undefined {
  const askQueue = snapshot.queue(ask.queuePath);
  if (!askQueue) return undefined;
  // Up from the ask's leaf: the ask's priority at each queue, and the fence.
  const priorityAt = new Map<string, number>();
  let p = ask.priority;
  let fence: PreemptionQueue = askQueue;
  for (let q: PreemptionQueue | undefined = askQueue; q; q = q.parent !== undefined ? snapshot.queue(q.parent) : undefined) {
    p = askPriorityUp(q, p);
    priorityAt.set(q.path, p);
    fence = q;
    const max = effectiveMax(snapshot, q);
    let overMax = false;
    if (max && Object.keys(max).length > 0) {
      const projected: Res = { ...q.allocated };
      for (const k in ask.resource) projected[k] = (projected[k] ?? 0) + ask.resource[k]!;
      overMax = !strictlyGreaterThanOrEqualsOnlyExisting(max, projected);
    }
    if (q.parent === undefined || q.preemptionPolicy === "fence" || overMax) break;
  }
  const queues = new Map<string, QueueSnapshot>();
  snapshotQueue(snapshot, queues, ask.queuePath, ask.queuePath);
  const askSnap = queues.get(ask.queuePath)!;
  for (let s: QueueSnapshot | undefined = askSnap; s?.parent; s = s.parent) s.askQueue = askSnap;
  const leaves = new Map<string, EligibleLeaf>();
  walkDown({ snapshot, askPath: ask.queuePath, queues, priorityAt, leaves }, fence, priorityAt.get(fence.path)!, undefined);
  prune(queues, ask.queuePath, leaves);
  return { fence: fence.path, leaves, work: new WorkingSet(queues) };
}

/** Keeps the ask's chain and the chains of eligible leaves (prunePreemptionSnapshots). */
function prune(queues: Map<string, QueueSnapshot>, askPath: string, leaves: ReadonlyMap<string, EligibleLeaf>): void {
  const keep = new Set<string>();
  for (let s = queues.get(askPath); s; s = s.parent) keep.add(s.path);
  for (const l of leaves.keys()) for (let s = queues.get(l); s; s = s.parent) keep.add(s.path);
  for (const k of [...queues.keys()]) if (!keep.has(k)) queues.delete(k);
}

/**
 * Whether `alloc` may be a victim of `ask` in `leaf`: not of the ask's own application, sharing a resource type with
 * the ask, not bound to a required node, not released or preempted, and of a priority the ask may take there.
 */
export function isCandidate(alloc: PreemptionAllocation, ask: AskForVictims, leaf: EligibleLeaf): boolean {
  if (alloc.applicationId === ask.applicationId) return false;
  if (!matchAny(ask.resource, alloc.resource)) return false;
  if (alloc.requiredNode || alloc.released || alloc.preempted) return false;
  return leaf.priority.kind === "fenced" || !(alloc.priority > leaf.priority.priority);
}

/**
 * The priority rule that lets `alloc` be a victim of `ask` in `leaf`, or undefined when it is not a candidate (other
 * resource types only, required node, released, preempted, higher priority, or the ask's own application).
 */
export function candidateRule(alloc: PreemptionAllocation, ask: AskForVictims, leaf: EligibleLeaf): PriorityAllowance | undefined {
  if (!isCandidate(alloc, ask, leaf)) return undefined;
  if (leaf.priority.kind === "fenced") return { rule: "inside-priority-fence", fence: leaf.priority.fence };
  return { rule: "priority-lower-or-equal", victimPriority: alloc.priority, askPriority: leaf.priority.priority };
}

/** Sorts `list` in victim order (`compareVictims`), in place (the built-in sort). */
export function sortVictims(list: PreemptionAllocation[]): void {
  list.sort(compareVictims);
}

/** 1 ordinary, 2 opted out (`allow-preemption: "false"`), 3 originator. */
function kind(a: PreemptionAllocation): number {
  return a.originator ? 3 : a.allowPreemption ? 1 : 2;
}

/**
 * Victim order (SortAllocations): ordinary pods, then opted-out pods, then originators; within each lower priority
 * first, then the younger, then the smaller (a resource larger in no type and smaller in one comes first); the key
 * last so the order is total.
 */
export function compareVictims(l: PreemptionAllocation, r: PreemptionAllocation): number {
  const t = kind(l) - kind(r);
  if (t !== 0) return t;
  if (l.priority !== r.priority) return l.priority - r.priority;
  if (l.createTime !== r.createTime) return r.createTime - l.createTime;
  const lr: Res = { ...l.resource };
  for (const k in r.resource) lr[k] = (lr[k] ?? 0) - r.resource[k]!;
  if (strictlyGreaterThanZero(lr)) return 1;
  const rl: Res = { ...r.resource };
  for (const k in l.resource) rl[k] = (rl[k] ?? 0) - l.resource[k]!;
  if (strictlyGreaterThanZero(rl)) return -1;
  return l.key < r.key ? -1 : l.key > r.key ? 1 : 0;
}
