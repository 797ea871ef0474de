/**
 * Which manipulations apply to a pod (design 003 "Pods are processed only if…"; kyma-rtbootstrapper reference §3.1).
 *
 * Precedence, first match wins per feature:
 *   1. the config lists the feature as mandatory for the pod's namespace (`namespaceFeatures`, `all` = every available
 *      feature) → applied; the platform's list cannot be opted out of;
 *   2. the pod annotation `rt-cfg.kyma-project.io/<feature>` (or `…/all`): exactly "true" → applied, exactly "false" →
 *      explicit opt-out, beating the namespace annotation;
 *   3. the namespace annotation, same keys: "true" → applied.
 * Only features in `availableFeatures` can be opted into by annotation. Namespace annotations come from an informer
 * cache, passed in by the caller.
 */
import { ALL_ALIAS, type BootstrapperConfig, FEATURES, FEATURE_PREFIX, type Feature } from "./config.js";

type Ann = Readonly<Record<string, string>> | undefined;

function flag(ann: Ann, f: Feature): boolean | undefined {
  const v = ann?.[FEATURE_PREFIX + f];
  if (v === "true") return true;
  if (v === "false") return false;
  if (ann?.[ALL_ALIAS] === "true") return true;
  return undefined;
}

/** The features to apply, in the fixed order of FEATURES. */
export function enabledFeatures(cfg: BootstrapperConfig, namespace: string, nsAnnotations: Ann, podAnnotations: Ann): Feature[] {
  const mandatory = cfg.namespaceFeatures[namespace] ?? [];
  const available = new Set(cfg.availableFeatures);
  return FEATURES.filter((f) => {
    const key = FEATURE_PREFIX + f;
    if (mandatory.includes(key) || (mandatory.includes(ALL_ALIAS) && available.has(key))) return true;
    if (!available.has(key)) return false;
    const pod = flag(podAnnotations, f);
    if (pod !== undefined) return pod;
    return flag(nsAnnotations, f) === true;
  });
}
