/**
 * Trust bundle (`add-cluster-trust-bundle`; reference §4.3): a read-only volume with the CA bundle, mounted into every
 * container, init containers included (upstream's docs say so; its code skips them). Source: a ClusterTrustBundle
 * (projected volume) when configured, else a ConfigMap key (works on every cluster). No-op without a source. A mount
 * the user already has at the same path is never shadowed.
 */
import type { PatchOp } from "../../webhook/json-patch.js";
import type { BootstrapperConfig } from "../config.js";
import { type PodView, appendOps, containersOf } from "./types.js";

function desiredVolume(cfg: BootstrapperConfig): { name: string; mountPath: string; volume: Record<string, unknown> } | undefined {
  const ctb = cfg.clusterTrustBundle;
  if (ctb) {
    return {
      name: ctb.volumeName,
      mountPath: ctb.volumeMountPath,
      volume: { name: ctb.volumeName, projected: { sources: [{ clusterTrustBundle: { name: ctb.name, path: ctb.certWritePath } }] } },
    };
  }
  const cm = cfg.trustBundleConfigMap;
  if (cm) {
    return {
      name: cm.volumeName,
      mountPath: cm.volumeMountPath,
      volume: { name: cm.volumeName, configMap: { name: cm.name, items: [{ key: cm.key, path: cm.fileName ?? cm.key }] } },
    };
  }
  return undefined;
}

/** True when the live volume already is the desired one (API-server defaults such as defaultMode ignored). */
function sameVolume(live: Record<string, unknown>, want: Record<string, unknown>): boolean {
  const src = Object.keys(want).find((k) => k !== "name")!;
  const a = live[src] as Record<string, unknown> | undefined;
  const b = want[src] as Record<string, unknown>;
  if (!a) return false;
  return Object.keys(b).every((k) => JSON.stringify(a[k]) === JSON.stringify(b[k]));
}

/** JSON Patch ops adding the trust bundle volume and its mounts (none when already there as desired). */
export function trustBundleOps(pod: PodView, cfg: BootstrapperConfig): PatchOp[] {
  const d = desiredVolume(cfg);
  if (!d) return [];
  const ops: PatchOp[] = [];
  const volumes = pod.spec.volumes;
  const i = Array.isArray(volumes) ? volumes.findIndex((v) => v?.name === d.name) : -1;
  if (i < 0) ops.push(...appendOps(volumes, "/spec/volumes", [d.volume]));
  else if (!sameVolume(volumes![i]!, d.volume)) ops.push({ op: "replace", path: `/spec/volumes/${i}`, value: d.volume });
  const want = { name: d.name, mountPath: d.mountPath, readOnly: true };
  for (const [path, c] of containersOf(pod, ["initContainers", "containers"])) {
    const mounts = c.volumeMounts;
    const m = Array.isArray(mounts) ? mounts.findIndex((x) => x?.name === d.name) : -1;
    if (m < 0) {
      if (Array.isArray(mounts) && mounts.some((x) => x?.mountPath === d.mountPath)) continue;
      ops.push(...appendOps(mounts, `${path}/volumeMounts`, [want]));
    } else if (mounts![m]!.mountPath !== want.mountPath || mounts![m]!.readOnly !== true) {
      ops.push({ op: "replace", path: `${path}/volumeMounts/${m}`, value: want });
    }
  }
  return ops;
}
