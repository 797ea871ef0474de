/**
 * The kube-scheduler extender wire format and the binding outcome rule (yunikorn-shim reference §5.1, §2.12). Pure:
 * the process reads bodies and makes the calls, these functions decide.
 */
import type { ExtenderFilterResult } from "./context.js";
import type { PodObject } from "./translate.js";

type NodeList = { items?: { metadata?: { name?: string } }[] };

/** `ExtenderArgs` (Go field names, no JSON tags): `NodeNames` when nodeCacheCapable, else `Nodes`. */
export interface ExtenderArgs {
  Pod: PodObject & { metadata: { uid: string } };
  Nodes: NodeList | null;
  NodeNames: string[] | null;
}

/**
 * Decodes a `filter` request body.
 * @returns the args and candidate node names, or an error naming what is wrong (not JSON, no `Pod.metadata.uid`)
 */
export function parseFilterArgs(text: string): { ok: true; args: ExtenderArgs; candidates: string[] } | { ok: false; error: string } {
  let v: { Pod?: PodObject; NodeNames?: string[] | null; Nodes?: NodeList | null };
  try {
    v = JSON.parse(text);
  } catch (err) {
    return { ok: false, error: `ExtenderArgs is not JSON: ${(err as Error).message}` };
  }
  if (!v || typeof v !== "object" || !v.Pod?.metadata?.uid) return { ok: false, error: "ExtenderArgs.Pod with metadata.uid is required" };
  const args = { Pod: v.Pod as ExtenderArgs["Pod"], Nodes: v.Nodes ?? null, NodeNames: v.NodeNames ?? null };
  return { ok: true, args, candidates: args.NodeNames ?? (args.Nodes?.items ?? []).map((n) => n.metadata?.name ?? "") };
}

/** `ExtenderBindingArgs`: the pod kube-scheduler asks the extender to bind, and the node. */
export interface ExtenderBindingArgs {
  PodName: string;
  PodNamespace: string;
  PodUID: string;
  Node: string;
}

/**
 * Decodes a `bind` request body.
 * @returns the args, or an error naming what is wrong (not JSON, a missing PodName, PodNamespace, PodUID or Node)
 */
export function parseBindArgs(text: string): { ok: true; args: ExtenderBindingArgs } | { ok: false; error: string } {
  let v: Partial<ExtenderBindingArgs> | null;
  try {
    v = JSON.parse(text);
  } catch (err) {
    return { ok: false, error: `ExtenderBindingArgs is not JSON: ${(err as Error).message}` };
  }
  if (!v?.PodName || !v.PodNamespace || !v.PodUID || !v.Node)
    return { ok: false, error: "ExtenderBindingArgs needs PodName, PodNamespace, PodUID and Node" };
  return { ok: true, args: { PodName: v.PodName, PodNamespace: v.PodNamespace, PodUID: v.PodUID, Node: v.Node } };
}

/**
 * The `filter` answer in the form it was asked: `NodeNames` for nodeCacheCapable, else the kept `Nodes` objects
 * (answering `Nodes` to a NodeNames request would filter out every node).
 */
export function filterReply(args: ExtenderArgs, result: ExtenderFilterResult): Record<string, unknown> {
  if (args.NodeNames || !args.Nodes) return { ...result };
  const keep = new Set(result.NodeNames);
  return { ...result, Nodes: { items: (args.Nodes.items ?? []).filter((n) => keep.has(n.metadata?.name ?? "")) }, NodeNames: null };
}

/**
 * What a failed `pods/binding` call means:
 * `gone` (404: the pod was deleted), `bound` (409 and the pod is already on this node: an earlier attempt whose answer
 * was lost), `fatal` (409 elsewhere, other 4xx except 429: retrying cannot help), `retry` (429, 5xx, network).
 * @param status HTTP status, undefined for a network error
 * @param liveNode `spec.nodeName` of the pod in the informer cache
 */
export function bindErrorOutcome(
  status: number | undefined,
  liveNode: string | undefined,
  node: string,
): "gone" | "bound" | "fatal" | "retry" {
  if (status === 404) return "gone";
  if (status === 409) return liveNode === node ? "bound" : "fatal";
  if (status !== undefined && status >= 400 && status < 500 && status !== 429) return "fatal";
  return "retry";
}
