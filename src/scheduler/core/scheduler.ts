/**
 * The scheduling core's interface: a TypeScript rendering of YuniKorn's scheduler interface (apache/yunikorn-
 * scheduler-interface si.proto; yunikorn-core reference §1). Events in — UpdateConfiguration, UpdateNode,
 * UpdateApplication, UpdateAllocation — and decisions out: the responses of each call plus `schedule()`, which returns
 * new allocations. No Kubernetes, no I/O, no clock of its own: time comes from the injected `now()` (milliseconds).
 * Groups come from the caller (design 002): the core never resolves them.
 */
import { type PartitionConfig, type SchedulerConfig, decodeQueuesYaml } from "./config.js";
import { type Allocation, type AppStateChange, Partition } from "./partition.js";
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
      for (const pc of parts) new Partition(pc.name, structuredClone(pc));
    } catch (err) {
      return { ok: false, error: `update of configuration failed: ${(err as Error).message}` };
    }
    for (const pc of parts) {
      const p = this.partitions.get(pc.name);
      if (p) p.applyConfig(pc);
      else this.partitions.set(pc.name, new Partition(pc.name, pc));
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
    const now = this.now();
    for (const name of [...this.partitions.keys()].sort()) {
      const p = this.partitions.get(name)!;
      p.tick(now);
      while (out.length < max) {
        const a = p.tryAllocate(now);
        if (!a) break;
        out.push(a);
      }
    }
    return out;
  }

  /** Why a pending ask is held (see `Partition.pendingReason`); undefined when it is not held or unknown. */
  pendingReason(appId: string, allocationKey: string, partition?: string): { state: "Skipped" | "Failed"; reason: string } | undefined {
    return this.partition(partition)?.pendingReason(appId, allocationKey);
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
}
