/**
 * Pod mutation on CREATE and pod validation on UPDATE (design 000 "The admission controller", design 002
 * "Annotation mutation"; yunikorn-admission reference §4, §5, §12).
 *
 * CREATE, in order:
 *  1. decode the pod (a field of the wrong type → denied, naming it);
 *  2. user.info: validate a present annotation (trust + JSON), or stamp the requester (identity.ts);
 *  3. the pod is routed to the scheduler when its namespace is processed, or when it names the scheduler itself
 *     (`spec.schedulerName`) in any namespace; other pods are left alone (no patch). A kubelet's mirror pod is never
 *     routed by corral (it is already running on its node);
 *  4. a routed pod that presets `spec.nodeName` is refused unless a trusted controller asks (placement.ts);
 *  5. the identity is stamped on every routed pod, whatever the label settings of its namespace;
 *  6. in processed namespaces: `spec.schedulerName` = the configured scheduler name, and in labelled namespaces the
 *     application id (reused or generated) on both id labels, queue on both queue labels (default `root.default`),
 *     `disableStateAware: "true"` for generated ids, and the allow-preemption annotation.
 * The user.info check runs before the scope checks on purpose: a pod in a bypassed namespace can still name the
 * corral scheduler itself, so a forged identity is refused everywhere.
 *
 * Unlike YuniKorn, a pod labelled `app: yunikorn` gets no special treatment: any tenant can set that label.
 */
import {
  ANNOTATION_ALLOW_PREEMPTION,
  ANNOTATION_APPLICATION_ID,
  ANNOTATION_QUEUE_NAME,
  ANNOTATION_USER_INFO,
  CANONICAL_LABEL_APPLICATION_ID,
  CANONICAL_LABEL_QUEUE_NAME,
  LABEL_APPLICATION_ID,
  LABEL_DISABLE_STATE_AWARE,
  LABEL_QUEUE_NAME,
  SPARK_LABEL_APP_ID,
} from "../yunikorn/constants.js";
import type { AdmissionConfig } from "./config.js";
import { generateApplicationId } from "../yunikorn/application-id.js";
import { type AdmissionLookups, type DecisionContext } from "./lookups.js";
import { type Decision, type Note, allow, refuse } from "../webhook/decision.js";
import { type UserInfo } from "../webhook/admission-review.js";
import { userInfoStep } from "./identity.js";
import { shouldLabelNamespace, shouldProcessNamespace } from "./namespaces.js";
import { decodePod, isValidLabelValue } from "../webhook/objects.js";
import { isMirrorPod, presetNodeNameRefusal } from "./placement.js";
import { placeholderFlagRefusal } from "./placeholder.js";
import { applicationIdChangeRefusal } from "./scheduling-keys.js";
import { type PatchOp, addAt, entriesPatch, withEntries } from "../webhook/json-patch.js";

const nonEmpty = (v: string | undefined): v is string => v !== undefined && v !== "";

interface ResolvedLabels {
  /** The complete new label map (original labels plus additions). */
  labels: Record<string, string>;
  warnings: string[];
  notes: Note[];
}

/** Writes `value` to both label spellings; a conflicting existing value is replaced and reported. */
function setBoth(
  out: Record<string, string>,
  keys: { legacy: string; canonical: string },
  value: string,
  what: string,
  report: { warnings: string[]; notes: Note[] },
): void {
  const { legacy, canonical } = keys;
  const { warnings, notes } = report;
  if (!isValidLabelValue(value)) {
    notes.push({ level: "warn", msg: `${what} ${JSON.stringify(value)} is not a valid label value; labels not written` });
    warnings.push(`${what} ${JSON.stringify(value)} is not a valid label value, so it is not copied to labels`);
    return;
  }
  for (const key of [legacy, canonical]) {
    const existing = out[key];
    if (existing !== undefined && existing !== "" && existing !== value) {
      warnings.push(`label ${key}=${existing} conflicts with ${what} ${value}; replaced`);
      notes.push({ level: "warn", msg: `label ${key}=${existing} replaced by ${what} ${value}` });
    }
    out[key] = value;
  }
}

