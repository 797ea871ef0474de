/**
 * The ask-triggered preemption decision (apache/yunikorn-core pkg/scheduler/objects/preemption.go
 * CheckPreconditions, checkPreemptionQueueGuarantees, TryPreemption, calculateAdditionalVictims; yunikorn-site
 * design/preemption.md, user_guide/preemption.md). Pure: the snapshot and the clock go in, a PreemptionResult comes
 * out; the core marks the victims preempted, releases them through the shim, reserves the node and records the
 * attempt time.
 *
 * Rules, per resource type: a victim's queue never drops below its guarantee; an ask never takes victims from its own
 * queue (so never from its own application); only an ask whose queue is under its guarantee triggers, and only
 * allocations of queues over theirs are victims; victims have lower or equal priority (offsets and priority fences
 * applied); an ask with `preemptionPolicy: Never` never preempts; `preemption.policy: fence` keeps the search inside
 * the queue's subtree and `disabled` protects a queue's allocations; the ask waits `preemption.delay` from its
 * creation; victims are on one node (except when the node already has room and only queue quota is short), ordered
 * ordinary → opted-out → originator, lower priority, younger, smaller first; nothing is preempted when the victims
 * together are smaller than the ask.
 */
import { DEFAULT_PREEMPTION_DELAY_MS } from "../queue-properties.js";
import { type Res, addTo } from "../resources.js";
import { equalsOrEmpty, fitIn, fitInActual, strictlyGreaterThanOnlyExisting } from "./arith.js";
import { askQueueTakes, isAskQueueUnderGuaranteed, removeVictim } from "./guarantee.js";
import { type Candidate, type PreemptionPredicate, chooseNode } from "./node-search.js";
import { type Helps, type NoPreemptionReason, type PreemptionResult, type PreemptorRef, type Victim, victimOf } from "./result.js";
import type { PreemptionSnapshot } from "./snapshot.js";
import { type AskForVictims, type VictimQueues, candidateRule, findVictimQueues, isCandidate, sortVictims } from "./victims.js";

/** Minimum time between two preemption attempts of one ask (preemptAttemptFrequency). */
export const PREEMPT_ATTEMPT_FREQUENCY_MS = 15_000;
/** Nodes checked together (preemptCheckConcurrency). */
export const PREEMPT_CHECK_BATCH = 10;

/** The pending ask that may preempt. */
export interface PreemptionAsk extends AskForVictims {
  /** Creation time of the pod, ms. */
  readonly createTime: number;
  /** False for `preemptionPolicy: Never` (si.PreemptionPolicy.allowPreemptOther). */
  readonly allowPreemptOther: boolean;
  readonly requiredNode?: string;
  /** The ask already caused victims to be released. */
  readonly triggeredPreemption?: boolean;
  /** When preemption was last attempted for it, ms. */
  readonly lastPreemptionCheck?: number;
}

export interface PreemptionOptions {
  /** Current time, ms (injected clock). */
  readonly now: number;
  /** Partition `preemption.enabled`. */
  readonly enabled: boolean;
  /** The ask was already tried on every node this cycle (no node needing no victim is proposed). Default true. */
  readonly nodesTried?: boolean;
  /** Nodes checked per batch; default 10. */
  readonly batchSize?: number;
  /** Upper bound on nodes read; default unlimited. */
  readonly maxNodes?: number;
  /** The resource manager's node check; default: every proposal fits. */
  readonly predicate?: PreemptionPredicate;
}

function none(ask: PreemptorRef, r: NoPreemptionReason): PreemptionResult {
  return { outcome: "none", ask, ...r };
}

/** CheckPreconditions, without its side effect (the caller records the attempt time when this passes). */
export function checkPreconditions(ask: PreemptionAsk, preemptionDelayMs: number, now: number): NoPreemptionReason | undefined {
  if (!ask.allowPreemptOther) return { reason: "preconditions", failed: "not-allowed" };
  if (ask.triggeredPreemption) return { reason: "preconditions", failed: "already-triggered" };
  if (ask.requiredNode) return { reason: "preconditions", failed: "required-node" };
  if (now < ask.createTime + preemptionDelayMs)
    return { reason: "preconditions", failed: "delay", waitMs: ask.createTime + preemptionDelayMs - now };
  if (ask.lastPreemptionCheck !== undefined && now < ask.lastPreemptionCheck + PREEMPT_ATTEMPT_FREQUENCY_MS)
    return { reason: "preconditions", failed: "checked-recently" };
  return undefined;
}

/** Eligible candidates of every eligible leaf, read lazily. */
function* allCandidates(snapshot: PreemptionSnapshot, ask: AskForVictims, vq: VictimQueues): Generator<Candidate> {
  for (const leaf of vq.leaves.values()) {
    for (const alloc of snapshot.allocations(leaf.path)) if (isCandidate(alloc, ask, leaf)) yield alloc;
  }
}

/**
 * Whether taking eligible victims could bring the ask's queue (with the ask) under its guarantee
 * (checkPreemptionQueueGuarantees); stops at the first victim that does.
 */
export function queueGuaranteesAllow(snapshot: PreemptionSnapshot, ask: AskForVictims, vq: VictimQueues): boolean {
  const work = vq.work;
  const askQueue = work.get(ask.queuePath);
  if (!askQueue) return false;
  const before = askQueue.remainingGuaranteed();
  if (before !== undefined && fitInActual(before, ask.resource)) return true;
  const saved = work.begin();
  try {
    askQueue.addUsage(ask.resource);
    for (const c of allCandidates(snapshot, ask, vq)) {
      work.get(c.queuePath)!.removeUsage(c.resource);
      const remaining = askQueue.remainingGuaranteed();
      if (remaining !== undefined && isAskQueueUnderGuaranteed(ask.resource, remaining)) return true;
    }
    return false;
  } finally {
    work.end(saved);
  }
}

