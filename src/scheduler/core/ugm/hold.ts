/**
 * Why a user or group limit holds an application back, as data (apache/yunikorn-core pkg/scheduler/ugm: `Headroom`
 * and `CanRunApp` say only "no"; corral names the limit). Text is made by `formatLimitHold` at the edges (hold
 * reasons of pods, the simulator, REST).
 */
import type { Res } from "../resources.js";

/** A user or group limit that holds an ask or an application back. */
export interface LimitHold {
  readonly kind: "user" | "group";
  /** The user, or the group the application is tracked under (`*` for the shared wildcard group). */
  readonly name: string;
  /** Queue path where the limit is configured (`root.a`), an ancestor of the application's queue or the queue itself. */
  readonly queuePath: string;
  /** True when the limit is the queue's wildcard (`*`) user or group limit. */
  readonly wildcard: boolean;
  readonly limit: ResourceLimitHold | ApplicationLimitHold;
}

/** `maxresources`: `used + ask` exceeds `max` in at least one type `max` sets. Core units (memory bytes, vcore millicores). */
export interface ResourceLimitHold {
  readonly type: "resources";
  readonly max: Readonly<Res>;
  readonly used: Readonly<Res>;
  readonly ask: Readonly<Res>;
}

/** `maxapplications`: `running` applications already count against `max`; one more would exceed it. */
export interface ApplicationLimitHold {
  readonly type: "applications";
  readonly max: number;
  readonly running: number;
}

/**
 * The hold as the text pods, events and the simulator report, e.g. `user alice quota reached on root.shared` or
 * `group dev running applications limit 2 reached on root`.
 */
export function formatLimitHold(h: LimitHold): string {
  return h.limit.type === "resources"
    ? `${h.kind} ${h.name} quota reached on ${h.queuePath}`
    : `${h.kind} ${h.name} running applications limit ${h.limit.max} reached on ${h.queuePath}`;
}
