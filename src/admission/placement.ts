/**
 * Preset `spec.nodeName` on pods routed to the scheduler (corral's addition; YuniKorn has no such check).
 *
 * A pod created with `spec.nodeName` is never scheduled: the kubelet of that node runs it at once. For a pod that
 * names corral's scheduler, the scheduler could then only record the allocation after the fact, without its queue
 * and user limit checks. So such pods — and pod templates that would make a controller create them — are refused,
 * unless the requester is a trusted controller (`systemUsers` with `trustControllers`), or the pod is a kubelet's
 * mirror pod (a static pod: created by `system:node:<name>` with the `kubernetes.io/config.mirror` annotation).
 * `admissionController.accessControl.refusePresetNodeName: false` turns the check off.
 */
import type { AdmissionConfig } from "./config.js";
import { type UserInfo } from "../webhook/admission-review.js";
import { trustReason } from "./identity.js";

/** Annotation the kubelet puts on the mirror pod of a static pod (k8s.io/kubernetes pkg/kubelet/types). */
export const ANNOTATION_MIRROR_POD = "kubernetes.io/config.mirror";
/** User name prefix of kubelets (Node authorizer). */
export const NODE_USER_PREFIX = "system:node:";

/** True for a kubelet's mirror pod: the mirror annotation, created by a node's own user. */
export function isMirrorPod(annotations: Readonly<Record<string, string>>, userInfo: UserInfo | undefined): boolean {
  return annotations[ANNOTATION_MIRROR_POD] !== undefined && (userInfo?.username ?? "").startsWith(NODE_USER_PREFIX);
}

/**
 * The preset-nodeName rule for a pod or pod template that corral routes to its scheduler.
 * @param nodeName the object's `spec.nodeName` (undefined or empty: nothing to check)
 * @param what how to name the object, e.g. `pod team-a/web-1` or `pod template of Deployment team-a/web`
 * @returns the denial message (HTTP-like code 403), or undefined when allowed
 */
export function presetNodeNameRefusal(
  cfg: AdmissionConfig,
  userInfo: UserInfo | undefined,
  nodeName: string | undefined,
  what: string,
): string | undefined {
  if (!cfg.refusePresetNodeName || nodeName === undefined || nodeName === "") return undefined;
  if (trustReason(cfg, userInfo) === "trusted-controller") return undefined;
  return (
    `${what} sets spec.nodeName ${JSON.stringify(nodeName)}, but it is scheduled by ${cfg.schedulerName}, which places pods ` +
    `itself after checking queue and user limits; only trusted controllers may preset spec.nodeName ` +
    `(requested by ${userInfo?.username ?? "unknown user"})`
  );
}
