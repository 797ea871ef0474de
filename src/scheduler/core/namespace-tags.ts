/**
 * Namespace limits carried by application tags (`namespace.resourcequota`, `namespace.resourceguaranteed`,
 * `namespace.resourcemaxapps`, set by the shim from namespace annotations) onto a dynamic leaf queue when an
 * application is added to it; managed (configured) queues keep their configuration, and the recovery queue takes none
 * (yunikorn-core reference §1.3; upstream partition.go AddApplication). Tag names are matched case-insensitively.
 *
 * Unlike upstream, an application does not set the limits of a queue that belongs to another namespace: a dynamic
 * leaf named after a namespace (what a `tag` rule on `namespace` creates) takes only that namespace's tags; any other
 * dynamic leaf takes the tags of the namespace of the first application added to it. Upstream re-applies the tags of
 * every application added, so a tenant whose namespace has a large quota could name another namespace's queue (with a
 * `provided` rule before the `tag` rule) and raise that queue's limits for everyone in it.
 */
import { tagValue } from "./placement/tag.js";
import { isRecoveryQueue } from "./placement/types.js";
import type { Queue } from "./queue.js";
import type { Res } from "./resources.js";

/**
 * si.Resource JSON (`{"resources":{"memory":{"value":1000}}}`; a quantity without `value` is 0, as Go reads an
 * omitted int64) → Res, zeros kept (a max of vcore 0 allows none); undefined when malformed, when a value is below 0
 * or when every value is 0 (upstream application.go getResourceFromTags: `StrictlyGreaterThanZero`).
 */
function siResource(json: string | undefined): Res | undefined {
  if (!json) return undefined;
  try {
    const v = JSON.parse(json) as { resources?: Record<string, { value?: unknown } | null> };
    const out: Res = {};
    for (const [k, q] of Object.entries(v.resources ?? {})) {
      const value = q?.value ?? 0;
      if (typeof value !== "number" || !Number.isFinite(value) || value < 0) return undefined;
      out[k] = value;
    }
    return Object.values(out).some((x) => x > 0) ? out : undefined;
  } catch {
    return undefined;
  }
}

/** Applies the tags to a dynamic leaf. @returns true when the queue's max or guaranteed changed */
export function applyNamespaceTags(q: Queue, tags: Readonly<Record<string, string>>): boolean {
  if (q.managed || isRecoveryQueue(q.path)) return false;
  const tag = (name: string) => tagValue(tags, name);
  const namespace = tag("namespace");
  const owner = namespaceTagsOwner(q.name, q.namespaceTagsFrom, namespace);
  if (owner !== namespace) return false;
  const before = JSON.stringify([q.max, q.guaranteed]);
  if (q.namespaceTagsFrom !== undefined && q.namespaceTagsFrom !== owner) {
    // the queue's own namespace takes it over: nothing of the previous namespace's limits stays
    const t = q.parent?.template;
    q.max = t?.max;
    q.guaranteed = t?.guaranteed;
    q.maxApps = t?.maxApps ?? 0;
  }
  q.namespaceTagsFrom = owner;
  const max = siResource(tag("namespace.resourcequota"));
  if (max) q.max = max;
  const guaranteed = siResource(tag("namespace.resourceguaranteed"));
  if (guaranteed) q.guaranteed = guaranteed;
  const maxApps = Number(tag("namespace.resourcemaxapps"));
  if (Number.isInteger(maxApps) && maxApps > 0) q.maxApps = maxApps;
  return JSON.stringify([q.max, q.guaranteed]) !== before;
}

/**
 * Which namespace's tags a dynamic leaf takes: the namespace it is named after (leaf names are compared
 * case-insensitively, as queue names), else the one that set it first, else the candidate.
 * @param queueName the leaf's own name (last part of its path)
 * @param current the namespace whose tags it has now, if any
 * @param candidate the namespace of the application being added
 */
export function namespaceTagsOwner(queueName: string, current: string | undefined, candidate: string): string {
  if (queueName.toLowerCase() === candidate.toLowerCase()) return candidate;
  if (current !== undefined && queueName.toLowerCase() === current.toLowerCase()) return current;
  return current ?? candidate;
}
