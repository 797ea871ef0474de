/**
 * REST response shapes, YuniKorn's JSON field names (apache/yunikorn-core pkg/webservice/dao; yunikorn-core
 * reference §3.1). Times are Unix nanoseconds unless noted; resources are `{name: integer}`.
 */
import type { Queue } from "../core/objects.js";
import { type Partition, splitAllocationId } from "../core/partition.js";
import type { Res } from "../core/resources.js";
import type { SchedulerCore } from "../core/scheduler.js";
import { allocationInfo, clean, ns } from "./app-dao.js";

/**
 * PartitionInfo. `preemptionEnabled` is false: corral does not preempt. `lastStateTransitionTime`: the partition has
 * been Active since the scheduler started (`startTime`, Unix ms).
 */
export function partitionInfo(p: Partition, startTime = 0): Record<string, unknown> {
  const capacity = clean(p.root.max) ?? {};
  const used = clean(p.root.allocated) ?? {};
  const utilization: Record<string, number> = {};
  for (const k in capacity) utilization[k] = capacity[k]! > 0 ? Math.floor(((used[k] ?? 0) * 100) / capacity[k]!) : 0;
  const states: Record<string, number> = { total: p.apps.size + p.rejected.size };
  for (const a of p.apps.values()) states[a.state] = (states[a.state] ?? 0) + 1;
  if (p.rejected.size > 0) states.Rejected = (states.Rejected ?? 0) + p.rejected.size;
  let containers = 0;
  for (const n of p.nodes.values()) containers += n.allocations.size;
  return {
    clusterId: "mycluster", name: p.name,
    capacity: { capacity, usedCapacity: used, utilization },
    nodeSortingPolicy: { type: p.nodeSortPolicy, resourceWeights: p.weights },
    preemptionEnabled: false, quotaPreemptionEnabled: false,
    totalNodes: p.nodes.size, applications: states, totalContainers: containers, state: "Active", lastStateTransitionTime: ns(startTime),
  };
}

export function queueInfo(p: Partition, q: Queue, withChildren: boolean, top = false): Record<string, unknown> {
  const max = clean(q.max);
  const out: Record<string, unknown> = {
    queuename: q.path, status: q.draining ? "Draining" : "Active", partition: top ? p.name : "",
    pendingResource: clean(q.pending), maxResource: max, guaranteedResource: clean(q.guaranteed),
    allocatedResource: clean(q.allocated), isLeaf: q.isLeaf, isManaged: q.managed,
    parent: q.parent?.path ?? "", childNames: [...q.children.values()].map((c) => c.path).sort(),
    maxRunningApps: q.maxApps, runningApps: q.runningApps, currentPriority: 0,
    sortingPolicy: q.sortPolicy, prioritySorting: q.sortPriority,
  };
  if (max) {
    const abs: Res = {};
    for (const k in max) abs[k] = max[k]! > 0 ? Math.floor(((q.allocated[k] ?? 0) * 100) / max[k]!) : 0;
    out.absUsedCapacity = abs;
  }
  if (withChildren) out.children = [...q.children.values()].sort((a, b) => (a.name < b.name ? -1 : 1)).map((c) => queueInfo(p, c, true));
  return out;
}

export function nodeInfo(core: SchedulerCore, p: Partition, id: string): Record<string, unknown> | undefined {
  const n = p.nodes.get(id);
  if (!n) return undefined;
  const available = n.available();
  const utilized: Res = {};
  for (const k in n.capacity) utilized[k] = n.capacity[k]! > 0 ? Math.floor(((n.allocated[k] ?? 0) * 100) / n.capacity[k]!) : 0;
  return {
    nodeID: n.id, hostName: n.attributes["si/hostname"] ?? "", rackName: n.attributes["si/rackname"] ?? "", attributes: n.attributes,
    capacity: n.capacity, allocated: clean(n.allocated) ?? {}, occupied: clean(n.occupied) ?? {}, available, utilized,
    allocations: [...n.allocations].flatMap((k) => {
      const [appId, key] = splitAllocationId(k);
      const ask = p.apps.get(appId)?.asks.get(key);
      return ask ? [allocationInfo(core, p, appId, ask)] : [];
    }),
    schedulable: n.schedulable, isReserved: false,
  };
}

