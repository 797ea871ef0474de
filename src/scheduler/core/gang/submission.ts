/**
 * Whether the core accepts a gang application into its queue (apache/yunikorn-core pkg/scheduler/partition.go
 * AddApplication, objects/queue.go SupportTaskGroup / GetMaxQueueSet). Pure; resources in the core's units.
 */
import { type Res, fitsInMaxUndef, format } from "../resources.js";

/** A gang application being added, as {@link checkGangSubmission} reads it. Resources in core units. */
export interface GangSubmission {
  applicationId: string;
  /** Full queue path (`root.spark`). */
  queue: string;
  /** `gangReservation(…)`; zero or empty = not a gang, always accepted. */
  reservation: Readonly<Res>;
  queueIsLeaf: boolean;
  /** `application.sort.policy` of the queue. */
  sortPolicy: string;
  /** The smallest max set on the queue and its parents below root (upstream GetMaxQueueSet); undefined = none. */
  queueMax?: Readonly<Res>;
}

/** The result of {@link checkGangSubmission}: accepted, or rejected with a reason and upstream-style message. */
export type GangSubmissionCheck =
  | { ok: true }
  /** Gangs need a leaf queue sorted FIFO (the reservation would be split between applications otherwise). */
  | { ok: false; reason: "unsupportedQueue"; message: string }
  /** The whole reservation can never fit under the queue's max: rejected rather than left holding part of it. */
  | { ok: false; reason: "exceedsQueueMax"; message: string };

/** Whether the core accepts a gang application into its queue (partition.go AddApplication); messages as upstream's. */
export function checkGangSubmission(s: GangSubmission): GangSubmissionCheck {
  if (Object.values(s.reservation).every((v) => v === 0)) return { ok: true };
  if (!s.queueIsLeaf || s.sortPolicy !== "fifo") {
    return {
      ok: false,
      reason: "unsupportedQueue",
      message: `queue ${s.queue} cannot run application ${s.applicationId} with task group request: unsupported sort type`,
    };
  }
  if (s.queueMax && !fitsInMaxUndef(s.queueMax, s.reservation)) {
    return {
      ok: false,
      reason: "exceedsQueueMax",
      message:
        `queue ${s.queue} cannot fit application ${s.applicationId}: task group request ${format(s.reservation)} ` +
        `larger than max queue allocation ${format(s.queueMax)}`,
    };
  }
  return { ok: true };
}
