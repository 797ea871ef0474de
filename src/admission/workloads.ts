/**
 * User identity on the pod templates of workloads (design 002 "Kubernetes user and group handling";
 * yunikorn-admission reference §6).
 *
 * Scope: a template is "routed" when its namespace is processed, or when it names the scheduler itself
 * (`spec.schedulerName`); the identity is stamped on routed templates whatever the label settings of the namespace
 * (`noLabelNamespaces` only skips application labels, which templates never get). The identity checks themselves
 * apply in every namespace: a template forged in a bypassed namespace would otherwise reach pods through the trusted
 * controller that creates them.
 *
 * CREATE: the template gets `yunikorn.apache.org/user.info` of the submitter (or, when already present, the
 * submitter must be trusted). Nothing else is written on templates: pods created from them are mutated when created.
 * A routed template that presets `spec.nodeName` is refused unless a trusted controller asks (placement.ts); on
 * UPDATE, when the node changes or the template becomes routed (its `schedulerName` now names the scheduler).
 *
 * UPDATE (closes upstream quirk 2, where a user could edit a Deployment's template annotation and let the trusted
 * controllers copy the forged identity onto pods):
 *   - template user.info changed or added → allowed only from a requester allowed to set it (trusted controller,
 *     external user or group, or bypassAuth), and only if it is valid JSON, or when it is exactly the requester's
 *     own identity (`kubectl rollout undo` to a revision she submitted); otherwise denied naming the user and groups;
 *   - removed (e.g. `kubectl replace` of the original manifest) → re-stamped with the requester, who is the one
 *     submitting the new template;
 *   - kept, but anything else in the template changed (image, resources, env, a `kubectl rollout restart`
 *     annotation…) by a requester who is not a trusted controller → re-stamped with that requester: whoever changes
 *     what the new pods run submits them. Changes outside the template (replicas, the workload's own labels) keep
 *     the identity, so scaling another user's workload does not take it over.
 * A template that never carried user.info and is not changed (scaling a workload created before corral was
 * installed) is left alone, so it does not trigger a rollout.
 */
import { isDeepStrictEqual } from "node:util";
import { ANNOTATION_USER_INFO } from "../yunikorn/constants.js";
import type { AdmissionConfig } from "./config.js";
import { type AdmissionLookups, type DecisionContext } from "./lookups.js";
import { type Decision, allow, refuse } from "../webhook/decision.js";
import { type UserInfo } from "../webhook/admission-review.js";
import { isOwnIdentity, isSystemUser, notAllowedMessage, trustReason, userInfoStep } from "./identity.js";
import { parseUserInfoAnnotation, userInfoAnnotationValue } from "../yunikorn/user-info.js";
import { shouldProcessNamespace } from "./namespaces.js";
import { type ObjectMeta, decodeMeta, decodeTemplateSpec } from "../webhook/objects.js";
import { presetNodeNameRefusal } from "./placement.js";
import { placeholderFlagRefusal } from "./placeholder.js";
import { entriesPatch, withEntries } from "../webhook/json-patch.js";
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

/** Whether `kind` is a workload whose pod template the webhook handles (Deployment, Job, …). */
export function isWorkloadKind(kind: string): boolean {
  return Object.hasOwn(WORKLOAD_TEMPLATE_PATHS, kind);
}

type Template =
  | { ok: true; meta: ObjectMeta; template: Record<string, unknown>; schedulerName?: string; nodeName?: string }
  | { ok: false; error: string };

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
  const spec = decodeTemplateSpec(node, `${what} ${path.join(".")}`);
  if (!spec.ok) return { ok: false, error: `cannot decode ${spec.error}` };
  return { ok: true, meta: meta.meta, template: node, schedulerName: spec.schedulerName, nodeName: spec.nodeName };
}

/**
 * Is the template's pod routed to the scheduler: its namespace is processed, or it names the scheduler itself?
 * Unlike upstream's shouldProcessAdmissionReview, whether the namespace gets application labels does not matter:
 * the identity must be on the template wherever its pods are scheduled by corral.
 */
