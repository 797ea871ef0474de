/**
 * Registry rewrite (`alter-img-registry`; kyma-rtbootstrapper reference §4.1, extended to ephemeral containers).
 * An image names a registry when its first path segment contains `.` or `:` or is `localhost`; when that host is an
 * `overrides` key the host is replaced, path, tag and digest kept. Docker Hub short names (`nginx`, `team/app`) have no
 * registry segment and are left alone, unless `matchDockerHub` is on: they then count as `docker.io/library/nginx`,
 * `docker.io/team/app` and a `docker.io` override rewrites them. Idempotent unless a target host is also a source key.
 */
import type { PatchOp } from "../../webhook/json-patch.js";
import type { BootstrapperConfig } from "../config.js";
import { type PodView, containersOf } from "./types.js";

/** The rewritten image, or the same string when no override applies. */
export function rewriteImage(image: string, overrides: Readonly<Record<string, string>>, matchDockerHub: boolean): string {
  const slash = image.indexOf("/");
  const first = slash < 0 ? "" : image.slice(0, slash);
  const hasRegistry = slash > 0 && (first.includes(".") || first.includes(":") || first === "localhost");
  if (hasRegistry) {
    const target = overrides[first];
    return target === undefined ? image : `${target.replace(/\/+$/, "")}/${image.slice(slash + 1)}`;
  }
  if (!matchDockerHub) return image;
  const target = overrides["docker.io"] ?? overrides["index.docker.io"] ?? overrides["registry-1.docker.io"];
  if (target === undefined) return image;
  return `${target.replace(/\/+$/, "")}/${slash < 0 ? `library/${image}` : image}`;
}

/** JSON Patch ops replacing each container image whose registry has an override (module comment). */
export function registryOps(pod: PodView, cfg: BootstrapperConfig): PatchOp[] {
  const ops: PatchOp[] = [];
  for (const [path, c] of containersOf(pod, ["initContainers", "containers", "ephemeralContainers"])) {
    if (typeof c.image !== "string") continue;
    const next = rewriteImage(c.image, cfg.overrides, cfg.matchDockerHub);
    if (next !== c.image) ops.push({ op: "replace", path: `${path}/image`, value: next });
  }
  return ops;
}
