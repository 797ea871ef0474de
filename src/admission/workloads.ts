/**
 * User identity on the pod templates of workloads (design 002 "Kubernetes user and group handling";
 * yunikorn-admission reference §6).
 *
 * CREATE: the template gets `yunikorn.apache.org/user.info` of the submitter (or, when already present, the
 * submitter must be trusted). Nothing else is written on templates: pods created from them are mutated when created.
 *
 * UPDATE (closes upstream quirk 2, where a user could edit a Deployment's template annotation and let the trusted
 * controllers copy the forged identity onto pods):
 *   - template user.info unchanged → allowed;
 *   - changed or added → allowed only from a requester allowed to set it (trusted controller, external user or
 *     group, or bypassAuth), and only if it is valid JSON; otherwise denied naming the user and groups;
 *   - removed (e.g. `kubectl replace` of the original manifest) → re-stamped with the requester, who is the one
 *     submitting the new template.
 * A template that never carried user.info is left alone on UPDATE, so that scaling or editing a workload created
 * before corral was installed does not change its template and trigger a rollout.
 */
import { ANNOTATION_USER_INFO, CANONICAL_LABEL_APPLICATION_ID, LABEL_APPLICATION_ID, SPARK_LABEL_APP_ID } from "./constants.js";
import type { AdmissionConfig } from "./config.js";
import { type AdmissionLookups, type Decision, type DecisionContext, allow, refuse } from "./decision.js";
import { type UserInfo, isSystemUser, notAllowedMessage, parseUserInfoAnnotation, trustReason, userInfoAnnotationValue, userInfoStep } from "./identity.js";
import { shouldLabelNamespace, shouldProcessNamespace } from "./namespaces.js";
import { type ObjectMeta, decodeMeta } from "./objects.js";
import { addAt, withEntries } from "../util/json-patch.js";
import { isObject } from "../util/objects.js";

/** Path of the pod template inside each workload kind. */
export const WORKLOAD_TEMPLATE_PATHS: Readonly<Record<string, readonly string[]>> = {
  Deployment: ["spec", "template"],
  ReplicaSet: ["spec", "template"],
  StatefulSet: ["spec", "template"],
  DaemonSet: ["spec", "template"],
  Job: ["spec", "template"],
  ReplicationController: ["spec", "template"],
  CronJob: ["spec", "jobTemplate", "spec", "template"],
};

export function isWorkloadKind(kind: string): boolean {
  return Object.hasOwn(WORKLOAD_TEMPLATE_PATHS, kind);
}

type Template = { ok: true; meta: ObjectMeta; template: Record<string, unknown> } | { ok: false; error: string };


/** Reads the pod template metadata of a workload object, naming the missing or malformed field. */
export function readTemplate(kind: string, obj: unknown, what = kind): Template {
  const path = WORKLOAD_TEMPLATE_PATHS[kind]!;
  if (!isObject(obj)) return { ok: false, error: `${what} is missing or not a JSON object` };
  let node: unknown = obj;
  for (let i = 0; i < path.length; i++) {
    if (!isObject(node)) return { ok: false, error: `${what} ${path.slice(0, i).join(".")} must be an object` };
    node = node[path[i]!];
    if (node === undefined || node === null) return { ok: false, error: `${what} has no ${path.slice(0, i + 1).join(".")}` };
  }
  if (!isObject(node)) return { ok: false, error: `${what} ${path.join(".")} must be an object` };
  const meta = decodeMeta(node.metadata, `${what} ${path.join(".")}.metadata`);
  if (!meta.ok) return meta;
  return { ok: true, meta: meta.meta, template: node };
}

/**
 * shouldProcessAdmissionReview (upstream admission_controller.go): the namespace is processed and either the
 * template names an application id or the namespace is labelled.
 */
function templateInScope(cfg: AdmissionConfig, lookups: AdmissionLookups, namespace: string, labels: Readonly<Record<string, string>>): boolean {
  const ns = lookups.namespace(namespace);
  if (!shouldProcessNamespace(cfg, namespace, ns)) return false;
  return Boolean(labels[CANONICAL_LABEL_APPLICATION_ID] || labels[LABEL_APPLICATION_ID] || labels[SPARK_LABEL_APP_ID]) ||
    shouldLabelNamespace(cfg, namespace, ns);
}

