/**
 * Placement of applications in queues: the types shared by the rules and the manager (apache/yunikorn-core
 * pkg/scheduler/placement; yunikorn-core reference §4.8).
 */
import { INVALID_QUEUE_NAME } from "../validate.js";

/** What placement knows of an application. */
export interface PlacementApp {
  /** The user, `nobody` for a forced application without one. */
  readonly user: string;
  readonly groups: readonly string[];
  /** Application tags (the `tag` rule reads them; keys are matched case-insensitively). */
  readonly tags: Readonly<Record<string, string>>;
  /** The queue named on submission ("" when none). */
  readonly queueName: string;
  /** `application.create.force`: the application already runs in the cluster and must be accepted. */
  readonly forced: boolean;
}

/** What placement needs of an existing queue. */
export interface PlacementQueue {
  readonly isLeaf: boolean;
  readonly draining: boolean;
  /** Submit access: submit or admin ACL of the queue or an ancestor. */
  canSubmit(user: string, groups: readonly string[]): boolean;
}

/** The partition's queues as placement sees them. */
export interface PlacementContext {
  /** The queue at a fully qualified path (`root.a.b`, lower case), undefined when it does not exist. */
  queue(path: string): PlacementQueue | undefined;
}

/** Why placement refused an application (it is rejected with this reason). */
export type PlacementRefusal =
  /** No rule gave a queue the application may use (upstream `ErrorRejected`). */
  | { readonly reason: "no rule matched" }
  /** A rule produced a queue name that is not valid (upstream `ErrorInvalidQueueName`). */
  | { readonly reason: "invalid queue name"; readonly rule: string; readonly name: string }
  /** A parent rule gave an existing leaf queue. */
  | { readonly reason: "parent is a leaf"; readonly rule: string; readonly queuePath: string };

/** The outcome of one rule: a fully qualified queue path, no match (the next rule is tried), or a refusal. */
export type RuleResult =
  | { readonly type: "queue"; readonly path: string }
  | { readonly type: "next" }
  | { readonly type: "refused"; readonly refusal: PlacementRefusal };

/** The outcome of placement: the leaf queue path (which may still have to be created), or a refusal. */
export type PlacementResult =
  { readonly type: "placed"; readonly path: string } | { readonly type: "refused"; readonly refusal: PlacementRefusal };

/** The queue for forced applications no rule places (upstream `common.RecoveryQueueFull`). */
export const RECOVERY_QUEUE = "root.@recovery@";
/** The queue tried after the last rule for applications that are not forced (upstream `DefaultPlacementQueue`). */
export const DEFAULT_QUEUE = "root.default";

/** True for the recovery queue's path, in any letter case (upstream `common.IsRecoveryQueue`). */
export function isRecoveryQueue(path: string): boolean {
  return path.toLowerCase() === RECOVERY_QUEUE;
}

/** The refusal as the rejection reason applications get, with upstream's texts. */
export function formatPlacementRefusal(r: PlacementRefusal): string {
  switch (r.reason) {
    case "no rule matched":
      return "application rejected: no placement rule matched";
    case "invalid queue name":
      return INVALID_QUEUE_NAME;
    case "parent is a leaf":
      return `parent rule returned a leaf queue: ${r.queuePath}`;
  }
}

/**
 * Thrown where an application is added and placement refuses it; `message` is the rejection reason, as upstream's
 * PartitionContext.AddApplication words it: `failed to place application <id>: <refusal>`.
 */
export class PlacementRefusedError extends Error {
  constructor(
    readonly refusal: PlacementRefusal,
    appId: string,
  ) {
    super(`failed to place application ${appId}: ${formatPlacementRefusal(refusal)}`);
  }
}