function templateRouted(cfg: AdmissionConfig, lookups: AdmissionLookups, namespace: string, t: { schedulerName?: string }): boolean {
  return t.schedulerName === cfg.schedulerName || shouldProcessNamespace(cfg, namespace, lookups.namespace(namespace));
}

/** The parts of an AdmissionRequest for a workload that the template decision reads. */
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
    return allow(
      [],
      [],
      [{ level: "debug", msg: `ReplicaSet ${namespace}/${req.name ?? ""} from controller ${req.userInfo?.username}: passed through` }],
    );
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
  const flagRefusal = placeholderFlagRefusal(cfg, req.userInfo, { after: annotations }, `pod template of ${what}`);
  if (flagRefusal) return refuse(flagRefusal, 403);
  if (!templateRouted(cfg, lookups, namespace, t)) return allow();
  const nodeRefusal = presetNodeNameRefusal(cfg, req.userInfo, t.nodeName, `pod template of ${what}`);
  if (nodeRefusal) return refuse(nodeRefusal, 403);
  const ops = ui.annotations ? entriesPatch(req.object, annotationsPatchPath(kind), ui.annotations) : [];
  return allow(ops, ui.warnings, ui.notes);
}

/** Validation and re-stamping of a workload UPDATE; see the module comment. */
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
  const what = `${kind} ${namespace}/${req.name ?? ""}`;
  const trust = trustReason(cfg, req.userInfo);
  const requester = userInfoAnnotationValue(req.userInfo);
  if (after !== undefined && after !== before && !isOwnIdentity(req.userInfo, after)) {
    if (!cfg.bypassAuth && trust === undefined) {
      return refuse(`${notAllowedMessage(req.userInfo)}: changing ${ANNOTATION_USER_INFO} in the pod template of ${what} is refused`, 403);
    }
    const parsed = parseUserInfoAnnotation(after);
    if (!parsed.ok) return refuse(parsed.error.message, 400);
  }
  const flagRefusal = placeholderFlagRefusal(
    cfg,
    req.userInfo,
    { before: prev.meta.annotations ?? {}, after: next.meta.annotations ?? {} },
    `pod template of ${what}`,
  );
  if (flagRefusal) return refuse(flagRefusal, 403);
  const nextRouted = templateRouted(cfg, lookups, namespace, next);
  const prevRouted = templateRouted(cfg, lookups, namespace, prev);
  if (!nextRouted && !prevRouted) return allow();
  // a node named by a template that becomes routed (its schedulerName changed to corral's) is checked as at CREATE:
  // a template created unrouted with a node, then only re-pointed at the scheduler, would otherwise pass it by
  if (nextRouted && (next.nodeName !== prev.nodeName || !prevRouted)) {
    const nodeRefusal = presetNodeNameRefusal(cfg, req.userInfo, next.nodeName, `pod template of ${what}`);
    if (nodeRefusal) return refuse(nodeRefusal, 403);
  }
  if (cfg.bypassAuth || (after !== undefined && after !== before)) return allow();

  let why: string;
  if (after === undefined && before !== undefined) {
    why = "template user.info removed by update";
  } else if (trust !== "trusted-controller" && templateChanged(prev.template, next.template) && after !== requester) {
    why = `pod template changed by ${req.userInfo?.username ?? ""}, who submits the new pods`;
  } else {
    return allow();
  }
  const stamped = withEntries(next.meta.annotations, { [ANNOTATION_USER_INFO]: requester });
  return allow(
    entriesPatch(req.object, annotationsPatchPath(kind), stamped),
    [],
    [{ level: "info", msg: `${what}: ${why}; re-stamped with ${req.userInfo?.username ?? ""} (was ${before ?? "unset"})` }],
  );
}

/**
 * True when the pod template differs between the stored and the updated object (anything: metadata, spec).
 * Both sides come from the API server after defaulting, so an unchanged template compares equal.
 */
export function templateChanged(prev: Readonly<Record<string, unknown>>, next: Readonly<Record<string, unknown>>): boolean {
  return !isDeepStrictEqual(prev, next);
}