/**
 * Application id, queue and disableStateAware labels for a pod (design 000, with YuniKorn 1.6's canonical keys).
 * Id: first non-empty of label `applicationId`, label `yunikorn.apache.org/app-id`, annotation
 * `yunikorn.apache.org/app-id`, label `spark-app-selector`; else generated. Queue: label `queue`, then label
 * `yunikorn.apache.org/queue`, else the configured default. The resolved values are written to both spellings so
 * YuniKorn-era and newer tooling agree; a conflicting value is replaced and reported as a warning.
 */
function resolvePodLabels(
  cfg: AdmissionConfig,
  namespace: string,
  labels: Readonly<Record<string, string>>,
  annotations: Readonly<Record<string, string>>,
  podUid: string,
): ResolvedLabels {
  const out: Record<string, string> = withEntries(labels, {});
  const warnings: string[] = [];
  const notes: Note[] = [];
  const found = [
    labels[LABEL_APPLICATION_ID],
    labels[CANONICAL_LABEL_APPLICATION_ID],
    annotations[ANNOTATION_APPLICATION_ID],
    labels[SPARK_LABEL_APP_ID],
  ].find(nonEmpty);
  const generated = found === undefined;
  const appId = found ?? generateApplicationId(namespace, cfg.generateUniqueAppId, podUid);

  setBoth(out, { legacy: LABEL_APPLICATION_ID, canonical: CANONICAL_LABEL_APPLICATION_ID }, appId, "application id", { warnings, notes });

  // the queue annotation counts before the default: a pod naming its queue there is never labelled into root.default
  // (the scheduler reads it, upstream utils.GetQueueNameFromPod; admission_controller util_test.go row "applicationId
  // and queue is given in the annotations")
  const queue =
    [labels[LABEL_QUEUE_NAME], labels[CANONICAL_LABEL_QUEUE_NAME], annotations[ANNOTATION_QUEUE_NAME]].find(nonEmpty) ??
    (cfg.defaultQueue || undefined);
  if (queue !== undefined)
    setBoth(out, { legacy: LABEL_QUEUE_NAME, canonical: CANONICAL_LABEL_QUEUE_NAME }, queue, "queue", { warnings, notes });

  if (generated && out[LABEL_DISABLE_STATE_AWARE] === undefined) out[LABEL_DISABLE_STATE_AWARE] = "true";
  return { labels: out, warnings, notes };
}

/**
 * Value of the allow-preemption annotation (yunikorn-admission reference §4.3): a pod's own exact "true"/"false" is
 * kept; otherwise "false" only when its PriorityClass is annotated allow-preemption "false".
 */
function allowPreemptionValue(
  podAnnotations: Readonly<Record<string, string>>,
  priorityClassName: string | undefined,
  lookups: AdmissionLookups,
): string {
  const own = podAnnotations[ANNOTATION_ALLOW_PREEMPTION];
  if (own === "true" || own === "false") return own;
  const pc = priorityClassName ? lookups.priorityClass(priorityClassName) : undefined;
  return pc?.annotations?.[ANNOTATION_ALLOW_PREEMPTION] === "false" ? "false" : "true";
}

function sameMap(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) if (a[k] !== b[k]) return false;
  return true;
}

/** Request fields a pod decision reads. */
export interface PodRequest {
  namespace?: string;
  userInfo?: UserInfo;
  object?: unknown;
  oldObject?: unknown;
}

