/**
 * The application id of a pod routed to the scheduler, guarded on UPDATE (design 002 "Annotation mutation"; corral's
 * addition: YuniKorn does not guard it). The id keys are labels `applicationId` and `yunikorn.apache.org/app-id`,
 * annotation `yunikorn.apache.org/app-id`, label `spark-app-selector`. In plugin mode a pod without an application id
 * is left to kube-scheduler's own plugins with no queue or user limit checked (docs/plugin-mode.md), so a held pod whose
 * id was removed would be placed past its limits once the scheduler rebuilds its state (a restart, a new leader); one
 * whose id changed would join another application. Only the scheduler (`service.schedulerUser`) or a trusted controller
 * (`systemUsers` with `trustControllers`) may add, change or remove them on an existing routed pod. A pod not routed to
 * the scheduler may change them freely: the scheduler never reads them there.
 */
import type { AdmissionConfig } from "./config.js";
import { type UserInfo } from "../webhook/admission-review.js";
import { actsForScheduler } from "./identity.js";
import { entryChange } from "../webhook/objects.js";
import {
  ANNOTATION_APPLICATION_ID,
  CANONICAL_LABEL_APPLICATION_ID,
  LABEL_APPLICATION_ID,
  SPARK_LABEL_APP_ID,
} from "../yunikorn/constants.js";

type Entries = Readonly<Record<string, string>>;

/** A pod's labels and annotations (absent maps as empty ones). */
export interface PodMeta {
  labels: Entries;
  annotations: Entries;
}

/** The application id sources of a pod, in the order the admission controller reads them. */
const APPLICATION_ID_SOURCES: readonly { key: string; kind: "label" | "annotation" }[] = [
  { key: LABEL_APPLICATION_ID, kind: "label" },
  { key: CANONICAL_LABEL_APPLICATION_ID, kind: "label" },
  { key: ANNOTATION_APPLICATION_ID, kind: "annotation" },
  { key: SPARK_LABEL_APP_ID, kind: "label" },
];

/**
 * The rule (module comment) for the UPDATE of a routed pod from `before` to `after`.
 * @returns the denial message (HTTP-like code 403) naming the first id key that changed, or undefined when allowed
 *   (no id key changed, or a trusted requester asks)
 */
export function applicationIdChangeRefusal(
  cfg: AdmissionConfig,
  userInfo: UserInfo | undefined,
  pod: { before: PodMeta; after: PodMeta },
  what: string,
): string | undefined {
  for (const { key, kind } of APPLICATION_ID_SOURCES) {
    const map = kind === "label" ? "labels" : "annotations";
    const change = entryChange({ before: pod.before[map], after: pod.after[map] }, key);
    if (change === undefined) continue;
    if (actsForScheduler(cfg, userInfo)) return undefined;
    return (
      `${what}: ${change} the application id ${kind} ${key} of an existing pod is refused: the pod would leave its ` +
      `application and its limits (requested by ${userInfo?.username ?? "unknown user"})`
    );
  }
  return undefined;
}
