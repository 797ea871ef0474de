/**
 * The pod API calls the scheduler makes, as a type both client-node's `CoreV1Api` and the lean writer satisfy, and
 * their wire format over the writer (paths, methods, patch kinds). What an answer means is the scheduler's business
 * (scheduler/controllers/calls.ts).
 */
import { type ApiWriter, k8s } from "./client.js";

/** The calls of client-node's `CoreV1Api` the scheduler makes, with their parameters; the answers are not read. */
type PodCallName =
  | "createNamespacedPodBinding"
  | "deleteNamespacedPod"
  | "createNamespacedPod"
  | "createNamespacedPodEviction"
  | "patchNamespacedPodStatus"
  | "patchNamespacedPod"
  | "createNamespacedEvent";

/**
 * The Kubernetes API calls the scheduler makes: client-node's `CoreV1Api`, {@link writerPodCalls} (the same calls over
 * the lean writer), or a fake in tests. Each resolves on success and throws an error carrying the HTTP status (`code`,
 * read by `statusCode`) and the Status body (`body`) otherwise.
 */
export type PodCalls = { [K in PodCallName]: (...args: Parameters<k8s.CoreV1Api[K]>) => Promise<unknown> };

/** API path of a pod, or of one of its subresources (`binding`, `status`, `eviction`). */
const podPath = (p: { namespace: string; name: string }, sub?: string): string =>
  `/api/v1/namespaces/${encodeURIComponent(p.namespace)}/pods/${encodeURIComponent(p.name)}${sub ? `/${sub}` : ""}`;

/**
 * {@link PodCalls} over `makeApiWriter` (client.ts): the same requests without client-node's per-call (de)serialisation, for
 * the scheduler's high-rate writes (bindings, placeholder creates and deletes, events, status patches). Pod status
 * patches are sent as strategic merge patches and pod patches as merge patches — the kinds scheduler/controllers/calls.ts
 * chooses (its header options are for client-node and not read here). Evictions stay on `evictions` (client-node),
 * being rare and version-dependent.
 */
export function writerPodCalls(write: ApiWriter, evictions: Pick<k8s.CoreV1Api, "createNamespacedPodEviction">): PodCalls {
  const ns = (namespace: string) => `/api/v1/namespaces/${encodeURIComponent(namespace)}`;
  return {
    createNamespacedPodBinding: ({ name, namespace, body }) =>
      write({ method: "POST", path: podPath({ name, namespace }, "binding"), body }),
    deleteNamespacedPod: ({ name, namespace, gracePeriodSeconds, body }) =>
      write({
        method: "DELETE",
        path: podPath({ name, namespace }),
        body: { apiVersion: "v1", kind: "DeleteOptions", ...body, ...(gracePeriodSeconds !== undefined ? { gracePeriodSeconds } : {}) },
      }),
    createNamespacedPod: ({ namespace, body }) => write({ method: "POST", path: `${ns(namespace)}/pods`, body }),
    createNamespacedPodEviction: (req, options) => evictions.createNamespacedPodEviction(req, options),
    patchNamespacedPodStatus: ({ name, namespace, body }) =>
      write({ method: "PATCH", path: podPath({ name, namespace }, "status"), body, contentType: "application/strategic-merge-patch+json" }),
    patchNamespacedPod: ({ name, namespace, body }) =>
      write({ method: "PATCH", path: podPath({ name, namespace }), body, contentType: "application/merge-patch+json" }),
    createNamespacedEvent: ({ namespace, body }) => write({ method: "POST", path: `${ns(namespace)}/events`, body }),
  };
}
