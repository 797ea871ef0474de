/**
 * Environment (`set-fips-mode`, `set-landscape`; reference §4.4-4.5): variables added to every init and regular
 * container. A variable the container already defines is kept as it is (upstream overwrites it).
 */
import type { PatchOp } from "../../webhook/json-patch.js";
import type { BootstrapperConfig } from "../config.js";
import { type PodView, appendOps, containersOf } from "./types.js";

function ensure(pod: PodView, vars: Readonly<Record<string, string>>): PatchOp[] {
  const ops: PatchOp[] = [];
  for (const [path, c] of containersOf(pod, ["initContainers", "containers"])) {
    const env = c.env;
    const missing = Object.entries(vars)
      .filter(([name]) => !(Array.isArray(env) && env.some((e) => e?.name === name)))
      .map(([name, value]) => ({ name, value }));
    ops.push(...appendOps(env, `${path}/env`, missing));
  }
  return ops;
}

/** `set-fips-mode`: JSON Patch ops adding the FIPS variables to every init and regular container lacking them. */
export function fipsOps(pod: PodView, cfg: BootstrapperConfig): PatchOp[] {
  return ensure(pod, cfg.fipsVariables);
}

/** `set-landscape`: JSON Patch ops adding the landscape variable, when one is configured. */
export function landscapeOps(pod: PodView, cfg: BootstrapperConfig): PatchOp[] {
  return cfg.landscape ? ensure(pod, { [cfg.landscape.variable]: cfg.landscape.value }) : [];
}
