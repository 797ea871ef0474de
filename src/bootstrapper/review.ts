/**
 * The bootstrapper's admission decision (design 003): Pods on CREATE only; every applicable manipulation, then the
 * markers `rt-bootstrapper.kyma-project.io/modified: "true"` and `…/manipulations: <features>@<config revision>` so
 * housekeeping can tell what a pod got. Fail-open: a pod it cannot read is admitted unchanged, with a warning.
 */
import { type Decision, type Note, allow } from "../webhook/decision.js";
import { decodePod } from "../webhook/objects.js";
import type { AdmissionRequest } from "../webhook/admission-review.js";
import { addAt, withEntries, type PatchOp } from "../webhook/json-patch.js";
import { ANNOTATION_APPLIED, ANNOTATION_MODIFIED, type BootstrapperConfig, type Feature } from "./config.js";
import { fipsOps, landscapeOps } from "./features/environment.js";
import { pullSecretOps } from "./features/pull-secret.js";
import { registryOps } from "./features/registry.js";
import { trustBundleOps } from "./features/trust-bundle.js";
import type { PodView } from "./features/types.js";
import { enabledFeatures } from "./opt-in.js";

const MANIPULATIONS: Record<Feature, (p: PodView, cfg: BootstrapperConfig) => PatchOp[]> = {
  "alter-img-registry": registryOps,
  "add-img-pull-secret": pullSecretOps,
  "add-cluster-trust-bundle": trustBundleOps,
  "set-fips-mode": fipsOps,
  "set-landscape": landscapeOps,
};

/** What a review looks up outside the request: the namespace's annotations (undefined for an unknown namespace). */
export interface BootstrapperLookups {
  namespaceAnnotations(name: string): Readonly<Record<string, string>> | undefined;
}

import { isObject as isObj } from "../util/objects.js";

/** The features a pod should have and those it records having (for housekeeping). */
export function appliedFeatures(annotations: Readonly<Record<string, string>> | undefined): Feature[] {
  const v = annotations?.[ANNOTATION_APPLIED];
  if (!v) return [];
  return v.split("@")[0]!.split(",").filter(Boolean) as Feature[];
}

/**
 * The JSON Patch that applies the enabled manipulations to a pod, and the features that changed something.
 * Manipulations touch different fields, so their ops combine; the markers are added when anything changed.
 */
export function manipulatePod(
  pod: Record<string, unknown>,
  features: readonly Feature[],
  cfg: BootstrapperConfig,
): { ops: PatchOp[]; applied: Feature[] } {
  if (!isObj(pod.spec)) return { ops: [], applied: [] };
  const view = { spec: pod.spec } as PodView;
  const meta = isObj(pod.metadata) ? pod.metadata : {};
  const ops: PatchOp[] = [];
  const applied: Feature[] = [];
  // Two manipulations may both create the same missing array (e.g. `env` for FIPS and landscape): merge those, as a
  // second `add` of the whole array would replace the first.
  const created = new Map<string, unknown[]>();
  for (const f of features) {
    const o = MANIPULATIONS[f](view, cfg);
    if (o.length === 0) continue;
    applied.push(f);
    for (const op of o) {
      const prior = op.op === "add" && Array.isArray(op.value) ? created.get(op.path) : undefined;
      if (prior) {
        prior.push(...(op.value as unknown[]));
        continue;
      }
      if (op.op === "add" && Array.isArray(op.value)) created.set(op.path, (op.value = [...op.value]) as unknown[]);
      ops.push(op);
    }
  }
  if (applied.length === 0) return { ops: [], applied: [] };
  const annotations = withEntries(meta.annotations as Record<string, string> | undefined, {
    [ANNOTATION_MODIFIED]: "true",
    [ANNOTATION_APPLIED]: `${applied.join(",")}@${cfg.revision}`,
  });
  ops.push(addAt(pod, ["metadata", "annotations"], annotations));
  return { ops, applied };
}

/** The `/mutate` decision of the bootstrapper webhook. Never denies. */
export function reviewBootstrap(request: AdmissionRequest, cfg: BootstrapperConfig, lookups: BootstrapperLookups): Decision {
  if (request.kind.kind !== "Pod" || request.operation !== "CREATE" || request.subResource) return allow();
  const decoded = decodePod(request.object);
  if (!decoded.ok) {
    const msg = "pod could not be read; admitted without runtime manipulations";
    return allow([], [msg], [{ level: "warn", msg: `${msg}: ${decoded.error}` }]);
  }
  const pod: Record<string, unknown> = decoded.pod;
  const meta = decoded.pod.metadata ?? {};
  const namespace = request.namespace || "default";
  const features = enabledFeatures(cfg, namespace, lookups.namespaceAnnotations(namespace), meta.annotations ?? undefined);
  if (features.length === 0) return allow();
  const { ops, applied } = manipulatePod(pod, features, cfg);
  const notes: Note[] = applied.length
    ? [{ level: "debug", msg: `pod ${namespace}/${meta.name ?? meta.generateName ?? ""}: ${applied.join(", ")}` }]
    : [];
  return allow(ops, [], notes);
}
