/**
 * The scheduling core's interface: a TypeScript rendering of YuniKorn's scheduler interface (apache/yunikorn-
 * scheduler-interface si.proto; yunikorn-core reference §1). Events in — UpdateConfiguration, UpdateNode,
 * UpdateApplication, UpdateAllocation — and decisions out: the responses of each call plus `schedule()`, which returns
 * new allocations. No Kubernetes, no I/O, no clock of its own: time comes from the injected `now()` (milliseconds).
 * Groups come from the caller (design 002): the core never resolves them. The messages themselves are in si.ts.
 */
import {
  ChangeDetail,
  ChangeType,
  type EventSink,
  appEvent,
  appStateDetail,
  nodeEvent,
  queueEvent,
  requestEvent,
  queueChangeEvent,
  ugmChangeEvent,
} from "../events/record.js";
import {
  allocationAddedEvent,
  nodeAllocationEvent,
  preemptionEvents,
  quotaPreemptionEvents,
  quotaWithoutVictimsEvent,
  releaseEvents,
  reservationEvent,
  runnableEvent,
} from "../events/result-events.js";
import { type PartitionConfig, type SchedulerConfig, decodeQueuesYaml } from "./config.js";
import { type Allocation, type AllocationResult, allocationOf } from "./allocation-result.js";
import type { AddApplicationRequest, AllocationMessage, AllocationRelease, CoreResponse, LimitUsage, NodeInfo } from "./si.js";
import { type HoldReason, formatHoldReason, holdRecordText, holdState, releasedHoldRecordText } from "./hold-reason.js";
import { allocationId } from "./node.js";
import { NO_TAGS } from "./application.js";
import { type AppStateChange, type CoreRelease, Partition, SchedulingError } from "./partition.js";
import {
  type ApplicationFilter,
  type ApplicationView,
  type NodeUsageView,
  type NodeView,
  type PartitionView,
  type QueueView,
  type UsageView,
  applicationCountsOf,
  applicationView,
  applicationViews,
  nodeUsagesOf,
  partitionHealthView,
  type PartitionHealthView,
  findApplication,
  nodeView,
  partitionView,
  queueView,
  usageViews,
} from "./read.js";
import type { Res } from "./resources.js";
import { validateSchedulerConfig } from "./validate.js";
import { type AllocationLogEntry, AllocationLogs } from "./allocation-log.js";
import { type CoreCounts, newCoreCounts } from "./counts.js";
import type { AppState } from "./application-state.js";

export type {
  AddApplicationRequest,
  AllocationMessage,
  AllocationRelease,
  CoreResponse,
  LimitUsage,
  NodeAction,
  NodeInfo,
  Rejection,
} from "./si.js";

const emptyResponse = (): CoreResponse => ({
  acceptedNodes: [],
  rejectedNodes: [],
  acceptedApplications: [],
  rejectedApplications: [],
  rejectedAllocations: [],
  released: [],
});

/**
 * The configuration used without a `queues.yaml` (upstream's default): one partition, `tag` placement on `namespace`
 * with create, root open to everyone.
 */
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

/** Options of {@link SchedulerCore}. */
export interface SchedulerCoreOptions {
  /**
   * Receives YuniKorn's event records (APP, REQUEST, NODE, QUEUE, USERGROUP; si.EventRecord) as the core's calls
   * change its state; called synchronously, so it must be cheap (the event system batches its fan-out).
   */
  events?: EventSink;
  /**
   * Times each partition's part of a scheduling cycle (upstream ClusterContext.schedule → metrics
   * ObserveSchedulingLatency) and each preemption decision (Application.tryPreemption → ObserveTryPreemptionLatency):
   * `clock` is a monotonic clock in seconds; `observe` and `observePreemption` get the partition's name and the
   * seconds taken. Absent: nothing is timed.
   */
  latency?: {
    clock: () => number;
    observe: (partition: string, seconds: number) => void;
    observePreemption?: (partition: string, seconds: number) => void;
    /** Each search of the nodes for an ask (Application.tryNodes): seconds, and whether a node was found. */
    observeNodeSearch?: (partition: string, seconds: number, found: boolean) => void;
  };
}

/** The key of an ask in the core's per-ask maps (hold texts, allocation logs, tags): partition, then allocation id. */
const askKey = (partition: string, appId: string, key: string): string => `${partition}\0${allocationId(appId, key)}`;

/**
 * The scheduling core (see the module comment): partitions of queues, nodes, applications and their asks, changed only
 * through the calls below and `schedule()`. Every call is synchronous and takes its time from `now()`; records of
 * what changed go to `SchedulerCoreOptions.events`. The `update*` calls never throw for bad input: they answer with
 * rejections.
 */
