/**
 * Namespace limits carried by application tags (`namespace.resourcequota`, `namespace.resourceguaranteed`,
 * `namespace.resourcemaxapps`, set by the shim from namespace annotations) onto a dynamic leaf queue when an
 * application is added to it; managed (configured) queues keep their configuration, and the recovery queue takes none
 * (yunikorn-core reference §1.3; upstream partition.go AddApplication). Tag names are matched case-insensitively.
 */
import { tagValue } from "./placement/tag.js";
import { isRecoveryQueue } from "./placement/types.js";
import type { Queue } from "./queue.js";
import type { Res } from "./resources.js";

/** si.Resource JSON (`{"resources":{"memory":{"value":1000}}}`) → Res of its positive values; undefined when none or malformed. */
function siResource(json: string | undefined): Res | undefined {
  if (!json) return undefined;
  try {
    const v = JSON.parse(json) as { resources?: Record<string, { value?: unknown }> };
    const out: Res = {};
    for (const [k, q] of Object.entries(v.resources ?? {})) if (typeof q?.value === "number" && q.value > 0) out[k] = q.value;
    return Object.keys(out).length > 0 ? out : undefined;
  } catch {
    return undefined;
  }
}

/** Applies the tags to a dynamic leaf. @returns true when the queue's max or guaranteed changed */
export function applyNamespaceTags(q: Queue, tags: Record<string, string>): boolean {
  if (q.managed || isRecoveryQueue(q.path)) return false;
  const tag = (name: string) => tagValue(tags, name);
  const before = JSON.stringify([q.max, q.guaranteed]);
  const max = siResource(tag("namespace.resourcequota"));
  if (max) q.max = max;
  const guaranteed = siResource(tag("namespace.resourceguaranteed"));
  if (guaranteed) q.guaranteed = guaranteed;
  const maxApps = Number(tag("namespace.resourcemaxapps"));
  if (Number.isInteger(maxApps) && maxApps > 0) q.maxApps = maxApps;
  return JSON.stringify([q.max, q.guaranteed]) !== before;
}
