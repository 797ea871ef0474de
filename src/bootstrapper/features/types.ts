/**
 * The read-only view of a Pod the manipulations work on. Manipulations never copy the pod: each returns the JSON Patch
 * ops that make its change (a few small ops rather than whole rewritten arrays, which made the webhook 4× slower).
 */
import type { PatchOp } from "../../webhook/json-patch.js";

/** A container as the features read it from the pod's JSON (other fields kept untouched). */
export interface Container {
  name: string;
  image?: string;
  env?: { name: string; value?: string; valueFrom?: unknown }[];
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean; subPath?: string }[];
  [k: string]: unknown;
}

/** The pod spec lists that hold containers. */
export type ContainerKind = "initContainers" | "containers" | "ephemeralContainers";

/** The pod JSON the features read: its spec's container lists, volumes and pull secrets (rest untouched). */
export interface PodView {
  spec: {
    containers?: Container[];
    initContainers?: Container[];
    ephemeralContainers?: Container[];
    volumes?: { name: string; [k: string]: unknown }[];
    imagePullSecrets?: { name: string }[];
    [k: string]: unknown;
  };
}

/** Each container with the path of its kind and index. */
export function* containersOf(pod: PodView, kinds: readonly ContainerKind[]): Generator<[string, Container]> {
  for (const kind of kinds) {
    const list = pod.spec[kind];
    if (!Array.isArray(list)) continue;
    for (let i = 0; i < list.length; i++) yield [`/spec/${kind}/${i}`, list[i]!];
  }
}

/** Ops appending `items` to the array at `path` (creating it when absent). */
export function appendOps(existing: unknown, path: string, items: unknown[]): PatchOp[] {
  if (items.length === 0) return [];
  if (!Array.isArray(existing)) return [{ op: "add", path, value: items }];
  return items.map((value) => ({ op: "add", path: `${path}/-`, value }));
}
