/**
 * REST response shapes, YuniKorn's JSON field names (apache/yunikorn-core pkg/webservice/dao; yunikorn-core
 * reference §3.1), made from the core's read API (core/read.ts views). Times are Unix nanoseconds unless noted;
 * resources are `{name: integer}`. corral extensions: a pending request's `holdReason` (the typed reason with its
 * `state` and `message`), a request's `reservedNodeId`, and an application's `stateLog` (as upstream's
 * ApplicationDAOInfo) for every state, Rejected included.
 */
import { type HoldReason, formatHoldReason, holdState } from "../core/hold-reason.js";
import type { ApplicationView, NodeView, PartitionView, QueueView, UsageView } from "../core/read.js";
import type { Res } from "../core/resources.js";

const ns = (ms: number) => ms * 1_000_000;
const clean = (r: Res | undefined): Res | undefined => {
  if (!r) return undefined;
  const out: Res = {};
  for (const k in r) if (r[k] !== 0) out[k] = r[k]!;
  return Object.keys(out).length > 0 ? out : undefined;
};
const percent = (used: Res, of: Res): Res => {
  const out: Res = {};
  for (const k in of) out[k] = of[k]! > 0 ? Math.floor(((used[k] ?? 0) * 100) / of[k]!) : 0;
  return out;
};

export function partitionInfo(p: PartitionView): Record<string, unknown> {
  const capacity = clean(p.capacity) ?? {};
  const used = clean(p.allocated) ?? {};
  return {
    clusterId: "mycluster", name: p.name,
    capacity: { capacity, usedCapacity: used, utilization: percent(used, capacity) },
    nodeSortingPolicy: { type: p.nodeSortPolicy, resourceWeights: p.resourceWeights },
    preemptionEnabled: true, quotaPreemptionEnabled: false,
    totalNodes: p.nodes, applications: p.applications, totalContainers: p.allocations, state: "Active",
  };
}

export function queueInfo(q: QueueView, partition = ""): Record<string, unknown> {
  const max = clean(q.max);
  const out: Record<string, unknown> = {
    queuename: q.path, status: q.draining ? "Draining" : "Active", partition,
    pendingResource: clean(q.pending), maxResource: max, guaranteedResource: clean(q.guaranteed),
    allocatedResource: clean(q.allocated), isLeaf: q.isLeaf, isManaged: q.managed,
    parent: q.parent, childNames: q.childNames,
    maxRunningApps: q.maxApplications, runningApps: q.runningApplications, currentPriority: q.priority ?? 0,
    sortingPolicy: q.sortPolicy, prioritySorting: q.prioritySorting,
  };
  if (max) out.absUsedCapacity = percent(q.allocated, max);
  if (q.children) out.children = q.children.map((c) => queueInfo(c));
  return out;
}

/** A hold reason as REST shows it: the typed fields, its scheduling state and its text. */
export function holdInfo(r: HoldReason): Record<string, unknown> {
  return { ...r, state: holdState(r), message: formatHoldReason(r) };
}

export function applicationInfo(a: ApplicationView): Record<string, unknown> {
  return {
    applicationID: a.id, usedResource: clean(a.allocated) ?? {}, pendingResource: clean(a.pending) ?? {},
    partition: a.partition, queueName: a.queue, submissionTime: ns(a.submissionTime),
    requests: a.asks.map((x) => ({
      allocationKey: x.key, requestTime: ns(x.createTime), resource: x.resource, priority: String(x.priority),
      requiredNodeId: x.requiredNode ?? "", applicationId: a.id,
      ...(x.reservedNode ? { reservedNodeId: x.reservedNode } : {}),
      ...(x.hold ? { holdReason: holdInfo(x.hold) } : {}),
    })),
    allocations: a.allocations.map((x) => ({
      allocationKey: x.key, resource: x.resource, priority: String(x.priority), nodeId: x.nodeId, applicationId: a.id,
      allocationTime: ns(x.allocatedAt ?? x.createTime),
    })),
    applicationState: a.state, user: a.user, groups: a.groups,
    stateLog: a.stateLog.map((s) => ({ time: ns(s.time), applicationState: s.state })),
    ...(a.rejectedMessage !== undefined ? { rejectedMessage: a.rejectedMessage } : {}),
    ...(a.rejection ? { rejectionReason: holdInfo(a.rejection) } : {}),
    maxRequestPriority: a.maxPendingPriority ?? 0,
  };
}

