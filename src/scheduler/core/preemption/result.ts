/**
 * The outcome of a preemption decision, as data: either the victims, the node reserved for the ask and why each
 * victim could be taken, or the reason nothing is preempted. Text is made at the edges (events, REST, logs); the
 * upstream allocation-log texts are given per reason (apache/yunikorn-core pkg/common/errors.go).
 */
import type { Res } from "../resources.js";
import type { PreemptionAllocation } from "./snapshot.js";

/** The ask that preempts. */
export interface PreemptorRef {
  readonly key: string;
  readonly applicationId: string;
  readonly queuePath: string;
}

/** Why a victim's queue may lose it (rules 1 and 3): usage above guarantee in a type the ask needs, kept after removal. */
export interface QueueOverGuarantee {
  readonly rule: "victim-queue-over-guarantee";
  readonly queue: string;
  /** The victim queue's own guaranteed resources (undefined: none set on it; its parents may still have one). */
  readonly guaranteed?: Readonly<Res>;
  /** The victim queue's usage before any victim of this decision was taken. */
  readonly allocated: Readonly<Res>;
}

/** Why the victim's priority allows it (rule 4, rule 5's priority fence). */
export type PriorityAllowance =
  | {
      readonly rule: "priority-lower-or-equal";
      readonly victimPriority: number;
      /** The ask's priority as seen from the victim's queue (offsets along the path applied). */
      readonly askPriority: number;
    }
  | {
      readonly rule: "inside-priority-fence";
      /** The `priority.policy: fence` queue whose subtree is entirely eligible (its offset ≤ the ask priority). */
      readonly fence: string;
    };

/** Why taking the victim helps: it frees room on the reserved node, or (the ask already fits the node) queue quota. */
export type Helps =
  { readonly rule: "frees-node"; readonly nodeId: string } | { readonly rule: "frees-queue-quota"; readonly fence: string };

/** The victim allocation as reported (a copy of its snapshot fields). */
export interface VictimAllocation {
  readonly allocationKey: string;
  readonly applicationId: string;
  readonly queuePath: string;
  readonly nodeId: string;
  readonly resource: Readonly<Res>;
  readonly priority: number;
  readonly createTime: number;
  readonly placeholder: boolean;
  readonly originator: boolean;
  readonly allowPreemption: boolean;
}

/** The reported fields of an allocation chosen as victim. */
export function victimAllocation(a: PreemptionAllocation): VictimAllocation {
  return {
    allocationKey: a.key,
    applicationId: a.applicationId,
    queuePath: a.queuePath,
    nodeId: a.nodeId,
    resource: a.resource,
    priority: a.priority,
    createTime: a.createTime,
    placeholder: a.placeholder,
    originator: a.originator,
    allowPreemption: a.allowPreemption,
  };
}

/**
 * A victim of ask-triggered preemption: `victimAllocation` with the rules that allowed it, added to that object (no
 * second copy of the allocation's fields).
 */
export function victimOf(
  a: PreemptionAllocation,
  rules: { queueRule: QueueOverGuarantee; priorityRule: PriorityAllowance; helps: Helps },
): Victim {
  return Object.assign(victimAllocation(a), { queueRule: rules.queueRule, priorityRule: rules.priorityRule, helps: rules.helps });
}

/** A victim of ask-triggered preemption with the rules that allowed it. */
export interface Victim extends VictimAllocation {
  readonly queueRule: QueueOverGuarantee;
  readonly priorityRule: PriorityAllowance;
  readonly helps: Helps;
}

/** A reservation of another ask cancelled so the node could be considered (lower priority, waiting > 60 min). */
export interface CancelledReservation {
  readonly nodeId: string;
  readonly askKey: string;
  readonly applicationId: string;
}

export interface Preempting {
  readonly outcome: "preempting";
  readonly ask: PreemptorRef;
  /** The node reserved for the ask; it is allocated there once the victims are gone. */
  readonly nodeId: string;
  readonly victims: readonly Victim[];
  /** The queue whose subtree victims were searched (the preemption fence, rule 5). */
  readonly fence: string;
  readonly cancelledReservations: readonly CancelledReservation[];
  /** Nodes examined by the bounded search. */
  readonly nodesExamined: number;
}

/**
 * Why nothing is preempted:
 * - `disabled`: partition `preemption.enabled: false`;
 * - `preconditions`: the ask may not preempt (yet) — `not-allowed` (`preemptionPolicy: Never`), `already-triggered`,
 *   `required-node` (handled by the required-node preemptor), `delay` (queue `preemption.delay` from the ask's
 *   creation not passed; `waitMs` left), `checked-recently` (15 s between attempts);
 *   upstream log "Preemption preconditions failed";
 * - `queue-guarantees`: the ask's queue is not under its guarantee, or taking every eligible victim would not bring
 *   it there (rule 3) — "Preemption queue guarantees check failed";
 * - `does-not-help`: no node where victims (or the free space) make the ask fit — "Preemption does not help";
 * - `shortfall`: victims found but together smaller than the ask — "Preemption helped but short of resources".
 */
export type NoPreemptionReason =
  | { readonly reason: "disabled" }
  | { readonly reason: "preconditions"; readonly failed: "not-allowed" | "already-triggered" | "required-node" | "checked-recently" }
  | { readonly reason: "preconditions"; readonly failed: "delay"; readonly waitMs: number }
  | { readonly reason: "queue-guarantees" }
  | { readonly reason: "does-not-help"; readonly nodesExamined: number }
  | { readonly reason: "shortfall"; readonly nodeId: string; readonly victimsTotal: Readonly<Res> };

export type NoPreemption = { readonly outcome: "none"; readonly ask: PreemptorRef } & NoPreemptionReason;

export type PreemptionResult = Preempting | NoPreemption;

/** Upstream's allocation-log text for a reason (common.Preemption* in errors.go), for the edges. */
export function allocationLogText(r: NoPreemptionReason): string | undefined {
  switch (r.reason) {
    case "disabled":
      return undefined;
    case "preconditions":
      return "Preemption preconditions failed";
    case "queue-guarantees":
      return "Preemption queue guarantees check failed";
    case "does-not-help":
      return "Preemption does not help";
    case "shortfall":
      return "Preemption helped but short of resources";
  }
}
