/**
 * The read side of the core: plain-data views of a partition's queues, applications (with their state history and
 * hold reasons), nodes (with their allocations and reservation) and user/group usage. The REST layer, the simulator
 * and tests read the core only through these (via `SchedulerCore`), never through its objects. Resources in core
 * units (memory bytes, vcore millicores); times in milliseconds since the epoch.
 */
import type { Application, Ask, PlaceholderData, ResourceHistoryKind } from "./application.js";
import type { AppState, StateLogEntry } from "./application-state.js";
import type { HoldReason } from "./hold-reason.js";
import type { Partition } from "./partition.js";
import type { Queue, SortPolicy } from "./queue.js";
import { allocationId } from "./node.js";
import { type Res, hasPositive } from "./resources.js";
import { prefixes } from "./ugm/tracker.js";

/** A queue as the REST layer shows it (upstream dao.PartitionQueueDAOInfo). */
export interface QueueView {
  path: string;
  name: string;
  /** Parent path ("" for root). */
  parent: string;
  isLeaf: boolean;
  /** Configured (true) or created by placement (false). */
  managed: boolean;
  /** Removed from the configuration; no new applications, removed once empty. */
  draining: boolean;
  guaranteed?: Res;
  max?: Res;
  allocated: Res;
  pending: Res;
  /** maxapplications (0: unlimited) and applications in a running state below. */
  maxApplications: number;
  runningApplications: number;
  /**
   * Applications below that already have allocations while still Accepted or Reserving (a gang placing its
   * placeholders), which count as running for `maxapplications`: their ids, sorted (upstream
   * `allocatingAcceptedApps`).
   */
  allocatingApplications: string[];
  sortPolicy: SortPolicy;
  prioritySorting: boolean;
  /** Highest pending ask priority below, undefined when nothing is pending. */
  priority?: number;
  childNames: string[];
  /** Present when the view was taken with its subtree. */
  children?: QueueView[];
  /** Its tasks may be preemption victims: the partition's preemption is on and its `preemption.policy` is not `disabled`. */
  preemptionEnabled: boolean;
  /** `preemption.policy: fence`, `priority.policy: fence`. */
  preemptionFence: boolean;
  priorityFence: boolean;
  /** Usage chosen as preemption victims and not released yet. */
  preempting: Res;
  /**
   * Since the queue was made (counts.ts; a parent's stay 0 unless it was a leaf): allocations made on and released
   * from it, its applications that completed or failed, and those rejected under it (see `CoreCounts.queues`).
   */
  counts: { allocated: number; released: number; completed: number; failed: number; rejected: number };
  /** The properties in force (own over inherited; a dynamic leaf's from its child template). */
  properties: Record<string, string>;
  /** The child template dynamic queues below get (own or inherited); undefined: none. */
  template?: { maxApplications: number; max?: Res; guaranteed?: Res; properties: Record<string, string> };
  /**
   * What can still be allocated here (upstream getHeadRoom): max − allocated for the types the max sets, the smaller
   * of that and the parent's headroom per type; root's max is the cluster size. Undefined when no queue on the path
   * (root included: no nodes) sets a max.
   */
  headroom?: Res;
  /** `preemption.delay`, `quota.preemption.delay` (milliseconds) and `priority.offset` in force. */
  preemptionDelayMs: number;
  quotaPreemptionDelayMs: number;
  priorityOffset: number;
}

/** A pending ask as the REST layer shows it (upstream dao.AllocationAskDAOInfo). */
export interface AskView {
  key: string;
  resource: Res;
  priority: number;
  createTime: number;
  requiredNode?: string;
  /** The node this pending ask reserved. */
  reservedNode?: string;
  /** Why it is pending, when something holds it. */
  hold?: HoldReason;
  /** Gang scheduling: a placeholder ask; the task group. */
  placeholder?: boolean;
  taskGroup?: string;
}

