/**
 * The per-node victim search and the bounded choice of a node (apache/yunikorn-core
 * pkg/scheduler/objects/preemption.go initWorkingState, calculateVictimsByNode, tryNodes, checkPreemptionPredicates;
 * predicates.go getSolutionScore). All victims of one decision are on one node, which is then reserved for the ask.
 *
 * For each node that is schedulable, not reserved for another ask and large enough in total, the node's candidates
 * are ordered (victims.ts compareVictims) and trimmed in two passes to those whose removal keeps their queue at or
 * above its guarantee, up to the shortest prefix that makes the ask fit (`startIndex`). Nodes are read lazily in the
 * snapshot's order and checked in batches of `batchSize` (upstream's 10 concurrent predicate checks, sorted by
 * startIndex then node id); the search ends at the first batch whose best solution takes no opted-out or originator
 * pod, so its cost does not grow with the number of nodes once candidates are found.
 */
import { type Res, addTo } from "../resources.js";
import { fitIn } from "./arith.js";
import { type WorkingSet, askQueueTakes, removeVictim } from "./guarantee.js";
import type { CancelledReservation } from "./result.js";
import type { PreemptionAllocation, PreemptionNode, PreemptionSnapshot } from "./snapshot.js";
import { type AskForVictims, type EligibleLeaf, type VictimQueues, isCandidate, sortVictims } from "./victims.js";

/** A possible victim (its priority rule is worked out for the victims chosen, victims.ts `candidateRule`). */
export type Candidate = PreemptionAllocation;

/** One node's proposal: the ordered victims and the index of the last one needed (-1: the ask fits as is). */
export interface NodeCheck {
  readonly nodeId: string;
  readonly node: PreemptionNode;
  readonly victims: readonly Candidate[];
  readonly startIndex: number;
}

/** The resource manager's answer to a preemption check (PreemptionPredicates): success and the index it needs. */
export interface PredicateAnswer {
  readonly success: boolean;
  readonly index: number;
}

/** Optional resource-manager check of a node with victims removed (si.PreemptionPredicatesArgs). */
export type PreemptionPredicate = (check: {
  askKey: string;
  nodeId: string;
  victimKeys: readonly string[];
  startIndex: number;
}) => PredicateAnswer;

/** Solution score bits (preemption.go): below SCORE_FIT_MAX a solution is satisfactory. */
export const SCORE_FIT_MAX = 2 ** 32;
/** Corral orders opted-out pods before originators (rule 7), so an originator costs more than an opted-out pod. */
export const SCORE_OPTED_OUT = 2 ** 33;
export const SCORE_ORIGINATOR = 2 ** 34;
const SCORE_UNFIT = 2 ** 35;

/** Reservation wait limits (application.go reservationDelay 2 s, reservationWaitTimeout 60 min). */
const RESERVATION_DELAY_MS = 2_000;
const RESERVATION_WAIT_TIMEOUT_MS = 60 * 60_000;

/** Lower is better: victims needed + bits for opted-out and originator pods among them (getSolutionScore). */
export function solutionScore(victims: readonly Candidate[], index: number): number {
  if (index < 0) return 0;
  if (index >= victims.length) return SCORE_UNFIT;
  let optedOut = false,
    originator = false;
  for (let i = 0; i <= index; i++) {
    const a = victims[i]!;
    if (a.originator) originator = true;
    if (!a.allowPreemption) optedOut = true;
  }
  return (originator ? SCORE_ORIGINATOR : 0) + (optedOut ? SCORE_OPTED_OUT : 0) + index + 1;
}

export interface NodeVictimsInput {
  /** The ask's resources and leaf queue. */
  readonly ask: Readonly<Res>;
  readonly askPath: string;
  /** The node's available resources. */
  readonly available: Readonly<Res>;
  /** The node's candidates in victim order. */
  readonly candidates: readonly Candidate[];
  /** Working set of queue snapshots (each pass is a trial: the set is as given when it returns). */
  readonly work: WorkingSet;
  /** Compute the whole ordered list (a resource-manager check may look past the index). */
  readonly full: boolean;
  /** Queues whose guarantee checks the ask queue's usage cannot change (`WorkingSet.independentOf`). */
  readonly independent?: ReadonlySet<string>;
  /** Lists reused from one node to the next within a decision (`NodeScratch`); default: new lists. */
  readonly scratch?: NodeScratch;
}

