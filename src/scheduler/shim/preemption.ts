/**
 * What a pod says about preemption, read as the YuniKorn shim reads it (apache/yunikorn-k8shim pkg/cache/task.go
 * isPreemptSelfAllowed, isPreemptOtherAllowed, updateAllocation; pkg/cache/context.go IsPreemptSelfAllowed, addTask;
 * pkg/common/utils GetPlaceholderFlagFromPodSpec; yunikorn-shim reference §2.5-2.6). Pure; the core receives the result
 * as the allocation's si.PreemptionPolicy, placeholder and originator flags.
 *
 * - allowPreemptSelf (may be a victim): the pod's `yunikorn.apache.org/allow-preemption` annotation when exactly
 *   `"true"` or `"false"`; otherwise false only when the pod's PriorityClass carries that annotation as `"false"`; a
 *   missing PriorityClass allows. The admission controller writes the same value onto the pod, so both agree.
 * - allowPreemptOther (may preempt): false only for `spec.preemptionPolicy: Never`.
 * - originator: the first task of an application, other than a placeholder the scheduler created, whose pod UID is
 *   the one its placeholders' owner reference names (the pod that created the application). A pod that only carries
 *   the placeholder flag (gang/membership.ts isTrustedPlaceholder) is an ordinary pod of its user here too.
 */
import { ANNOTATION_ALLOW_PREEMPTION } from "../../yunikorn/constants.js";
import { isTrustedPlaceholder } from "./gang/membership.js";
import type { PodObject } from "./translate.js";

/** The pod fields read here. */
export interface PreemptionPodFields {
  metadata?: { uid?: string; annotations?: Readonly<Record<string, string>> };
  spec?: { priorityClassName?: string; preemptionPolicy?: string };
}

/** PriorityClass annotations by name (an informer cache); undefined: no such PriorityClass. */
export type PriorityClassAnnotations = (name: string) => Readonly<Record<string, string>> | undefined;

/** si.PreemptionPolicy of an ask. */
export interface PodPreemptionPolicy {
  allowPreemptSelf: boolean;
  allowPreemptOther: boolean;
}

/** Whether the pod may be chosen as a victim (task.isPreemptSelfAllowed, Context.IsPreemptSelfAllowed). */
export function allowPreemptSelf(pod: PreemptionPodFields, priorityClass: PriorityClassAnnotations): boolean {
  const own = pod.metadata?.annotations?.[ANNOTATION_ALLOW_PREEMPTION];
  if (own === "true") return true;
  if (own === "false") return false;
  const name = pod.spec?.priorityClassName;
  const pc = name !== undefined && name !== "" ? priorityClass(name) : undefined;
  return pc?.[ANNOTATION_ALLOW_PREEMPTION] !== "false";
}

/** Whether the pod may preempt others (task.isPreemptOtherAllowed). */
export function allowPreemptOther(pod: PreemptionPodFields): boolean {
  return pod.spec?.preemptionPolicy !== "Never";
}

/** Both flags, as sent with every ask. */
export function podPreemptionPolicy(pod: PreemptionPodFields, priorityClass: PriorityClassAnnotations): PodPreemptionPolicy {
  return { allowPreemptSelf: allowPreemptSelf(pod, priorityClass), allowPreemptOther: allowPreemptOther(pod) };
}

/**
 * Whether a new task is its application's originator (Context.addTask). Only a placeholder the scheduler created is
 * left out: a pod whose placeholder flag comes from anyone else is an ordinary pod of its user (isTrustedPlaceholder),
 * so it may be the originator like any other pod.
 * @param app `hasOriginator`: a task of the application is already the originator; `ownerUids`: the UIDs of the
 *   application's placeholder owner references (the pod that created it, or a placeholder's own owner references)
 * @param o `schedulerUser`: `service.schedulerUser`, the user.info user of the scheduler's own placeholders
 */
export function isOriginator(
  pod: PodObject,
  app: { hasOriginator: boolean; ownerUids: readonly string[] },
  o: { schedulerUser: string },
): boolean {
  const uid = pod.metadata?.uid;
  if (!uid || isTrustedPlaceholder(pod, o.schedulerUser) || app.hasOriginator) return false;
  return app.ownerUids.includes(uid);
}