/** Mutation of a Pod CREATE. */
export function mutatePodCreate(req: PodRequest, ctx: DecisionContext): Decision {
  const { cfg, lookups } = ctx;
  const decoded = decodePod(req.object);
  if (!decoded.ok) return refuse(decoded.error, 400);
  const pod = decoded.pod;
  const namespace = req.namespace || pod.metadata.namespace || "default";
  const labels = pod.metadata.labels ?? {};
  const annotations = pod.metadata.annotations ?? {};
  const what = `pod ${namespace}/${pod.metadata.name ?? pod.metadata.generateName ?? ""}`;

  const ui = userInfoStep(cfg, req.userInfo, annotations, labels, what);
  if (!ui.ok) return refuse(ui.message, ui.code);
  // everywhere, as user.info: a bypassed namespace's pod can still name the scheduler
  const flagRefusal = placeholderFlagRefusal(cfg, req.userInfo, { after: annotations }, what);
  if (flagRefusal) return refuse(flagRefusal, 403);

  const mirror = isMirrorPod(annotations, req.userInfo);
  const nsInfo = lookups.namespace(namespace);
  const processed = !mirror && shouldProcessNamespace(cfg, namespace, nsInfo);
  if (!processed && pod.spec?.schedulerName !== cfg.schedulerName) {
    return allow([], [], [{ level: "debug", msg: `${what}: ${mirror ? "mirror pod" : "namespace not processed"}, left alone` }]);
  }
  const nodeRefusal = mirror ? undefined : presetNodeNameRefusal(cfg, req.userInfo, pod.spec?.nodeName, what);
  if (nodeRefusal) return refuse(nodeRefusal, 403);

  const notes: Note[] = [...ui.notes];
  const warnings: string[] = [...ui.warnings];
  let newAnnotations: Record<string, string> | undefined = ui.annotations;
  let newLabels: Record<string, string> | undefined;

  if (processed && shouldLabelNamespace(cfg, namespace, nsInfo)) {
    const resolved = resolvePodLabels(cfg, namespace, labels, annotations, pod.metadata.uid ?? "");
    notes.push(...resolved.notes);
    warnings.push(...resolved.warnings);
    if (!sameMap(labels, resolved.labels)) newLabels = resolved.labels;
    const preempt = allowPreemptionValue(annotations, pod.spec?.priorityClassName, lookups);
    if (annotations[ANNOTATION_ALLOW_PREEMPTION] !== preempt) {
      newAnnotations = withEntries(newAnnotations ?? annotations, { [ANNOTATION_ALLOW_PREEMPTION]: preempt });
    }
  }

  const ops: PatchOp[] = [];
  if (newAnnotations) ops.push(...entriesPatch(pod, ["metadata", "annotations"], newAnnotations));
  if (pod.spec?.schedulerName !== cfg.schedulerName) ops.push(addAt(pod, ["spec", "schedulerName"], cfg.schedulerName));
  if (newLabels) ops.push(...entriesPatch(pod, ["metadata", "labels"], newLabels));
  return allow(ops, warnings, notes);
}

/**
 * Validation of a Pod UPDATE (design 002 "Annotation mutation"): adding, changing or removing
 * `yunikorn.apache.org/user.info` is denied whoever asks; adding, changing or removing
 * `internal.yunikorn.apache.org/placeholder` is denied unless the scheduler or a trusted controller asks
 * (placeholder.ts); on a pod routed to the scheduler, so is a change of its application id (scheduling-keys.ts); nothing
 * else is checked and nothing is patched.
 */
export function validatePodUpdate(req: PodRequest, cfg: AdmissionConfig): Decision {
  const next = decodePod(req.object);
  if (!next.ok) return refuse(next.error, 400);
  if (req.oldObject === undefined || req.oldObject === null) {
    return refuse("pod UPDATE request has no oldObject; cannot check the user.info annotation", 400);
  }
  const prev = decodePod(req.oldObject, "old pod");
  if (!prev.ok) return refuse(prev.error, 400);
  const before = prev.pod.metadata.annotations?.[ANNOTATION_USER_INFO];
  const after = next.pod.metadata.annotations?.[ANNOTATION_USER_INFO];
  if (before !== after) {
    const change = before === undefined ? "adding" : after === undefined ? "removing" : "changing";
    return refuse(
      `user info annotation change is not allowed: ${change} ${ANNOTATION_USER_INFO} on an existing pod is refused ` +
        `(requested by ${req.userInfo?.username ?? "unknown user"})`,
      403,
    );
  }
  const namespace = req.namespace || next.pod.metadata.namespace || "default";
  const what = `pod ${namespace}/${next.pod.metadata.name ?? ""}`;
  const flagRefusal = placeholderFlagRefusal(
    cfg,
    req.userInfo,
    { before: prev.pod.metadata.annotations ?? {}, after: next.pod.metadata.annotations ?? {} },
    what,
  );
  if (flagRefusal) return refuse(flagRefusal, 403);
  // a pod routed to the scheduler keeps the application it was scheduled in (scheduling-keys.ts)
  if (next.pod.spec?.schedulerName === cfg.schedulerName) {
    const meta = (p: typeof next.pod) => ({ labels: p.metadata.labels ?? {}, annotations: p.metadata.annotations ?? {} });
    const idRefusal = applicationIdChangeRefusal(cfg, req.userInfo, { before: meta(prev.pod), after: meta(next.pod) }, what);
    if (idRefusal) return refuse(idRefusal, 403);
  }
  return allow();
}