/**
 * Working lists of the node search, reused for every node of one decision so a node read makes no new lists; what a
 * node search returns never shares them.
 */
export class NodeScratch {
  /** The node's candidates (chooseNode). */
  readonly candidates: Candidate[] = [];
  /** Pass one's order (orderOnNode): the candidates that shrink the shortfall, then the others. */
  readonly head: Candidate[] = [];
  readonly tail: Candidate[] = [];
}

/**
 * The node's shortfall for the ask is gone: SubEliminateNegative(ask, available) is zero in every type (a type only
 * the node has counts when it is negative there), computed without building it.
 */
function noShortfall(ask: Readonly<Res>, available: Readonly<Res>): boolean {
  for (const k in ask) {
    const v = available[k];
    if (v === undefined ? ask[k] !== 0 : Math.max(0, ask[k]! - v) !== 0) return false;
  }
  for (const k in available) if (ask[k] === undefined && Math.max(0, 0 - available[k]!) !== 0) return false;
  return true;
}

/**
 * Adding `r` to the node's available resources changes its shortfall for the ask (not EqualsOrEmpty of
 * SubEliminateNegative before and after); only the types of `r` can change.
 */
function shortfallChanges(ask: Readonly<Res>, available: Readonly<Res>, r: Readonly<Res>): boolean {
  for (const k in r) {
    const v = available[k];
    const a = ask[k];
    const before = v === undefined ? (a ?? 0) : Math.max(0, (a ?? 0) - v);
    const after = Math.max(0, (a ?? 0) - ((v ?? 0) + r[k]!));
    if (before !== after) return true;
  }
  return false;
}

/**
 * Victims on one node in the order to try and the index of the first prefix that frees enough room
 * (calculateVictimsByNode): pass one keeps, in order, the candidates whose queue stays at or above its guarantee and
 * whose room the ask's queue can still take within its guarantee — those that shrink the node's shortfall first, the
 * others after; pass two re-checks the guarantees in that order and finds the index. Each pass starts from the
 * working set as given and leaves it so.
 * With `full` false (no resource-manager check will look past the index) both passes stop early: pass one once the
 * shortfall is gone, pass two at the index; when that finds no index the full computation decides, so the answer is
 * the same.
 * @returns undefined when the node cannot be made to fit; `{startIndex: -1, victims: []}` when the ask fits as is
 */
export function victimsOnNode(o: NodeVictimsInput): { startIndex: number; victims: Candidate[] } | undefined {
  const { ask, askPath, available, work, full, independent } = o;
  if (fitIn(available, ask)) return { startIndex: -1, victims: [] };
  const head = o.scratch?.head ?? [];
  const tail = o.scratch?.tail ?? [];
  try {
    const headFits = orderOnNode(o, head, tail);
    if (head.length + tail.length === 0) return undefined;
    if (!full && independent && allIn(head, independent)) {
      // Pass two would accept every victim of the head: each meets the same usage of its queues as in pass one (the
      // victims before it removed, those of the tail put back), and the ask queue's usage, the only other difference,
      // reaches none of its checks. Only where the ask fits is left to find, which pass one found on the way; when it
      // does not fit, the full pass decides.
      if (headFits >= 0) return { startIndex: headFits, victims: head.slice(0, headFits + 1) };
    }
    const saved = work.begin();
    const nodeAvailable: Res = { ...available };
    const victims: Candidate[] = [];
    let index = -1;
    for (let i = 0, n = head.length + tail.length; i < n; i++) {
      const c = i < head.length ? head[i]! : tail[i - head.length]!;
      if (!removeVictim(work, c, ask, askPath)) continue;
      addTo(nodeAvailable, c.resource);
      if (index < 0 && fitIn(nodeAvailable, ask)) index = victims.length;
      victims.push(c);
      if (!full && index >= 0) break;
    }
    work.end(saved);
    if (index < 0) {
      if (full) return undefined;
      head.length = tail.length = 0;
      return victimsOnNode({ ...o, full: true });
    }
    return { startIndex: index, victims };
  } finally {
    // (a length set costs more than the test when the list is empty already)
    if (head.length > 0) head.length = 0;
    if (tail.length > 0) tail.length = 0;
  }
}

