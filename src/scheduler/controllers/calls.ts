/**
 * One attempt of each Kubernetes API call the scheduler makes for a {@link ShimAction}, and what its answer means
 * (yunikorn-shim reference §2.12 bind, §4 placeholders, §7 preemption). Each attempt returns an {@link Attempt}: whether
 * to try again, and the result that settles the action; retries, backoff and concurrency are the controllers' business
 * (kube/retrying-calls.ts), making the text of logs and events the caller's.
 */
import { k8s, statusCode } from "../../kube/client.js";
import type { PodCalls } from "../../kube/pod-calls.js";
import type { Attempt } from "../../kube/retrying-calls.js";
import type { PodRef } from "../shim/context.js";
import { bindErrorOutcome } from "../shim/extender.js";

/** The error text of a failed call: the API server's Status body when there is one, else the error message. */
export function errorText(err: unknown): string {
  const b = (err as { body?: unknown }).body;
  return typeof b === "string" ? b : b ? JSON.stringify(b) : (err as Error).message;
}

/** `<status> <body>` of a failed call (just the body when no HTTP answer came). */
const failure = (err: unknown): string => `${statusCode(err) ?? ""} ${errorText(err)}`.trim();

/** How a binding ended: bound (no `error`), or failed with the API server's answer; `gone`: the pod was deleted. */
export interface BindResult {
  error?: string;
  gone?: boolean;
  /** Not sent: the allocation was gone when the binding's turn came (`ShimContext.bindWanted`). */
  skipped?: boolean;
}

/**
 * POSTs the pod's Binding to `node` once.
 * @param liveNode `spec.nodeName` of the pod in the informer cache (a 409 on the same node is a lost answer: bound)
 */
export async function bindAttempt(
  api: PodCalls,
  b: { pod: PodRef; node: string; liveNode: (pod: PodRef) => string | undefined },
): Promise<Attempt<BindResult>> {
  const { pod, node } = b;
  try {
    await api.createNamespacedPodBinding({
      name: pod.name,
      namespace: pod.namespace,
      body: {
        apiVersion: "v1",
        kind: "Binding",
        metadata: { name: pod.name, namespace: pod.namespace, uid: pod.uid },
        target: { apiVersion: "v1", kind: "Node", name: node },
      },
    });
    return { retry: false, result: {} };
  } catch (err) {
    const error = failure(err);
    switch (bindErrorOutcome(statusCode(err), b.liveNode(pod), node)) {
      case "bound":
        return { retry: false, result: {} };
      case "gone":
        return { retry: false, result: { error, gone: true } };
      case "fatal":
        return { retry: false, result: { error } };
      default:
        return { retry: true, result: { error } };
    }
  }
}

/** How a pod deletion ended: `ok` (deleted, or already gone), else the last error. */
export interface DeleteResult {
  ok: boolean;
  error?: string;
}

/**
 * Deletes a pod with grace period 0 once, only the pod of that uid (a precondition: never a later pod of the same
 * name). A missing pod (404) or another pod under the name (409, the precondition failed) counts as deleted.
 */
export async function deleteAttempt(api: PodCalls, pod: PodRef): Promise<Attempt<DeleteResult>> {
  try {
    await api.deleteNamespacedPod({
      name: pod.name,
      namespace: pod.namespace,
      gracePeriodSeconds: 0,
      ...(pod.uid ? { body: { preconditions: { uid: pod.uid } } } : {}),
    });
    return { retry: false, result: { ok: true } };
  } catch (err) {
    const c = statusCode(err);
    if (c === 404 || c === 409) return { retry: false, result: { ok: true } };
    return { retry: true, result: { ok: false, error: errorText(err) } };
  }
}

/** How a placeholder create ended: `created`, `exists` (an earlier attempt reached the API server), or `failed`. */
export type CreateResult = { outcome: "created" | "exists" } | { outcome: "failed"; error: string };

/** Creates a pod once. 403 and 422 are final (retrying cannot help); other failures ask for a retry. */
export async function createAttempt(api: PodCalls, pod: k8s.V1Pod): Promise<Attempt<CreateResult>> {
  try {
    await api.createNamespacedPod({ namespace: pod.metadata?.namespace ?? "default", body: pod });
    return { retry: false, result: { outcome: "created" } };
  } catch (err) {
    const c = statusCode(err);
    // AlreadyExists: an earlier attempt reached the API server (placeholder names carry a random nonce)
    if (c === 409) return { retry: false, result: { outcome: "exists" } };
    return { retry: c !== 403 && c !== 422, result: { outcome: "failed", error: errorText(err) } };
  }
}

/** How an eviction ended: `evicted`, `gone` (404: the pod was already deleted), or `refused` with the answer. */
export type EvictResult = { outcome: "evicted" | "gone" } | { outcome: "refused"; error: string };

/**
 * POSTs an Eviction for the pod once (PodDisruptionBudgets apply). 429 (a budget does not allow it now), 403 and 422
 * are final; other failures ask for a retry.
 * @param apiVersion the Eviction API version the cluster serves (`policy/v1`, `policy/v1beta1` on 1.20-1.21)
 */
export async function evictAttempt(api: PodCalls, pod: PodRef, apiVersion: () => Promise<string>): Promise<Attempt<EvictResult>> {
  try {
    await api.createNamespacedPodEviction({
      name: pod.name,
      namespace: pod.namespace,
      body: { apiVersion: await apiVersion(), kind: "Eviction", metadata: { name: pod.name, namespace: pod.namespace } },
    });
    return { retry: false, result: { outcome: "evicted" } };
  } catch (err) {
    const c = statusCode(err);
    if (c === 404) return { retry: false, result: { outcome: "gone" } };
    return { retry: c !== 429 && c !== 403 && c !== 422, result: { outcome: "refused", error: failure(err) } };
  }
}

/** Sets the pod's status phase, reason and message (a Hard gang timeout failing its pods). */
export function patchPodPhase(api: PodCalls, pod: PodRef, s: { phase: string; reason: string; message: string }): Promise<unknown> {
  return api.patchNamespacedPodStatus(
    { name: pod.name, namespace: pod.namespace, body: { status: s } },
    k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.StrategicMergePatch),
  );
}

/** Sets the pod's `PodScheduled=False` condition; `now` is the lastTransitionTime. */
export function patchUnschedulable(api: PodCalls, pod: PodRef, c: { reason: string; message: string; now: Date }): Promise<unknown> {
  const condition = {
    type: "PodScheduled",
    status: "False",
    reason: c.reason,
    message: c.message,
    lastTransitionTime: c.now.toISOString(),
  };
  return api.patchNamespacedPodStatus(
    { name: pod.name, namespace: pod.namespace, body: { status: { conditions: [condition] } } },
    k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.StrategicMergePatch),
  );
}

/** Annotates the pod with its allocated node (plugin mode: the change makes kube-scheduler retry it now). */
export function annotateAllocatedNode(api: PodCalls, pod: PodRef, node: string): Promise<unknown> {
  return api.patchNamespacedPod(
    { name: pod.name, namespace: pod.namespace, body: { metadata: { annotations: { "scheduling.corral.dev/allocated-node": node } } } },
    k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch),
  );
}
