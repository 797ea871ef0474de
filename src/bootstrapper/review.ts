/**
 * The bootstrapper's admission decision (design 003): Pods on CREATE only; every applicable manipulation, then the
 * markers `rt-bootstrapper.kyma-project.io/modified: "true"` and `…/manipulations: <features>@<config revision>` so
 * housekeeping can tell what a pod got. Fail-open: a pod it cannot read is admitted unchanged, with a warning.
 */
import { type Decision, type Note, allow } from "../admission/decision.js";
import type { AdmissionRequest } from "../server/admission-review.js";
import { addAt, withEntries, type PatchOp } from "../util/json-patch.js";
import { ANNOTATION_APPLIED, ANNOTATION_MODIFIED, type BootstrapperConfig, type Feature } from "./config.js";
import { applyFips, applyLandscape } from "./features/environment.js";
import { applyPullSecret } from "./features/pull-secret.js";
import { applyRegistry } from "./features/registry.js";
import { applyTrustBundle } from "./features/trust-bundle.js";
import type { Container, PodParts } from "./features/types.js";
import { enabledFeatures } from "./opt-in.js";

const MANIPULATIONS: Record<Feature, (p: PodParts, cfg: BootstrapperConfig) => boolean> = {
  "alter-img-registry": applyRegistry,
  "add-img-pull-secret": applyPullSecret,
  "add-cluster-trust-bundle": applyTrustBundle,
  "set-fips-mode": applyFips,
  "set-landscape": applyLandscape,
};

export interface BootstrapperLookups {
  namespaceAnnotations(name: string): Readonly<Record<string, string>> | undefined;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const arr = <T>(v: unknown): T[] | undefined => (Array.isArray(v) ? (structuredClone(v) as T[]) : undefined);

/** The features a pod should have and those it records having (for housekeeping). */
export function appliedFeatures(annotations: Readonly<Record<string, string>> | undefined): Feature[] {
  const v = annotations?.[ANNOTATION_APPLIED];
  if (!v) return [];
  return v.split("@")[0]!.split(",").filter(Boolean) as Feature[];
}

/** Applies the enabled manipulations to a pod object; returns the JSON Patch ops and the features that changed it. */
export function manipulatePod(pod: Record<string, unknown>, features: readonly Feature[], cfg: BootstrapperConfig): { ops: PatchOp[]; applied: Feature[] } {
  const spec = isObj(pod.spec) ? pod.spec : {};
  const meta = isObj(pod.metadata) ? pod.metadata : {};
  const parts: PodParts = {
    containers: arr<Container>(spec.containers) ?? [],
    initContainers: arr<Container>(spec.initContainers) ?? [],
    ephemeralContainers: arr<Container>(spec.ephemeralContainers) ?? [],
    volumes: arr(spec.volumes) ?? [],
    imagePullSecrets: arr(spec.imagePullSecrets) ?? [],
  };
  const before = JSON.stringify(parts);
  const applied = features.filter((f) => MANIPULATIONS[f](parts, cfg));
  if (applied.length === 0 || JSON.stringify(parts) === before) return { ops: [], applied: [] };
  const ops: PatchOp[] = [];
  for (const key of ["containers", "initContainers", "ephemeralContainers", "volumes", "imagePullSecrets"] as const) {
    const original = spec[key];
    const next = parts[key];
    if (JSON.stringify(original ?? []) !== JSON.stringify(next) && (next.length > 0 || original !== undefined)) ops.push(addAt(pod, ["spec", key], next));
  }
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
  const pod = request.object;
  if (!isObj(pod) || (pod.metadata !== undefined && !isObj(pod.metadata)) || (pod.spec !== undefined && !isObj(pod.spec))) {
    const msg = "pod could not be read; admitted without runtime manipulations";
    return allow([], [msg], [{ level: "warn", msg }]);
  }
  const meta = (pod.metadata ?? {}) as { annotations?: Record<string, string>; name?: string; generateName?: string };
  const namespace = request.namespace || "default";
  const features = enabledFeatures(cfg, namespace, lookups.namespaceAnnotations(namespace), isObj(meta.annotations) ? meta.annotations : undefined);
  if (features.length === 0) return allow();
  const { ops, applied } = manipulatePod(pod, features, cfg);
  const notes: Note[] = applied.length ? [{ level: "debug", msg: `pod ${namespace}/${meta.name ?? meta.generateName ?? ""}: ${applied.join(", ")}` }] : [];
  return allow(ops, [], notes);
}
