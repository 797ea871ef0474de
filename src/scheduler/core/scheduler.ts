/**
 * The scheduling core's interface: a TypeScript rendering of YuniKorn's scheduler interface (apache/yunikorn-
 * scheduler-interface si.proto; yunikorn-core reference §1). Events in — UpdateConfiguration, UpdateNode,
 * UpdateApplication, UpdateAllocation — and decisions out: the responses of each call plus `schedule()`, which returns
 * new allocations. No Kubernetes, no I/O, no clock of its own: time comes from the injected `now()` (milliseconds).
 * Groups come from the caller (design 002): the core never resolves them.
 */
import { type PartitionConfig, type SchedulerConfig, decodeQueuesYaml } from "./config.js";
import { type Allocation, type AllocationResult, allocationOf } from "./allocation-result.js";
import { type HoldReason, formatHoldReason, holdState } from "./hold-reason.js";
import { type AppStateChange, Partition } from "./partition.js";
import {
  type ApplicationFilter, type ApplicationView, type NodeView, type PartitionView, type QueueView, type UsageView,
  applicationView, applicationViews, findApplication, nodeView, partitionView, queueView, usageViews,
} from "./read.js";
import type { Res } from "./resources.js";
import { validateSchedulerConfig } from "./validate.js";
import type { TrackedLimit } from "./ugm/tracker.js";

export type NodeAction = "CREATE" | "UPDATE" | "DRAIN_NODE" | "DRAIN_TO_SCHEDULABLE" | "DECOMISSION" | "CREATE_DRAIN";

export interface NodeInfo {
  nodeID: string;
  action: NodeAction;
  /** Allocatable capacity (memory bytes, vcore millicores, other units). */
  schedulableResource?: Res;
  /** Used by pods the core does not manage. */
  occupiedResource?: Res;
  attributes?: Record<string, string>;
  /** Partition name; default `default`. */
  partition?: string;
}

export interface AddApplicationRequest {
  applicationID: string;
  queueName: string;
  partitionName?: string;
  ugi: { user: string; groups?: string[] };
  tags?: Record<string, string>;
}

export interface AllocationMessage {
  allocationKey: string;
  applicationID: string;
  partitionName?: string;
  resourcePerAlloc: Res;
  priority?: number;
  /** Set: an allocation the RM already made (recovery). Unset: a pending ask. */
  nodeID?: string;
  /** `creationTime` (Unix seconds), `yunikorn.apache.org/requiredNode`. */
  allocationTags?: Record<string, string>;
  /**
   * The RM's node check, called for nodes with room before one is chosen (YuniKorn: the shim's `Predicates`
   * callback, yunikorn-shim reference §2.12). Must be fast and pure; undefined: any node with room.
   */
  predicate?: (nodeID: string) => boolean;
}

export interface AllocationRelease {
  applicationID: string;
  partitionName?: string;
  /** Empty: release every allocation and ask of the application. */
  allocationKey?: string;
  message?: string;
}

export interface Rejection {
  id: string;
  reason: string;
}

/** A queue maximum, or a user or group resource limit, with the usage it is measured against (`limitsOf`). */
export type LimitUsage = TrackedLimit | { kind: "queue"; name: string; path: string; wildcard: false; max: Res; used: Res };

export interface CoreResponse {
  acceptedNodes: string[];
  rejectedNodes: Rejection[];
  acceptedApplications: string[];
  rejectedApplications: Rejection[];
  rejectedAllocations: Rejection[];
  /** Allocations released by the core (node or application removed), to be confirmed by the RM. */
  released: Allocation[];
}

const emptyResponse = (): CoreResponse => ({
  acceptedNodes: [], rejectedNodes: [], acceptedApplications: [], rejectedApplications: [], rejectedAllocations: [], released: [],
});

export const DEFAULT_CONFIG = `partitions:
  - name: default
    placementrules:
      - name: tag
        value: namespace
        create: true
    queues:
      - name: root
        submitacl: '*'
`;

export class SchedulerCore {
  readonly partitions = new Map<string, Partition>();
  private configText = DEFAULT_CONFIG;
  private applied!: SchedulerConfig;

  /** @throws Error when the initial config is invalid */
  constructor(private readonly now: () => number, config: string = DEFAULT_CONFIG) {
    const r = this.updateConfiguration(config);
    if (!r.ok) throw new Error(r.error);
  }

  /** The queue configuration text last applied ("" = the default). */
  get config(): string {
    return this.configText;
  }

  /** The configuration in force, as validated (the default one when the text is empty); REST `GET /ws/v1/config`. */
  get appliedConfig(): SchedulerConfig {
    return this.applied;
  }

