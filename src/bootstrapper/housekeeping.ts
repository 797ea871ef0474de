/**
 * Housekeeping (design 003 "a housekeeping process… regularly scans all Pods for any missing manipulations"): a pure
 * plan over the pods in scope. A pod is missing a manipulation when applying the features it should have would still
 * change it (so pods created while the webhook was down are found, and pods the webhook handled are not).
 * Pods owned by a controller are evicted (the controller recreates them through the webhook), one owner at a time;
 * bare pods are never deleted, only reported.
 */
import type { V1Pod } from "@kubernetes/client-node";
import type { BootstrapperConfig } from "./config.js";
import { enabledFeatures } from "./opt-in.js";
import { manipulatePod } from "./review.js";
import type { Feature } from "./config.js";

/** A pod missing manipulations: where it is, its controller (`<ns>/<kind>/<name>`, none for a bare pod), what it lacks. */
export interface PodMissingFeatures {
  namespace: string;
  name: string;
  owner?: string;
  missing: Feature[];
}

/** What housekeeping does next (see {@link planHousekeeping}). */
export interface HousekeepingPlan {
  scanned: number;
  missing: PodMissingFeatures[];
  /** Controller-owned pods to evict, at most one per owner, in a stable order. */
  evict: PodMissingFeatures[];
  /** Bare pods: reported with an Event, never deleted. */
  bare: PodMissingFeatures[];
}

/**
 * The housekeeping plan over the informer's pods (module comment): terminating and finished pods are skipped, a pod
 * counts as scanned when any feature applies to it, and as missing when applying its features would change it.
 * @param nsAnnotations the namespace's annotations (opt-in and opt-out), undefined for an unknown namespace
 */
export function planHousekeeping(
  pods: readonly V1Pod[],
  cfg: BootstrapperConfig,
  nsAnnotations: (ns: string) => Readonly<Record<string, string>> | undefined,
): HousekeepingPlan {
  const missing: PodMissingFeatures[] = [];
  let scanned = 0;
  for (const pod of pods) {
    const ns = pod.metadata?.namespace ?? "default";
    if (pod.metadata?.deletionTimestamp || pod.status?.phase === "Succeeded" || pod.status?.phase === "Failed") continue;
    const features = enabledFeatures(cfg, ns, nsAnnotations(ns), pod.metadata?.annotations);
    if (features.length === 0) continue;
    scanned++;
    const { applied } = manipulatePod(pod as Record<string, unknown>, features, cfg);
    if (applied.length === 0) continue;
    const owner = pod.metadata?.ownerReferences?.find((o) => o.controller);
    missing.push({
      namespace: ns,
      name: pod.metadata?.name ?? "",
      owner: owner ? `${ns}/${owner.kind}/${owner.name}` : undefined,
      missing: applied,
    });
  }
  missing.sort((a, b) => (a.namespace + "/" + a.name < b.namespace + "/" + b.name ? -1 : 1));
  const seenOwners = new Set<string>();
  const evict: PodMissingFeatures[] = [];
  for (const p of missing) {
    if (!p.owner || seenOwners.has(p.owner)) continue;
    seenOwners.add(p.owner);
    evict.push(p);
  }
  return { scanned, missing, evict, bare: missing.filter((p) => !p.owner) };
}
