/**
 * Node predicates the core asks the shim about before placing a pod on a node (YuniKorn's `Predicates` callback,
 * yunikorn-shim reference §2.12, which runs kube-scheduler's filter plugins). Pure. Implemented here, with the
 * semantics of kube-scheduler's plugins of the same names:
 *
 * - NodeName: `spec.nodeName` is handled by the shim (a bound pod is an allocation, never an ask);
 * - NodeSelector / NodeAffinity: `spec.nodeSelector` (every pair must match a label) and
 *   `affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution` (any term; within a term every
 *   `matchExpressions` entry on labels and every `matchFields` entry on `metadata.name`; operators In, NotIn, Exists,
 *   DoesNotExist, Gt, Lt);
 * - TaintToleration: every `NoSchedule` / `NoExecute` taint of the node must be tolerated (`PreferNoSchedule` is a
 *   preference, not a filter).
 *
 * Not evaluated (kube-scheduler's plugins in plugin mode do): host ports, volumes and volume zones, inter-pod
 * affinity and topology spread.
 */

export interface Taint {
  key: string;
  value?: string;
  effect: string;
}

/** A pod toleration (`spec.tolerations[]`, the fields of client-node `V1Toleration` the predicates read). */
export interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
}

/**
 * One requirement of a node selector term (client-node `V1NodeSelectorRequirement`): key, operator (`In`, `NotIn`,
 * `Exists`, `DoesNotExist`, `Gt`, `Lt`), values.
 */
export interface NodeSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

/** A term of required node affinity (client-node `V1NodeSelectorTerm`): its expressions are ANDed; terms are ORed. */
export interface NodeSelectorTerm {
  matchExpressions?: NodeSelectorRequirement[];
  matchFields?: NodeSelectorRequirement[];
}

/** What the predicates read of a Node. */
export interface NodeView {
  name: string;
  labels: Record<string, string>;
  taints: Taint[];
}

/** What the predicates read of a pod's spec. */
export interface PodConstraints {
  nodeSelector?: Record<string, string>;
  affinity?: { nodeAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms?: NodeSelectorTerm[] } } };
  tolerations?: Toleration[];
}

/** Does a toleration tolerate a taint (k8s.io/api core/v1 Toleration.ToleratesTaint)? */
export function tolerates(t: Toleration, taint: Taint): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if (t.key && t.key !== taint.key) return false;
  if (t.operator === "Exists") return true;
  // operator Equal (default): an empty key with Equal is invalid in the API, treated as no match
  return Boolean(t.key) && (t.value ?? "") === (taint.value ?? "");
}

function requirementMatches(r: NodeSelectorRequirement, value: string | undefined): boolean {
  const values = r.values ?? [];
  switch (r.operator) {
    case "In":
      return value !== undefined && values.includes(value);
    case "NotIn":
      return value === undefined || !values.includes(value);
    case "Exists":
      return value !== undefined;
    case "DoesNotExist":
      return value === undefined;
    case "Gt":
    case "Lt": {
      if (value === undefined || values.length !== 1) return false;
      const a = Number.parseInt(value, 10);
      const b = Number.parseInt(values[0]!, 10);
      if (!Number.isFinite(a) || !Number.isFinite(b)) return false;
      return r.operator === "Gt" ? a > b : a < b;
    }
    default:
      return false;
  }
}

function termMatches(term: NodeSelectorTerm, node: NodeView): boolean {
  const exprs = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  // an empty term matches nothing (kube-scheduler: nodeSelectorTerms with no requirements select no node)
  if (exprs.length === 0 && fields.length === 0) return false;
  for (const r of exprs) if (!requirementMatches(r, node.labels[r.key])) return false;
  for (const r of fields) if (!requirementMatches(r, r.key === "metadata.name" ? node.name : undefined)) return false;
  return true;
}

/**
 * Why the pod cannot go to the node, or undefined when it can.
 * @returns a kube-scheduler-style reason: `node(s) didn't match node selector`, `node(s) didn't match node affinity`,
 *   `node(s) had taint {key: value}, that the pod didn't tolerate`
 */
export function nodeRejection(pod: PodConstraints, node: NodeView): string | undefined {
  for (const [k, v] of Object.entries(pod.nodeSelector ?? {})) if (node.labels[k] !== v) return "node(s) didn't match node selector";
  const terms = pod.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  if (terms && !terms.some((t) => termMatches(t, node))) return "node(s) didn't match node affinity";
  for (const taint of node.taints) {
    if (taint.effect !== "NoSchedule" && taint.effect !== "NoExecute") continue;
    if (!(pod.tolerations ?? []).some((t) => tolerates(t, taint)))
      return `node(s) had taint {${taint.key}: ${taint.value ?? ""}}, that the pod didn't tolerate`;
  }
  return undefined;
}