/** An allocation as the REST layer shows it (upstream dao.AllocationDAOInfo). */
export interface AllocationView {
  key: string;
  appId: string;
  nodeId: string;
  resource: Res;
  priority: number;
  createTime: number;
  allocatedAt?: number;
  /** Gang scheduling: a placeholder allocation; the task group. */
  placeholder?: boolean;
  taskGroup?: string;
  /** Chosen as a preemption victim, being released. */
  preempted?: boolean;
  /** The application's originator pod (upstream `originator`). */
  originator?: boolean;
  /** It took a placeholder's place (gang scheduling): that placeholder's creation time, ms (upstream placeholderUsed). */
  placeholderCreateTime?: number;
}

/** An application as the REST layer shows it (upstream dao.ApplicationDAOInfo), with its hold reasons. */
export interface ApplicationView {
  id: string;
  partition: string;
  /** Leaf queue path ("" for a rejected application). */
  queue: string;
  user: string;
  groups: string[];
  state: AppState;
  /** Every state the application was in, oldest first. */
  stateLog: StateLogEntry[];
  submissionTime: number;
  rejectedMessage?: string;
  /** The typed reason of a rejection by placement. */
  rejection?: HoldReason;
  pending: Res;
  allocated: Res;
  maxPendingPriority?: number;
  asks: AskView[];
  allocations: AllocationView[];
  /** Gang scheduling, per task group in the order first seen (upstream PlaceholderData); empty for other applications. */
  placeholderData: PlaceholderData[];
  /** Resource × seconds of the released allocations per node instance type (Application.resourceHistory). */
  resourceHistory: Record<ResourceHistoryKind, Record<string, Res>>;
}

/** A node as the REST layer shows it (upstream dao.NodeDAOInfo). */
export interface NodeView {
  id: string;
  attributes: Readonly<Record<string, string>>;
  capacity: Res;
  allocated: Res;
  occupied: Res;
  available: Res;
  schedulable: boolean;
  reservation?: { appId: string; key: string; since: number };
  allocations: AllocationView[];
}

/** One user's or group's usage per queue path (upstream dao.UserResourceUsageDAOInfo / GroupResourceUsageDAOInfo, flattened). */
export interface UsageView {
  name: string;
  queues: {
    queuePath: string;
    resourceUsage: Res;
    runningApplications: string[];
    /** The limit that applies to the user or group there (named, else the wildcard's), core units; none: absent. */
    maxResources?: Res;
    /** Its `maxapplications`; absent when none applies or it is 0 (unlimited). */
    maxApplications?: number;
  }[];
  /** Users only: the group each of the user's applications is tracked under (application id → group). */
  groups?: Record<string, string>;
}

/** A partition as the REST layer shows it (upstream dao.PartitionInfo): totals, application counts by state, sort policy. */
export interface PartitionView {
  name: string;
  nodeSortPolicy: "fair" | "binpacking";
  resourceWeights: Record<string, number>;
  /** Sum of node capacities, allocated and pending at root. */
  capacity: Res;
  allocated: Res;
  pending: Res;
  nodes: number;
  /** Applications by state (active, completed/failed kept for listing, rejected), and `total`. */
  applications: Record<string, number>;
  allocations: number;
  /** Partition `preemption.enabled`. */
  preemptionEnabled: boolean;
  /** Partition `preemption.quotapreemptionenabled`. */
  quotaPreemptionEnabled: boolean;
}

/** Which applications {@link applicationViews} lists: active, completed, rejected, or all of them. */
export type ApplicationFilter = "active" | "completed" | "rejected" | "all";

const copy = (r: Readonly<Res> | undefined): Res => ({ ...(r ?? {}) });
const gangFields = (x: Ask | undefined) => ({
  ...(x?.placeholder ? { placeholder: true } : {}),
  ...(x?.taskGroup ? { taskGroup: x.taskGroup } : {}),
  ...(x?.preempted ? { preempted: true } : {}),
  ...(x?.originator ? { originator: true } : {}),
  ...(x?.placeholderCreateTime !== undefined ? { placeholderCreateTime: x.placeholderCreateTime } : {}),
});

