/**
 * Create-or-update of cluster objects with optimistic concurrency: the update carries the live resourceVersion and is
 * retried on 409 Conflict; nothing is written when the live object already holds every desired field.
 */
import type { Logger } from "pino";
import { k8s } from "./client.js";

/** True when every field of `desired` is present and equal in `live` (API-server defaults in `live` are ignored). */
export function containsDesired(desired: unknown, live: unknown): boolean {
  if (Array.isArray(desired)) {
    if (!Array.isArray(live) || live.length !== desired.length) return false;
    return desired.every((d, i) => containsDesired(d, live[i]));
  }
  if (typeof desired === "object" && desired !== null) {
    if (typeof live !== "object" || live === null || Array.isArray(live)) return false;
    return Object.entries(desired).every(([k, v]) => containsDesired(v, (live as Record<string, unknown>)[k]));
  }
  return desired === live;
}

function statusCode(err: unknown): number | undefined {
  const e = err as { code?: number; statusCode?: number; body?: unknown };
  return e.code ?? e.statusCode;
}

export type ApplyResult = "created" | "updated" | "unchanged";

/**
 * Makes the live object hold `desired` (cluster-scoped or namespaced; apiVersion, kind and metadata.name required).
 * @param attempts how many create/update rounds before giving up on conflicts
 * @throws Error after `attempts` conflicting rounds, or on any other API error
 */
export async function applyObject(kc: k8s.KubeConfig, desired: k8s.KubernetesObject, log: Logger, attempts = 10): Promise<ApplyResult> {
  const api = k8s.KubernetesObjectApi.makeApiClient(kc);
  const id = `${desired.kind} ${desired.metadata?.namespace ? `${desired.metadata.namespace}/` : ""}${desired.metadata?.name}`;
  for (let i = 0; i < attempts; i++) {
    let live: k8s.KubernetesObject | undefined;
    try {
      live = await api.read(desired as k8s.KubernetesObject & { metadata: { name: string } });
    } catch (err) {
      if (statusCode(err) !== 404) throw err;
    }
    try {
      if (!live) {
        await api.create(desired);
        log.info({ object: id }, "created");
        return "created";
      }
      const { metadata: _m, ...rest } = desired;
      if (containsDesired(rest, live) && containsDesired(desired.metadata?.labels ?? {}, live.metadata?.labels ?? {})) return "unchanged";
      const next = { ...live, ...rest, metadata: { ...live.metadata, labels: { ...live.metadata?.labels, ...desired.metadata?.labels } } };
      await api.replace(next);
      log.info({ object: id }, "updated");
      return "updated";
    } catch (err) {
      const code = statusCode(err);
      if (code === 409 || code === 404) {
        log.debug({ object: id, code }, "conflict; retrying");
        continue;
      }
      throw err;
    }
  }
  throw new Error(`${id}: gave up after ${attempts} conflicting updates`);
}
