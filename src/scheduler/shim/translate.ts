/**
 * Pods and nodes → the core's scheduler-interface messages (yunikorn-shim reference §2.2-2.8). Pure.
 * Identity comes only from the admission controller's `yunikorn.apache.org/user.info` annotation (design 002: the
 * groups are taken as given, the core never resolves them); an unreadable annotation counts as user `nobody`.
 */
import {
  ANNOTATION_APPLICATION_ID,
  ANNOTATION_QUEUE_NAME,
  ANNOTATION_USER_INFO,
  CANONICAL_LABEL_APPLICATION_ID,
  CANONICAL_LABEL_QUEUE_NAME,
  LABEL_APPLICATION_ID,
  LABEL_QUEUE_NAME,
  SPARK_LABEL_APP_ID,
  UNIQUE_AUTOGEN_SUFFIX,
} from "../../yunikorn/constants.js";
import { parseUserInfoAnnotation } from "../../yunikorn/user-info.js";
import { generateApplicationId } from "../../yunikorn/application-id.js";
import type { AddApplicationRequest, AllocationMessage, NodeInfo } from "../core/scheduler.js";
import type { V1ObjectMeta, V1Pod } from "@kubernetes/client-node";
import { podResource, toCoreResource } from "./pod-resources.js";

/**
 * A pod as the shim reads it: client-node's `V1Pod` (informer objects, extender request bodies), except that
 * `metadata.creationTimestamp` may also be the RFC 3339 string the API server sends (informers and request bodies
 * carry the JSON as is; client-node's type says `Date`).
 */
export type PodObject = Omit<V1Pod, "metadata"> & {
  metadata?: Omit<V1ObjectMeta, "creationTimestamp"> & { creationTimestamp?: string | Date };
};

/** `metadata.creationTimestamp` in milliseconds since the epoch; undefined when absent or not a time. */
export function creationMs(pod: PodObject): number | undefined {
  const t = pod.metadata?.creationTimestamp;
  const ms = t === undefined ? Number.NaN : new Date(t).getTime();
  return Number.isFinite(ms) ? ms : undefined;
}

/** User of a pod without a readable `yunikorn.apache.org/user.info` annotation (upstream k8shim `nobody`). */
export const DEFAULT_USER = "nobody";

/**
 * The application id a pod names (label `yunikorn.apache.org/app-id`, annotation, label `applicationId`,
 * `spark-app-selector`), if any (§2.2). An id ending in `-uniqueautogen` (what the admission controller writes with
 * `generateUniqueAppId` on, before the pod has a UID) becomes `<the rest>-<pod UID>`, one application per pod, as
 * upstream's GetApplicationIDFromPod does.
 */
export function explicitApplicationId(pod: PodObject): string | undefined {
  const l = pod.metadata?.labels ?? {};
  const a = pod.metadata?.annotations ?? {};
  const id = [l[CANONICAL_LABEL_APPLICATION_ID], a[ANNOTATION_APPLICATION_ID], l[LABEL_APPLICATION_ID], l[SPARK_LABEL_APP_ID]].find(
    (v) => v,
  );
  const uid = pod.metadata?.uid;
  if (id && uid && id.endsWith(UNIQUE_AUTOGEN_SUFFIX)) return `${id.slice(0, -UNIQUE_AUTOGEN_SUFFIX.length)}-${uid}`;
  return id;
}

/**
 * The application id of a pod the scheduler manages, or undefined for a foreign pod (§2.2); a pod naming none gets
 * a generated id, the same the admission controller writes: the namespace's, or with `uniqueAppIds`
 * (`admissionController.filtering.generateUniqueAppId`) one of its own from the pod's UID.
 */
export function applicationIdOf(pod: PodObject, schedulerName = "yunikorn", uniqueAppIds = false): string | undefined {
  if (pod.spec?.schedulerName !== schedulerName) return undefined;
  return explicitApplicationId(pod) ?? generateApplicationId(pod.metadata?.namespace ?? "default", uniqueAppIds, pod.metadata?.uid ?? "");
}

/**
 * User and groups from the user.info annotation (yunikorn/user-info.ts). Missing or malformed (not JSON, not an
 * object, a `user` or a group that is not a string) → user `nobody`, no groups: the pod is still scheduled, charged
 * to nobody. The admission controller refuses such a value on CREATE, so only a pod admitted without it gets here.
 */
export function identityOf(pod: PodObject): { user: string; groups: string[] } {
  const raw = pod.metadata?.annotations?.[ANNOTATION_USER_INFO];
  if (!raw) return { user: DEFAULT_USER, groups: [] };
  const parsed = parseUserInfoAnnotation(raw);
  if (!parsed.ok) return { user: DEFAULT_USER, groups: [] };
  return { user: parsed.value.user || DEFAULT_USER, groups: parsed.value.groups ?? [] };
}

/** The AddApplicationRequest for the first pod of an application (§2.3). */
export function applicationRequest(pod: PodObject, appId: string): AddApplicationRequest {
  const l = pod.metadata?.labels ?? {};
  const { user, groups } = identityOf(pod);
  const tags: Record<string, string> = { namespace: pod.metadata?.namespace ?? "default" };
  if (pod.spec?.nodeName) tags["application.create.force"] = "true";
  if (l.disableStateAware) tags.disableStateAware = l.disableStateAware;
  return {
    applicationID: appId,
    queueName: l[CANONICAL_LABEL_QUEUE_NAME] || pod.metadata?.annotations?.[ANNOTATION_QUEUE_NAME] || l[LABEL_QUEUE_NAME] || "",
    ugi: { user, groups },
    tags,
  };
}

