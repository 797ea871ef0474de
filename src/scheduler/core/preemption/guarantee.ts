/**
 * The guarantee rules, on working copies of the queues involved (apache/yunikorn-core
 * pkg/scheduler/objects/preemption.go QueuePreemptionSnapshot: GetRemainingGuaranteedResource,
 * GetPreemptableResource, Duplicate; isAskQueueUnderGuaranteed, isVictimQueueOverGuaranteed). Per resource type:
 * - the ask's queue must be under its guaranteed resources (its own, or the nearest ancestors' where it sets none);
 * - a victim's queue must be over its guarantee in a type the ask needs, and stay at or above it after the victim goes.
 */
import { type Res, addTo, subFrom } from "../resources.js";
import { type MaybeRes, componentWiseMinOnlyExisting, fitInActual, isEmpty, subOnlyExisting } from "./arith.js";
import type { PreemptionQueue, PreemptionSnapshot } from "./snapshot.js";

/** A mutable copy of a queue's usage for what-if removal of victims. */
export class QueueSnapshot {
  readonly path: string;
  readonly parent: QueueSnapshot | undefined;
  readonly leaf: boolean;
  allocated: Res;
  readonly preempting: MaybeRes;
  readonly guaranteed: MaybeRes;
  /** The ask's queue snapshot (set on the queues of the ask's path and on those created after it). */
  askQueue: QueueSnapshot | undefined;
  /**
   * The queue or one of its parents has a guarantee (a non-empty `guaranteed`). Without one the remaining guarantee
   * is unset whatever the usage, and removing a victim checks nothing (`removeVictim`).
   */
  readonly guaranteeOnPath: boolean;

  constructor(o: {
    path: string;
    parent?: QueueSnapshot;
    leaf: boolean;
    allocated: Readonly<Res>;
    preempting?: MaybeRes;
    guaranteed?: MaybeRes;
    askQueue?: QueueSnapshot;
  }) {
    this.path = o.path;
    this.parent = o.parent;
    this.leaf = o.leaf;
    this.allocated = { ...o.allocated };
    this.preempting = o.preempting;
    this.guaranteed = o.guaranteed;
    this.askQueue = o.askQueue;
    this.guaranteeOnPath = !isEmpty(o.guaranteed) || o.parent?.guaranteeOnPath === true;
  }

  /**
   * Adds `r` to the usage of the queues a guarantee rule reads: this queue and its parents while they have a guarantee
   * on their path (`guaranteeOnPath`; once one has none, no queue above it has). The remaining guarantee and the victim
   * check read only those, so the decision's trials leave the others' usage as it is.
   */
  addUsage(r: Readonly<Res>): void {
    for (let q: QueueSnapshot | undefined = this; q?.guaranteeOnPath; q = q.parent) addTo(q.allocated, r);
  }

  /** Takes `r` off the usage `addUsage` changes. */
  removeUsage(r: Readonly<Res>): void {
    for (let q: QueueSnapshot | undefined = this; q?.guaranteeOnPath; q = q.parent) subFrom(q.allocated, r);
  }

  /**
   * Guaranteed minus usage (minus what is already being preempted), the tighter of this queue and its parents; unset
   * when neither the queue nor any ancestor has a guarantee. A negative type means over guarantee.
   */
  remainingGuaranteed(): Res | undefined {
    // no guarantee here or above: every level below returns unset (both its parent's and its own are empty)
    if (!this.guaranteeOnPath) return undefined;
    const parent = this.parent?.remainingGuaranteed();
    const g = this.guaranteed;
    if (isEmpty(parent) && isEmpty(g)) return undefined;
    // guaranteed − (allocated − preempting) over the guarantee's types (SubOnlyExisting twice, in one pass)
    let remaining: Res | undefined;
    if (g) {
      remaining = {};
      const a = this.allocated,
        p = this.preempting;
      for (const k in g) {
        const used = a[k];
        remaining[k] = g[k]! - (used === undefined ? 0 : used - (p?.[k] ?? 0));
      }
    }
    const ask = this.askQueue;
    if (ask) {
      if (ask.path === this.path && !isEmpty(remaining)) {
        // MergeIfNotPresent: the parents' types the queue's own guarantee does not set (`remaining` is ours to change)
        if (parent) for (const k in parent) if (!(k in remaining!)) remaining![k] = parent[k]!;
        return remaining;
      }
      // A queue above the ask's queue with its own guarantee does not hand its remainder down when the ask's queue
      // has a guarantee of its own (keeps siblings of a starving queue eligible as victims). The ask queue's remaining
      // guarantee has the types of its guarantee, so only whether it has one matters.
      if (!isEmpty(remaining) && ask.path.startsWith(this.path) && !isEmpty(ask.guaranteed)) return undefined;
    }
    // ComponentWiseMin; both sides are fresh objects of this computation, so the parents' is changed in place
    if (!remaining) return parent;
    if (!parent) return remaining;
    for (const k in remaining) parent[k] = k in parent ? Math.min(remaining[k]!, parent[k]!) : remaining[k]!;
    return parent;
  }

