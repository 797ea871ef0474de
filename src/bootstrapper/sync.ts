/**
 * Shared-resource sync (design 003 "a dedicated controller that synchronizes such resources into all … namespaces";
 * kyma-rtbootstrapper reference §7): a pure plan from the source objects, the namespaces and the existing copies to
 * the copies to write and to delete. Copies carry the managed-by label and the source's resourceVersion, so an edited
 * or deleted copy is restored and an unchanged one is not rewritten.
 */
import type { BootstrapperConfig } from "./config.js";

/** Label on every copy, with value {@link MANAGED_BY}. */
export const LABEL_MANAGED_BY = "app.kubernetes.io/managed-by";
/** The managed-by label value of copies. */
export const MANAGED_BY = "corral-bootstrapper";
/** Annotation on a copy naming its source object (`<namespace>/<name>`). */
export const ANNOTATION_SOURCE = "rt-bootstrapper.kyma-project.io/source";

/** A Secret or ConfigMap copy to write (or an existing one, as read). */
export interface SyncObject {
  kind: "Secret" | "ConfigMap";
  metadata: {
    name: string;
    namespace: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    resourceVersion?: string;
  };
  data?: Record<string, string>;
  type?: string;
}

/** The copies to write (create or replace) and the copies to delete. */
export interface SyncPlan {
  apply: SyncObject[];
  delete: { kind: "Secret" | "ConfigMap"; namespace: string; name: string }[];
}

const key = (kind: string, ns: string, name: string) => `${kind}/${ns}/${name}`;

/** The copy of `src` for namespace `ns`. */
export function copyOf(src: SyncObject, ns: string): SyncObject {
  const out: SyncObject = {
    kind: src.kind,
    metadata: {
      name: src.metadata.name,
      namespace: ns,
      labels: { [LABEL_MANAGED_BY]: MANAGED_BY },
      annotations: { [ANNOTATION_SOURCE]: `${src.metadata.namespace}/${src.metadata.name}` },
    },
    data: { ...(src.data ?? {}) },
  };
  if (src.type) out.type = src.type;
  return out;
}

const sameContent = (a: SyncObject, b: SyncObject) =>
  JSON.stringify(a.data ?? {}) === JSON.stringify(b.data ?? {}) &&
  (a.type ?? "") === (b.type ?? "") &&
  a.metadata.labels?.[LABEL_MANAGED_BY] === MANAGED_BY &&
  a.metadata.annotations?.[ANNOTATION_SOURCE] === b.metadata.annotations?.[ANNOTATION_SOURCE];

/**
 * @param sources the configured resources found in the source namespace
 * @param namespaces every namespace with its labels
 * @param copies existing objects with the managed-by label, in any namespace
 */
export function planSync(
  cfg: BootstrapperConfig,
  sources: readonly SyncObject[],
  namespaces: readonly { name: string; labels?: Record<string, string>; terminating?: boolean }[],
  copies: readonly SyncObject[],
): SyncPlan {
  const s = cfg.sync;
  const wanted = new Map<string, SyncObject>();
  const targets = namespaces.filter(
    (n) => n.name !== s.sourceNamespace && !n.terminating && Object.entries(s.namespaceLabels).every(([k, v]) => n.labels?.[k] === v),
  );
  for (const r of s.resources) {
    const src = sources.find((x) => x.kind === r.kind && x.metadata.name === r.name && x.metadata.namespace === s.sourceNamespace);
    if (!src) continue;
    for (const ns of targets) wanted.set(key(r.kind, ns.name, r.name), copyOf(src, ns.name));
  }
  const existing = new Map(copies.map((c) => [key(c.kind, c.metadata.namespace, c.metadata.name), c]));
  const apply = [...wanted.entries()]
    .filter(([k, w]) => {
      const e = existing.get(k);
      return !e || !sameContent(e, w);
    })
    .map(([, w]) => w);
  const del: SyncPlan["delete"] = [];
  for (const [k, c] of existing) {
    if (wanted.has(k) || c.metadata.labels?.[LABEL_MANAGED_BY] !== MANAGED_BY) continue;
    const sourceGone = !sources.some((x) => x.kind === c.kind && x.metadata.name === c.metadata.name);
    const configured = s.resources.some((r) => r.kind === c.kind && r.name === c.metadata.name);
    if ((sourceGone && s.deleteCopiesWithSource) || !configured)
      del.push({ kind: c.kind, namespace: c.metadata.namespace, name: c.metadata.name });
  }
  return {
    apply: apply.sort((a, b) =>
      key(a.kind, a.metadata.namespace, a.metadata.name) < key(b.kind, b.metadata.namespace, b.metadata.name) ? -1 : 1,
    ),
    delete: del,
  };
}
