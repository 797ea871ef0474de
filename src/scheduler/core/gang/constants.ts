/**
 * Gang scheduling values the core decides with (apache/yunikorn-core pkg/scheduler/objects/application.go,
 * pkg/common/constants). The shim's annotation and configuration keys are in shim/gang/constants.ts, which re-exports
 * these.
 */

/** What happens when the reservation times out: `Soft` falls back to normal scheduling, `Hard` fails the application. */
export type GangSchedulingStyle = "Soft" | "Hard";
/** Style of a gang whose annotation names none or an unknown one (upstream: Soft). */
export const DEFAULT_GANG_SCHEDULING_STYLE: GangSchedulingStyle = "Soft";

/** Placeholder timeout the core uses when the application names none (or ≤ 0): 15 minutes, in milliseconds. */
export const DEFAULT_PLACEHOLDER_TIMEOUT_MS = 15 * 60 * 1000;

/** Failure reason of a Hard gang that timed out (also the pod status reason of its unscheduled pods). */
export const RESERVATION_TIMEOUT_FAILURE = "ResourceReservationTimeout";