  /** Usage above guarantee per type (only the types over), bounded by the parents' (GetPreemptableResource). */
  preemptable(): Res | undefined {
    if (isEmpty(this.allocated)) return undefined;
    const parent = this.parent?.preemptable();
    const actual = subOnlyExisting(subOnlyExisting(this.allocated, this.preempting), this.guaranteed)!;
    const over: Res = {};
    for (const k in actual) if (actual[k]! > 0) over[k] = actual[k]!;
    if (isEmpty(over)) return over;
    return componentWiseMinOnlyExisting(over, parent);
  }
}

/**
 * The queue snapshots of one decision, worked on in trials: a trial gives every snapshot a fresh copy of its usage and
 * puts the usages back when it ends, so each trial starts from the same state (upstream copies every snapshot for each
 * node tried, duplicateQueueSnapshots; copying only the usages gives the same answers).
 */
export class WorkingSet {
  private readonly list: QueueSnapshot[];
  /** Usages saved by the open trials, by depth (arrays reused from one trial to the next). */
  private readonly saved: Res[][] = [];
  /**
   * By depth, the working copies a trial ended with, and the usages they were copied from: the next trial at that
   * depth from the same usages refills a copy instead of making one, when the copy has no type its usage lacks.
   */
  private readonly spares: Res[][] = [];
  private readonly spareOf: Res[][] = [];
  private depth = 0;

  constructor(readonly queues: ReadonlyMap<string, QueueSnapshot>) {
    const all = new Set<QueueSnapshot>();
    for (const q of queues.values()) for (let s: QueueSnapshot | undefined = q; s && !all.has(s); s = s.parent) all.add(s);
    this.list = [...all];
  }

  get(path: string): QueueSnapshot | undefined {
    return this.queues.get(path);
  }

  /**
   * Paths of the queues whose guarantee checks the ask's queue taking room cannot change: no queue they share with
   * the ask queue's path (root included) has a guarantee, so the ask queue's usage reaches none of their checks.
   */
  independentOf(askQueue: QueueSnapshot): Set<string> {
    const askChain = new Set<QueueSnapshot>();
    for (let s: QueueSnapshot | undefined = askQueue; s; s = s.parent) askChain.add(s);
    const out = new Set<string>();
    for (const q of this.queues.values()) {
      let shared = false;
      for (let s: QueueSnapshot | undefined = q; s && !shared; s = s.parent) shared = askChain.has(s) && !isEmpty(s.guaranteed);
      if (!shared) out.add(q.path);
    }
    return out;
  }

  /** Starts a trial; `end` with the returned token ends it (trials nest). */
  begin(): number {
    const saved = (this.saved[this.depth] ??= []);
    const spares = this.spares[this.depth];
    const spareOf = this.spareOf[this.depth];
    for (let i = 0; i < this.list.length; i++) {
      const q = this.list[i]!;
      const usage = q.allocated;
      saved[i] = usage;
      const spare = spares?.[i];
      q.allocated = spare !== undefined && spareOf![i] === usage && refill(spare, usage) ? spare : { ...usage };
    }
    return this.depth++;
  }

  /** Ends the trial `begin` started (and any trial begun within it): every usage is as it was before. */
  end(token: number): void {
    const saved = this.saved[token]!;
    const spares = (this.spares[token] ??= []);
    const spareOf = (this.spareOf[token] ??= []);
    for (let i = 0; i < this.list.length; i++) {
      const q = this.list[i]!;
      spares[i] = q.allocated;
      spareOf[i] = saved[i]!;
      q.allocated = saved[i]!;
    }
    // copies of trials begun within it and not ended are among these spares: none is kept twice
    if (this.spares.length > token + 1) this.spares.length = this.spareOf.length = token + 1;
    this.depth = token;
  }
}

/**
 * Sets `copy` to the values of `usage`, which it was copied from (so it has every type of `usage`, in the same order,
 * and perhaps types added since): false, `copy` unusable, when it has a type `usage` lacks.
 */
function refill(copy: Res, usage: Readonly<Res>): boolean {
  let n = 0;
  for (const k in usage) {
    copy[k] = usage[k]!;
    n++;
  }
  for (const _ in copy) if (--n < 0) return false;
  return true;
}

