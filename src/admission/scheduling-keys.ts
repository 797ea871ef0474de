/**
 * Keys a tenant could use to take her pods out of her queue and user limits, guarded on pods and pod templates routed
 * to the scheduler (design 002 "Annotation mutation"; corral's addition: YuniKorn guards neither):
 *  1. `yunikorn.apache.org/ignore-application: "true"`: the scheduler in plugin mode treats the pod as no application's
 *     (upstream k8shim plugin mode, yunikorn-shim reference §2.2), so kube-scheduler's own plugins place it with no
 *     queue maximum and no user or group limit checked. YuniKorn 1.4's admission controller wrote it itself
 *     (yunikorn-admission reference §12). Here it may be set, changed or removed only by the scheduler
 *     (`service.schedulerUser`) or a trusted controller (`systemUsers` with `trustControllers`).
 *  2. The application id of an existing pod (labels `applicationId` and `yunikorn.apache.org/app-id`, annotation
 *     `yunikorn.apache.org/app-id`, label `spark-app-selector`): a pending pod whose id is removed is no
 *     application's in plugin mode once the scheduler rebuilds its state (a restart, a new leader), and one whose id
 *     changes would join another application. Only the same requesters may change them on a routed pod's UPDATE.
 * A pod that is not routed to the scheduler may carry and change these freely: the scheduler never reads them there.
 */
import type { AdmissionConfig } from "./config.js";
import { type UserInfo } from "../webhook/admission-review.js";
import { annotationChange, mayFlagPlaceholder } from "./placeholder.js";
import {
  ANNOTATION_APPLICATION_ID,
  ANNOTATION_IGNORE_APPLICATION,
  CANONICAL_LABEL_APPLICATION_ID,
  LABEL_APPLICATION_ID,
  SPARK_LABEL_APP_ID,
} from "../yunikorn/constants.js";

type Entries = Readonly<Record<string, string>>;

/** A pod's or pod template's labels and annotations (absent maps as empty ones). */
export interface PodMeta {
  labels: Entries;
  annotations: Entries;
}

const requester = (userInfo: UserInfo | undefined) => userInfo?.username ?? "unknown user";

/**
 * Rule 1 for a routed pod or pod template: new (`before` undefined, CREATE) or updated from `before` to `after`.
 * @param what how to name the object, e.g. `pod team-a/web-1` or `pod template of Job team-a/etl`
 * @returns the denial message (HTTP-like code 403), or undefined when allowed (annotation absent or unchanged, or the
 *   requester may set it)
 */
export function ignoreApplicationRefusal(
  cfg: AdmissionConfig,
  userInfo: UserInfo | undefined,
  annotations: { before?: Entries; after: Entries },
  what: string,
): string | undefined {
  const change = annotationChange(annotations, ANNOTATION_IGNORE_APPLICATION);
  if (change === undefined || mayFlagPlaceholder(cfg, userInfo)) return undefined;
  return (
    `${what}: ${change} ${ANNOTATION_IGNORE_APPLICATION} is refused: it would take the pod out of its queue and user ` +
    `limits, and only the scheduler (${cfg.schedulerUser}) or a trusted controller may set it (requested by ${requester(userInfo)})`
  );
}

/** The application id sources of a pod, in the order the admission controller reads them (rule 2). */
const APPLICATION_ID_SOURCES: readonly { key: string; kind: "label" | "annotation" }[] = [
  { key: LABEL_APPLICATION_ID, kind: "label" },
  { key: CANONICAL_LABEL_APPLICATION_ID, kind: "label" },
  { key: ANNOTATION_APPLICATION_ID, kind: "annotation" },
  { key: SPARK_LABEL_APP_ID, kind: "label" },
];

/**
 * Rule 2 for the UPDATE of a routed pod from `before` to `after`.
 * @returns the denial message (HTTP-like code 403) naming the first id key that changed, or undefined when allowed
 *   (no id key changed, or a trusted requester asks)
 */
export function applicationIdChangeRefusal(
  cfg: AdmissionConfig,
  userInfo: UserInfo | undefined,
  pod: { before: PodMeta; after: PodMeta },
  what: string,
): string | undefined {
  const changed = APPLICATION_ID_SOURCES.find(({ key, kind }) => {
    const map = kind === "label" ? "labels" : "annotations";
    return pod.before[map][key] !== pod.after[map][key];
  });
  if (!changed || mayFlagPlaceholder(cfg, userInfo)) return undefined;
  const map = changed.kind === "label" ? "labels" : "annotations";
  const [b, a] = [pod.before[map][changed.key], pod.after[map][changed.key]];
  const change = b === undefined ? "adding" : a === undefined ? "removing" : "changing";
  return (
    `${what}: ${change} the application id ${changed.kind} ${changed.key} of an existing pod is refused: the pod would ` +
    `leave its application and its limits (requested by ${requester(userInfo)})`
  );
}
