/**
 * What the preemption decision reads: a read-only view of the queue tree, the running allocations and the nodes.
 * The core implements it over its live objects (nodes and allocations handed out lazily, so the search stops early
 * without touching every node); `snapshotOf` builds one from plain data for tests, the simulator and the benchmark.
 * Resources are sparse maps (../resources.ts: memory in bytes, vcore in millicores); times are milliseconds since the
 * epoch. Upstream counterpart: the queue, application, allocation and node objects preemption.go reads.
 */
import type { Res } from "../resources.js";
import type { PreemptionPolicy, PriorityPolicy } from "../queue-properties.js";

/** One queue as preemption sees it. */
export interface PreemptionQueue {
  /** Fully qualified, lower-case: `root.a.b`. */
  readonly path: string;
  /** Parent path; undefined for root. */
  readonly parent?: string;
  readonly isLeaf: boolean;
  /** Configured (true) or created by placement (false); quota-change preemption skips dynamic queues. */
  readonly managed: boolean;
  /** Unset (undefined) when not configured or not strictly positive, as upstream. */
  readonly guaranteed?: Readonly<Res>;
  /** The queue's own max; unset = no limit of its own. For root: the cluster size. */
  readonly max?: Readonly<Res>;
  /** Usage, all allocations below the queue included. */
  readonly allocated: Readonly<Res>;
  /** Usage already chosen for preemption (victims being released). */
  readonly preempting?: Readonly<Res>;
  readonly preemptionPolicy: PreemptionPolicy;
  readonly priorityPolicy: PriorityPolicy;
  readonly priorityOffset: number;
  /** Leaf queues: how long an ask waits before it may preempt. */
  readonly preemptionDelayMs: number;
  /** 0 = no quota-change preemption. */
  readonly quotaPreemptionDelayMs?: number;
}

/** A running allocation (a bound pod or a placeholder) that might be a victim. */
export interface PreemptionAllocation {
  readonly key: string;
  readonly applicationId: string;
  /** Leaf queue of its application. */
  readonly queuePath: string;
  readonly nodeId: string;
  readonly priority: number;
  /** Creation time of the pod (the allocation's `creationTime` tag), ms. */
  readonly createTime: number;
  readonly resource: Readonly<Res>;
  /** `yunikorn.apache.org/allow-preemption` (pod or PriorityClass): false = opted out, chosen last. */
  readonly allowPreemption: boolean;
  /** The application's originator (driver) pod: chosen after every other. */
  readonly originator: boolean;
  /** A gang placeholder: counts as a pod of its application. */
  readonly placeholder: boolean;
  /** Bound to a required node (a DaemonSet pod): never a victim here. */
  readonly requiredNode?: boolean;
  /** Already being preempted or released: never chosen again. */
  readonly preempted?: boolean;
  readonly released?: boolean;
}

/** A node's reservation by an ask (reservations.go). */
export interface PreemptionReservation {
  readonly askKey: string;
  readonly applicationId: string;
  readonly priority: number;
  /** Creation time of the reserving ask, ms. */
  readonly createTime: number;
  readonly requiredNode?: boolean;
  readonly triggeredPreemption?: boolean;
}

export interface PreemptionNode {
  readonly id: string;
  readonly capacity: Readonly<Res>;
  /** Capacity minus allocations (and occupied resources). */
  readonly available: Readonly<Res>;
  readonly schedulable: boolean;
  readonly reservations?: readonly PreemptionReservation[];
  readonly allocations: readonly PreemptionAllocation[];
  /**
   * The same allocations in victim order (victims.ts `compareVictims`) when the snapshot keeps them sorted between
   * decisions (the core's live nodes, while the node is unchanged); undefined: the node search sorts the candidates.
   */
  readonly allocationsInVictimOrder?: readonly PreemptionAllocation[];
}

/** The read-only view the decision functions take. */
export interface PreemptionSnapshot {
  queue(path: string): PreemptionQueue | undefined;
  /** Direct children of a queue. */
  children(path: string): Iterable<PreemptionQueue>;
  /** Running allocations of a leaf queue's applications. */
  allocations(leafPath: string): Iterable<PreemptionAllocation>;
  /** Nodes in the order they should be tried (the core's full node order); read lazily. */
  nodes(): Iterable<PreemptionNode>;
}

/** Plain data for `snapshotOf`. Allocations are taken from the nodes. */
export interface SnapshotData {
  queues: readonly PreemptionQueue[];
  nodes: readonly PreemptionNode[];
}

/** A snapshot over plain data (tests, simulator, benchmark). Nodes are tried in the order given. */
export function snapshotOf(data: SnapshotData): PreemptionSnapshot {
  const byPath = new Map<string, PreemptionQueue>();
  const kids = new Map<string, PreemptionQueue[]>();
  for (const q of data.queues) {
    byPath.set(q.path, q);
    if (q.parent !== undefined) {
      const list = kids.get(q.parent) ?? [];
      list.push(q);
      kids.set(q.parent, list);
    }
  }
  const allocs = new Map<string, PreemptionAllocation[]>();
  for (const n of data.nodes) {
    for (const a of n.allocations) {
      const list = allocs.get(a.queuePath) ?? [];
      list.push(a);
      allocs.set(a.queuePath, list);
    }
  }
  return {
    queue: (p) => byPath.get(p),
    children: (p) => kids.get(p) ?? [],
    allocations: (p) => allocs.get(p) ?? [],
    nodes: () => data.nodes,
  };
}