/**
 * Victims outside the node that bring the ask's queue towards its guarantee (calculateAdditionalVictims).
 * @returns the victims and whether the ask's queue ends within its guarantee
 */
function additionalVictims(
  snapshot: PreemptionSnapshot,
  ask: AskForVictims,
  vq: VictimQueues,
  nodeVictims: readonly Candidate[],
  all: boolean,
): { victims: Candidate[]; ok: boolean } {
  const work = vq.work;
  const saved = work.begin();
  try {
    const askQueue = work.get(ask.queuePath)!;
    for (const v of nodeVictims) work.get(v.queuePath)?.removeUsage(v.resource);
    if (!all) {
      // Only the verdict matters (the victims would be dropped as they are not on the node): it can only be "not ok"
      // when the ask's queue is already over its guarantee in a type the ask needs.
      const r0 = askQueue.remainingGuaranteed();
      if (r0 === undefined || isAskQueueUnderGuaranteed(ask.resource, r0)) return { victims: [], ok: true };
    }
    const seen = new Set<string>();
    for (const v of nodeVictims) seen.add(v.key);
    const potential = [...allCandidates(snapshot, ask, vq)].filter((c) => !seen.has(c.key));
    sortVictims(potential);
    const victims: Candidate[] = [];
    for (const c of potential) {
      const r = c.resource;
      const q = removeVictim(work, c, ask.resource, ask.queuePath);
      if (!q) continue;
      const askRemaining = askQueueTakes(askQueue, q, r);
      if (!askRemaining) break;
      if (!equalsOrEmpty(askRemaining, askQueue.remainingGuaranteed())) {
        victims.push(c);
      } else {
        askQueue.removeUsage(r);
        q.addUsage(r);
      }
    }
    if (victims.length === 0) return { victims, ok: true };
    const final = askQueue.remainingGuaranteed();
    return { victims, ok: final !== undefined && isAskQueueUnderGuaranteed(ask.resource, final) };
  } finally {
    work.end(saved);
  }
}

/**
 * Decides whether and how the ask preempts.
 * @param snapshot the cluster as preemption sees it
 * @param ask the pending ask (its queue must be in the snapshot)
 * @returns the victims and the node to reserve, or the reason for no preemption
 */
export function decidePreemption(snapshot: PreemptionSnapshot, ask: PreemptionAsk, options: PreemptionOptions): PreemptionResult {
  const ref: PreemptorRef = { key: ask.key, applicationId: ask.applicationId, queuePath: ask.queuePath };
  if (!options.enabled) return none(ref, { reason: "disabled" });
  const queue = snapshot.queue(ask.queuePath);
  const pre = checkPreconditions(ask, queue?.preemptionDelayMs ?? DEFAULT_PREEMPTION_DELAY_MS, options.now);
  if (pre) return none(ref, pre);
  const vq = findVictimQueues(snapshot, ask);
  if (!vq || !queueGuaranteesAllow(snapshot, ask, vq)) return none(ref, { reason: "queue-guarantees" });
  const { choice, examined } = chooseNode(snapshot, ask, vq, {
    now: options.now,
    nodesTried: options.nodesTried ?? true,
    batchSize: options.batchSize ?? PREEMPT_CHECK_BATCH,
    maxNodes: options.maxNodes ?? Number.POSITIVE_INFINITY,
    predicate: options.predicate,
  });
  if (!choice) return none(ref, { reason: "does-not-help", nodesExamined: examined });
  const nodeVictims = choice.check.victims.slice(0, choice.index + 1);
  const node = choice.check.node;
  const fitsAsIs = fitIn(node.available, ask.resource);
  const extra = additionalVictims(snapshot, ask, vq, nodeVictims, fitsAsIs);
  if (!extra.ok) return none(ref, { reason: "does-not-help", nodesExamined: examined });
  // On the node: the victims up to the search's index, the shortest prefix that makes the ask fit. (Upstream trims
  // them again by comparing their total with the ask on shared types only, which can drop a victim the node needs
  // and evict the rest for nothing.) For queue quota (the node fits as is): victims in order until they cover the ask.
  const chosen: Candidate[] = fitsAsIs ? [] : nodeVictims;
  const total: Res = {};
  if (fitsAsIs) {
    for (const v of extra.victims) {
      if (!strictlyGreaterThanOnlyExisting(ask.resource, total)) break;
      chosen.push(v);
      addTo(total, v.resource);
    }
  } else {
    for (const v of chosen) addTo(total, v.resource);
  }
  if (chosen.length === 0) return none(ref, { reason: "does-not-help", nodesExamined: examined });
  if (strictlyGreaterThanOnlyExisting(ask.resource, total)) return none(ref, { reason: "shortfall", nodeId: node.id, victimsTotal: total });
  const helps: Helps = fitsAsIs ? { rule: "frees-queue-quota", fence: vq.fence } : { rule: "frees-node", nodeId: node.id };
  const victims: Victim[] = [];
  for (const c of chosen) {
    const leaf = vq.leaves.get(c.queuePath)!;
    victims.push(victimOf(c, { queueRule: leaf.queueRule, priorityRule: candidateRule(c, ask, leaf)!, helps }));
  }
  return {
    outcome: "preempting",
    ask: ref,
    nodeId: node.id,
    victims,
    fence: vq.fence,
    cancelledReservations: choice.cancelledReservations,
    nodesExamined: examined,
  };
}