/** Every candidate's queue is in `set`. */
function allIn(list: readonly Candidate[], set: ReadonlySet<string>): boolean {
  for (let i = 0; i < list.length; i++) if (!set.has(list[i]!.queuePath)) return false;
  return true;
}

/**
 * Pass one of calculateVictimsByNode: candidates that shrink the shortfall into `head`, then the others into `tail`
 * (both empty when given).
 * @returns with `full` false, the first index of `head` at which the node with the head up to there removed fits the
 *   ask (-1: none); with `full` true, -1
 */
function orderOnNode({ ask, askPath, available, candidates, work, full }: NodeVictimsInput, head: Candidate[], tail: Candidate[]): number {
  const askQueue = work.get(askPath);
  if (!askQueue) return -1;
  let headFits = -1;
  const saved = work.begin();
  const nodeAvailable: Res = { ...available };
  let gone = noShortfall(ask, nodeAvailable);
  for (let i = 0; i < candidates.length; i++) {
    if (!full && gone) break;
    const c = candidates[i]!;
    const r = c.resource;
    const q = removeVictim(work, c, ask, askPath);
    if (!q) continue;
    if (!askQueueTakes(askQueue, q, r)) break;
    if (!shortfallChanges(ask, nodeAvailable, r)) {
      askQueue.removeUsage(r);
      q.addUsage(r);
      tail.push(c);
    } else {
      addTo(nodeAvailable, r);
      gone = noShortfall(ask, nodeAvailable);
      if (!full && headFits < 0 && fitIn(nodeAvailable, ask)) headFits = head.length;
      head.push(c);
    }
  }
  work.end(saved);
  return headFits;
}

export interface NodeSearchOptions {
  readonly now: number;
  /** The ask already failed on every node in this cycle: nodes that need no victim are not proposed. */
  readonly nodesTried: boolean;
  readonly batchSize: number;
  /** Stop after this many nodes even without a solution. */
  readonly maxNodes: number;
  readonly predicate?: PreemptionPredicate;
}

export interface NodeChoice {
  readonly check: NodeCheck;
  /** Index answered by the predicate (≤ startIndex … victims.length − 1). */
  readonly index: number;
  readonly cancelledReservations: readonly CancelledReservation[];
}

const NONE_CANCELLED: readonly CancelledReservation[] = Object.freeze([]);

/**
 * Whether the node can be considered: the reservations of lower-priority asks cancelled for that (none: an empty
 * list), or undefined when it cannot be.
 */
function nodeUsable(node: PreemptionNode, ask: AskForVictims, now: number): readonly CancelledReservation[] | undefined {
  if (!node.schedulable) return undefined;
  let cancelled: CancelledReservation[] | undefined;
  const reservations = node.reservations;
  if (reservations && reservations.length > 0 && !reservations.some((r) => r.askKey === ask.key)) {
    let reservedByOther = true;
    for (const r of reservations) {
      if (r.requiredNode || r.triggeredPreemption) continue;
      const age = now - (r.createTime + RESERVATION_WAIT_TIMEOUT_MS + RESERVATION_DELAY_MS);
      if (r.priority < ask.priority && age > RESERVATION_WAIT_TIMEOUT_MS) {
        (cancelled ??= []).push({ nodeId: node.id, askKey: r.askKey, applicationId: r.applicationId });
        reservedByOther = false;
      }
    }
    if (reservedByOther) return undefined;
  }
  if (!fitIn(node.capacity, ask.resource)) return undefined;
  return cancelled ?? NONE_CANCELLED;
}