/**
 * UserResourceUsageDAOInfo / GroupResourceUsageDAOInfo: usage as a queue tree from root (`queues`), the group each
 * application of a user is tracked under (`groups`, appId → group), a group's applications. Limits
 * (`maxResources`, `maxApplications`) are not reported.
 */
export function userUsage(p: Partition, kind: "users" | "groups", only?: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const [name, byPath] of p.limits.snapshot(kind)) {
    if (only !== undefined && name !== only) continue;
    const tree = usageTree(byPath, "root");
    if (kind === "groups") {
      out.push({ groupName: name, ...(tree && tree.runningApplications ? { applications: tree.runningApplications } : {}), ...(tree ? { queues: tree } : {}) });
      continue;
    }
    const groups: Record<string, string> = {};
    for (const appId of byPath.get("root")?.apps ?? []) {
      const app = p.apps.get(appId);
      const g = app ? p.limits.groupOf(app) : undefined;
      if (g) groups[appId] = g;
    }
    out.push({ userName: name, ...(Object.keys(groups).length ? { groups } : {}), ...(tree ? { queues: tree } : {}) });
  }
  return out.sort((a, b) => String(a.userName ?? a.groupName) < String(b.userName ?? b.groupName) ? -1 : 1);
}

function usageTree(byPath: ReadonlyMap<string, { res: Res; apps: ReadonlySet<string> }>, path: string): Record<string, unknown> | undefined {
  const u = byPath.get(path);
  if (!u) return undefined;
  const prefix = `${path}.`;
  const children = [...byPath.keys()].filter((k) => k.startsWith(prefix) && !k.slice(prefix.length).includes(".")).sort()
    .map((k) => usageTree(byPath, k)!);
  const out: Record<string, unknown> = { queuePath: path };
  const res = clean(u.res);
  if (res) out.resourceUsage = res;
  if (u.apps.size > 0) out.runningApplications = [...u.apps].sort();
  if (children.length > 0) out.children = children;
  return out;
}

/**
 * `/ws/v1/scheduler/healthcheck` (SchedulerHealthDAOInfo, Go field names): negative resources on partitions and nodes,
 * consistency of partition capacity with the nodes, and of each node's allocated + occupied + available.
 */
export function health(partitions: Iterable<Partition>): { Healthy: boolean; HealthChecks: { Name: string; Succeeded: boolean; Description: string; DiagnosisMessage: string }[] } {
  const checks: { Name: string; Succeeded: boolean; Description: string; DiagnosisMessage: string }[] = [];
  const neg = (r: Res) => Object.values(r).some((v) => v < 0);
  const ps = [...partitions];
  const negParts = ps.filter((p) => neg(p.root.allocated) || neg(p.root.pending)).map((p) => p.name);
  checks.push({ Name: "Negative resources", Succeeded: negParts.length === 0, Description: "Check for negative resources in the partitions", DiagnosisMessage: negParts.length ? `Partitions with negative resources: ${negParts.join(",")}` : "" });
  const negNodes = ps.flatMap((p) => [...p.nodes.values()].filter((n) => neg(n.allocated) || neg(n.available())).map((n) => n.id));
  checks.push({ Name: "Negative resources", Succeeded: negNodes.length === 0, Description: "Check for negative resources in the nodes", DiagnosisMessage: negNodes.length ? `Nodes with negative resources: ${negNodes.join(",")}` : "" });
  const badCapacity = ps.filter((p) => {
    const total: Res = {};
    for (const n of p.nodes.values()) for (const k in n.capacity) total[k] = (total[k] ?? 0) + n.capacity[k]!;
    const max = p.root.max ?? {};
    return Object.keys({ ...total, ...max }).some((k) => (total[k] ?? 0) !== (max[k] ?? 0));
  }).map((p) => p.name);
  checks.push({ Name: "Consistency of data", Succeeded: badCapacity.length === 0, Description: "Check if a partition's capacity equals the sum of its nodes' capacity", DiagnosisMessage: badCapacity.length ? `Partitions: ${badCapacity.join(",")}` : "" });
  return { Healthy: checks.every((c) => c.Succeeded), HealthChecks: checks };
}
