/**
 * REST response shapes, YuniKorn's JSON field names (apache/yunikorn-core pkg/webservice/dao; yunikorn-core
 * reference §3.1), made from the core's read API (core/read.ts views). Times are Unix nanoseconds unless noted;
 * resources are `{name: integer}`. Partitions, queues, nodes, usage and health here; applications, asks and
 * allocations in app-dao.ts; clusters, node utilisation, placement rules and history in cluster-dao.ts.
 */
import type { NodeView, PartitionView, QueueView, UsageView } from "../core/read.js";
import type { Res } from "../core/resources.js";
import type { ForeignPodView } from "../shim/context.js";
import { MIN_PRIORITY, formatGoDuration } from "../core/queue-properties.js";
import { type DaoLookups, allocationInfo, clean, daoMap, ns } from "./app-dao.js";

/** Go's math.MaxInt32: the largest percentage upstream reports. */
const MAX_INT32 = 2 ** 31 - 1;

/**
 * Used as a whole percentage of capacity, per type (apache/yunikorn-core pkg/common/resources/resources.go
 * `CalculateAbsUsedCapacity`): only types in both; nothing used is 0 %, anything used of a zero capacity 100 %, else
 * the percentage rounded down and capped at 2^31 − 1; undefined when no type is in both (omitempty).
 */
