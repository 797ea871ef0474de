/**
 * Placeholder timeout decisions (apache/yunikorn-core pkg/scheduler/objects/application.go
 * timeoutPlaceholderProcessing / addAllocationInternal, pkg/common/utils.go ConvertSITimeoutWithAdjustment;
 * YUNIKORN-3332). Pure:
 * the clock is passed in as `now` (milliseconds since the epoch).
 *
 * The core's timer starts when the application's first placeholder is allocated. Its length is the timeout counted
 * from the pod's creation time as seen when the core accepted the application, so after a scheduler restart it is
 * what remains (at least 1 ms). When it fires:
 *  - a Running (or Completing) application keeps running and releases the placeholders no real pod has taken;
 *  - any other application gives up the reservation: every placeholder, allocated or pending, is released, and the
 *    application resumes as a normal one (Soft → Resuming) or fails (Hard → Failing, `ResourceReservationTimeout`).
 * Upstream clears the timer once no placeholder is left allocated, so a Running application without placeholders
 * never reaches the second case.
 */
import { type GangSchedulingStyle, RESERVATION_TIMEOUT_FAILURE } from "./constants.js";

/**
 * Length of the core's placeholder timer (ConvertSITimeoutWithAdjustment), in milliseconds.
 * @param o.timeoutMs `placeholderTimeoutMs(…)` of the application
 * @param o.createdAtMs the originating pod's creation time (the `yunikorn.apache.org/creationTime` tag), if known
 * @param o.acceptedAtMs when the core accepts the application (its clock)
 */
export function placeholderTimerMs(o: { timeoutMs: number; createdAtMs?: number; acceptedAtMs: number }): number {
  if (o.createdAtMs === undefined || !Number.isFinite(o.createdAtMs) || o.createdAtMs <= 0) return o.timeoutMs;
  return Math.max(1, o.createdAtMs + o.timeoutMs - o.acceptedAtMs);
}

/** One placeholder of the application as the core tracks it. */
export interface PlaceholderState {
  allocationKey: string;
  taskGroupName: string;
  /** Allocated on a node (false: still a pending ask). */
  allocated: boolean;
  /** Already released, e.g. being replaced by a real pod. */
  released?: boolean;
  /** Chosen as a preemption victim: cannot be released again. */
  preempted?: boolean;
}

/** Input of {@link placeholderTimeout}; times in milliseconds since the epoch, durations in milliseconds. */
export interface PlaceholderTimeoutInput {
  now: number;
  /** When the first placeholder was allocated (the timer's start); undefined = not yet, no timer. */
  timerStartedAt?: number;
  /** `placeholderTimerMs(…)`. */
  timerMs: number;
  style: GangSchedulingStyle;
  /** The application's state in the core (`Accepted`, `Reserving`, `Running`, `Completing`, …). */
  state: string;
  placeholders: readonly PlaceholderState[];
}

/**
 * What the core's placeholder timer does now ({@link placeholderTimeout}; upstream objects/application.go
 * timeoutPlaceholderProcessing).
 */
export type PlaceholderTimeoutDecision =
  /** No placeholder allocated yet: no timer runs (the user guide's "this timeout won't kick in"). */
  | { kind: "notStarted" }
  /** Not yet: look again at `deadline`. */
  | { kind: "wait"; deadline: number }
  /** Running or Completing: release the allocated placeholders not already being replaced (termination TIMEOUT). */
  | { kind: "releaseUnused"; release: string[]; replacing: number; preempted: number }
  /**
   * The reservation failed: release the allocated placeholders and cancel the pending ones (termination TIMEOUT),
   * then the application resumes as a normal one (Soft) or fails (Hard); `reason` is the core's state-change info.
   */
  | {
      kind: "resume" | "fail";
      reason: typeof RESERVATION_TIMEOUT_FAILURE;
      releaseAllocated: string[];
      cancelPending: string[];
      preempted: number;
    };

/** What to do with an application's placeholders at `now`. */
export function placeholderTimeout(i: PlaceholderTimeoutInput): PlaceholderTimeoutDecision {
  if (i.timerStartedAt === undefined) return { kind: "notStarted" };
  const deadline = i.timerStartedAt + i.timerMs;
  if (i.now < deadline) return { kind: "wait", deadline };
  const allocated = i.placeholders.filter((p) => p.allocated);
  if ((i.state === "Running" || i.state === "Completing") && allocated.length > 0) {
    const release = allocated.filter((p) => !p.released && !p.preempted).map((p) => p.allocationKey);
    return {
      kind: "releaseUnused",
      release,
      replacing: allocated.filter((p) => p.released).length,
      preempted: allocated.filter((p) => !p.released && p.preempted).length,
    };
  }
  return {
    kind: i.style === "Hard" ? "fail" : "resume",
    reason: RESERVATION_TIMEOUT_FAILURE,
    releaseAllocated: allocated.filter((p) => !p.preempted).map((p) => p.allocationKey),
    cancelPending: i.placeholders.filter((p) => !p.allocated && !p.preempted).map((p) => p.allocationKey),
    preempted: i.placeholders.filter((p) => p.preempted).length,
  };
}