/** @param partitionPreemption the partition's `preemption.enabled` */
export function queueView(q: Queue, subtree: boolean, partitionPreemption = true): QueueView {
  const kids = [...q.children.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
  const p = q.priority;
  return {
    path: q.path,
    name: q.name,
    parent: q.parent?.path ?? "",
    isLeaf: q.isLeaf,
    managed: q.managed,
    draining: q.draining,
    guaranteed: q.guaranteed && copy(q.guaranteed),
    max: q.max && copy(q.max),
    allocated: copy(q.allocated),
    pending: copy(q.pending),
    maxApplications: q.maxApps,
    runningApplications: q.runningApps,
    allocatingApplications: allocatingIds(q),
    sortPolicy: q.sortPolicy,
    prioritySorting: q.sortPriority,
    priority: Number.isFinite(p) ? p : undefined,
    childNames: kids.map((c) => c.path),
    children: subtree ? kids.map((c) => queueView(c, true, partitionPreemption)) : undefined,
    preemptionEnabled: partitionPreemption && q.preemption.preemptionPolicy !== "disabled",
    preemptionFence: q.preemption.preemptionPolicy === "fence",
    priorityFence: q.preemption.priorityPolicy === "fence",
    preempting: copy(q.preempting),
    counts: { ...q.counts },
    properties: { ...q.properties },
    template: q.template && {
      maxApplications: q.template.maxApps,
      max: q.template.max && copy(q.template.max),
      guaranteed: q.template.guaranteed && copy(q.template.guaranteed),
      properties: { ...q.template.properties },
    },
    headroom: headroom(q),
    preemptionDelayMs: q.preemption.preemptionDelayMs,
    quotaPreemptionDelayMs: q.preemption.quotaPreemptionDelayMs,
    priorityOffset: q.preemption.priorityOffset,
  };
}

/** The ids of the applications below `q` counted in its `allocatingApps`, sorted (none: no walk). */
function allocatingIds(q: Queue): string[] {
  const out: string[] = [];
  const walk = (x: Queue): void => {
    if (x.allocatingApps === 0) return;
    for (const a of x.apps.values()) if (a.allocatingCounted) out.push(a.id);
    for (const c of x.children.values()) walk(c);
  };
  walk(q);
  return out.sort();
}

/** Upstream Queue.getHeadRoom / internalHeadRoom (see QueueView.headroom). */
export function headroom(q: Queue): Res | undefined {
  const parent = q.parent ? headroom(q.parent) : undefined;
  if (!q.max) return parent;
  const own: Res = {};
  for (const k in q.max) own[k] = q.max[k]! - (q.allocated[k] ?? 0);
  if (!parent) return own;
  const out: Res = { ...parent };
  for (const k in own) out[k] = k in parent ? Math.min(own[k]!, parent[k]!) : own[k]!;
  return out;
}

/** @param holds compute each pending ask's hold reason (may walk the nodes per ask) */
export function applicationView(p: Partition, a: Application, holds = true): ApplicationView {
  const asks = [...a.asks.values()];
  const prio = a.maxPendingPriority();
  const rejected = a.state === "Rejected";
  return {
    id: a.id,
    partition: p.name,
    queue: rejected ? "" : a.queue.path,
    user: a.user,
    groups: [...a.groups],
    state: a.state,
    stateLog: a.stateLog, // made on each read
    submissionTime: a.submissionTime,
    rejectedMessage: a.rejectedMessage,
    rejection: a.rejection,
    pending: copy(a.pending),
    allocated: copy(a.allocated),
    maxPendingPriority: Number.isFinite(prio) ? prio : undefined,
    asks: asks
      .filter((x) => !x.node)
      .map((x) => ({
        key: x.key,
        resource: copy(x.resource),
        priority: x.priority,
        createTime: x.createTime,
        requiredNode: x.requiredNode,
        reservedNode: x.reservedNode,
        hold: holds && p.apps.get(a.id) === a ? p.holdReason(a.id, x.key) : undefined,
        ...gangFields(x),
      })),
    allocations: asks
      .filter((x) => x.node)
      .map((x) => ({
        key: x.key,
        appId: a.id,
        nodeId: x.node!,
        resource: copy(x.resource),
        priority: x.priority,
        createTime: x.createTime,
        allocatedAt: x.allocatedAt,
        ...gangFields(x),
      })),
    placeholderData: [...a.placeholderData.values()].map((d) => ({ ...d, minResource: copy(d.minResource) })),
    resourceHistory: {
      used: byInstanceType(a.resourceHistory.used),
      preempted: byInstanceType(a.resourceHistory.preempted),
      placeholder: byInstanceType(a.resourceHistory.placeholder),
    },
  };
}

const byInstanceType = (m: ReadonlyMap<string, Res>): Record<string, Res> =>
  Object.fromEntries([...m].sort(([a], [b]) => (a < b ? -1 : 1)).map(([t, r]) => [t, copy(r)]));

/** The views of a partition's applications selected by `filter`. */
export function applicationViews(p: Partition, filter: ApplicationFilter, holds = true): ApplicationView[] {
  const out: Application[] = [];
  if (filter === "active" || filter === "all") out.push(...p.apps.values());
  if (filter === "completed" || filter === "all")
    out.push(...[...p.terminated.values()].filter((a) => a.state === "Completed" || filter === "all"));
  if (filter === "rejected" || filter === "all") out.push(...p.rejected.values());
  return out.map((a) => applicationView(p, a, holds));
}

/** The application with `id`: the active one, else the latest completed/failed instance, else the rejected one. */
export function findApplication(p: Partition, id: string): Application | undefined {
  const active = p.apps.get(id);
  if (active) return active;
  return p.lastTerminated.get(id) ?? p.rejected.get(id);
}

/** A node as the metrics read it: its schedulable flag, capacity and the core's allocations on it (copies). */
export interface NodeUsageView {
  schedulable: boolean;
  capacity: Res;
  allocated: Res;
}

/** Every node of `p` as a `NodeUsageView`, in no particular order (no allocation lists: cheap for thousands of nodes). */
export function nodeUsagesOf(p: Partition): NodeUsageView[] {
  return [...p.nodes.values()].map((n) => ({ schedulable: n.schedulable, capacity: copy(n.capacity), allocated: copy(n.allocated) }));
}

/** Active applications of `p` by the path of their queue and state (no view built per application). */
export function applicationCountsOf(p: Partition): Map<string, Partial<Record<AppState, number>>> {
  const out = new Map<string, Partial<Record<AppState, number>>>();
  for (const app of p.apps.values()) {
    let byState = out.get(app.queue.path);
    if (!byState) out.set(app.queue.path, (byState = {}));
    byState[app.state] = (byState[app.state] ?? 0) + 1;
  }
  return out;
}

/** The view of the node `id`, or undefined when the partition has no such node. */
export function nodeView(p: Partition, id: string): NodeView | undefined {
  const n = p.nodes.get(id);
  if (!n) return undefined;
  return {
    id: n.id,
    attributes: n.attributes,
    capacity: copy(n.capacity),
    allocated: copy(n.allocated),
    occupied: copy(n.occupied),
    available: n.available(),
    schedulable: n.schedulable,
    reservation: n.reservation && { ...n.reservation },
    allocations: [...n.allocations.values()].map((x) => {
      const ask = p.apps.get(x.appId)?.asks.get(x.key);
      return {
        key: x.key,
        appId: x.appId,
        nodeId: n.id,
        resource: copy(x.resource),
        priority: x.priority,
        createTime: ask?.createTime ?? 0,
        allocatedAt: ask?.allocatedAt,
        ...gangFields(ask),
      };
    }),
  };
}

/** Tracked usage of every user or every group of the partition. */
export function usageViews(p: Partition, kind: "users" | "groups"): UsageView[] {
  const out: UsageView[] = [];
  const groups = kind === "users" ? p.limits.groupsByUser() : undefined;
  for (const [name, byPath] of p.limits.snapshot(kind)) {
    // as upstream's trackers go once nothing is left in them (ugm queue_tracker.go decreaseTrackedResource): a queue
    // with no usage, no running application and no limit for the name is listed only above one that has any; a name
    // with nothing left is not listed
    const kept = new Set<string>();
    const limits = new Map([...byPath.keys()].map((path) => [path, p.limits.limitOn(kind, name, path)]));
    for (const [path, u] of byPath) {
      if (!hasPositive(u.res) && u.apps.size === 0 && !limits.get(path)) continue;
      for (const at of prefixes(path)) kept.add(at);
    }
    if (kept.size === 0) continue;
    out.push({
      name,
      queues: [...byPath.entries()]
        .filter(([path]) => kept.has(path))
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([path, u]) => {
          const limit = limits.get(path);
          return {
            queuePath: path,
            resourceUsage: copy(u.res),
            runningApplications: [...u.apps].sort(),
            ...(limit?.maxResources ? { maxResources: copy(limit.maxResources) } : {}),
            ...(limit && limit.maxApps > 0 ? { maxApplications: limit.maxApps } : {}),
          };
        }),
      ...(kind === "users" ? { groups: Object.fromEntries([...(groups?.get(name) ?? [])].sort(([a], [b]) => (a < b ? -1 : 1))) } : {}),
    });
  }
  return out;
}