  /**
   * Applies a new queues.yaml: validated whole first; on error nothing changes. Existing partitions are updated in
   * place (queues added/changed, removed ones drain), new partitions are created.
   */
  updateConfiguration(yaml: string): { ok: true } | { ok: false; error: string } {
    let validated: SchedulerConfig;
    let parts: PartitionConfig[];
    try {
      validated = validateSchedulerConfig(decodeQueuesYaml(yaml.trim() === "" ? DEFAULT_CONFIG : yaml));
      parts = validated.partitions;
      // dry run: build every partition before touching the live ones
      for (const pc of parts) new Partition({ name: pc.name, config: structuredClone(pc) });
    } catch (err) {
      return { ok: false, error: `update of configuration failed: ${(err as Error).message}` };
    }
    for (const pc of parts) {
      const p = this.partitions.get(pc.name);
      if (p) p.applyConfig(pc);
      else this.partitions.set(pc.name, new Partition({ name: pc.name, config: pc }));
    }
    this.configText = yaml;
    this.applied = validated;
    return { ok: true };
  }

  private partition(name: string | undefined): Partition | undefined {
    return this.partitions.get(name || "default");
  }

  updateNode(nodes: NodeInfo[]): CoreResponse {
    const out = emptyResponse();
    for (const n of nodes) {
      const p = this.partition(n.partition);
      if (!p) {
        out.rejectedNodes.push({ id: n.nodeID, reason: `failed to find partition ${n.partition} for new node ${n.nodeID}` });
        continue;
      }
      try {
        switch (n.action) {
          case "CREATE":
          case "CREATE_DRAIN":
            p.addNode(n.nodeID, n.schedulableResource ?? {}, n.occupiedResource ?? {}, n.action === "CREATE", n.attributes ?? {});
            out.acceptedNodes.push(n.nodeID);
            break;
          case "UPDATE":
            p.updateNode(n.nodeID, { capacity: n.schedulableResource, occupied: n.occupiedResource });
            break;
          case "DRAIN_NODE":
            p.updateNode(n.nodeID, { schedulable: false });
            break;
          case "DRAIN_TO_SCHEDULABLE":
            p.updateNode(n.nodeID, { schedulable: true });
            break;
          case "DECOMISSION":
            out.released.push(...p.removeNode(n.nodeID, this.now()));
            break;
        }
      } catch (err) {
        out.rejectedNodes.push({ id: n.nodeID, reason: (err as Error).message });
      }
    }
    return out;
  }

  updateApplication(req: { new?: AddApplicationRequest[]; remove?: { applicationID: string; partitionName?: string }[] }): CoreResponse {
    const out = emptyResponse();
    for (const a of req.new ?? []) {
      const p = this.partition(a.partitionName);
      if (!p) {
        out.rejectedApplications.push({ id: a.applicationID, reason: `Failed to add application ${a.applicationID} to partition ${a.partitionName}, partition doesn't exist` });
        continue;
      }
      try {
        p.addApplication(a.applicationID, a.queueName, a.ugi.user, a.ugi.groups ?? [], a.tags ?? {}, this.now());
        out.acceptedApplications.push(a.applicationID);
      } catch (err) {
        out.rejectedApplications.push({ id: a.applicationID, reason: (err as Error).message });
      }
    }
    for (const r of req.remove ?? []) out.released.push(...(this.partition(r.partitionName)?.removeApplication(r.applicationID, this.now()) ?? []));
    return out;
  }

  updateAllocation(req: { allocations?: AllocationMessage[]; releases?: AllocationRelease[] }): CoreResponse {
    const out = emptyResponse();
    const now = this.now();
    for (const a of req.allocations ?? []) {
      const p = this.partition(a.partitionName);
      if (!p) {
        out.rejectedAllocations.push({ id: a.allocationKey, reason: `Failed to find partition ${a.partitionName}, for application ${a.applicationID} and allocation ${a.allocationKey}` });
        continue;
      }
      try {
        const created = Number(a.allocationTags?.creationTime);
        p.addAsk(a.applicationID, a.allocationKey, a.resourcePerAlloc, a.priority ?? 0, Number.isFinite(created) && created > 0 ? created * 1000 : now, now, {
          node: a.nodeID || undefined,
          requiredNode: a.allocationTags?.["yunikorn.apache.org/requiredNode"],
          predicate: a.predicate,
        });
      } catch (err) {
        out.rejectedAllocations.push({ id: a.allocationKey, reason: (err as Error).message });
      }
    }
    for (const r of req.releases ?? []) {
      const p = this.partition(r.partitionName);
      const app = p?.apps.get(r.applicationID);
      if (!p || !app) continue;
      const keys = r.allocationKey ? [r.allocationKey] : [...app.asks.keys()];
      for (const k of keys) p.removeAsk(r.applicationID, k, now);
    }
    return out;
  }

  /**
   * Runs scheduling cycles until nothing more can be placed (or `max` allocations), partitions in name order.
   * @returns the new allocations, for the RM to bind
   */
  schedule(max = Number.POSITIVE_INFINITY): Allocation[] {
    const out: Allocation[] = [];
    for (const r of this.scheduleResults(max)) {
      const a = allocationOf(r);
      if (a) out.push(a);
    }
    return out;
  }

