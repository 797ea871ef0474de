/** Image pull secret (`add-img-pull-secret`; reference §4.2): add the configured Secret to imagePullSecrets if absent. */
import type { PatchOp } from "../../webhook/json-patch.js";
import type { BootstrapperConfig } from "../config.js";
import { type PodView, appendOps } from "./types.js";

/** JSON Patch ops adding the configured pull secret (none when the pod already lists it). */
export function pullSecretOps(pod: PodView, cfg: BootstrapperConfig): PatchOp[] {
  const list = pod.spec.imagePullSecrets;
  if (Array.isArray(list) && list.some((s) => s?.name === cfg.imagePullSecretName)) return [];
  return appendOps(list, "/spec/imagePullSecrets", [{ name: cfg.imagePullSecretName }]);
}
