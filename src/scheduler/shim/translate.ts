/**
 * Pods and nodes → the core's scheduler-interface messages (yunikorn-shim reference §2.2-2.8). Pure.
 * Identity comes only from the admission controller's `yunikorn.apache.org/user.info` annotation (design 002: the
 * groups are taken as given, the core never resolves them); an unreadable annotation counts as user `nobody`.
 */
import { ANNOTATION_APPLICATION_ID, ANNOTATION_USER_INFO, CANONICAL_LABEL_APPLICATION_ID, CANONICAL_LABEL_QUEUE_NAME, LABEL_APPLICATION_ID, LABEL_QUEUE_NAME, SPARK_LABEL_APP_ID } from "../../admission/constants.js";
import type { AddApplicationRequest, AllocationMessage, NodeInfo } from "../core/scheduler.js";
import { type PodLike, podResource, toCoreResource } from "./pod-resources.js";

export interface PodObject extends PodLike {
  metadata?: { name?: string; namespace?: string; uid?: string; labels?: Record<string, string>; annotations?: Record<string, string>; creationTimestamp?: string | Date };
  spec?: PodLike["spec"] & { schedulerName?: string; nodeName?: string; priority?: number };
  status?: PodLike["status"] & { phase?: string };
}

export const DEFAULT_USER = "nobody";

/** The application id of a pod the scheduler manages, or undefined for a foreign pod (§2.2). */
export function applicationIdOf(pod: PodObject, schedulerName = "yunikorn"): string | undefined {
  if (pod.spec?.schedulerName !== schedulerName) return undefined;
  const l = pod.metadata?.labels ?? {};
  const a = pod.metadata?.annotations ?? {};
  const id = [l[CANONICAL_LABEL_APPLICATION_ID], a[ANNOTATION_APPLICATION_ID], l[LABEL_APPLICATION_ID], l[SPARK_LABEL_APP_ID]].find((v) => v);
  return id ?? `yunikorn-${pod.metadata?.namespace ?? "default"}-autogen`;
}

/** User and groups from the user.info annotation (missing or malformed → nobody, no groups). */
export function identityOf(pod: PodObject): { user: string; groups: string[] } {
  const raw = pod.metadata?.annotations?.[ANNOTATION_USER_INFO];
  if (!raw) return { user: DEFAULT_USER, groups: [] };
  try {
    const v = JSON.parse(raw) as { user?: unknown; groups?: unknown };
    const user = typeof v.user === "string" && v.user ? v.user : DEFAULT_USER;
    const groups = Array.isArray(v.groups) ? v.groups.filter((g): g is string => typeof g === "string") : [];
    return { user, groups };
  } catch {
    return { user: DEFAULT_USER, groups: [] };
  }
}

/** The AddApplicationRequest for the first pod of an application (§2.3). */
export function applicationRequest(pod: PodObject, appId: string): AddApplicationRequest {
  const l = pod.metadata?.labels ?? {};
  const { user, groups } = identityOf(pod);
  const tags: Record<string, string> = { namespace: pod.metadata?.namespace ?? "default" };
  if (pod.spec?.nodeName) tags["application.create.force"] = "true";
  if (l.disableStateAware) tags.disableStateAware = l.disableStateAware;
  return { applicationID: appId, queueName: l[CANONICAL_LABEL_QUEUE_NAME] || pod.metadata?.annotations?.[CANONICAL_LABEL_QUEUE_NAME] || l[LABEL_QUEUE_NAME] || "", ugi: { user, groups }, tags };
}

/**
 * The ask (or, for a bound pod, the existing allocation) of a managed pod (§2.6).
 * @throws Error when a resource quantity is malformed
 */
export function allocationOf(pod: PodObject, appId: string): AllocationMessage {
  const created = pod.metadata?.creationTimestamp ? new Date(pod.metadata.creationTimestamp).getTime() / 1000 : undefined;
  const tags: Record<string, string> = {};
  if (created !== undefined && Number.isFinite(created)) tags.creationTime = String(Math.floor(created));
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
export function nodeInfoOf(node: { metadata?: { name?: string }; spec?: { unschedulable?: boolean }; status?: { allocatable?: Record<string, string> } }): NodeInfo {
  return {
    nodeID: node.metadata?.name ?? "",
    action: node.spec?.unschedulable ? "CREATE_DRAIN" : "CREATE",
    schedulableResource: toCoreResource(node.status?.allocatable),
    attributes: { "si/hostname": node.metadata?.name ?? "", "si/rackname": "/rack-default" },
  };
}