  /**
   * `schedule` with every result of the cycles (reference §4.1): allocations, and the reservations made and released
   * on the way. At most `max` allocations.
   */
  scheduleResults(max = Number.POSITIVE_INFINITY): AllocationResult[] {
    const out: AllocationResult[] = [];
    let allocated = 0;
    const now = this.now();
    for (const name of [...this.partitions.keys()].sort()) {
      const p = this.partitions.get(name)!;
      p.tick(now);
      while (allocated < max) {
        const r = p.tryAllocate(now);
        if (!r) break;
        out.push(r);
        if (allocationOf(r)) allocated++;
      }
    }
    return out;
  }

  /** Why a pending ask is held, as data (see `Partition.holdReason`); undefined when it is not held or unknown. */
  holdReason(appId: string, allocationKey: string, partition?: string): HoldReason | undefined {
    return this.partition(partition)?.holdReason(appId, allocationKey);
  }

  /** Only the quota part of `holdReason` (maxapplications, user/group limits, queue maxima): no node is looked at. */
  quotaHold(appId: string, allocationKey: string, partition?: string): HoldReason | undefined {
    const p = this.partition(partition);
    const app = p?.apps.get(appId);
    const ask = app?.asks.get(allocationKey);
    return ask && !ask.node ? p!.quotaHold(app!, ask.resource) : undefined;
  }

  /**
   * `holdReason` formatted for callers that report text: `Skipped` (a quota) or `Failed` (no node) and the reason's
   * text (`formatHoldReason`).
   */
  pendingReason(appId: string, allocationKey: string, partition?: string): { state: "Skipped" | "Failed"; reason: string } | undefined {
    const r = this.holdReason(appId, allocationKey, partition);
    return r && { state: holdState(r), reason: formatHoldReason(r) };
  }

  /**
   * Moves an allocation to another node with room that passes the ask's predicate (queue and user usage unchanged).
   * @returns false when the allocation, the node or the room is missing
   */
  relocate(appId: string, allocationKey: string, nodeId: string, partition?: string): boolean {
    return this.partition(partition)?.relocate(appId, allocationKey, nodeId) ?? false;
  }

  /**
   * The maxima that apply to an application — queue `max` on its path below root (leaf first), then its user and
   * group resource limits (root first) — each with the usage it is measured against; [] for an unknown application.
   */
  limitsOf(appId: string, partition?: string): LimitUsage[] {
    const p = this.partition(partition);
    const app = p?.apps.get(appId);
    if (!p || !app) return [];
    const out: LimitUsage[] = [];
    for (let q = app.queue; q.parent; q = q.parent) {
      if (q.max) out.push({ kind: "queue", name: q.path, path: q.path, wildcard: false, max: { ...q.max }, used: { ...q.allocated } });
    }
    return [...out, ...p.limits.limitsAlong(app)];
  }

  /** Leaf queue of an application, or undefined when the core does not hold it. */
  applicationQueue(appId: string, partition?: string): string | undefined {
    return this.partition(partition)?.apps.get(appId)?.queue.path;
  }

  /** Application state changes since the last call (UpdatedApplication messages). */
  stateChanges(): (AppStateChange & { partition: string })[] {
    return [...this.partitions.entries()].flatMap(([name, p]) => p.drainStateChanges().map((c) => ({ ...c, partition: name })));
  }

  // ---------------------------------------------------------------- read API (read.ts views)

  /** Partition names, sorted. */
  partitionNames(): string[] {
    return [...this.partitions.keys()].sort();
  }

  partitionView(partition?: string): PartitionView | undefined {
    const p = this.partition(partition);
    return p && partitionView(p);
  }

  /** The queue at `path` (default root), with its subtree when asked; undefined when unknown. */
  queueView(path = "root", opts: { partition?: string; subtree?: boolean } = {}): QueueView | undefined {
    const q = this.partition(opts.partition)?.find(path);
    return q && queueView(q, opts.subtree ?? false);
  }

  /**
   * Applications: active (default), completed (kept until they expire), rejected (with their reason), or all.
   * `holds: false` leaves out the pending asks' hold reasons (cheaper: metrics).
   */
  applicationViews(filter: ApplicationFilter = "active", partition?: string, opts: { holds?: boolean } = {}): ApplicationView[] {
    const p = this.partition(partition);
    return p ? applicationViews(p, filter, opts.holds ?? true) : [];
  }

  /** One application with its state history: the active one, else its latest finished instance, else the rejected one. */
  applicationView(appId: string, partition?: string): ApplicationView | undefined {
    const p = this.partition(partition);
    const a = p && findApplication(p, appId);
    return a && applicationView(p!, a);
  }

  /** Nodes sorted by id, with their allocations and reservation. */
  nodeViews(partition?: string): NodeView[] {
    const p = this.partition(partition);
    return p ? [...p.nodes.keys()].sort().map((id) => nodeView(p, id)!) : [];
  }

  nodeView(nodeId: string, partition?: string): NodeView | undefined {
    const p = this.partition(partition);
    return p && nodeView(p, nodeId);
  }

  /** Tracked user or group usage per queue path. */
  usageViews(kind: "users" | "groups", partition?: string): UsageView[] {
    const p = this.partition(partition);
    return p ? usageViews(p, kind) : [];
  }
}