/** A node's proposal waiting for its batch, with the reservations cancelled to consider it. */
interface Proposal {
  readonly check: NodeCheck;
  readonly cancelled: readonly CancelledReservation[];
}
interface Best {
  readonly choice: NodeChoice;
  readonly score: number;
}

/** Batch order (upstream sorts the predicate checks): fewer victims needed first, then node id. */
function byStartIndexThenNode(a: Proposal, b: Proposal): number {
  return a.check.startIndex - b.check.startIndex || (a.check.nodeId < b.check.nodeId ? -1 : a.check.nodeId > b.check.nodeId ? 1 : 0);
}

/** One batch's checks in order; the best solution so far, improved by the batch (checkPreemptionPredicates). */
function runBatch(batch: Proposal[], best: Best | undefined, askKey: string, predicate: PreemptionPredicate | undefined): Best | undefined {
  batch.sort(byStartIndexThenNode);
  for (let i = 0; i < batch.length; i++) {
    const { check, cancelled } = batch[i]!;
    let success = true,
      index = check.startIndex;
    if (predicate) {
      const answer = predicate({ askKey, nodeId: check.nodeId, victimKeys: check.victims.map((v) => v.key), startIndex: check.startIndex });
      success = answer.success;
      index = answer.index;
    }
    if (!success || index >= check.victims.length) continue;
    const score = solutionScore(check.victims, index);
    if (!best || score < best.score) best = { choice: { check, index, cancelledReservations: cancelled }, score };
  }
  return best;
}

/**
 * The bounded search for the node to preempt on.
 * @returns the chosen node with its victims, or undefined (preemption does not help); `examined` counts nodes read
 */
export function chooseNode(
  snapshot: PreemptionSnapshot,
  ask: AskForVictims,
  victimQueues: VictimQueues,
  opts: NodeSearchOptions,
): { choice: NodeChoice | undefined; examined: number } {
  let best: Best | undefined;
  const batch: Proposal[] = [];
  let examined = 0;
  const work = victimQueues.work;
  const askQueue = work.get(ask.queuePath);
  const independent = askQueue && work.independentOf(askQueue);
  const scratch = new NodeScratch();
  const candidates = scratch.candidates;
  // one input for every node: only the node's free resources change (the candidates list is the scratch one)
  const input: { -readonly [K in keyof NodeVictimsInput]: NodeVictimsInput[K] } = {
    ask: ask.resource,
    askPath: ask.queuePath,
    available: {},
    candidates,
    work,
    full: opts.predicate !== undefined,
    independent,
    scratch,
  };
  let lastPath: string | undefined;
  let lastLeaf: EligibleLeaf | undefined;
  for (const node of snapshot.nodes()) {
    if (examined >= opts.maxNodes) break;
    examined++;
    const cancelled = nodeUsable(node, ask, opts.now);
    if (!cancelled) continue;
    // candidates keep the order of the list they are taken from: a list already in victim order needs no sort
    const ordered = node.allocationsInVictimOrder;
    const allocations = ordered ?? node.allocations;
    for (let i = 0; i < allocations.length; i++) {
      const alloc = allocations[i]!;
      // a node's pods mostly share a few queues: the last queue's leaf is kept for the next pod
      if (alloc.queuePath !== lastPath) {
        lastPath = alloc.queuePath;
        lastLeaf = victimQueues.leaves.get(lastPath);
      }
      if (lastLeaf && isCandidate(alloc, ask, lastLeaf)) candidates.push(alloc);
    }
    if (!ordered) sortVictims(candidates);
    input.available = node.available;
    const found = victimsOnNode(input);
    candidates.length = 0;
    if (!found || (found.victims.length === 0 && opts.nodesTried)) continue;
    batch.push({ check: { nodeId: node.id, node, victims: found.victims, startIndex: found.startIndex }, cancelled });
    if (batch.length >= opts.batchSize) {
      best = runBatch(batch, best, ask.key, opts.predicate);
      batch.length = 0;
      if (best !== undefined && best.score < SCORE_FIT_MAX) return { choice: best.choice, examined };
    }
  }
  if (batch.length > 0) best = runBatch(batch, best, ask.key, opts.predicate);
  return { choice: best?.choice, examined };
}