/** The partition's summary view. */
export function partitionView(p: Partition): PartitionView {
  const applications: Record<string, number> = { total: 0 };
  const count = (a: Application) => {
    applications[a.state] = (applications[a.state] ?? 0) + 1;
    applications.total!++;
  };
  for (const a of p.apps.values()) count(a);
  for (const a of p.terminated.values()) count(a);
  for (const a of p.rejected.values()) count(a);
  let allocations = 0;
  for (const n of p.nodes.values()) allocations += n.allocations.size;
  return {
    name: p.name,
    nodeSortPolicy: p.nodeSortPolicy,
    resourceWeights: { ...p.weights },
    capacity: copy(p.root.max),
    allocated: copy(p.root.allocated),
    pending: copy(p.root.pending),
    nodes: p.nodes.size,
    applications,
    allocations,
    preemptionEnabled: p.preemptionEnabled,
    quotaPreemptionEnabled: p.quotaPreemption.enabled,
  };
}

/** An allocation the health check names (an orphan): key, application, resources (core units). */
export interface HealthAllocation {
  key: string;
  appId: string;
  resource: Res;
}

/**
 * What the health check reads of a partition (upstream health_checker.go checkSchedulingContext), without building
 * the REST views: totals, each node's resources and whether it is reserved, and the orphan allocations.
 */
