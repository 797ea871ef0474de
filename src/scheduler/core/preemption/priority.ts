/**
 * Priorities of applications and queues, and how an ask's priority is seen from other queues
 * (apache/yunikorn-core pkg/scheduler/objects/queue.go priorityValueByPolicy, recalculatePriority,
 * findPreemptionFenceRoot, findEligiblePreemptionVictims; application.go askMaxPriority; yunikorn-site
 * user_guide/priorities.md, design/priority_scheduling.md).
 *
 * - An application's priority is the highest priority among its pending asks.
 * - A queue's priority is the highest of its applications (leaf) or children (parent), then `priority.offset` is added
 *   (clamped to int32); with `priority.policy: fence` the queue shows only its offset, hiding its children. A queue
 *   with nothing pending has the minimum priority whatever its policy.
 * - Preemption compares an ask with a victim in the ask's terms: walking up from the ask's leaf each queue adds its
 *   offset (a fence replaces the value with its offset); walking down into another subtree each queue's offset is
 *   subtracted; a fenced subtree is entirely eligible when its offset is ≤ the ask's priority there, else untouchable.
 */
import { MAX_PRIORITY, MIN_PRIORITY, type PriorityPolicy } from "../queue-properties.js";

/** A queue's exposed priority from its current (children's) priority (priorityValueByPolicy). */
export function priorityValueByPolicy(policy: PriorityPolicy, offset: number, priority: number): number {
  if (priority === MIN_PRIORITY) return priority;
  if (policy === "fence") return offset;
  return Math.min(MAX_PRIORITY, Math.max(MIN_PRIORITY, offset + priority));
}

/** Highest priority among an application's pending asks; the minimum priority when none is pending. */
export function applicationPriority(pendingAskPriorities: Iterable<number>): number {
  let p = MIN_PRIORITY;
  for (const v of pendingAskPriorities) if (v > p) p = v;
  return p;
}

/**
 * A queue's priority (recalculatePriority): the highest of its applications' (leaf) or children's (parent) exposed
 * priorities, through the queue's own policy and offset.
 */
export function queuePriority(q: { priorityPolicy: PriorityPolicy; priorityOffset: number }, memberPriorities: Iterable<number>): number {
  let p = MIN_PRIORITY;
  for (const v of memberPriorities) if (v > p) p = v;
  return priorityValueByPolicy(q.priorityPolicy, q.priorityOffset, p);
}

/** The ask's priority after passing up through a queue on its own path (findPreemptionFenceRoot). */
export function askPriorityUp(q: { priorityPolicy: PriorityPolicy; priorityOffset: number }, below: number): number {
  return q.priorityPolicy === "fence" ? q.priorityOffset : below + q.priorityOffset;
}

/** How the ask's priority reaches a queue outside its own path (findEligiblePreemptionVictims, parent branch). */
export type PriorityDown =
  | { readonly kind: "compare"; readonly priority: number }
  | { readonly kind: "fenced"; readonly fence: string }
  | { readonly kind: "hidden" };

/**
 * From a parent at which the ask has `priority`, into a child not on the ask's path: a `priority.policy: fence` child
 * is hidden when its offset exceeds the ask's priority, else its whole subtree is eligible; otherwise the child's
 * offset is subtracted.
 */
export function askPriorityDown(
  child: { path: string; priorityPolicy: PriorityPolicy; priorityOffset: number },
  priority: number,
): PriorityDown {
  if (child.priorityPolicy === "fence") {
    return child.priorityOffset > priority ? { kind: "hidden" } : { kind: "fenced", fence: child.path };
  }
  return { kind: "compare", priority: priority - child.priorityOffset };
}