export class SchedulerCore {
  /** The partitions by name (`default` unless the configuration names others); read-only for callers. */
  readonly partitions = new Map<string, Partition>();
  private configText = DEFAULT_CONFIG;
  private applied!: SchedulerConfig;
  private readonly emit: EventSink;
  /** An event sink was given: records are built (none are built otherwise). */
  private readonly tracking: boolean;
  /** State changes drained from the partitions, until `stateChanges()` hands them out. */
  private changes: AppStateChange[] = [];
  /** `partition \0 allocationId` → the allocationTags the RM sent with the ask. */
  private readonly tags = new Map<string, Readonly<Record<string, string>>>();
  /** Last hold reported per pending ask, with its REQUEST record's text (a record when the text changes). */
  private readonly holds = new Map<string, { text: string; hold: HoldReason }>();
  /** `partition \0 allocationId` → the hold reasons `checkHold` saw (allocationLog). */
  private readonly allocLogs = new AllocationLogs();
  private readonly latency: SchedulerCoreOptions["latency"];
  /** The cumulative counts behind YuniKorn's metrics (counts.ts), for all partitions; read-only for callers. */
  readonly counts: CoreCounts = newCoreCounts();
  /** Nodes refused for an unknown partition since the core started (upstream metrics node{state="failed"}). */
  private failedNodes = 0;
  /**
   * Allocations refused for a reason upstream counts as a scheduling error (`SchedulingError`), and nodes refused
   * for an unknown partition, since the core started (upstream metrics GetSchedulingErrors / GetFailedNodes, read by
   * its health check).
   */
  get failures(): { schedulingErrors: number; failedNodes: number } {
    return { schedulingErrors: this.counts.containers.error, failedNodes: this.failedNodes };
  }