export function absUsedCapacity(capacity: Readonly<Res> | undefined, used: Readonly<Res> | undefined): Res | undefined {
  if (!capacity || !used) return undefined;
  const out: Res = {};
  for (const k in capacity) {
    const u = used[k];
    if (u === undefined) continue;
    const c = capacity[k]!;
    out[k] = u <= 0 ? 0 : c <= 0 ? 100 : Math.min(Math.floor((u / c) * 100), MAX_INT32);
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * A node's `utilized` (upstream `Node.GetUtilizedResource`): `absUsedCapacity` for the types allocated on it of which it
 * has some capacity; undefined when none.
 */
function utilized(allocated: Readonly<Res>, capacity: Readonly<Res>): Res | undefined {
  const pct = absUsedCapacity(capacity, allocated) ?? {};
  const out: Res = {};
  for (const k in allocated) if (capacity[k]! > 0 && pct[k] !== undefined) out[k] = pct[k];
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * PartitionInfo. `preemptionEnabled`: the partition's `preemption.enabled`; `quotaPreemptionEnabled` its
 * `preemption.quotapreemptionenabled`. `lastStateTransitionTime`: the partition has
 * been Active since the scheduler started (`startTime`, Unix ms).
 */
export function partitionInfo(p: PartitionView, startTime = 0): Record<string, unknown> {
  // upstream: the partition's size (pruned) and root's allocated resource (zeros kept), each omitted when empty
  const capacity = clean(p.capacity);
  const used = daoMap(p.allocated);
  return {
    clusterId: "mycluster",
    name: p.name,
    capacity: { capacity, usedCapacity: used, utilization: absUsedCapacity(capacity, used) },
    nodeSortingPolicy: { type: p.nodeSortPolicy, resourceWeights: p.resourceWeights },
    preemptionEnabled: p.preemptionEnabled,
    quotaPreemptionEnabled: p.quotaPreemptionEnabled,
    totalNodes: p.nodes,
    applications: p.applications,
    totalContainers: p.allocations,
    state: "Active",
    lastStateTransitionTime: ns(startTime),
  };
}

/** A queue as `/ws/v1/partition/{p}/queues` shows it (dao.PartitionQueueDAOInfo), children included. */
export function queueInfo(q: QueueView, partition = ""): Record<string, unknown> {
  // as configured, zeros included (a max of {vcore: 3, nvidia.com/gpu: 0} forbids GPUs: upstream shows that 0)
  const max = daoMap(q.max);
  const out: Record<string, unknown> = {
    queuename: q.path,
    status: q.draining ? "Draining" : "Active",
    partition,
    pendingResource: daoMap(q.pending),
    maxResource: max,
    guaranteedResource: daoMap(q.guaranteed),
    allocatedResource: daoMap(q.allocated),
    isLeaf: q.isLeaf,
    isManaged: q.managed,
    parent: q.parent,
    childNames: q.childNames,
    maxRunningApps: q.maxApplications,
    runningApps: q.runningApplications,
    // nothing pending: upstream's MinPriority
    currentPriority: q.priority ?? MIN_PRIORITY,
    sortingPolicy: q.sortPolicy,
    prioritySorting: q.prioritySorting,
    preemptionEnabled: q.preemptionEnabled,
    isPreemptionFence: q.preemptionFence,
    isPriorityFence: q.priorityFence,
  };
  // omitempty upstream
  if (q.allocatingApplications.length > 0) out.allocatingAcceptedApps = q.allocatingApplications;
  const preempting = clean(q.preempting);
  if (preempting) out.preemptingResource = preempting;
  // headroom keeps its zeros: "nothing left" is the point of the field
  if (q.headroom && Object.keys(q.headroom).length > 0) out.headroom = q.headroom;
  if (Object.keys(q.properties).length > 0) out.properties = q.properties;
  if (q.template) {
    const t = q.template;
    out.template = {
      ...(t.maxApplications > 0 ? { maxApplications: t.maxApplications } : {}),
      ...(t.max ? { maxResource: t.max } : {}),
      ...(t.guaranteed ? { guaranteedResource: t.guaranteed } : {}),
      ...(Object.keys(t.properties).length > 0 ? { properties: t.properties } : {}),
    };
  }
  out.preemptionDelay = formatGoDuration(q.preemptionDelayMs);
  out.quotaPreemptionDelay = formatGoDuration(q.quotaPreemptionDelayMs);
  if (q.priorityOffset !== 0) out.priorityOffset = q.priorityOffset;
  const abs = absUsedCapacity(max, q.allocated);
  if (abs) out.absUsedCapacity = abs;
  if (q.children) out.children = q.children.map((c) => queueInfo(c));
  return out;
}

/**
 * ForeignAllocationDAOInfo (YuniKorn 1.6+, node.go ForeignAllocationDAO): a pod of another scheduler on the node;
 * `allocationTime` its creation in Unix nanoseconds, `preemptable` left out when false (a static pod), as upstream's
 * omitempty.
 */
function foreignAllocationInfo(f: ForeignPodView): Record<string, unknown> {
  return {
    allocationKey: f.uid,
    ...(f.createdMs !== undefined ? { allocationTime: ns(f.createdMs) } : {}),
    ...(daoMap(f.resource) ? { resource: daoMap(f.resource) } : {}),
    priority: String(f.priority),
    nodeId: f.node,
    ...(f.preemptable ? { preemptable: true } : {}),
  };
}

/** A node as `/ws/v1/partition/{p}/nodes` shows it (dao.NodeDAOInfo); `foreign`: other schedulers' pods on it. */
export function nodeInfo(n: NodeView, l: DaoLookups, foreign: readonly ForeignPodView[] = []): Record<string, unknown> {
  return {
    nodeID: n.id,
    hostName: n.attributes["si/hostname"] ?? "",
    rackName: n.attributes["si/rackname"] ?? "",
    attributes: n.attributes,
    capacity: n.capacity,
    allocated: clean(n.allocated) ?? {},
    occupied: clean(n.occupied) ?? {},
    available: n.available,
    utilized: utilized(n.allocated, n.capacity),
    allocations: n.allocations.map((x) => allocationInfo(x, l)),
    // omitempty upstream
    ...(foreign.length > 0 ? { foreignAllocations: foreign.map(foreignAllocationInfo) } : {}),
    schedulable: n.schedulable,
    isReserved: n.reservation !== undefined,
    reservations: n.reservation ? [`${n.reservation.appId}|${n.reservation.key}`] : [],
  };
}

/**
 * UserResourceUsageDAOInfo / GroupResourceUsageDAOInfo: usage as a queue tree from root (`queues`), a group's
 * applications. Not reported: the user's `groups` map and the limits (`maxResources`, `maxApplications`).
 */
export function userUsage(list: UsageView[], kind: "users" | "groups"): Record<string, unknown>[] {
  return [...list]
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .map((u) => {
      const byPath = new Map(u.queues.map((q) => [q.queuePath, q]));
      const tree = usageTree(byPath, "root");
      const queues = tree ? { queues: tree } : {};
      if (kind === "users") return { userName: u.name, ...queues };
      const apps = byPath.get("root")?.runningApplications ?? [];
      return { groupName: u.name, ...(apps.length > 0 ? { applications: apps } : {}), ...queues };
    });
}

type UsageEntry = UsageView["queues"][number];

function usageTree(byPath: ReadonlyMap<string, UsageEntry>, path: string): Record<string, unknown> | undefined {
  const u = byPath.get(path);
  if (!u) return undefined;
  const prefix = `${path}.`;
  const children = [...byPath.keys()]
    .filter((k) => k.startsWith(prefix) && !k.slice(prefix.length).includes("."))
    .sort()
    .map((k) => usageTree(byPath, k)!);
  const out: Record<string, unknown> = { queuePath: path };
  const res = clean(u.resourceUsage);
  if (res) out.resourceUsage = res;
  if (u.runningApplications.length > 0) out.runningApplications = [...u.runningApplications].sort();
  if (children.length > 0) out.children = children;
  return out;
}

/**
 * `/ws/v1/scheduler/healthcheck` (SchedulerHealthDAOInfo, Go field names): negative resources on partitions and nodes,
 * consistency of partition capacity with the nodes.
 */
export function health(partitions: { partition: PartitionView; nodes: NodeView[] }[]): {
  Healthy: boolean;
  HealthChecks: { Name: string; Succeeded: boolean; Description: string; DiagnosisMessage: string }[];
} {
  const checks: { Name: string; Succeeded: boolean; Description: string; DiagnosisMessage: string }[] = [];
  const neg = (r: Res) => Object.values(r).some((v) => v < 0);
  const negParts = partitions.filter(({ partition: p }) => neg(p.allocated) || neg(p.pending)).map(({ partition: p }) => p.name);
  checks.push({
    Name: "Negative resources",
    Succeeded: negParts.length === 0,
    Description: "Check for negative resources in the partitions",
    DiagnosisMessage: negParts.length ? `Partitions with negative resources: ${negParts.join(",")}` : "",
  });
  const negNodes = partitions.flatMap(({ nodes }) => nodes.filter((n) => neg(n.allocated) || neg(n.available)).map((n) => n.id));
  checks.push({
    Name: "Negative resources",
    Succeeded: negNodes.length === 0,
    Description: "Check for negative resources in the nodes",
    DiagnosisMessage: negNodes.length ? `Nodes with negative resources: ${negNodes.join(",")}` : "",
  });
  const badCapacity = partitions
    .filter(({ partition: p, nodes }) => {
      const total: Res = {};
      for (const n of nodes) for (const k in n.capacity) total[k] = (total[k] ?? 0) + n.capacity[k]!;
      return Object.keys({ ...total, ...p.capacity }).some((k) => (total[k] ?? 0) !== (p.capacity[k] ?? 0));
    })
    .map(({ partition: p }) => p.name);
  checks.push({
    Name: "Consistency of data",
    Succeeded: badCapacity.length === 0,
    Description: "Check if a partition's capacity equals the sum of its nodes' capacity",
    DiagnosisMessage: badCapacity.length ? `Partitions: ${badCapacity.join(",")}` : "",
  });
  return { Healthy: checks.every((c) => c.Succeeded), HealthChecks: checks };
}