export function nodeInfo(n: NodeView): Record<string, unknown> {
  return {
    nodeID: n.id, hostName: n.attributes["si/hostname"] ?? "", rackName: n.attributes["si/rackname"] ?? "", attributes: n.attributes,
    capacity: n.capacity, allocated: clean(n.allocated) ?? {}, occupied: clean(n.occupied) ?? {}, available: n.available,
    utilized: percent(n.allocated, n.capacity),
    allocations: n.allocations.map((x) => ({ allocationKey: x.key, applicationId: x.appId, nodeId: n.id, resource: x.resource, priority: String(x.priority) })),
    schedulable: n.schedulable, isReserved: n.reservation !== undefined,
    reservations: n.reservation ? [`${n.reservation.appId}|${n.reservation.key}`] : [],
  };
}

export function userUsage(list: UsageView[], kind: "users" | "groups"): Record<string, unknown>[] {
  return list.map((u) => {
    const queues = u.queues.map((q) => ({ ...q, resourceUsage: clean(q.resourceUsage) ?? {} }));
    return kind === "users" ? { userName: u.name, queues } : { groupName: u.name, queues };
  });
}

/**
 * `/ws/v1/scheduler/healthcheck` (SchedulerHealthDAOInfo, Go field names): negative resources on partitions and nodes,
 * consistency of partition capacity with the nodes.
 */
export function health(partitions: { partition: PartitionView; nodes: NodeView[] }[]): { Healthy: boolean; HealthChecks: { Name: string; Succeeded: boolean; Description: string; DiagnosisMessage: string }[] } {
  const checks: { Name: string; Succeeded: boolean; Description: string; DiagnosisMessage: string }[] = [];
  const neg = (r: Res) => Object.values(r).some((v) => v < 0);
  const negParts = partitions.filter(({ partition: p }) => neg(p.allocated) || neg(p.pending)).map(({ partition: p }) => p.name);
  checks.push({ Name: "Negative resources", Succeeded: negParts.length === 0, Description: "Check for negative resources in the partitions", DiagnosisMessage: negParts.length ? `Partitions with negative resources: ${negParts.join(",")}` : "" });
  const negNodes = partitions.flatMap(({ nodes }) => nodes.filter((n) => neg(n.allocated) || neg(n.available)).map((n) => n.id));
  checks.push({ Name: "Negative resources", Succeeded: negNodes.length === 0, Description: "Check for negative resources in the nodes", DiagnosisMessage: negNodes.length ? `Nodes with negative resources: ${negNodes.join(",")}` : "" });
  const badCapacity = partitions.filter(({ partition: p, nodes }) => {
    const total: Res = {};
    for (const n of nodes) for (const k in n.capacity) total[k] = (total[k] ?? 0) + n.capacity[k]!;
    return Object.keys({ ...total, ...p.capacity }).some((k) => (total[k] ?? 0) !== (p.capacity[k] ?? 0));
  }).map(({ partition: p }) => p.name);
  checks.push({ Name: "Consistency of data", Succeeded: badCapacity.length === 0, Description: "Check if a partition's capacity equals the sum of its nodes' capacity", DiagnosisMessage: badCapacity.length ? `Partitions: ${badCapacity.join(",")}` : "" });
  return { Healthy: checks.every((c) => c.Succeeded), HealthChecks: checks };
}

/**
 * `applications/{active|completed|rejected}`: rejected ones by id and reason (`rejectedMessage`); the full record with
 * its state log is at `application/{id}`.
 */
export function applicationsInfo(list: ApplicationView[], state: "active" | "completed" | "rejected"): unknown[] {
  if (state === "rejected") return list.map((a) => ({ applicationID: a.id, partition: a.partition, applicationState: a.state, rejectedMessage: a.rejectedMessage }));
  return list.map(applicationInfo);
}
