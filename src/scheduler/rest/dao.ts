/**
 * REST response shapes, YuniKorn's JSON field names (apache/yunikorn-core pkg/webservice/dao; yunikorn-core
 * reference §3.1), made from the core's read API (core/read.ts views). Times are Unix nanoseconds unless noted;
 * resources are `{name: integer}`. Partitions, queues, nodes, usage and health here; applications, asks and
 * allocations in app-dao.ts; clusters, node utilisation, placement rules and history in cluster-dao.ts.
 */
import type { HealthAllocation, NodeView, PartitionHealthView, PartitionView, QueueView, UsageView } from "../core/read.js";
import { type Res, add, addTo, equals, format, hasNegative } from "../core/resources.js";
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
 * ForeignAllocationDAOInfo (YuniKorn 1.6+, handlers.go getForeignAllocationDAO): a pod of another scheduler on the
 * node; `allocationTags` the shim's tags of the pod (the web UI shows `namespace/podName` from them), `allocationTime`
 * its creation in Unix nanoseconds, `preemptable` left out when false (a static pod), as upstream's omitempty.
 */
function foreignAllocationInfo(f: ForeignPodView): Record<string, unknown> {
  return {
    allocationKey: f.uid,
    ...(Object.keys(f.tags).length > 0 ? { allocationTags: { ...f.tags } } : {}),
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
    // by the reserving ask's key, as upstream's node.go GetReservationKeys
    reservations: n.reservation ? [n.reservation.key] : [],
  };
}

/**
 * UserResourceUsageDAOInfo / GroupResourceUsageDAOInfo (apache/yunikorn-core pkg/webservice/dao/ugm_info.go): usage as
 * a queue tree from root (`queues`) with the limit that applies at each queue (`maxResources`, `maxApplications`,
 * omitted when none), a user's `groups` (application id → the group it is tracked under; omitted when empty), a
 * group's applications.
 */
export function userUsage(list: UsageView[], kind: "users" | "groups"): Record<string, unknown>[] {
  return [...list]
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .map((u) => {
      const byPath = new Map(u.queues.map((q) => [q.queuePath, q]));
      const tree = usageTree(byPath, "root");
      const queues = tree ? { queues: tree } : {};
      if (kind === "users") {
        const groups = u.groups && Object.keys(u.groups).length > 0 ? { groups: { ...u.groups } } : {};
        return { userName: u.name, ...groups, ...queues };
      }
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
  const max = u.maxResources && daoMap(u.maxResources);
  if (max) out.maxResources = max;
  if (u.maxApplications) out.maxApplications = u.maxApplications;
  if (children.length > 0) out.children = children;
  return out;
}

/** One health check (dao.HealthCheckInfo). */
export interface HealthCheck {
  Name: string;
  Succeeded: boolean;
  Description: string;
  DiagnosisMessage: string;
}

/** Go's `%q` of a []string: `["a" "b"]`. */
const goQuoted = (xs: readonly string[]) => `[${xs.map((x) => JSON.stringify(x)).join(" ")}]`;
/** Go's `%v` of a []*Allocation (Allocation.String). */
const goAllocations = (xs: readonly HealthAllocation[]) =>
  `[${xs.map((a) => `allocationKey ${a.key}, applicationID ${a.appId}, Resource ${format(a.resource)}, Allocated true`).join(" ")}]`;

/**
 * SchedulerHealthDAOInfo (`/ws/v1/scheduler/healthcheck`): upstream's nine checks, in its order, names, descriptions
 * and message formats (apache/yunikorn-core pkg/scheduler/health_checker.go GetSchedulerHealthStatus,
 * checkSchedulingContext): scheduling errors and failed nodes counted by the core (`SchedulerCore.failures`),
 * negative resources of partitions and nodes, partition capacity = sum of its nodes', node capacity = allocated +
 * occupied + available, the reservations per node (always succeeds, as upstream), and allocations a node holds that
 * no active application does, or the other way round. Healthy when every check succeeded.
 */
export function health(
  partitions: readonly PartitionHealthView[],
  failures: { schedulingErrors: number; failedNodes: number },
): { Healthy: boolean; HealthChecks: HealthCheck[] } {
  const check = (Succeeded: boolean, Name: string, Description: string, DiagnosisMessage: string): HealthCheck => ({
    Name,
    Succeeded,
    Description,
    DiagnosisMessage,
  });
  const negParts: string[] = [];
  const negNodes: string[] = [];
  const partMismatch: string[] = [];
  const nodeMismatch: string[] = [];
  const ratios: string[] = [];
  const orphansOnNode: HealthAllocation[] = [];
  const orphansOnApp: HealthAllocation[] = [];
  for (const p of partitions) {
    if (hasNegative(p.allocated)) negParts.push(p.name);
    if (hasNegative(p.capacity)) negParts.push(p.name);
    const sum: Res = {};
    let reservations = 0;
    for (const n of p.nodes) {
      addTo(sum, n.capacity);
      if (n.reserved) reservations++;
      const total = add(n.allocated, n.occupied);
      addTo(total, n.available);
      if (!equals(n.capacity, total)) nodeMismatch.push(n.id);
      for (const r of [n.allocated, n.available, n.capacity, n.occupied]) if (hasNegative(r)) negNodes.push(n.id);
    }
    orphansOnNode.push(...p.orphansOnNode);
    orphansOnApp.push(...p.orphansOnApp);
    // Go's %f of a float32: six decimals; 0 nodes give NaN, as upstream's division
    ratios.push(p.nodes.length === 0 ? "NaN" : (reservations / p.nodes.length).toFixed(6));
    if (!equals(sum, p.capacity)) partMismatch.push(p.name);
  }
  const { schedulingErrors, failedNodes } = failures;
  const checks = [
    check(
      schedulingErrors === 0,
      "Scheduling errors",
      "Check for scheduling error entries in metrics",
      `There were ${schedulingErrors} scheduling errors logged in the metrics`,
    ),
    check(
      failedNodes === 0,
      "Failed nodes",
      "Check for failed nodes entries in metrics",
      `There were ${failedNodes} failed nodes logged in the metrics`,
    ),
    check(
      negParts.length === 0,
      "Negative resources",
      "Check for negative resources in the partitions",
      `Partitions with negative resources: ${goQuoted(negParts)}`,
    ),
    check(
      negNodes.length === 0,
      "Negative resources",
      "Check for negative resources in the nodes",
      `Nodes with negative resources: ${goQuoted(negNodes)}`,
    ),
    check(
      partMismatch.length === 0,
      "Consistency of data",
      "Check if total partition resource == sum of the node resources from the partition",
      `Partitions with inconsistent data: ${goQuoted(partMismatch)}`,
    ),
    check(
      nodeMismatch.length === 0,
      "Consistency of data",
      "Check if node total resource = allocated resource + occupied resource + available resource",
      `Nodes with inconsistent data: ${goQuoted(nodeMismatch)}`,
    ),
    check(
      true,
      "Reservation check",
      "Check the reservation nr compared to the number of nodes",
      `Reservation/node nr ratio: [${ratios.join(" ")}]`,
    ),
    check(
      orphansOnNode.length === 0,
      "Orphan allocation on node check",
      "Check if there are orphan allocations on the nodes",
      `Orphan allocations: ${goAllocations(orphansOnNode)}`,
    ),
    check(
      orphansOnApp.length === 0,
      "Orphan allocation on app check",
      "Check if there are orphan allocations on the applications",
      `OrphanAllocations: ${goAllocations(orphansOnApp)}`,
    ),
  ];
  return { Healthy: checks.every((c) => c.Succeeded), HealthChecks: checks };
}
