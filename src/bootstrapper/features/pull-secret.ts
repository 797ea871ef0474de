/** Image pull secret (`add-img-pull-secret`; reference §4.2): add the configured Secret to imagePullSecrets if absent. */
import type { BootstrapperConfig } from "../config.js";
import type { PodParts } from "./types.js";

export function applyPullSecret(p: PodParts, cfg: BootstrapperConfig): boolean {
  if (p.imagePullSecrets.some((s) => s.name === cfg.imagePullSecretName)) return false;
  p.imagePullSecrets.push({ name: cfg.imagePullSecretName });
  return true;
}