  /** @throws Error when the initial config is invalid */
  constructor(
    private readonly now: () => number,
    config: string = DEFAULT_CONFIG,
    opts: SchedulerCoreOptions = {},
  ) {
    this.emit = opts.events ?? (() => {});
    this.latency = opts.latency;
    this.tracking = opts.events !== undefined;
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
      if (p) p.applyConfig(pc, this.now());
      else {
        const l = this.latency;
        const created = new Partition({
          name: pc.name,
          config: pc,
          createdAt: this.now(),
          counts: this.counts,
          preemptionLatency: l?.observePreemption && { clock: l.clock, observe: (s) => l.observePreemption!(pc.name, s) },
          nodeSearchLatency: l?.observeNodeSearch && { clock: l.clock, observe: (s, found) => l.observeNodeSearch!(pc.name, s, found) },
        });
        created.limits.recordChanges = this.tracking; // USERGROUP records only when events are sent
        this.partitions.set(pc.name, created);
      }
    }
    this.configText = yaml;
    this.applied = validated;
    this.collect();
    return { ok: true };
  }

  private partition(name: string | undefined): Partition | undefined {
    return this.partitions.get(name || "default");
  }

  /**
   * UpdateNode (si.NodeRequest): applies each node change in order. A node of an unknown partition, a duplicate
   * `CREATE` or a change of an unknown node is rejected with upstream's reason; `DECOMISSION` releases the node's
   * allocations (in `released`, for the RM to confirm). Emits NODE event records.
   */
  updateNode(nodes: NodeInfo[]): CoreResponse {
    const out = emptyResponse();
    // one time for the call: its records keep the order of their ids
    const now = this.now();
    for (const n of nodes) {
      const p = this.partition(n.partition);
      if (!p) {
        out.rejectedNodes.push({ id: n.nodeID, reason: `failed to find partition ${n.partition} for new node ${n.nodeID}` });
        // upstream counts only a new node so refused (context.go addNode)
        if (n.action === "CREATE" || n.action === "CREATE_DRAIN") this.failedNodes++;
        continue;
      }
      try {
        switch (n.action) {
          case "CREATE":
          case "CREATE_DRAIN":
            try {
              p.addNode(n.nodeID, n.schedulableResource ?? {}, n.occupiedResource ?? {}, n.action === "CREATE", n.attributes ?? {});
            } catch (err) {
              // upstream's text (context.go addNode joins its errors with a newline, partition.go addNodeToList wraps)
              throw new Error(
                "failure while adding new node, node rejected with error: \n" +
                  `failed to add node ${n.nodeID} to partition ${p.name}, error: ${(err as Error).message}`,
                { cause: err },
              );
            }
            out.acceptedNodes.push(n.nodeID);
            // upstream's order (application_tracking_test.go verifyNodeAddedAndQueueMaxSetEvents): the node's
            // schedulable flag, root's new max, then the node added
            this.emit(
              nodeEvent(now, {
                objectID: n.nodeID,
                message: `schedulable: ${n.action === "CREATE"}`,
                changeType: ChangeType.SET,
                detail: ChangeDetail.NODE_SCHEDULABLE,
              }),
            );
            if (this.tracking) this.partitionEvents(p, now);
            this.emit(
              nodeEvent(now, {
                objectID: n.nodeID,
                message: "Node added to the scheduler",
                changeType: ChangeType.ADD,
                detail: ChangeDetail.DETAILS_NONE,
                resource: n.schedulableResource ?? {},
              }),
            );
            break;
          case "UPDATE":
            p.updateNode(n.nodeID, { capacity: n.schedulableResource, occupied: n.occupiedResource });
            if (n.schedulableResource)
              this.emit(
                nodeEvent(now, {
                  objectID: n.nodeID,
                  changeType: ChangeType.SET,
                  detail: ChangeDetail.NODE_CAPACITY,
                  resource: n.schedulableResource,
                }),
              );
            if (n.occupiedResource)
              this.emit(
                nodeEvent(now, {
                  objectID: n.nodeID,
                  changeType: ChangeType.SET,
                  detail: ChangeDetail.NODE_OCCUPIED,
                  resource: n.occupiedResource,
                }),
              );
            break;
          case "DRAIN_NODE":
          case "DRAIN_TO_SCHEDULABLE": {
            const schedulable = n.action === "DRAIN_TO_SCHEDULABLE";
            const was = p.nodes.get(n.nodeID)?.schedulable;
            p.updateNode(n.nodeID, { schedulable });
            if (was !== schedulable)
              this.emit(
                nodeEvent(now, {
                  objectID: n.nodeID,
                  message: `schedulable: ${schedulable}`,
                  changeType: ChangeType.SET,
                  detail: ChangeDetail.NODE_SCHEDULABLE,
                }),
              );
            break;
          }
          case "DECOMISSION": {
            const known = p.nodes.has(n.nodeID);
            // upstream context.go: the node is made unschedulable before the partition removes it
            if (known && p.nodes.get(n.nodeID)!.schedulable)
              this.emit(
                nodeEvent(now, {
                  objectID: n.nodeID,
                  message: "schedulable: false",
                  changeType: ChangeType.SET,
                  detail: ChangeDetail.NODE_SCHEDULABLE,
                }),
              );
            if (known) this.counts.nodesDecommissioned++;
            const released = p.removeNode(n.nodeID, now);
            for (const a of released) this.released(p, a, ChangeDetail.ALLOC_NODEREMOVED, now);
            out.released.push(...released);
            if (known)
              this.emit(
                nodeEvent(now, {
                  objectID: n.nodeID,
                  message: "Node removed from the scheduler",
                  changeType: ChangeType.REMOVE,
                  detail: ChangeDetail.NODE_DECOMISSION,
                }),
              );
            break;
          }
        }
      } catch (err) {
        out.rejectedNodes.push({ id: n.nodeID, reason: (err as Error).message });
      }
    }
    this.collect();
    return out;
  }

  /**
   * UpdateApplication (si.ApplicationRequest): adds `new` applications (placed by the placement rules, checked against
   * the queue's ACLs and limits; a refusal is a rejection with upstream's reason, and the application is kept as
   * Rejected until it expires) and removes `remove` ones, releasing their allocations and asks (in `released`).
   * Emits APP and QUEUE event records.
   */
  updateApplication(req: { new?: AddApplicationRequest[]; remove?: { applicationID: string; partitionName?: string }[] }): CoreResponse {
    const out = emptyResponse();
    const now = this.now();
    for (const a of req.new ?? []) {
      const p = this.partition(a.partitionName);
      if (!p) {
        out.rejectedApplications.push({
          id: a.applicationID,
          reason: `Failed to add application ${a.applicationID} to partition ${a.partitionName}, partition doesn't exist`,
        });
        continue;
      }
      try {
        const gang = a.placeholderAsk && {
          placeholderAsk: a.placeholderAsk,
          timeoutMs: a.executionTimeoutMilliSeconds,
          style: a.gangSchedulingStyle,
        };
        const leaf = p.addApplication({
          id: a.applicationID,
          queue: a.queueName,
          user: a.ugi.user,
          groups: a.ugi.groups ?? [],
          tags: a.tags ?? NO_TAGS,
          now,
          gang,
        });
        out.acceptedApplications.push(a.applicationID);
        this.emit(appEvent(now, { objectID: a.applicationID, changeType: ChangeType.ADD, detail: ChangeDetail.APP_NEW }));
        this.partitionEvents(p, now); // the queues placement created (QUEUE_DYNAMIC) come before the application's
        this.emit(
          queueEvent(now, { objectID: leaf, referenceID: a.applicationID, changeType: ChangeType.ADD, detail: ChangeDetail.QUEUE_APP }),
        );
      } catch (err) {
        const reason = (err as Error).message;
        out.rejectedApplications.push({ id: a.applicationID, reason });
        if (p.rejected.has(a.applicationID)) {
          // upstream: the application is created (APP_NEW), then rejected with the reason (no RM state update)
          this.emit(appEvent(now, { objectID: a.applicationID, changeType: ChangeType.ADD, detail: ChangeDetail.APP_NEW }));
          this.emit(
            appEvent(now, { objectID: a.applicationID, message: reason, changeType: ChangeType.SET, detail: ChangeDetail.APP_REJECT }),
          );
        }
      }
    }
    for (const r of req.remove ?? []) {
      const p = this.partition(r.partitionName);
      const app = p?.apps.get(r.applicationID);
      if (!p || !app) continue;
      const pending = [...app.asks.values()].filter((x) => !x.node);
      const queue = app.queue.path;
      const released = p.removeApplication(r.applicationID, now);
      for (const x of pending)
        this.askRemoved(p, { appId: r.applicationID, key: x.key, resource: x.resource, detail: ChangeDetail.REQUEST_CANCEL, now });
      for (const x of released) this.released(p, x, ChangeDetail.ALLOC_CANCEL, now);
      out.released.push(...released);
      this.emit(
        queueEvent(now, { objectID: queue, referenceID: r.applicationID, changeType: ChangeType.REMOVE, detail: ChangeDetail.QUEUE_APP }),
      );
      this.emit(appEvent(now, { objectID: r.applicationID, changeType: ChangeType.REMOVE, detail: ChangeDetail.DETAILS_NONE }));
    }
    this.collect();
    return out;
  }

  /**
   * UpdateAllocation (si.AllocationRequest): records `allocations` — a pending ask, or with `nodeID` an allocation the
   * RM already made (recovery; counted without a limit check) — and applies `releases`. An unknown application or
   * node, or empty or negative resources, are rejections in `rejectedAllocations` with upstream's texts. Emits
   * REQUEST, APP and USERGROUP event records.
   */
  updateAllocation(req: { allocations?: AllocationMessage[]; releases?: AllocationRelease[] }): CoreResponse {
    const out = emptyResponse();
    const now = this.now();
    for (const a of req.allocations ?? []) {
      const p = this.partition(a.partitionName);
      if (!p) {
        out.rejectedAllocations.push({
          id: a.allocationKey,
          reason: `Failed to find partition ${a.partitionName}, for application ${a.applicationID} and allocation ${a.allocationKey}`,
        });
        continue;
      }
      try {
        const created = Number(a.allocationTags?.creationTime);
        const before = p.apps.get(a.applicationID)?.asks.get(a.allocationKey);
        const wasAllocated = before?.node !== undefined;
        p.addAsk({
          appId: a.applicationID,
          key: a.allocationKey,
          resource: a.resourcePerAlloc,
          priority: a.priority ?? 0,
          createTime: Number.isFinite(created) && created > 0 ? created * 1000 : now,
          now,
          node: a.nodeID || undefined,
          requiredNode: a.allocationTags?.["yunikorn.apache.org/requiredNode"],
          predicate: a.predicate,
          placeholder: a.placeholder,
          taskGroup: a.taskGroupName,
          allowPreemptSelf: a.preemptionPolicy?.allowPreemptSelf,
          allowPreemptOther: a.preemptionPolicy?.allowPreemptOther,
          originator: a.originator,
        });
        if (a.allocationTags) this.tags.set(askKey(p.name, a.applicationID, a.allocationKey), { ...a.allocationTags });
        this.collect(false); // the state change the ask caused (New → Accepted) comes first, as upstream
        const app = p.apps.get(a.applicationID);
        if (a.nodeID && !wasAllocated && app)
          this.allocated(
            p,
            { key: a.allocationKey, appId: a.applicationID, nodeId: a.nodeID, resource: a.resourcePerAlloc, queue: app.queue.path },
            now,
          );
        else if (!a.nodeID && !before && this.tracking)
          this.emit(
            appEvent(now, {
              objectID: a.applicationID,
              referenceID: a.allocationKey,
              changeType: ChangeType.ADD,
              detail: ChangeDetail.APP_REQUEST,
              resource: a.resourcePerAlloc,
            }),
          );
      } catch (err) {
        if (err instanceof SchedulingError) this.counts.containers.error++;
        out.rejectedAllocations.push({ id: a.allocationKey, reason: (err as Error).message });
      }
    }
    this.counts.containers.rejected += out.rejectedAllocations.length;
    for (const r of req.releases ?? []) {
      const p = this.partition(r.partitionName);
      const app = p?.apps.get(r.applicationID);
      if (!p || !app) continue;
      const keys = r.allocationKey ? [r.allocationKey] : [...app.asks.keys()];
      for (const k of keys) {
        const ask = app.asks.get(k);
        if (!ask) continue;
        const node = ask.node;
        // a victim the resource manager releases was preempted (upstream: TerminationType PREEMPTED_BY_SCHEDULER)
        const detail = ask.preempted ? ChangeDetail.ALLOC_PREEMPT : ChangeDetail.ALLOC_CANCEL;
        p.removeAsk(r.applicationID, k, now);
        if (node) {
          // upstream's order (application_tracking_test.go verifyAllocationCancelledEvents): the user and group
          // usage, the state change, the allocation removed from the application and from the node, then its ask
          if (this.tracking) {
            this.partitionEvents(p, now);
            this.collect(false);
          }
          this.released(p, { key: k, appId: app.id, nodeId: node, resource: ask.resource, queue: app.queue.path }, detail, now);
        }
        this.askRemoved(p, { appId: app.id, key: k, resource: ask.resource, detail: ChangeDetail.REQUEST_CANCEL, now });
      }
    }
    this.collect();
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
      const start = this.latency?.clock();
      p.tick(now);
      for (const pass of p.tryQuotaPreemption(now)) {
        if (pass.kind === "preempting") {
          out.push(pass.result);
          this.resultEvents(p, pass.result, now);
        } else if (this.tracking) this.emit(quotaWithoutVictimsEvent(pass.decision, now));
      }
      while (allocated < max) {
        const r = p.tryAllocate(now);
        if (!r) break;
        out.push(r);
        this.resultEvents(p, r, now);
        if (allocationOf(r)) allocated++;
      }
      if (start !== undefined) this.latency!.observe(name, this.latency!.clock() - start);
    }
    this.collect();
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
   * `holdReason` of a pending ask as the resource manager observes it after a cycle: besides returning the reason, its
   * text is counted in the ask's allocation log (`allocationLog`) and, when tracking events, a REQUEST event is sent
   * when the reason changed (upstream ask_events: held by a quota, unschedulable, fits again).
   */
  checkHold(appId: string, allocationKey: string, partition?: string): HoldReason | undefined {
    const p = this.partition(partition);
    const h = p?.holdReason(appId, allocationKey);
    if (!p) return h;
    const k = askKey(p.name, appId, allocationKey);
    if (h) this.allocLogs.record(k, formatHoldReason(h), this.now());
    const app = p.apps.get(appId);
    const leaf = app?.queue.path ?? "";
    const text = h && holdRecordText(allocationKey, leaf, h);
    const before = this.holds.get(k);
    if (text === before?.text) return h;
    if (h) this.holds.set(k, { text: text!, hold: h });
    else this.holds.delete(k);
    const ask = app?.asks.get(allocationKey);
    if (this.tracking && app && ask && !ask.node) {
      const message = text ?? releasedHoldRecordText(allocationKey, leaf, before?.hold);
      this.emit(requestEvent(this.now(), { objectID: allocationKey, referenceID: appId, message, resource: ask.resource }));
    }
    return h;
  }

  /**
   * `checkHold` formatted for callers that report text: `Skipped` (a quota) or `Failed` (no node) and the reason's
   * text (`formatHoldReason`).
   */
  pendingReason(appId: string, allocationKey: string, partition?: string): { state: "Skipped" | "Failed"; reason: string } | undefined {
    const h = this.checkHold(appId, allocationKey, partition);
    return h && { state: holdState(h), reason: formatHoldReason(h) };
  }

  /**
   * The hold reasons a pending ask was seen with by `checkHold` (upstream AllocationAskLogDAOInfo), oldest
   * `lastOccurrence` first (Unix ms); [] for an unknown ask or one that never waited. Forgotten when the ask is
   * allocated or removed.
   */
  allocationLog(appId: string, allocationKey: string, partition?: string): AllocationLogEntry[] {
    return this.allocLogs.entries(askKey(partition || "default", appId, allocationKey));
  }

  /**
   * Moves an allocation to another node with room that passes the ask's predicate (queue and user usage unchanged).
   * @returns false when the allocation, the node or the room is missing
   */
  relocate(appId: string, allocationKey: string, nodeId: string, partition?: string): boolean {
    const p = this.partition(partition);
    const ask = p?.apps.get(appId)?.asks.get(allocationKey);
    const from = ask?.node;
    if (!p || !p.relocate(appId, allocationKey, nodeId)) return false;
    if (from && from !== nodeId) {
      const now = this.now();
      this.emit(nodeAllocationEvent(now, { nodeId: from, key: allocationKey, added: false, resource: ask!.resource }));
      this.emit(nodeAllocationEvent(now, { nodeId, key: allocationKey, added: true, resource: ask!.resource }));
    }
    return true;
  }

  /**
   * The resource manager could not release a victim of the preemption started for ask `key` of `appId` (its eviction
   * was refused, e.g. by a PodDisruptionBudget): that preemption ends (the node reservation is released) and the ask
   * tries again after the attempt interval, never with that victim (`Partition.preemptionBlocked`).
   * @returns false when the ask or its preemption is unknown
   */
  preemptionBlocked(appId: string, key: string, victim: { appId: string; key: string }, partition?: string): boolean {
    const ended = this.partition(partition)?.preemptionBlocked(appId, key, victim) ?? false;
    this.collect(); // its reservation ended: NODE_RESERVATION REMOVE
    return ended;
  }

  /**
   * The resource manager could not release a victim of the quota-change preemption of `queue` (its eviction was
   * refused): the victim is kept, not chosen again for that queue, and the queue is tried again after 15 s
   * (`Partition.quotaPreemptionBlocked`).
   * @returns false when the queue or the victim is unknown, or the victim is not being preempted
   */
  quotaPreemptionBlocked(queue: string, victim: { appId: string; key: string }, partition?: string): boolean {
    return this.partition(partition)?.quotaPreemptionBlocked(queue, victim, this.now()) ?? false;
  }

  /** State of an active application, or undefined when the core does not hold it. */
  applicationState(appId: string, partition?: string): string | undefined {
    return this.partition(partition)?.apps.get(appId)?.state;
  }

  /**
   * Ends a gang's reservation now as if its placeholder timer had fired (the resource manager found the explicit
   * timeout already passed when the application entered Reserving, upstream YUNIKORN-3332).
   * @returns false when the application is unknown or not a reserving gang
   */
  timeoutReservation(appId: string, partition?: string): boolean {
    return this.partition(partition)?.timeoutReservation(appId, this.now()) ?? false;
  }

  /**
   * Gives up a gang's reservation now and lets the application run as a normal one whatever its style (the resource
   * manager could not create its placeholders; upstream's shim then cleans up and runs it): every placeholder is
   * released, as on a Soft timeout.
   * @returns false when the application is unknown or not a reserving gang
   */
  abandonReservation(appId: string, partition?: string): boolean {
    return this.partition(partition)?.timeoutReservation(appId, this.now(), "Soft") ?? false;
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

  /**
   * Placeholders the core released on its own since the last call (timeout, too small for their real pod, given up
   * for an allocation elsewhere): the RM removes their pods. The core has already taken them out of every usage.
   */
  releases(): (CoreRelease & { partition: string })[] {
    return [...this.partitions.entries()].flatMap(([name, p]) => p.drainReleases().map((r) => ({ ...r, partition: name })));
  }

  /** Application state changes since the last call (UpdatedApplication messages). */
  stateChanges(): AppStateChange[] {
    this.collect();
    const c = this.changes;
    this.changes = [];
    return c;
  }

  /** Largest usage an application reached (ApplicationDAOInfo maxUsedResource); undefined when it never had any. */
  maxUsedResource(appId: string, partition?: string): Readonly<Res> | undefined {
    const p = this.partition(partition);
    return (p?.apps.get(appId) ?? p?.lastTerminated.get(appId))?.maxAllocated;
  }

  /** The allocationTags the RM sent with an ask or allocation (the shim's pod metadata); undefined when none. */
  allocationTags(appId: string, allocationKey: string, partition?: string): Readonly<Record<string, string>> | undefined {
    return this.tags.get(askKey(partition || "default", appId, allocationKey));
  }

  /**
   * Drains the partitions' state changes (kept for `stateChanges()` and sent as APP events), then, unless `partition`
   * is false, their queue and user/group changes (`partitionEvents`).
   */
  private collect(partition = true): void {
    for (const p of this.partitions.values()) {
      for (const c of p.drainRunnableChanges()) if (this.tracking) this.emit(runnableEvent(c, this.now()));
      const drained = p.drainStateChanges();
      // the resource manager drains `changes` after every cycle, so it is usually empty: taken over, not copied into
      if (this.changes.length === 0) this.changes = drained;
      else for (const c of drained) this.changes.push(c);
      if (this.tracking) this.stateEvents(p, drained);
      // the placeholders the core let go after the state change that let them go (a gang's timeout: Failing first)
      for (const r of p.drainReleaseRecords()) this.coreReleased(p, r);
      if (partition) this.reservationEvents(p, this.now());
      if (partition) this.partitionEvents(p);
    }
  }

  /**
   * APP events of state changes; an application that completed or failed then leaves its queue: QUEUE_APP `REMOVE` and
   * APP `REMOVE` (upstream moveTerminatedApp → UnSetQueue).
   */
  private stateEvents(p: Partition, changes: readonly AppStateChange[]): void {
    for (const c of changes) {
      const detail = appStateDetail(c.to);
      if (detail !== undefined) this.emit(appEvent(c.at, { objectID: c.appId, changeType: ChangeType.SET, detail, message: c.message }));
      if (c.to !== "Completed" && c.to !== "Failed") continue;
      // the instance that just ended is its id's latest (a map lookup: no scan of every finished application)
      const app = p.lastTerminated.get(c.appId);
      if (!app) continue;
      this.emit(
        queueEvent(c.at, { objectID: app.queue.path, referenceID: c.appId, changeType: ChangeType.REMOVE, detail: ChangeDetail.QUEUE_APP }),
      );
      this.emit(appEvent(c.at, { objectID: c.appId, changeType: ChangeType.REMOVE, detail: ChangeDetail.DETAILS_NONE }));
    }
  }

  /**
   * Drains a partition's queue changes (queue-change.ts) and user/group tracker changes (ugm/tracker.ts) and sends
   * them as QUEUE and USERGROUP records (upstream queue_events.go, ugm_events.go).
   */
  private partitionEvents(p: Partition, at?: number): void {
    const queues = p.drainQueueChanges();
    const ugm = p.limits.drainChanges();
    if (!this.tracking || (queues.length === 0 && ugm.length === 0)) return;
    const now = at ?? this.now();
    for (const c of queues) this.emit(queueChangeEvent(c, now));
    for (const c of ugm) this.emit(ugmChangeEvent(c, now));
  }

  /** Events of one scheduling result (allocations, reservations). */
  private resultEvents(p: Partition, r: AllocationResult, now: number): void {
    if (!this.tracking) {
      // no records, but the forgetting: a replaced placeholder's tags, a new allocation's hold reason
      if (r.kind === "replaced") this.released(p, r.placeholder, ChangeDetail.ALLOC_REPLACED, now);
      const a = allocationOf(r);
      if (a) this.allocated(p, a, now);
      return;
    }
    switch (r.kind) {
      case "reserved":
      case "unreserved":
        this.collect(false);
        break;
      case "allocatedReserved":
        // the reservation ends after the allocation's records (upstream Application.tryReservedAllocate)
        this.allocated(p, r.allocation, now);
        break;
      case "replaced":
        // the placeholder leaves its application and node (PLACEHOLDER_REPLACED), the real pod takes its place
        this.released(p, r.placeholder, ChangeDetail.ALLOC_REPLACED, now);
        this.allocated(p, r.allocation, now);
        break;
      case "preempting": {
        // upstream preemption.go: a REQUEST record on each victim (SendPreemptedByScheduler), then the node reserved
        this.collect(false);
        for (const e of preemptionEvents(r, p.apps.get(r.appId)?.queue.path ?? "", now)) this.emit(e);
        break;
      }
      case "quotaPreempting":
        // upstream SendQuotaPreemptionEvent (on the queue) and SendPreemptedByQuotaChange (on each victim's ask)
        this.collect(false);
        for (const e of quotaPreemptionEvents(r, now)) this.emit(e);
        break;
      default: {
        const a = allocationOf(r);
        if (a) this.allocated(p, a, now);
      }
    }
    // the reservations the result made or ended (every path records them: reservations.ts), after its other records
    this.reservationEvents(p, now);
  }

  /** NODE_RESERVATION `ADD` / `REMOVE` for the reservations made and ended since the last call. */
  private reservationEvents(p: Partition, now: number): void {
    for (const c of p.drainReservationChanges())
      if (this.tracking) this.emit(reservationEvent(now, { nodeId: c.nodeId, key: c.key, reserved: c.reserved, resource: c.resource }));
  }

  /**
   * Events of a new allocation (scheduled, or recovered from the RM), in upstream's order (application_tracking_test.go
   * verifyAllocationAskAddedEvents): on the node, the state change it caused (Accepted → Starting), the user and group
   * usage, then on the application. Its hold reason is forgotten.
   */
  private allocated(p: Partition, a: Allocation, now: number): void {
    if (this.holds.size > 0 || this.allocLogs.size > 0) {
      const id = askKey(p.name, a.appId, a.key);
      this.holds.delete(id);
      this.allocLogs.forget(id);
    }
    if (!this.tracking) return;
    this.emit(nodeAllocationEvent(now, { nodeId: a.nodeId, key: a.key, added: true, resource: a.resource }));
    this.collect(false);
    this.partitionEvents(p, now);
    this.emit(allocationAddedEvent(a, now));
  }

  /** Events of a released allocation; its tags are forgotten. */
  private released(p: Partition, a: Allocation, detail: ChangeDetail, now: number): void {
    this.tags.delete(askKey(p.name, a.appId, a.key));
    if (!this.tracking) return;
    for (const e of releaseEvents(a, detail, now)) this.emit(e);
    this.partitionEvents(p, now);
  }

  /**
   * Events of a placeholder the core released on its own (gang/coordinator.ts `release`), as upstream records its
   * release: one too small for its real pod first gets the REQUEST record naming both sizes (application_events.go
   * SendPlaceholderLargerEvent); an allocated one leaves its application (`ALLOC_TIMEOUT`, or `ALLOC_REPLACED` when
   * given up for its real pod on another node) and its node, a pending one is `REQUEST_TIMEOUT`. Its tags and hold
   * reason are forgotten either way.
   */
  private coreReleased(p: Partition, r: CoreRelease): void {
    const now = this.now();
    const a = r.allocation;
    if (this.tracking && r.cause === "tooLarge")
      this.emit(requestEvent(now, { objectID: a.key, referenceID: a.appId, message: r.message, resource: r.askResource }));
    if (r.allocated) this.released(p, a, r.cause === "replacedElsewhere" ? ChangeDetail.ALLOC_REPLACED : ChangeDetail.ALLOC_TIMEOUT, now);
    else this.askRemoved(p, { appId: a.appId, key: a.key, resource: a.resource, detail: ChangeDetail.REQUEST_TIMEOUT, now });
  }

  /** Event of a pending ask removed before it was allocated; its tags and hold reason are forgotten. */
  private askRemoved(
    p: Partition,
    { appId, key, resource, detail, now }: { appId: string; key: string; resource: Res; detail: ChangeDetail; now: number },
  ): void {
    const id = askKey(p.name, appId, key);
    this.tags.delete(id);
    this.holds.delete(id);
    this.allocLogs.forget(id);
    if (!this.tracking) return;
    this.emit(appEvent(now, { objectID: appId, referenceID: key, changeType: ChangeType.REMOVE, detail, resource }));
  }

  // ---------------------------------------------------------------- read API (read.ts views)

  /** Partition names, sorted. */
  partitionNames(): string[] {
    return [...this.partitions.keys()].sort();
  }

  /** The REST view of a partition (default `default`); undefined for an unknown name. */
  partitionView(partition?: string): PartitionView | undefined {
    const p = this.partition(partition);
    return p && partitionView(p);
  }

  /** The queue at `path` (default root), with its subtree when asked; undefined when unknown. */
  queueView(path = "root", opts: { partition?: string; subtree?: boolean } = {}): QueueView | undefined {
    const p = this.partition(opts.partition);
    const q = p?.find(path);
    return q && queueView(q, opts.subtree ?? false, p!.preemptionEnabled);
  }

  /**
   * Applications: active (default), completed (kept until they expire), rejected (with their reason), or all.
   * `holds: false` leaves out the pending asks' hold reasons (cheaper: metrics).
   */
  applicationViews(filter: ApplicationFilter = "active", partition?: string, opts: { holds?: boolean } = {}): ApplicationView[] {
    const p = this.partition(partition);
    return p ? applicationViews(p, filter, opts.holds ?? true) : [];
  }

  /**
   * Active applications by the path of their queue (a leaf; or a leaf a configuration made a parent, which keeps its
   * applications) and state, for the metrics' gauges (no view is built per application); empty for an unknown
   * partition.
   */
  applicationCounts(partition?: string): Map<string, Partial<Record<AppState, number>>> {
    const p = this.partition(partition);
    return p ? applicationCountsOf(p) : new Map();
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

  /**
   * Each node's schedulable flag, capacity and the core's allocations on it (copies), in no particular order: what the
   * metrics read, without the allocation lists of `nodeViews` (cheap enough to scrape with thousands of nodes).
   */
  nodeUsages(partition?: string): NodeUsageView[] {
    const p = this.partition(partition);
    return p ? nodeUsagesOf(p) : [];
  }

  /** What the health check reads of every partition (read.ts `partitionHealthView`), by partition name. */
  healthViews(): PartitionHealthView[] {
    return [...this.partitions.values()].map(partitionHealthView);
  }

  /** The REST view of one node (capacity, allocated, occupied, its allocations); undefined when unknown. */
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
