/**
 * What the shim does when an application enters Reserving (apache/yunikorn-k8shim pkg/cache/application.go
 * onReserving / isPlaceholderTimeoutElapsed, YUNIKORN-3332). Pure: the clock is passed in as `now` (milliseconds
 * since the epoch). The core's placeholder timer itself is in core/gang/timeout.ts.
 */
import type { GangSchedulingStyle } from "./constants.js";

/** Input of {@link reservationStart}; times in milliseconds since the epoch, the timeout in seconds. */
export interface ReservationStartInput {
  now: number;
  /** Placeholder pods the application already has (recovery). */
  existingPlaceholders: number;
  /** The annotation's value as written (not the 15-minute default: the shim only checks an explicit timeout). */
  placeholderTimeoutSeconds: number;
  style: GangSchedulingStyle;
  /** The originating pod's creation time, if known. */
  createdAtMs?: number;
}

/** What {@link reservationStart} decided: recover existing placeholders, give up (timeout already passed), or create them. */
export type ReservationStart =
  /**
   * Placeholders exist (restart): the missing ones are still created, without the `CreatingPlaceholders` event
   * (upstream onReserving falls through to createAppPlaceholders, which counts the existing ones).
   */
  | { kind: "recover" }
  /** The explicit timeout has already passed since the pod was created: create nothing (Warning `PlaceholderTimeout`). */
  | { kind: "expired"; then: "fail" | "run" }
  /** Create the placeholders (Normal `CreatingPlaceholders`). */
  | { kind: "create" };

/** What the shim does when an application enters Reserving (onReserving). */
export function reservationStart(i: ReservationStartInput): ReservationStart {
  if (i.existingPlaceholders > 0) return { kind: "recover" };
  const elapsed =
    i.placeholderTimeoutSeconds > 0 &&
    i.createdAtMs !== undefined &&
    i.createdAtMs > 0 &&
    i.now - i.createdAtMs >= i.placeholderTimeoutSeconds * 1000;
  if (elapsed) return { kind: "expired", then: i.style === "Hard" ? "fail" : "run" };
  return { kind: "create" };
}
