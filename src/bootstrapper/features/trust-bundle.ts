/**
 * Trust bundle (`add-cluster-trust-bundle`; reference §4.3): a read-only volume with the CA bundle, mounted into every
 * container, init containers included (upstream's docs say so; its code skips them). Source: a ClusterTrustBundle
 * (projected volume) when configured, else a ConfigMap key (works on every cluster). No-op without a source.
 */
import type { BootstrapperConfig } from "../config.js";
import { type PodParts } from "./types.js";

function desiredVolume(cfg: BootstrapperConfig): { name: string; mountPath: string; volume: Record<string, unknown> } | undefined {
  const ctb = cfg.clusterTrustBundle;
  if (ctb) {
    return { name: ctb.volumeName, mountPath: ctb.volumeMountPath, volume: { name: ctb.volumeName, projected: { sources: [{ clusterTrustBundle: { name: ctb.name, path: ctb.certWritePath } }] } } };
  }
  const cm = cfg.trustBundleConfigMap;
  if (cm) {
    return { name: cm.volumeName, mountPath: cm.volumeMountPath, volume: { name: cm.volumeName, configMap: { name: cm.name, items: [{ key: cm.key, path: cm.fileName ?? cm.key }] } } };
  }
  return undefined;
}

export function applyTrustBundle(p: PodParts, cfg: BootstrapperConfig): boolean {
  const d = desiredVolume(cfg);
  if (!d) return false;
  let changed = false;
  const i = p.volumes.findIndex((v) => v.name === d.name);
  if (i < 0) {
    p.volumes.push(d.volume as PodParts["volumes"][number]);
    changed = true;
  } else if (JSON.stringify(p.volumes[i]) !== JSON.stringify(d.volume)) {
    p.volumes[i] = d.volume as PodParts["volumes"][number];
    changed = true;
  }
  for (const c of [...p.initContainers, ...p.containers]) {
    const mounts = (c.volumeMounts ??= []);
    const m = mounts.findIndex((x) => x.name === d.name);
    const want = { name: d.name, mountPath: d.mountPath, readOnly: true };
    if (m < 0) {
      if (mounts.some((x) => x.mountPath === d.mountPath)) continue; // never shadow a mount the user made there
      mounts.push(want);
      changed = true;
    } else if (mounts[m]!.mountPath !== want.mountPath || mounts[m]!.readOnly !== true) {
      mounts[m] = want;
      changed = true;
    }
  }
  return changed;
}