/**
 * A pod's allocationTags as the shim sends them (yunikorn-shim reference §2.6; upstream k8shim si_helper.go
 * CreateTagsForTask): `kubernetes.io/meta/namespace`, `kubernetes.io/meta/podName`, `kubernetes.io/label/<key>` per pod
 * label, and `creationTime` (Unix seconds; left out when the pod has no readable creation time).
 */
export function podTags(pod: PodObject): Record<string, string> {
  const createdMs = creationMs(pod);
  const tags: Record<string, string> = {
    "kubernetes.io/meta/namespace": pod.metadata?.namespace ?? "default",
    "kubernetes.io/meta/podName": pod.metadata?.name ?? "",
  };
  for (const [k, v] of Object.entries(pod.metadata?.labels ?? {})) tags[`kubernetes.io/label/${k}`] = v;
  if (createdMs !== undefined) tags.creationTime = String(Math.floor(createdMs / 1000));
  return tags;
}

/**
 * The ask (or, for a bound pod, the existing allocation) of a managed pod (§2.6), with the pod's tags (`podTags`).
 * @throws Error when a resource quantity is malformed
 */
export function allocationOf(pod: PodObject, appId: string): AllocationMessage {
  const tags = podTags(pod);
  return {
    allocationKey: pod.metadata?.uid ?? `${pod.metadata?.namespace}/${pod.metadata?.name}`,
    applicationID: appId,
    resourcePerAlloc: podResource(pod),
    priority: pod.spec?.priority ?? 0,
    nodeID: pod.spec?.nodeName || undefined,
    allocationTags: tags,
  };
}

/** A Node as a NodeInfo (capacity = allocatable; cordoned nodes are registered unschedulable) (§2.8). */
export function nodeInfoOf(node: {
  metadata?: { name?: string };
  spec?: { unschedulable?: boolean };
  status?: { allocatable?: Record<string, string> };
}): NodeInfo {
  return {
    nodeID: node.metadata?.name ?? "",
    action: node.spec?.unschedulable ? "CREATE_DRAIN" : "CREATE",
    schedulableResource: toCoreResource(node.status?.allocatable),
    attributes: { "si/hostname": node.metadata?.name ?? "", "si/rackname": "/rack-default" },
  };
}

/**
 * Application tags from the namespace's annotations (yunikorn-shim reference §2.3; upstream k8shim utils.go
 * GetNamespaceQuotaFromAnnotation, GetNamespaceGuaranteedFromAnnotation, context.go updateApplicationTags):
 * - `yunikorn.apache.org/namespace.quota` → `namespace.resourcequota`, `…/namespace.guaranteed` →
 *   `namespace.resourceguaranteed`: a JSON object of Kubernetes quantity strings, as si.Resource JSON. Zero values are
 *   kept (a quota of `{"cpu":"0","memory":"1G"}` allows no vcore); a map whose values are all zero, a value that is
 *   not a string or not a quantity, or text that is not a JSON object gives no tag.
 * - The deprecated `namespace.max.cpu` / `namespace.max.memory` are read only when `namespace.quota` is absent or
 *   empty: a `namespace.quota` that does not parse gives no quota at all, as upstream.
 * - `…/namespace.maxApps` (integer ≥ 0) → `namespace.resourcemaxapps`; `…/parentqueue` → `namespace.parentqueue`.
 * A malformed annotation is left out (the namespace then has no such limit).
 */
export function namespaceTags(ann: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  const si = (m: Record<string, string> | undefined): string | undefined => {
    if (!m) return undefined;
    try {
      const r = toCoreResource(m);
      // upstream common.IsZero: nothing but zeros (or nothing) is no quota
      if (Object.values(r).every((v) => v === 0)) return undefined;
      return JSON.stringify({ resources: Object.fromEntries(Object.entries(r).map(([k, v]) => [k, { value: v }])) });
    } catch {
      return undefined;
    }
  };
  // upstream unmarshals into map[string]string: any other JSON (a number value, an array) is an error
  const quantities = (raw: string | undefined): Record<string, string> | undefined => {
    if (!raw) return undefined;
    try {
      const v = JSON.parse(raw) as unknown;
      if (!v || typeof v !== "object" || Array.isArray(v)) return undefined;
      return Object.values(v).every((x) => typeof x === "string") ? (v as Record<string, string>) : undefined;
    } catch {
      return undefined;
    }
  };
  const legacy: Record<string, string> = {};
  if (ann["yunikorn.apache.org/namespace.max.cpu"]) legacy.cpu = ann["yunikorn.apache.org/namespace.max.cpu"];
  if (ann["yunikorn.apache.org/namespace.max.memory"]) legacy.memory = ann["yunikorn.apache.org/namespace.max.memory"];
  const quotaText = ann["yunikorn.apache.org/namespace.quota"];
  const quota = si(quotaText ? quantities(quotaText) : legacy);
  if (quota) out["namespace.resourcequota"] = quota;
  const guaranteed = si(quantities(ann["yunikorn.apache.org/namespace.guaranteed"]));
  if (guaranteed) out["namespace.resourceguaranteed"] = guaranteed;
  const maxApps = ann["yunikorn.apache.org/namespace.maxApps"];
  if (maxApps !== undefined && /^\d+$/.test(maxApps)) out["namespace.resourcemaxapps"] = maxApps;
  if (ann["yunikorn.apache.org/parentqueue"]) out["namespace.parentqueue"] = ann["yunikorn.apache.org/parentqueue"];
  return out;
}