export interface WorkloadRequest {
  kind: { kind: string };
  namespace?: string;
  name?: string;
  userInfo?: UserInfo;
  object?: unknown;
  oldObject?: unknown;
}

function annotationsPatchPath(kind: string): string[] {
  return [...WORKLOAD_TEMPLATE_PATHS[kind]!, "metadata", "annotations"];
}

/** Mutation of a workload CREATE: stamp the template with the submitter. */
export function mutateWorkloadCreate(req: WorkloadRequest, ctx: DecisionContext): Decision {
  const { cfg, lookups } = ctx;
  const kind = req.kind.kind;
  const namespace = req.namespace || "default";
  // The deployment controller copies the Deployment's (already checked) template into its ReplicaSets; stamping or
  // checking them again would make the controller's and the stored template differ and loop (YUNIKORN-1627).
  if (kind === "ReplicaSet" && isSystemUser(cfg, req.userInfo)) {
    return allow([], [], [{ level: "debug", msg: `ReplicaSet ${namespace}/${req.name ?? ""} from controller ${req.userInfo?.username}: passed through` }]);
  }
  const t = readTemplate(kind, req.object);
  if (!t.ok) return refuse(t.error, 400);
  const labels = t.meta.labels ?? {};
  const annotations = t.meta.annotations ?? {};
  const what = `${kind} ${namespace}/${req.name ?? ""}`;
  // The identity check comes before the scope check, as for pods: a template forged in a namespace corral does not
  // process would otherwise reach pods through the trusted controller that creates them.
  const ui = userInfoStep(cfg, req.userInfo, annotations, labels, what);
  if (!ui.ok) return refuse(ui.message, ui.code);
  if (!templateInScope(cfg, lookups, namespace, labels)) return allow();
  const ops = ui.annotations ? [addAt(req.object, annotationsPatchPath(kind), ui.annotations)] : [];
  return allow(ops, ui.warnings, ui.notes);
}

/** Validation (and re-stamping on removal) of a workload UPDATE; see the module comment. */
export function mutateWorkloadUpdate(req: WorkloadRequest, ctx: DecisionContext): Decision {
  const { cfg, lookups } = ctx;
  const kind = req.kind.kind;
  const namespace = req.namespace || "default";
  const next = readTemplate(kind, req.object);
  if (!next.ok) return refuse(next.error, 400);
  if (req.oldObject === undefined || req.oldObject === null) {
    return refuse(`${kind} UPDATE request has no oldObject; cannot check the user.info annotation`, 400);
  }
  const prev = readTemplate(kind, req.oldObject, `old ${kind}`);
  if (!prev.ok) return refuse(prev.error, 400);
  const before = prev.meta.annotations?.[ANNOTATION_USER_INFO];
  const after = next.meta.annotations?.[ANNOTATION_USER_INFO];
  if (before === after) return allow();
  const what = `${kind} ${namespace}/${req.name ?? ""}`;
  if (after === undefined) {
    // re-stamping is a mutation: only where corral processes templates (the identity check below applies everywhere)
    const inScope = templateInScope(cfg, lookups, namespace, next.meta.labels ?? {}) || templateInScope(cfg, lookups, namespace, prev.meta.labels ?? {});
    if (cfg.bypassAuth || !inScope) return allow();
    const stamped = withEntries(next.meta.annotations, { [ANNOTATION_USER_INFO]: userInfoAnnotationValue(req.userInfo) });
    return allow([addAt(req.object, annotationsPatchPath(kind), stamped)], [],
      [{ level: "info", msg: `${what}: template user.info removed by update; re-stamped with ${req.userInfo?.username ?? ""}` }]);
  }
  if (!cfg.bypassAuth && trustReason(cfg, req.userInfo) === undefined) {
    return refuse(`${notAllowedMessage(req.userInfo)}: changing ${ANNOTATION_USER_INFO} in the pod template of ${what} is refused`, 403);
  }
  const parsed = parseUserInfoAnnotation(after);
  if (!parsed.ok) return refuse(parsed.error, 400);
  return allow();
}
