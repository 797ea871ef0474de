/**
 * Environment (`set-fips-mode`, `set-landscape`; reference §4.4-4.5): variables added to every init and regular
 * container. A variable the container already defines is kept as it is (upstream overwrites it).
 */
import type { BootstrapperConfig } from "../config.js";
import type { PodParts } from "./types.js";

function ensure(p: PodParts, vars: Readonly<Record<string, string>>): boolean {
  let changed = false;
  for (const c of [...p.initContainers, ...p.containers]) {
    const env = (c.env ??= []);
    for (const [name, value] of Object.entries(vars)) {
      if (env.some((e) => e.name === name)) continue;
      env.push({ name, value });
      changed = true;
    }
  }
  return changed;
}

export function applyFips(p: PodParts, cfg: BootstrapperConfig): boolean {
  return ensure(p, cfg.fipsVariables);
}

export function applyLandscape(p: PodParts, cfg: BootstrapperConfig): boolean {
  return cfg.landscape ? ensure(p, { [cfg.landscape.variable]: cfg.landscape.value }) : false;
}