export interface PartitionHealthView {
  name: string;
  /** The partition's capacity (the sum it keeps of its nodes') and allocated resources. */
  capacity: Res;
  allocated: Res;
  nodes: { id: string; capacity: Res; allocated: Res; occupied: Res; available: Res; reserved: boolean }[];
  /** Allocations a node holds that no active application holds on that node (upstream checkNodeAllocations). */
  orphansOnNode: HealthAllocation[];
  /** Allocations an active application holds that its node does not (upstream checkAppAllocations). */
  orphansOnApp: HealthAllocation[];
}

/** See {@link PartitionHealthView}; O(nodes + allocations), object identity, no copies of what is sound. */
export function partitionHealthView(p: Partition): PartitionHealthView {
  const orphan = (a: Ask): HealthAllocation => ({ key: a.key, appId: a.appId, resource: copy(a.resource) });
  const orphansOnNode: HealthAllocation[] = [];
  const orphansOnApp: HealthAllocation[] = [];
  const nodes: PartitionHealthView["nodes"] = [];
  // node entries that are an application's own allocated ask on that node
  let sound = 0;
  for (const n of p.nodes.values()) {
    nodes.push({
      id: n.id,
      capacity: n.capacity,
      allocated: n.allocated,
      occupied: n.occupied,
      available: n.available(),
      reserved: n.reservation !== undefined,
    });
    for (const a of n.allocations.values()) {
      if (p.apps.get(a.appId)?.asks.get(a.key) === a && a.node === n.id) sound++;
      else orphansOnNode.push(orphan(a));
    }
  }
  // each sound entry is a distinct allocated ask (entries are keyed by application and key): when the applications
  // hold as many allocated asks, every one is on its node and none needs looking up
  let held = 0;
  for (const app of p.apps.values()) for (const a of app.asks.values()) if (a.node !== undefined) held++;
  if (held !== sound) {
    for (const app of p.apps.values()) {
      for (const a of app.asks.values()) {
        if (a.node !== undefined && p.nodes.get(a.node)?.allocations.get(allocationId(app.id, a.key)) !== a) orphansOnApp.push(orphan(a));
      }
    }
  }
  return { name: p.name, capacity: copy(p.root.max), allocated: copy(p.root.allocated), nodes, orphansOnNode, orphansOnApp };
}