/** A queue for `clusterSnapshot`: usage, leaf flag and parent are derived. */
export interface QueueSpec {
  readonly path: string;
  readonly guaranteed?: Readonly<Res>;
  readonly max?: Readonly<Res>;
  readonly managed?: boolean;
  readonly parentQueue?: boolean;
  readonly preemptionPolicy?: PreemptionPolicy;
  readonly priorityPolicy?: PriorityPolicy;
  readonly priorityOffset?: number;
  readonly preemptionDelayMs?: number;
  readonly quotaPreemptionDelayMs?: number;
  readonly preempting?: Readonly<Res>;
}

export interface NodeSpec {
  readonly id: string;
  readonly capacity: Readonly<Res>;
  readonly schedulable?: boolean;
  readonly reservations?: readonly PreemptionReservation[];
}

/**
 * A consistent snapshot from queues, nodes and allocations: queue usage is the sum of the allocations below it, a
 * node's available resources its capacity minus its allocations, root's max the sum of node capacities; queues
 * missing between root and a listed queue are added. Defaults: managed, policies `default`, offset 0, delay 30 s.
 * @throws Error naming an allocation whose queue or node is unknown
 */
export function clusterSnapshot(spec: {
  queues: readonly QueueSpec[];
  nodes: readonly NodeSpec[];
  allocations: readonly PreemptionAllocation[];
}): PreemptionSnapshot {
  const specs = new Map<string, QueueSpec>();
  for (const q of spec.queues) {
    const parts = q.path.split(".");
    for (let i = 1; i < parts.length; i++) {
      const p = parts.slice(0, i).join(".");
      if (!specs.has(p)) specs.set(p, { path: p, parentQueue: true });
    }
    specs.set(q.path, { ...specs.get(q.path), ...q });
  }
  if (!specs.has("root")) specs.set("root", { path: "root", parentQueue: true });
  const hasChild = new Set<string>();
  for (const p of specs.keys()) if (p.includes(".")) hasChild.add(p.slice(0, p.lastIndexOf(".")));
  const usage = new Map<string, Res>();
  const nodeUse = new Map<string, Res>();
  const nodeAllocs = new Map<string, PreemptionAllocation[]>();
  for (const n of spec.nodes) {
    nodeUse.set(n.id, {});
    nodeAllocs.set(n.id, []);
  }
  for (const a of spec.allocations) {
    if (!specs.has(a.queuePath)) throw new Error(`allocation ${a.key}: unknown queue ${a.queuePath}`);
    const used = nodeUse.get(a.nodeId);
    if (!used) throw new Error(`allocation ${a.key}: unknown node ${a.nodeId}`);
    for (const k in a.resource) used[k] = (used[k] ?? 0) + a.resource[k]!;
    nodeAllocs.get(a.nodeId)!.push(a);
    const parts = a.queuePath.split(".");
    for (let i = 1; i <= parts.length; i++) {
      const p = parts.slice(0, i).join(".");
      const u = usage.get(p) ?? {};
      for (const k in a.resource) u[k] = (u[k] ?? 0) + a.resource[k]!;
      usage.set(p, u);
    }
  }
  const clusterSize: Res = {};
  for (const n of spec.nodes) for (const k in n.capacity) clusterSize[k] = (clusterSize[k] ?? 0) + n.capacity[k]!;
  const queues: PreemptionQueue[] = [...specs.values()].map((q) => ({
    path: q.path,
    parent: q.path.includes(".") ? q.path.slice(0, q.path.lastIndexOf(".")) : undefined,
    isLeaf: q.path !== "root" && !q.parentQueue && !hasChild.has(q.path),
    managed: q.managed ?? true,
    guaranteed: q.guaranteed,
    max: q.path === "root" ? clusterSize : q.max,
    allocated: usage.get(q.path) ?? {},
    preempting: q.preempting,
    preemptionPolicy: q.preemptionPolicy ?? "default",
    priorityPolicy: q.priorityPolicy ?? "default",
    priorityOffset: q.priorityOffset ?? 0,
    preemptionDelayMs: q.preemptionDelayMs ?? 30_000,
    quotaPreemptionDelayMs: q.quotaPreemptionDelayMs ?? 0,
  }));
  const nodes: PreemptionNode[] = spec.nodes.map((n) => {
    const available: Res = { ...n.capacity };
    const used = nodeUse.get(n.id)!;
    for (const k in used) available[k] = (available[k] ?? 0) - used[k]!;
    return {
      id: n.id,
      capacity: n.capacity,
      available,
      schedulable: n.schedulable ?? true,
      reservations: n.reservations,
      allocations: nodeAllocs.get(n.id)!,
    };
  });
  return snapshotOf({ queues, nodes });
}
