/**
 * What the core counts for YuniKorn's Prometheus metrics (apache/yunikorn-core pkg/metrics/scheduler.go and queue.go;
 * yunikorn-core reference §3.2): the counters no state of the core can give back later. Gauges (applications by
 * state, nodes, queue resources) are read from the core's state when scraped; these are the cumulative counts, raised
 * where the event happens and never lowered. Plain numbers, no text: the REST layer (rest/metrics.ts) names them.
 *
 * - `containers.allocated`: an allocation is made (by the scheduler, reported bound by the RM, or a real ask taking a
 *   placeholder's place); upstream rmproxy AddAllocatedContainers.
 * - `containers.released`: an allocation leaves (released by the RM, its application or node removed, a placeholder
 *   replaced); rmproxy AddReleasedContainers.
 * - `containers.rejected`: the RM's allocation or ask is refused; rmproxy AddRejectedContainers.
 * - `containers.error`: a refusal upstream counts as a scheduling error; partition.go UpdateAllocation
 *   IncSchedulingError (also read by the health check).
 * - `submissions.new`: an application is added to a queue (Application.SetQueue); `.accepted`: it enters Accepted
 *   (enter_Accepted, again after Resuming); `.rejected`: it enters Rejected (enter_Rejected).
 * - `terminated.completed` / `.failed`: an application enters Completed / Failed (enter_Completed, enter_Failed).
 * - `nodesDecommissioned`: a known node is decommissioned (context.go DECOMISSION).
 * - `queues`: per queue path, applications that reached Completed, Failed or Rejected (queue_app_total); kept when the
 *   queue goes, as upstream keeps that counter registered, for the `MAX_TERMINAL_QUEUE_PATHS` paths counted last. A
 *   rejected application is counted under the queue upstream's would have: the name it asked for when refused before
 *   placement, "" when placement refused it, the placed queue when refused after.
 *
 * Each allocation is released once: upstream's `released` also counts the release it asks of the RM for a preemption
 * victim or a timed-out placeholder, and again the RM's release that answers it; corral counts the allocation leaving.
 *
 * A queue's allocations and releases (upstream's `yunikorn_<queue>_queue_container`) and its applications that
 * completed or failed (`yunikorn_queue_app`) are counted on the queue itself (`Queue.counts`): they go with the queue,
 * as upstream unregisters those metrics with it.
 */

/** Applications of one queue path that reached a terminal state (upstream queue_app_total). */
export interface QueueTerminalCounts {
  completed: number;
  failed: number;
  rejected: number;
}

/** The core's cumulative counts (module comment); one object for all partitions (upstream's metrics have no partition). */
export interface CoreCounts {
  containers: { allocated: number; released: number; rejected: number; error: number };
  submissions: { new: number; accepted: number; rejected: number };
  terminated: { completed: number; failed: number };
  nodesDecommissioned: number;
  /** Queue path → its terminal counts (for a rejected application see the module comment). */
  queues: Map<string, QueueTerminalCounts>;
}

/** All counts at zero. */
export function newCoreCounts(): CoreCounts {
  return {
    containers: { allocated: 0, released: 0, rejected: 0, error: 0 },
    submissions: { new: 0, accepted: 0, rejected: 0 },
    terminated: { completed: 0, failed: 0 },
    nodesDecommissioned: 0,
    queues: new Map(),
  };
}

/**
 * Queue paths whose terminal counts are kept at most. They outlive their queues (as upstream's queue_app_total), and
 * placement with `create` lets tenants name queues: without a bound, short-lived queues would grow the map, and the
 * metric's series, without end. Beyond it, the path counted least recently goes (its counter restarts from 0 if it
 * comes back, a reset Prometheus' rate() handles).
 */
export const MAX_TERMINAL_QUEUE_PATHS = 10_000;

/**
 * Counts one application of queue `path` reaching terminal state `state` (`MAX_TERMINAL_QUEUE_PATHS` kept), and on
 * `queue`, the queue of that path when it exists (its own count goes with it: `Queue.counts`).
 */
export function countTerminal(
  counts: CoreCounts,
  path: string,
  state: keyof QueueTerminalCounts,
  queue?: { readonly counts: QueueTerminalCounts },
): void {
  if (queue) queue.counts[state]++;
  const q = counts.queues.get(path) ?? { completed: 0, failed: 0, rejected: 0 };
  q[state]++;
  // the most recently counted last: the oldest is the first in the map's order
  counts.queues.delete(path);
  counts.queues.set(path, q);
  if (counts.queues.size > MAX_TERMINAL_QUEUE_PATHS) counts.queues.delete(counts.queues.keys().next().value!);
}
