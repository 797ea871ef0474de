/**
 * A real pod taking a placeholder's place (apache/yunikorn-core pkg/scheduler/objects/application.go
 * tryPlaceholderAllocate, events/application_events.go SendPlaceholderLargerEvent). Pure: node checks are passed in.
 *
 * For one real ask of a task group, the application's allocated placeholders are walked in order:
 *  - another group's placeholder, or one already released or preempted, is skipped;
 *  - a placeholder smaller than the ask in any resource is released (termination TIMEOUT) with an event: the real
 *    pod can never use it, and all placeholders of a group have the same size;
 *  - the first placeholder that fits is remembered; the first fitting one whose node accepts the ask (every check of
 *    a reservation except free room: the placeholder's room becomes the real pod's) is replaced on that node.
 * If no fitting placeholder's node accepts the ask, the remembered one may still be given up for an allocation on
 * another node (upstream tries that for the first such ask once it has walked every ask). If the group's only
 * placeholders left are being released (preempted), the ask waits until they are gone (upstream `canReplace` holds a
 * real ask while its group has placeholders neither replaced nor released; partition_test.go
 * TestPreemptedPlaceholderSkip): it neither takes the victim's place nor another node. Otherwise the ask has no
 * placeholder: it is scheduled normally (more pods than `minMember`, or the group's placeholders are gone).
 */
import { type Res, fitsIn, format } from "../resources.js";

/** A pending real (not placeholder) ask, as placeholder replacement reads it (module comment). Resources in core units. */
export interface RealAsk {
  allocationKey: string;
  /** The pod's task group; asks without one are never matched. */
  taskGroupName?: string;
  resource: Readonly<Res>;
  /** Placeholder asks follow normal scheduling. */
  placeholder?: boolean;
  /** Already allocated: nothing to do. */
  allocated?: boolean;
}

/** A placeholder allocation of the same application that a real ask of its task group may replace. Resources in core units. */
export interface PlaceholderAllocation {
  allocationKey: string;
  taskGroupName: string;
  nodeID: string;
  resource: Readonly<Res>;
  released?: boolean;
  preempted?: boolean;
}

/** A placeholder the real pod can never use: release it and record the event. */
export interface TooLargeRelease {
  placeholder: string;
  terminationType: "TIMEOUT";
  /** The core's event text (REQUEST event on the placeholder's allocation). */
  message: string;
}

/**
 * What {@link matchPlaceholder} chose for a real ask: not applicable, replace a placeholder, or allocate normally (and
 * which placeholders are released as too large).
 */
export type Replacement =
  /** Not a real ask of a task group, or already allocated. */
  | { kind: "notApplicable" }
  /** Swap: the ask is allocated on the placeholder's node and the placeholder released (PLACEHOLDER_REPLACED). */
  | { kind: "replace"; placeholder: string; nodeID: string; tooLarge: TooLargeRelease[] }
  /** A placeholder fits but no fitting placeholder's node accepts the ask: allocate elsewhere, giving this one up. */
  | { kind: "elsewhere"; placeholder: string; tooLarge: TooLargeRelease[] }
  /** The group's placeholders left are being released (preempted): the ask waits until they are gone. */
  | { kind: "wait"; tooLarge: TooLargeRelease[] }
  /** No usable placeholder of the group. */
  | { kind: "noPlaceholder"; tooLarge: TooLargeRelease[] };

/** Input of {@link matchPlaceholder}. */
export interface ReplacementInput {
  applicationId: string;
  ask: RealAsk;
  /** The application's placeholder allocations, in the core's order. */
  placeholders: readonly PlaceholderAllocation[];
  /** Does the node accept the ask apart from free room (predicates, node schedulable)? (preReserveConditions) */
  nodeAccepts: (nodeID: string) => boolean;
}

/** How one real ask uses the application's placeholders. */
export function matchPlaceholder(i: ReplacementInput): Replacement {
  const { ask } = i;
  if (ask.placeholder || !ask.taskGroupName || ask.allocated) return { kind: "notApplicable" };
  const tooLarge: TooLargeRelease[] = [];
  let firstFit: PlaceholderAllocation | undefined;
  let leaving = false;
  for (const ph of i.placeholders) {
    if (ph.taskGroupName !== ask.taskGroupName) continue;
    if (ph.released || ph.preempted) {
      leaving = true;
      continue;
    }
    if (!fitsIn(ph.resource, ask.resource)) {
      tooLarge.push({
        placeholder: ph.allocationKey,
        terminationType: "TIMEOUT",
        message:
          `Task group '${ph.taskGroupName}' in application '${i.applicationId}': allocation resources ` +
          `'${format(ask.resource)}' are not matching placeholder '${format(ph.resource)}' allocation with ID '${ph.allocationKey}'`,
      });
      continue;
    }
    firstFit ??= ph;
    if (i.nodeAccepts(ph.nodeID)) return { kind: "replace", placeholder: ph.allocationKey, nodeID: ph.nodeID, tooLarge };
  }
  if (firstFit) return { kind: "elsewhere", placeholder: firstFit.allocationKey, tooLarge };
  return leaving ? { kind: "wait", tooLarge } : { kind: "noPlaceholder", tooLarge };
}