/** The snapshot of `path` and its parents in `cache` (createPreemptionSnapshot). */
export function snapshotQueue(
  snapshot: PreemptionSnapshot,
  cache: Map<string, QueueSnapshot>,
  path: string,
  askPath: string,
): QueueSnapshot | undefined {
  const found = cache.get(path);
  if (found) return found;
  const q: PreemptionQueue | undefined = snapshot.queue(path);
  if (!q) return undefined;
  const parent = q.parent !== undefined ? snapshotQueue(snapshot, cache, q.parent, askPath) : undefined;
  const s = new QueueSnapshot({
    path: q.path,
    parent,
    leaf: q.isLeaf,
    allocated: q.allocated,
    preempting: q.preempting,
    guaranteed: q.guaranteed,
    askQueue: cache.get(askPath),
  });
  cache.set(path, s);
  return s;
}

/** No type the ask needs is negative in the ask queue's remaining guarantee (isAskQueueUnderGuaranteed). */
export function isAskQueueUnderGuaranteed(ask: Readonly<Res>, remaining: Readonly<Res>): boolean {
  for (const k in ask) {
    const v = remaining[k];
    if (v !== undefined && v < 0) return false;
  }
  return true;
}

/** Some type the ask needs is negative in the victim queue's remaining guarantee (isVictimQueueOverGuaranteed). */
export function isVictimQueueOverGuaranteed(ask: Readonly<Res>, remaining: Readonly<Res>): boolean {
  for (const k in ask) {
    const v = remaining[k];
    if (v !== undefined && v < 0) return true;
  }
  return false;
}

/** `path` is `ask` or one of its ancestors. */
function isAncestorOrSelf(path: string, ask: string): boolean {
  return ask === path || (ask.length > path.length && ask.charCodeAt(path.length) === 46 /* . */ && ask.startsWith(path));
}

/**
 * A victim may go when (upstream) its queue was over its guarantee in a type the ask needs before the removal (or had
 * no guarantee on its path) and its preemptable resource stays ≥ 0; and (corral, rule 1 per type) no queue between
 * the victim and the ask's branch — the victim's leaf and the ancestors it does not share with the ask — is left
 * below its guarantee in a type the victim frees. Upstream checks the second part only before the removal and may
 * overshoot a queue below its guarantee by up to one victim.
 * @param q the victim's queue in the working set, victim already removed
 * @param remainingBefore its remaining guarantee before the removal
 */
function victimKeepsGuarantee(
  q: QueueSnapshot,
  ask: Readonly<Res>,
  askPath: string,
  victim: Readonly<Res>,
  remainingBefore: Res | undefined,
): boolean {
  // Upstream's first test, preemptable resource ≥ 0, always holds: `preemptable()` keeps only the types over their
  // guarantee, each bounded by the parents' (also positive), so it has no negative type. It is not computed.
  if (remainingBefore !== undefined && !isVictimQueueOverGuaranteed(ask, remainingBefore)) return false;
  for (let s: QueueSnapshot | undefined = q; s && !isAncestorOrSelf(s.path, askPath); s = s.parent) {
    if (!s.guaranteed) continue;
    for (const k in victim) {
      const g = s.guaranteed[k];
      if (g === undefined || victim[k]! <= 0) continue;
      if ((s.allocated[k] ?? 0) - (s.preempting?.[k] ?? 0) < g) return false;
    }
  }
  return true;
}

/**
 * Takes a victim out of its queue in the working set when the guarantee rules allow it.
 * @returns the victim's queue (victim removed), or undefined with the working set unchanged
 */
export function removeVictim(
  work: WorkingSet,
  victim: { queuePath: string; resource: Readonly<Res> },
  ask: Readonly<Res>,
  askPath: string,
): QueueSnapshot | undefined {
  const q = work.get(victim.queuePath);
  if (!q) return undefined;
  // no remaining guarantee before, and no queue on the path with a guarantee to keep: the victim may go (and no rule
  // reads the usage of such a queue, `addUsage`)
  if (!q.guaranteeOnPath) return q;
  const before = q.remainingGuaranteed();
  q.removeUsage(victim.resource);
  if (victimKeepsGuarantee(q, ask, askPath, victim.resource, before)) return q;
  q.addUsage(victim.resource);
  return undefined;
}

/**
 * The ask's queue takes the victim's room when that keeps it within its guarantee; otherwise the victim goes back to
 * its queue.
 * @returns the ask queue's remaining guarantee before taking the room, or undefined when it could not
 */
export function askQueueTakes(askQueue: QueueSnapshot, victimQueue: QueueSnapshot, r: Readonly<Res>): Res | undefined {
  const remaining = askQueue.remainingGuaranteed();
  if (remaining === undefined || !fitInActual(remaining, r)) {
    victimQueue.addUsage(r);
    return undefined;
  }
  askQueue.addUsage(r);
  return remaining;
}
