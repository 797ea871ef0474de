/**
 * Create-or-update of cluster objects with optimistic concurrency: the update carries the live resourceVersion and is
 * retried on 409 Conflict; nothing is written when the live object already holds every desired field.
 */
import type { Logger } from "pino";
import { k8s, statusCode } from "./client.js";

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

/** What an apply did to the object: created it, changed it, or found it as desired. */
export type ApplyResult = "created" | "updated" | "unchanged";

/** One object client per KubeConfig: its API discovery cache then serves every call instead of one lookup each. */
const objectApis = new WeakMap<k8s.KubeConfig, k8s.KubernetesObjectApi>();

/**
 * Makes the live object hold `desired` (cluster-scoped or namespaced; apiVersion, kind and metadata.name required):
 * labels and annotations are merged into the live ones, every other desired field replaces the live one.
 * @param attempts how many create/update rounds before giving up on conflicts
 * @throws Error after `attempts` conflicting rounds, or on any other API error
 */
export async function applyObject(kc: k8s.KubeConfig, desired: k8s.KubernetesObject, log: Logger, attempts = 10): Promise<ApplyResult> {
  let api = objectApis.get(kc);
  if (!api) {
    api = k8s.KubernetesObjectApi.makeApiClient(kc);
    objectApis.set(kc, api);
  }
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
      // labels and annotations are merged (others' keys kept), everything else is replaced
      const { metadata: _m, ...rest } = desired;
      const labels = desired.metadata?.labels ?? {};
      const annotations = desired.metadata?.annotations ?? {};
      if (
        containsDesired(rest, live) &&
        containsDesired(labels, live.metadata?.labels ?? {}) &&
        containsDesired(annotations, live.metadata?.annotations ?? {})
      )
        return "unchanged";
      const next = {
        ...live,
        ...rest,
        metadata: {
          ...live.metadata,
          labels: { ...live.metadata?.labels, ...labels },
          annotations: { ...live.metadata?.annotations, ...annotations },
        },
      };
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
