/**
 * Kubernetes objects → core resources (apache/yunikorn-k8shim pkg/common/resource.go GetPodResource; yunikorn-shim
 * reference §2.7). `cpu` becomes `vcore` in millicores, every other resource keeps its name as an integer (memory in
 * bytes); both round up, as Kubernetes' Quantity.Value()/MilliValue() do. Only requests count.
 */
import { type Res, add } from "../core/resources.js";

const DECIMAL: Record<string, number> = { "": 0, n: -9, u: -6, m: -3, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };

/**
 * A Kubernetes quantity (`500m`, `1.5Gi`, `2e3`, `128974848`) scaled by 10^scale (3 for millis), rounded up.
 * @throws Error naming the value when it is not a quantity
 */
export function parseK8sQuantity(value: string | number, scale = 0): number {
  if (typeof value === "number") return Math.ceil(value * 10 ** scale);
  const m = /^([+-]?)(\d+\.?\d*|\.\d+)(?:(Ki|Mi|Gi|Ti|Pi|Ei)|([eE][+-]?\d+)|(n|u|m|k|M|G|T|P|E)?)$/.exec(value.trim());
  if (!m) throw new Error(`invalid quantity ${JSON.stringify(value)}`);
  const sign = m[1] === "-" ? -1 : 1;
  const num = Number(m[2]);
  let v: number;
  if (m[3]) v = num * 2 ** BINARY[m[3]]! * 10 ** scale;
  else {
    const exp = m[4] ? Number(m[4].slice(1)) : DECIMAL[m[5] ?? ""]!;
    v = num * 10 ** (exp + scale);
  }
  // Guard against floating-point noise before rounding up (1.1 * 10^3 = 1100.0000000000002).
  const r = Math.round(v);
  return sign * (Math.abs(v - r) < 1e-9 * Math.max(1, Math.abs(v)) ? r : Math.ceil(v));
}

/** A ResourceList (`{cpu: "500m", memory: "1Gi"}`) as core resources. */
export function toCoreResource(list: Readonly<Record<string, string | number>> | undefined): Res {
  const out: Res = {};
  for (const [k, v] of Object.entries(list ?? {})) {
    if (k === "cpu") out.vcore = parseK8sQuantity(v, 3);
    else out[k] = parseK8sQuantity(v);
  }
  return out;
}

/**
 * Core resources as Kubernetes quantities, the inverse of {@link toCoreResource} for messages: `vcore` → `cpu` in
 * cores (`2`) or millicores (`4150m`), `memory` in the largest exact binary unit (`1536Mi`, `2Gi`, else bytes),
 * other types as integers. Order: cpu, memory, then the others by name.
 */
export function k8sQuantities(r: Readonly<Res>): Record<string, string> {
  const out: Record<string, string> = {};
  const rank = (k: string) => (k === "vcore" ? 0 : k === "memory" ? 1 : 2);
  for (const k of Object.keys(r).sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0))) {
    const v = r[k]!;
    if (k === "vcore") out.cpu = v % 1000 === 0 ? String(v / 1000) : `${v}m`;
    else if (k === "memory") {
      const unit = (["Ei", "Pi", "Ti", "Gi", "Mi", "Ki"] as const).find((u) => v !== 0 && v % 2 ** BINARY[u]! === 0);
      out.memory = unit ? `${v / 2 ** BINARY[unit]!}${unit}` : String(v);
    } else out[k] = String(v);
  }
  return out;
}

interface ContainerLike {
  name?: string;
  resources?: { requests?: Record<string, string | number> };
  restartPolicy?: string;
}

/**
 * The pod fields `podResource` reads, loosely typed (quantities as strings or numbers, container names optional) so
 * that test tables can give just those fields; client-node's `V1Pod` and the shim's `PodObject` fit it.
 */
export interface PodLike {
  spec?: {
    containers?: ContainerLike[];
    initContainers?: ContainerLike[];
    overhead?: Record<string, string | number>;
    resources?: { requests?: Record<string, string | number> };
  };
  status?: {
    containerStatuses?: ContainerStatusLike[];
    initContainerStatuses?: ContainerStatusLike[];
    /** `Infeasible`: a requested in-place resize was refused (older field; newer clusters use the condition). */
    resize?: string;
    conditions?: { type?: string; reason?: string }[];
  };
}

/** A container's status as `podResource` reads it (in-place resize, KEP-1287). */
interface ContainerStatusLike {
  name: string;
  /** What the kubelet admitted for the container. */
  allocatedResources?: Record<string, string | number>;
  /** What the container runs with now. */
  resources?: { requests?: Record<string, string | number> };
}

/**
 * True when a requested in-place resize was refused (upstream isResizeInfeasible): `status.resize` `Infeasible`, or
 * a `PodResizePending` condition with reason `Infeasible`.
 */
function resizeInfeasible(pod: PodLike): boolean {
  if (pod.status?.resize === "Infeasible") return true;
  return (pod.status?.conditions ?? []).some((c) => c.type === "PodResizePending" && c.reason === "Infeasible");
}

const max = (a: Res, b: Res): Res => {
  const r: Res = { ...a };
  for (const k in b) r[k] = Math.max(r[k] ?? 0, b[k]!);
  return r;
};

/**
 * The resources a pod asks for: `pods: 1` + regular containers + running sidecars, against the largest init step;
 * pod-level requests override cpu, memory and hugepages; overhead is added. A container (regular or init) counts the largest of
 * its requests, its status's allocated resources and its status's running requests (in-place resize: a resize in
 * progress counts at its larger size); after a refused resize only its running requests (upstream
 * computeContainerResource).
 * @throws Error when a quantity is malformed (the caller rejects the pod with the message)
 */
export function podResource(pod: PodLike): Res {
  const statuses = new Map<string, ContainerStatusLike>();
  for (const st of pod.status?.containerStatuses ?? []) statuses.set(st.name, st);
  for (const st of pod.status?.initContainerStatuses ?? []) statuses.set(st.name, st);
  const infeasible = resizeInfeasible(pod);
  const container = (c: ContainerLike): Res => {
    let r = toCoreResource(c.resources?.requests);
    const st = c.name ? statuses.get(c.name) : undefined;
    if (!st) return r;
    if (infeasible && st.resources) return toCoreResource(st.resources.requests);
    if (st.allocatedResources) r = max(r, toCoreResource(st.allocatedResources));
    if (st.resources) r = max(r, toCoreResource(st.resources.requests));
    return r;
  };
  let res: Res = { pods: 1 };
  for (const c of pod.spec?.containers ?? []) res = add(res, container(c));
  let sidecars: Res = {};
  let initMax: Res = {};
  for (const ic of pod.spec?.initContainers ?? []) {
    const icr = container(ic);
    initMax = max(initMax, add(icr, sidecars));
    if (ic.restartPolicy === "Always") sidecars = add(sidecars, icr);
  }
  res = max(add(res, sidecars), initMax);
  // the pod-level resources Kubernetes supports (k8s.io/component-helpers IsSupportedPodLevelResource, v0.36: cpu,
  // memory, hugepages-*) replace the containers' total
  const podLevel = toCoreResource(pod.spec?.resources?.requests);
  for (const k in podLevel) if (k === "vcore" || k === "memory" || k.startsWith("hugepages-")) res[k] = podLevel[k]!;
  return add(res, toCoreResource(pod.spec?.overhead));
}
