/**
 * A partition: the coordinator of the scheduling core (apache/yunikorn-core pkg/scheduler/partition.go; yunikorn-core
 * reference §4.1-4.8). It holds the node index (node-collection.ts), the application registry (active, completed,
 * rejected; lifecycle.ts), the queue tree (queue-tree.ts), placement (placement/), user/group tracking (ugm/),
 * reservations (reservations.ts), preemption (preemption/coordinator.ts) and gang scheduling (gang/coordinator.ts),
 * keeps every usage in step when an ask is added, allocated, resized or released, and applies what the walk decides.
 *
 * `tryAllocate(now)` returns at most one result, as upstream's scheduling cycle: reservations first (an ask that
 * reserved a node is placed there, or elsewhere, once room appears), then the walk — `Queue.tryAllocate` from root
 * down (children, then applications, in the incrementally kept orders of queue.ts), `Application.tryAllocate` over
 * the asks (priority, then age), and for an ask the nodes in the partition's order (`fair`: least used first,
 * `binpacking`: most used first), reserved nodes excepted. Queue max, user/group limits, maxapplications and node free
 * capacity are never exceeded. Every tie is broken by a stable key (path, id, key), so the same inputs give the same
 * schedule.
 */
import type { PartitionConfig } from "./config.js";
import { LimitTracker } from "./ugm/tracker.js";
import { type Allocation, type AllocationResult, allocationOfAsk } from "./allocation-result.js";
import { type AllocationContext, Application, type Ask, type Decision, type GangOptions, INSTANCE_TYPE_ATTRIBUTE } from "./application.js";
import { type CoreRelease, GangCoordinator } from "./gang/coordinator.js";
import { checkGangSubmission } from "./gang/submission.js";
import type { GangSchedulingStyle } from "./gang/constants.js";
import { type HoldReason, clusterHold, overClusterSize, queueMaxHold, queueOverMax, queueRunHold } from "./hold-reason.js";
import { Node, allocationId } from "./node.js";
import { NodeCollection, type NodeSortPolicy } from "./node-collection.js";
import type { Queue } from "./queue.js";
import type { QueueChange } from "./queue-change.js";
import { QueueTree, maxQueueSet } from "./queue-tree.js";
import { type Res, format, hasPositive, strictlyPositive } from "./resources.js";
import { PlacementManager } from "./placement/manager.js";
import { tagValue } from "./placement/tag.js";
import { PlacementRefusedError, RECOVERY_QUEUE, isRecoveryQueue } from "./placement/types.js";
import { type AppStateChange, Lifecycle } from "./lifecycle.js";
import { type CoreCounts, countTerminal, newCoreCounts } from "./counts.js";
import { lookahead } from "./lookahead.js";
import { applyNamespaceTags } from "./namespace-tags.js";
import { type ReservationChange, Reservations } from "./reservations.js";
import { PreemptionCoordinator, type QuotaPass } from "./preemption/coordinator.js";
import type { QuotaPreemptionTracker } from "./preemption/quota-tracker.js";
import { partitionPreemptionFlags, type PropertyProblem } from "./queue-properties.js";
import { parseGoBool } from "../../util/go-strconv.js";
import { VersionedMap } from "../../util/versioned-map.js";

export type { Allocation, AllocationResult } from "./allocation-result.js";

export type { AppStateChange } from "./lifecycle.js";

export type { CoreRelease } from "./gang/coordinator.js";

/** Upstream delays (reference §4.1, §4.6, §6), milliseconds. */
export const RESERVATION_DELAY_MS = 2_000;
/** Interval of the removal of empty dynamic and drained queues, milliseconds (upstream partition manager, 10 s). */
export const QUEUE_CLEANUP_INTERVAL_MS = 10_000;

/**
 * An application waiting to run found runnable again, or no more, by its queues' maxapplications (`queue`) or its
 * user's and group's (`quota`) (upstream application.go updateRunnableStatus).
 */
export interface RunnableChange {
  appId: string;
  by: "queue" | "quota";
  runnable: boolean;
}

/** Optional fields of an ask or allocation the resource manager sends (`addAsk`). */
export interface AskOptions {
  /** Allocated already on this node (recovery, or bound outside the core). */
  node?: string;
  requiredNode?: string;
  predicate?: (nodeId: string) => boolean;
  placeholder?: boolean;
  taskGroup?: string;
  /** si.PreemptionPolicy allowPreemptSelf: false = opted out of being a victim (chosen last). Default true. */
  allowPreemptSelf?: boolean;
  /** si.PreemptionPolicy allowPreemptOther: false = `preemptionPolicy: Never`. Default true. */
  allowPreemptOther?: boolean;
  /** The pod that created the application (chosen as a victim after every other). */
  originator?: boolean;
}

/**
 * The arguments of `addApplication`: an application the resource manager adds (the core's `updateApplication` turns
 * si.AddApplicationRequest into it; upstream pkg/scheduler/partition.go AddApplication).
 */
export interface AddApplicationArgs {
  /** The application id (upstream applicationID). */
  id: string;
  /** The requested queue (full path, short name or "" for the placement rules to decide). */
  queue: string;
  /** The submitting user; "" only with `application.create.force` (then `nobody` in group `nogroup`). */
  user: string;
  /** The user's groups; none means the user's own name as its only group. */
  groups: readonly string[];
  /** Application tags (namespace tags, `application.create.force`, `application.stateaware.disable`…). */
  tags: Readonly<Record<string, string>>;
  /** Submission time, milliseconds since the Unix epoch. */
  now: number;
  /** Gang scheduling (placeholders) of the application, if any. */
  gang?: GangOptions;
}

/** The arguments of `addAsk`: an ask, or an allocation already bound, the resource manager adds (upstream si.Allocation). */
export interface AddAskArgs extends AskOptions {
  appId: string;
  /** The allocation key, unique within the application. */
  key: string;
  /** Requested resources per allocation; every quantity must be non-negative and one strictly positive. */
  resource: Res;
  priority: number;
  /** Creation time of the ask (the pod), milliseconds since the Unix epoch. */
  createTime: number;
  /** The current time, milliseconds since the Unix epoch. */
  now: number;
}

/**
 * An allocation the partition cannot take for a reason upstream counts as a scheduling error (partition.go
 * addAllocation → metrics IncSchedulingError): an unknown application or node, no resources, a negative one.
 * corral's own refusals (an ask larger than every node, a new ask in the recovery queue) are plain Errors.
 */
export class SchedulingError extends Error {}

/** Constructor input of {@link Partition}. */
export interface PartitionOptions {
  name: string;
  /** A validated partition configuration. */
  config: PartitionConfig;
  /** Age an ask must reach before it may reserve a node (default 2 s, upstream `reservationDelay`). */
  reservationDelayMs?: number;
  /** Interval of the removal of empty dynamic and drained queues (default 10 s, upstream partition manager). */
  queueCleanupIntervalMs?: number;
  /** The core's counts (counts.ts), shared by its partitions; default: the partition's own. */
  counts?: CoreCounts;
  /** Times each preemption decision (`PreemptionCoordinatorOptions.latency`); absent: nothing is timed. */
  preemptionLatency?: { clock: () => number; observe: (seconds: number) => void };
  /**
   * Times each search of the nodes for an ask (upstream Application.tryNodes → ObserveTryNodeEvaluation, and
   * ObserveTryNodeLatency for the node check that succeeded): `clock` monotonic, in seconds; `observe` gets the seconds
   * and whether a node was found. Absent: nothing is timed.
   */
  nodeSearchLatency?: { clock: () => number; observe: (seconds: number, found: boolean) => void };
  /**
   * When the partition was created (milliseconds since the epoch, the core's clock): the first removal of empty queues
   * is one interval after it, as upstream's partition manager waits its interval before its first pass. Without it the
   * interval starts at the first tick.
   */
  createdAt?: number;
}

/**
 * One partition of the core (apache/yunikorn-core pkg/scheduler/partition.go): its queues, placement, nodes,
 * applications, reservations, user/group limits and preemption. Resources in core units, times in milliseconds since
 * the epoch.
 */
export class Partition {
  readonly name: string;
  /** Nodes by id, their allocation order and the cluster size (node-collection.ts). */
  private readonly nodeSet = new NodeCollection();
  get nodes(): ReadonlyMap<string, Node> {
    return this.nodeSet.byId;
  }
  get nodeSortPolicy(): NodeSortPolicy {
    return this.nodeSet.policy;
  }
  get weights(): Readonly<Record<string, number>> {
    return this.nodeSet.resourceWeights;
  }
  /** Active applications (not Completed, Failed, Rejected or Expired). */
  readonly apps = new VersionedMap<string, Application>();
  private readonly life: Lifecycle;
  /** Allocations made and released, applications entering states (counts.ts); the core's, shared by its partitions. */
  readonly counts: CoreCounts;
  /** Rejected applications by id, until they expire. */
  get rejected(): Map<string, Application> {
    return this.life.rejected;
  }
  /** Completed and failed application instances, until they expire (an id may run again). */
  get terminated(): ReadonlyMap<number, Application> {
    return this.life.terminated;
  }
  /** The latest completed or failed instance of each application id. */
  get lastTerminated(): ReadonlyMap<string, Application> {
    return this.life.lastTerminated;
  }
  readonly limits = new LimitTracker({ oneObjectPerApplication: true });
  /** Asks added so far: each ask's `arrival`. */
  private arrivals = 0;
  /** See `drainRunnableChanges`. */
  private runnableChanges: RunnableChange[] = [];
  /** The queue tree (queue-tree.ts): configuration, dynamic queues, cleanup, fair maxima and orders. */
  private readonly queues: QueueTree;
  /** The root queue (the tree's; kept here for the allocation walk). */
  readonly root: Queue;
  private placement = new PlacementManager([]);
  /** Placeholder timers, releases and replacement of gang applications (gang/coordinator.ts). */
  private readonly gangs: GangCoordinator;
  private readonly reservations: Reservations;
  private lastCleanup: number | undefined;
  private readonly cleanupInterval: number;
  /** Ask-triggered and quota-change preemption (preemption/coordinator.ts). */
  private readonly preemptions: PreemptionCoordinator;
  /** Partition `preemption.enabled` (default true, upstream). */
  get preemptionEnabled(): boolean {
    return this.preemptions.enabled;
  }
  /** Quota-change preemption: per-queue start times and the partition's `quotapreemptionenabled` switch. */
  get quotaPreemption(): QuotaPreemptionTracker {
    return this.preemptions.quota;
  }
  /** Queue properties that fell back to their default in the last configuration (queue path with each). */
  get propertyProblems(): readonly (PropertyProblem & { queue: string })[] {
    return this.queues.propertyProblems;
  }

  constructor(o: PartitionOptions) {
    this.name = o.name;
    this.counts = o.counts ?? newCoreCounts();
    this.nodeSearchLatency = o.nodeSearchLatency;
    this.life = new Lifecycle({ partition: o.name, leave: (app) => this.detachApp(app), counts: this.counts });
    this.reservations = new Reservations(o.reservationDelayMs ?? RESERVATION_DELAY_MS, {
      nodeChanged: (n) => this.nodeSet.reindex(n),
      askChanged: (a) => this.apps.get(a.appId)?.reservationChanged(a),
    });
    this.cleanupInterval = o.queueCleanupIntervalMs ?? QUEUE_CLEANUP_INTERVAL_MS;
    this.lastCleanup = o.createdAt;
    this.queues = new QueueTree();
    this.root = this.queues.root;
    this.gangs = new GangCoordinator({
      apps: this.apps,
      nodes: this.nodes,
      life: this.life,
      removeAsk: (appId, key, now) => this.removeAsk(appId, key, now),
    });
    this.preemptions = new PreemptionCoordinator({
      host: this,
      reservations: this.reservations,
      unreserveNode: (n) => this.unreserveNode(n),
      askHold: (app, ask) => this.context.askHold(app, ask),
      latency: o.preemptionLatency,
    });
    this.applyConfig(o.config);
  }

  /**
   * Applies a validated partition config: queues added or changed in place, removed managed queues drain (no new
   * applications; running ones finish, then the queue is removed), limits and policies replaced. With `now`, a queue
   * whose max was lowered below its usage (or whose `quota.preemption.delay` changed) starts or moves its
   * quota-change preemption (`QuotaPreemptionTracker.configChanged`).
   */
  applyConfig(cfg: PartitionConfig, now?: number): void {
    const rootCfg = cfg.queues![0]!;
    this.queues.configure(rootCfg, this.preemptions.quota, now);
    const flags = partitionPreemptionFlags(cfg);
    this.preemptions.enabled = flags.enabled;
    this.preemptions.quota.enabled = flags.quotaPreemptionEnabled;
    this.placement = new PlacementManager(cfg.placementrules ?? []);
    this.nodeSet.configure(cfg.nodesortpolicy?.type === "binpacking" ? "binpacking" : "fair", cfg.nodesortpolicy?.resourceweights ?? {});
    this.limits.load(rootCfg);
    this.queues.setRootMax(this.nodeSet.capacity);
    this.queues.refreshOrder();
    this.reservations.epoch++;
  }

  /**
   * Schedulable nodes in allocation order, without those reserved for preemption (preemption's node search reads them
   * lazily).
   */
  nodesInOrder(): Iterable<Node> {
    return this.nodeSet.inOrder();
  }

  // ---------------------------------------------------------------- nodes

  /** @throws Error when the node exists */
  addNode(id: string, capacity: Res, occupied: Res = {}, schedulable = true, attributes: Record<string, string> = {}): void {
    if (this.nodes.has(id)) throw new Error(`partition ${this.name} has an existing node ${id}, node name must be unique`);
    this.nodeSet.add(new Node({ id, capacity, occupied, schedulable, attributes }));
    this.queues.setRootMax(this.nodeSet.capacity);
    this.reservations.epoch++;
  }

  /** New capacity, occupied resources or schedulable flag. @throws Error for an unknown node */
  updateNode(id: string, update: { capacity?: Res; occupied?: Res; schedulable?: boolean }): void {
    const n = this.nodes.get(id);
    if (!n) throw new Error(`failed to find node ${id}`);
    if (update.capacity) {
      this.nodeSet.setCapacity(n, update.capacity);
      this.queues.setRootMax(this.nodeSet.capacity);
    }
    if (update.occupied) n.occupied = { ...update.occupied };
    if (update.schedulable !== undefined) n.schedulable = update.schedulable;
    if (!n.schedulable && n.reservation) this.unreserveNode(n);
    this.nodeSet.reindex(n);
    this.reservations.epoch++;
  }

  /** Removes a node; its allocations and its reservation are released; the allocations are returned. */
  removeNode(id: string, now: number): Allocation[] {
    const n = this.nodes.get(id);
    if (!n) return [];
    const released: Allocation[] = [];
    if (n.reservation) this.unreserveNode(n);
    for (const a of [...n.allocations.values()]) {
      const app = this.apps.get(a.appId);
      const ask = app?.asks.get(a.key);
      if (app && ask) {
        released.push({ key: a.key, appId: a.appId, nodeId: id, resource: { ...ask.resource }, queue: app.queue.path });
        this.removeAsk(a.appId, a.key, now);
      }
    }
    this.nodeSet.remove(n);
    this.queues.setRootMax(this.nodeSet.capacity);
    this.reservations.epoch++;
    return released;
  }

  // ---------------------------------------------------------------- applications

  /**
   * Places and adds an application. A forced application (`application.create.force`) without a user runs as
   * `nobody` in group `nogroup` (§4.7). A rejected application is kept in state Rejected with its reason until it
   * expires.
   * @returns the leaf queue path, or throws with the rejection reason
   */
  addApplication(request: AddApplicationArgs): string {
    const { id, queue: queueName, tags, now, gang } = request;
    let { user, groups } = request;
    this.life.rejected.delete(id);
    // the queue a rejection is counted under (upstream's queue path of the rejected application): the name asked for
    // before placement, none when placement fails (placement.go sets ""), the placed queue after
    let rejectedUnder = queueName;
    try {
      // upstream rejects a second application with the id too (AddRejectedApplication): listed and counted as rejected
      if (this.apps.has(id)) throw new Error(`adding application ${id} to partition ${this.name}, but application already existed`);
      const forced = isForced(tags);
      if (!user && !forced) throw new Error("empty user cannot resolve");
      if (!user) {
        user = "nobody";
        groups = ["nogroup"];
      }
      rejectedUnder = "";
      const leaf = this.place(id, queueName, user, groups, tags);
      rejectedUnder = leaf.path;
      if (applyNamespaceTags(leaf, tags)) this.queues.invalidateOrder();
      this.queues.setFairMax(leaf);
      const disable = (tags["application.stateaware.disable"] ?? tags.disableStateAware ?? "") !== "";
      const app = new Application({
        id,
        queue: leaf,
        user,
        groups: groups.length > 0 ? groups : [user],
        submissionTime: now,
        stateAwareDisabled: disable,
        tags,
        requestedQueue: queueName,
        gang,
      });
      if (app.gang) {
        const check = checkGangSubmission({
          applicationId: id,
          queue: leaf.path,
          reservation: app.gang.placeholderAsk,
          queueIsLeaf: leaf.isLeaf,
          sortPolicy: leaf.sortPolicy,
          queueMax: maxQueueSet(leaf),
        });
        if (!check.ok) throw new Error(check.message);
      }
      leaf.addApp(app);
      this.apps.set(id, app);
      this.counts.submissions.new++;
      return leaf.path;
    } catch (err) {
      const app = new Application({ id, queue: this.root, user, groups, submissionTime: now, tags, requestedQueue: queueName });
      app.rejectedMessage = (err as Error).message;
      if (err instanceof PlacementRefusedError) app.rejection = { kind: "placementRefused", refusal: err.refusal };
      this.life.fire(app, "rejectApplication", now);
      countTerminal(this.counts, rejectedUnder, "rejected", rejectedUnder ? this.find(rejectedUnder) : undefined);
      throw err;
    }
  }

  /** Removes an application, releasing everything it holds. */
  removeApplication(id: string, now: number): Allocation[] {
    const app = this.apps.get(id);
    if (!app) return [];
    const released: Allocation[] = [];
    for (const ask of [...app.asks.values()]) {
      if (ask.node) released.push({ key: ask.key, appId: id, nodeId: ask.node, resource: { ...ask.resource }, queue: app.queue.path });
      this.removeAsk(id, ask.key, now);
    }
    // no asks left: the application is not in a running state any more (removeAsk completed it)
    this.detachApp(app);
    this.life.forget(app);
    return released;
  }

  /** Takes an application out of its queue and the active registry. */
  private detachApp(app: Application): void {
    app.queue.removeApp(app);
    if (this.apps.get(app.id) === app) this.apps.delete(app.id);
    this.gangs.forget(app);
    this.limits.forget(app);
  }

  /**
   * Queue for an application: the placement rules (placement/manager.ts), the queue created when it does not exist.
   * @throws PlacementRefusedError with the rejection reason
   */
  private place(appId: string, queueName: string, user: string, groups: readonly string[], tags: Record<string, string>): Queue {
    const r = this.placement.place({ user, groups, tags, queueName, forced: isForced(tags) }, { queue: (path) => this.find(path) });
    if (r.type === "refused") throw new PlacementRefusedError(r.refusal, appId);
    return this.queues.find(r.path) ?? this.queues.create(r.path);
  }

  /** The queue at a full path (any case), or undefined. */
  find(path: string): Queue | undefined {
    return this.queues.find(path);
  }

  // ---------------------------------------------------------------- asks and allocations

  /**
   * Adds a pending ask, or records an allocation the resource manager already made (`node` set: recovery, or an ask
   * reported as bound). An existing key is updated, not refused (UpdateAllocation, reference §1.4): a pending ask
   * takes the new size and priority; a pending ask reported with a node becomes that allocation; an allocation takes
   * the new size (in-place resize) and node. Reported with a node, usage may exceed queue maxima (the resource manager
   * already bound it); a resize without a node must fit the node's free space and the queue maxima.
   * A finished application (Completed) that gets an ask runs again as a new instance with the same id.
   * @throws Error with upstream's texts for an unknown app or node, empty or negative resources
   */
  addAsk(request: AddAskArgs): void {
    const { appId, key, resource, priority, createTime, now, ...opts } = request;
    const app = this.apps.get(appId) ?? this.reopen(appId, now);
    if (!app) throw new SchedulingError(`failed to find application ${appId}`);
    for (const k in resource) if (resource[k]! < 0) throw new SchedulingError("allocation contains negative resources");
    if (!strictlyPositive(resource)) throw new SchedulingError("allocation contains no resources");
    if (opts.node && !this.nodes.has(opts.node)) throw new SchedulingError(`failed to find node ${opts.node}`);
    const existing = app.asks.get(key);
    if (existing) return this.updateAsk(app, existing, { resource, priority, now, opts });
    if (!opts.node && isRecoveryQueue(app.queue.path)) {
      // corral's rule (upstream schedules them): the recovery queue has no ACL and no limits, so it only records what
      // already runs; a new pod would otherwise get past the placement rules that refused its application
      throw new Error(
        `application ${appId} is in ${RECOVERY_QUEUE}, which takes only pods already bound to a node: no placement rule ` +
          `places it, so its new pods are not scheduled`,
      );
    }
    if (!opts.node && this.nodes.size > 0 && !this.nodeSet.fitsSome(resource)) {
      throw new Error(`ask ${key} requests ${format(resource)}, more than any node provides (nodes: ${this.nodes.size})`);
    }
    const ask: Ask = {
      key,
      appId,
      resource: { ...resource },
      priority,
      createTime,
      arrival: this.arrivals++,
      requiredNode: opts.requiredNode,
      predicate: opts.predicate,
      ...(opts.placeholder ? { placeholder: true } : {}),
      ...(opts.taskGroup ? { taskGroup: opts.taskGroup } : {}),
      ...(opts.allowPreemptSelf === false ? { allowPreemptSelf: false } : {}),
      ...(opts.allowPreemptOther === false ? { allowPreemptOther: false } : {}),
      ...(opts.originator ? { originator: true } : {}),
    };
    app.addAsk(ask);
    if (app.state === "New" || app.state === "Completing") this.life.fire(app, "runApplication", now);
    // a gang reserves first; a recovered real allocation means it was already past its reservation
    if (app.state === "Accepted" && app.gang && (!opts.node || opts.placeholder)) this.life.fire(app, "reserveApplication", now);
    if (opts.node) {
      // Recovered: usage may exceed max (the RM already bound it); over it, quota-change preemption may start.
      this.commit(app, ask, this.nodes.get(opts.node)!, now);
      this.preemptions.quota.allocationAdded(app.queue, now);
    } else {
      app.addPending(ask);
    }
    app.queue.update(app);
  }

  /** UpdateAllocation for a key the application has (see `addAsk`). */
  private updateAsk(
    app: Application,
    ask: Ask,
    { resource, priority, now, opts }: { resource: Res; priority: number; now: number; opts: AskOptions },
  ): void {
    if (opts.predicate) ask.predicate = opts.predicate;
    if (opts.allowPreemptSelf !== undefined) ask.allowPreemptSelf = opts.allowPreemptSelf;
    if (opts.allowPreemptOther !== undefined) ask.allowPreemptOther = opts.allowPreemptOther;
    if (opts.originator !== undefined) ask.originator = opts.originator;
    if (!ask.node) {
      if (ask.reservedNode) this.unreserve(ask);
      app.deletePending(ask);
      ask.resource = { ...resource };
      ask.priority = priority;
      if (opts.node) {
        this.commit(app, ask, this.nodes.get(opts.node)!, now); // reported as bound
        this.preemptions.quota.allocationAdded(app.queue, now);
      } else {
        app.addPending(ask);
      }
      app.queue.update(app);
      return;
    }
    // an allocation: resized in place and/or on another node. Reported with its node it is the resource manager's
    // truth; without one it is a resize request, refused when the node or the queue maxima have no room for it.
    const node = this.nodes.get(opts.node ?? ask.node);
    this.detach(ask);
    app.removeAllocated(ask.resource);
    if (!opts.node && (!node?.fits(resource) || queueOverMax(app.queue, resource))) {
      app.addAllocated(ask.resource);
      if (node) this.attach(ask, node);
      throw new Error(
        `allocation ${ask.key} of application ${app.id} cannot be resized to ${format(resource)}: no room on node ` +
          `${ask.node} or in queue ${app.queue.path}`,
      );
    }
    this.limits.track(app, ask.resource, -1, true);
    // a victim being released is counted in its queues' preempting usage at its size: that follows the new size
    if (ask.preempted) app.queue.decPreempting(ask.resource);
    ask.resource = { ...resource };
    ask.priority = priority;
    if (ask.preempted) app.queue.incPreempting(ask.resource);
    if (node) this.attach(ask, node);
    app.addAllocated(ask.resource);
    this.limits.track(app, ask.resource, 1, true);
    this.preemptions.quota.allocationAdded(app.queue, now);
    this.reservations.epoch++;
    app.queue.update(app);
  }

  /** Releases an allocation or removes a pending ask (and its reservation). */
  removeAsk(appId: string, key: string, now: number): void {
    const app = this.apps.get(appId);
    const ask = app?.asks.get(key);
    if (!app || !ask) return;
    app.asks.delete(key);
    if (ask.node) {
      this.released(app);
      app.trackReleased(ask, this.instanceType(ask.node), now);
      this.detach(ask);
      app.removeAllocated(ask.resource);
      if (ask.preempted) app.queue.decPreempting(ask.resource);
      if (ask.placeholder) this.gangs.gone(app, ask);
      // running for its user and group while it holds an allocation or asks for one (upstream application.go
      // removeAllocationInternal: removed from the trackers only when pending and allocated are both zero)
      this.limits.track(app, ask.resource, -1, app.asks.size > 0);
      this.reservations.epoch++;
    } else {
      if (ask.reservedNode) this.unreserve(ask);
      app.deletePending(ask);
      // its allocations went while this ask was pending: with the ask it stops running for its user and group
      if (app.asks.size === 0) this.limits.stopRunning(app);
    }
    if (
      app.asks.size === 0 &&
      (app.state === "Accepted" || app.state === "Reserving" || app.state === "Starting" || app.state === "Running")
    ) {
      this.life.fire(app, "completeApplication", now);
    } else if (app.asks.size === 0 && app.state === "Failing") {
      this.life.fire(app, "failApplication", now);
    }
    app.queue.update(app);
  }

  /**
   * Puts an allocation on a node (usage, allocation map, node order). The ask itself is the node's record: its size
   * and priority change only while it is off the node (`updateAsk` detaches first).
   */
  private attach(ask: Ask, node: Node): void {
    ask.node = node.id;
    node.addAllocation(allocationId(ask.appId, ask.key), ask);
    this.nodeSet.reindex(node);
  }

  /** The instance type of a node (`UNKNOWN` without the attribute, or for a node that is gone). */
  private instanceType(nodeId: string | undefined): string {
    return this.nodes.get(nodeId ?? "")?.attributes[INSTANCE_TYPE_ATTRIBUTE] ?? "UNKNOWN";
  }

  /** Counts an allocation of `app` leaving (counts.ts). */
  private released(app: Application): void {
    this.counts.containers.released++;
    app.queue.counts.released++;
  }

  /** Takes an allocation off its node (the node may be gone already). */
  private detach(ask: Ask): void {
    const n = ask.node ? this.nodes.get(ask.node) : undefined;
    if (!n) return;
    n.removeAllocation(allocationId(ask.appId, ask.key));
    this.nodeSet.reindex(n);
  }

  private commit(app: Application, ask: Ask, node: Node, now: number): void {
    this.counts.containers.allocated++;
    app.queue.counts.allocated++;
    this.attach(ask, node);
    ask.allocatedAt = now;
    app.addAllocated(ask.resource);
    this.limits.track(app, ask.resource, 1, true);
    if (ask.placeholder) {
      this.life.allocating(app);
      return this.gangs.allocated(app, ask, now);
    }
    if (app.state === "Accepted") this.life.fire(app, app.stateAwareDisabled ? "runApplication" : "startApplication", now);
    else if (app.state === "Starting" || app.state === "Reserving") this.life.fire(app, "runApplication", now);
  }

  // ---------------------------------------------------------------- life cycle (lifecycle.ts)

  /**
   * A completed application that gets a new ask runs again: a new instance in the same queue, or placed again; the
   * largest usage it reached carries over.
   */
  private reopen(appId: string, now: number): Application | undefined {
    const last = this.life.lastTerminated.get(appId);
    if (last?.state !== "Completed") return undefined;
    const q = last.queue;
    let app: Application | undefined;
    if (this.find(q.path) === q && q.isLeaf && !q.draining) {
      app = new Application({
        id: appId,
        queue: q,
        user: last.user,
        groups: last.groups,
        submissionTime: now,
        stateAwareDisabled: last.stateAwareDisabled,
        tags: last.tags,
        requestedQueue: last.requestedQueue,
      });
      q.addApp(app);
      this.apps.set(appId, app);
      this.counts.submissions.new++;
    } else {
      try {
        this.addApplication({ id: appId, queue: last.requestedQueue, user: last.user, groups: last.groups, tags: { ...last.tags }, now });
      } catch {
        return undefined;
      }
      app = this.apps.get(appId);
    }
    if (app && last.maxAllocated) app.maxAllocated = last.maxAllocated;
    return app;
  }

  /**
   * Timers and housekeeping on the injected clock (reference §4.1, §4.2): Starting → Running after 5 min, Completing
   * → Completed after 30 s, Completed/Failed/Rejected → Expired (and forgotten) after 3 days; every 10 s empty dynamic
   * queues and empty drained queues are removed.
   */
  tick(now: number): void {
    this.reservedPreemptionDue = this.reservations.size > 0;
    this.life.tick(now);
    this.gangs.tick(now);
    // the first pass one interval after the partition's creation (or, without it, after the first tick), as upstream
    this.lastCleanup ??= now;
    if (now - this.lastCleanup >= this.cleanupInterval) {
      this.lastCleanup = now;
      this.removeEmptyQueues();
    }
  }

  /**
   * Removes dynamic queues and drained (removed from the configuration) queues that hold nothing: no applications and
   * no children (upstream partition manager `cleanQueues`); a queue the configuration makes a leaf becomes one when its
   * last child goes (`QueueTree.removeEmpty`).
   * @returns the paths removed
   */
  removeEmptyQueues(): string[] {
    return this.queues.removeEmpty();
  }

  /** Queue changes since the last call, oldest first (queue-change.ts). */
  drainQueueChanges(): QueueChange[] {
    return this.queues.drainChanges();
  }

  drainStateChanges(): AppStateChange[] {
    return this.life.drainChanges();
  }

  /** Releases the core decided since the last call (placeholders), for the resource manager to remove the pods. */
  drainReleases(): CoreRelease[] {
    return this.gangs.drainReleases();
  }

  /** The same releases, drained apart, for the core's event records. */
  drainReleaseRecords(): CoreRelease[] {
    return this.gangs.drainReleaseRecords();
  }

  /** Node reservations made and ended since the last call, on every path (reservations.ts `drainChanges`). */
  drainReservationChanges(): ReservationChange[] {
    return this.reservations.drainChanges();
  }

  // ---------------------------------------------------------------- gang scheduling (gang/coordinator.ts)

  /**
   * Ends a reserving gang's reservation now (see `SchedulerCore.timeoutReservation`); `style` overrides the gang's own
   * (`SchedulerCore.abandonReservation`).
   */
  timeoutReservation(appId: string, now: number, style?: GangSchedulingStyle): boolean {
    return this.gangs.timeoutReservation(appId, now, style);
  }

  /**
   * A real ask takes a placeholder's place on its node: the placeholder leaves every usage (node, queue, user) and the
   * ask enters it in the same step, so nothing is counted twice at any point.
   */
  private replace(app: Application, ask: Ask, placeholderKey: string, node: Node, now: number): AllocationResult {
    const ph = app.asks.get(placeholderKey)!;
    const placeholder = allocationOfAsk(app, ph, ph.node!);
    app.asks.delete(placeholderKey);
    this.released(app);
    app.trackReleased(ph, this.instanceType(ph.node), now);
    this.detach(ph);
    app.removeAllocated(ph.resource);
    this.limits.track(app, ph.resource, -1, true);
    this.gangs.gone(app, ph);
    const d = ph.taskGroup ? app.placeholderData.get(ph.taskGroup) : undefined;
    if (d) d.replaced++;
    this.reservations.epoch++;
    ask.placeholderCreateTime = ph.createTime;
    const allocation = this.allocate(app, ask, node, now);
    return { kind: "replaced", allocation, placeholderKey, placeholder };
  }

  // ---------------------------------------------------------------- scheduling

  /**
   * One scheduling step: at most one result (allocated, allocatedReserved, reserved or unreserved), or undefined when
   * nothing can change now.
   */
  tryAllocate(now: number): AllocationResult | undefined {
    this.clock = now;
    if (this.queues.orderDirty !== "none") this.queues.refreshOrder();
    if (!hasPositive(this.root.pending)) return undefined;
    this.preemptions.newWalk();
    const reserved = this.reservations.size > 0 ? this.tryReservedAllocate(now) : undefined;
    if (reserved) return reserved;
    const d = this.root.tryAllocate(this.context, now);
    if (!d) return undefined;
    const result = this.apply(d, now);
    lookahead(this.root);
    return result;
  }

  /** `now` of the running scheduling step. */
  private clock = 0;

  private readonly context: AllocationContext = {
    runHold: (app) => this.walkRunHold(app),
    replacement: (app, ask) => this.gangs.replacement(app, ask, this.clock),
    nodeOf: (id) => this.nodes.get(id),
    askHold: (app, ask) =>
      this.limits.headroom(app, ask.resource)
        ? "limit"
        : queueOverMax(app.queue, ask.resource)
          ? "queueMax"
          : overClusterSize(this.root, ask.resource)
            ? "clusterCapacity"
            : undefined,
    pickNode: (ask) => (this.nodeSearchLatency ? this.timedPick(ask, this.nodeSearchLatency) : this.nodeSet.pick(ask)),
    reservationNode: (ask, now) => this.reservations.choose(ask, this.nodeSet.inOrder(), now),
    tryPreemption: (app, ask, hold, now) => this.preemptions.tryHeld(app, ask, hold, now),
  };

  private readonly nodeSearchLatency: PartitionOptions["nodeSearchLatency"];

  /** `nodeSet.pick` timed (`PartitionOptions.nodeSearchLatency`). */
  private timedPick(ask: Ask, l: NonNullable<PartitionOptions["nodeSearchLatency"]>): Node | undefined {
    const start = l.clock();
    const node = this.nodeSet.pick(ask);
    l.observe(l.clock() - start, node !== undefined);
    return node;
  }

  private apply(d: Decision, now: number): AllocationResult {
    if (d.kind === "preempt") return this.preemptions.start(d.app, d.ask, d.result, now);
    if (d.kind === "reserve") {
      this.reservations.reserve(d.ask, d.node, now);
      return { kind: "reserved", appId: d.app.id, key: d.ask.key, nodeId: d.node.id };
    }
    if (d.kind === "replace") return this.replace(d.app, d.ask, d.placeholder, d.node, now);
    const allocation = this.allocate(d.app, d.ask, d.node, now);
    const ph = d.releasePlaceholder;
    if (ph) {
      const message = `placeholder ${ph} of application ${d.app.id} given up: ask ${d.ask.key} allocated on node ${d.node.id}`;
      this.gangs.release(d.app, ph, { cause: "replacedElsewhere", message }, now);
    }
    return { kind: "allocated", allocation };
  }

  private allocate(app: Application, ask: Ask, node: Node, now: number): Allocation {
    if (ask.reservedNode) this.unreserve(ask);
    app.deletePending(ask);
    this.commit(app, ask, node, now);
    app.queue.update(app);
    return allocationOfAsk(app, ask, node.id);
  }

  // ---------------------------------------------------------------- reservations (reference §4.6)

  /** Releases the reservation of a pending ask (placed, removed, changed). */
  private unreserve(ask: Ask): void {
    if (ask.preemption) this.preemptions.end(ask, this.nodes.get(ask.reservedNode ?? ""));
    else this.reservations.release(ask, ask, this.nodes.get(ask.reservedNode ?? ""));
  }

  /** Releases the reservation on a node (node removed or unschedulable); the ask goes back to the normal walk. */
  private unreserveNode(n: Node): void {
    const r = n.reservation!;
    const ask = this.apps.get(r.appId)?.asks.get(r.key);
    if (ask?.preemption) this.preemptions.end(ask, n);
    else this.reservations.release(ask, r, n);
  }

  /**
   * Reservations first (upstream `tryReservedAllocate`): each reservation, in the order made, when room may have
   * appeared since its last attempt: the ask goes to its reserved node when it fits there, else to any other node with
   * room; held by a limit or a queue max it waits. Then, once per cycle, `tryReservedPreemption`.
   */
  private tryReservedAllocate(now: number): AllocationResult | undefined {
    return this.tryReservationsPlaced(now) ?? this.tryReservedPreemption(now);
  }

  /** True until `tryReservedPreemption` went through every reservation in this cycle without a result (set by `tick`). */
  private reservedPreemptionDue = false;

  /**
   * Preemption for asks holding an ordinary reservation (upstream keeps a reserved ask in its application's walk, so
   * it reaches tryPreemption every cycle once `preemption.delay` has passed): each such ask nothing takes now may
   * preempt as an unreserved one would (`PreemptionCoordinator.tryHeld`); its reservation then gives way to the
   * preemption's. One result per call; a pass that finds nothing is not repeated before the next cycle.
   */
  private tryReservedPreemption(now: number): AllocationResult | undefined {
    if (!this.reservedPreemptionDue || !this.preemptions.enabled) return undefined;
    for (const r of this.reservations.values()) {
      const app = this.apps.get(r.appId);
      const ask = app?.asks.get(r.key);
      if (!app || !ask || ask.node || ask.preemption || !app.queue.isLeaf) continue;
      if ((app.state === "Accepted" || app.state === "Reserving") && this.runHold(app)) continue;
      const d = this.preemptions.tryHeld(app, ask, this.context.askHold(app, ask), now);
      if (d) return this.apply(d, now);
    }
    this.reservedPreemptionDue = false;
    return undefined;
  }

  /** The placing half of `tryReservedAllocate`. */
  private tryReservationsPlaced(now: number): AllocationResult | undefined {
    // every reservation was tried at this epoch (a new one counts as tried when made): nothing to do until it moves
    if (this.reservations.allTried === this.reservations.epoch) return undefined;
    for (const r of this.reservations.values()) {
      if (r.tried === this.reservations.epoch) continue;
      r.tried = this.reservations.epoch;
      const app = this.apps.get(r.appId);
      const ask = app?.asks.get(r.key);
      const node = this.nodes.get(r.nodeId);
      if (!app || !ask || ask.node || !node) {
        // defensive: every path that ends an ask or a node releases its reservation
        this.reservations.release(ask, r, node);
        return { kind: "unreserved", appId: r.appId, key: r.key, nodeId: r.nodeId, cause: node ? "askRemoved" : "nodeRemoved" };
      }
      if (!app.queue.isLeaf) {
        // a configuration made its leaf a parent queue (applyConfig moves the epoch): its asks wait, a preemption under
        // way for it ends, and the node is free for others
        this.unreserve(ask);
        return { kind: "unreserved", appId: r.appId, key: r.key, nodeId: r.nodeId, cause: "queueNotLeaf" };
      }
      if ((app.state === "Accepted" || app.state === "Reserving") && this.runHold(app)) continue;
      if (ask.preemption && this.preemptions.stalled(app, ask, node)) {
        // every victim is gone and the node still has no room (or the ask is held): start over after the attempt interval
        this.preemptions.end(ask, node);
        return { kind: "unreserved", appId: r.appId, key: r.key, nodeId: r.nodeId, cause: "preemptionEnded" };
      }
      if (this.context.askHold(app, ask)) continue;
      if (node.fits(ask.resource) && (!ask.predicate || ask.predicate(node.id))) {
        ask.preemption = undefined;
        return { kind: "allocatedReserved", allocation: this.allocate(app, ask, node, now), reservedNode: node.id };
      }
      // a preemptor waits for the room its victims free on its node, never placed elsewhere meanwhile
      if (ask.preemption) continue;
      const other = this.nodeSet.pick(ask);
      if (other) return { kind: "allocatedReserved", allocation: this.allocate(app, ask, other, now), reservedNode: node.id };
    }
    this.reservations.allTried = this.reservations.epoch;
    return undefined;
  }

  /** Reservations in the order made (read API, tests). */
  reservationList(): { appId: string; key: string; nodeId: string; since: number }[] {
    return this.reservations.list();
  }

  /** Moves an allocation to `nodeId` when that node is schedulable, has room and passes the ask's predicate. */
  relocate(appId: string, key: string, nodeId: string): boolean {
    const ask = this.apps.get(appId)?.asks.get(key);
    const to = this.nodes.get(nodeId);
    if (!ask?.node || !to || !to.schedulable) return false;
    if (ask.node === nodeId) return true;
    if (to.reservation || !to.fits(ask.resource) || (ask.predicate && !ask.predicate(nodeId))) return false;
    this.detach(ask);
    this.attach(ask, to);
    this.reservations.epoch++;
    return true;
  }

  // ---------------------------------------------------------------- preemption (preemption/coordinator.ts)

  /**
   * Quota-change preemption now (see `PreemptionCoordinator.tryQuota`): per queue, the result for the resource manager
   * or the decision that took no victim.
   */
  tryQuotaPreemption(now: number): QuotaPass[] {
    return this.preemptions.tryQuota(now);
  }

  /** A quota-preemption victim's eviction was refused (see `PreemptionCoordinator.quotaBlocked`). */
  quotaPreemptionBlocked(queuePath: string, victim: { appId: string; key: string }, now: number): boolean {
    return this.preemptions.quotaBlocked(queuePath, victim, now);
  }

  /** A victim's eviction was refused: the preemption of the ask ends (see `PreemptionCoordinator.blocked`). */
  preemptionBlocked(appId: string, key: string, victim: { appId: string; key: string }): boolean {
    return this.preemptions.blocked(appId, key, victim);
  }

  // ---------------------------------------------------------------- holds

  /**
   * Why a pending ask was not allocated in the last cycle, as data (yunikorn-shim reference §2.12): its queue made a
   * parent by a configuration, its gang's reservation, a preemption under way, a quota (queue max, user/group limit,
   * maxapplications), the cluster size, a reservation it waits on, no node with room, or no node passing the
   * predicate; undefined when nothing holds it (it is allocated in the next cycle) or it is not pending.
   */
  holdReason(appId: string, key: string): HoldReason | undefined {
    const app = this.apps.get(appId);
    const ask = app?.asks.get(key);
    if (!app || !ask || ask.node) return undefined;
    if (!app.queue.isLeaf) return { kind: "queueNotLeaf", queuePath: app.queue.path };
    if (app.state === "Reserving" && !ask.placeholder && app.gang) {
      return {
        kind: "gangReservation",
        appId,
        allocated: { ...app.allocatedPlaceholder },
        reservation: { ...app.gang.placeholderAsk },
        taskGroups: this.gangs.taskGroups(app),
      };
    }
    if (ask.preemption && ask.reservedNode) return this.preemptions.hold(app, ask, ask.preemption, ask.reservedNode);
    const quota = this.quotaHold(app, ask.resource);
    if (quota) return quota;
    const cluster = clusterHold(this.root, ask.resource);
    if (cluster) return cluster;
    if (ask.reservedNode) {
      const n = this.nodes.get(ask.reservedNode);
      return { kind: "reservation", nodeId: ask.reservedNode, ask: { ...ask.resource }, available: n ? n.available() : {} };
    }
    if (!this.nodeSet.pick(ask)) {
      if (ask.predicate && this.nodeSet.pick({ ...ask, predicate: undefined })) return { kind: "noNodeMatches", ask: { ...ask.resource } };
      return { kind: "noNodeFits", ask: { ...ask.resource }, nodes: this.nodes.size };
    }
    return undefined;
  }

  /**
   * Why a quota holds an ask of `app` back (maxapplications while the app waits to run, user/group limits, queue
   * maxima below root), or undefined.
   */
  quotaHold(app: Application, r: Res): HoldReason | undefined {
    if (app.state === "Accepted" || app.state === "Reserving") {
      const rb = this.runHold(app);
      if (rb) return rb;
    }
    return this.limitHold(app, r) ?? queueMaxHold(app.queue, r);
  }

  /** User and group headroom (limits on the application's queue path). */
  private limitHold(app: Application, r: Res): HoldReason | undefined {
    const hold = this.limits.headroom(app, r);
    return hold && { kind: "limit", hold };
  }

  /**
   * `runHold` as the walk asks it (upstream Queue.TryAllocate → updateRunnableStatus): a change of either hold since
   * the last walk is recorded (`drainRunnableChanges`: APP_CANNOTRUN_QUEUE / APP_RUNNABLE_QUEUE, APP_CANNOTRUN_QUOTA /
   * APP_RUNNABLE_QUOTA).
   */
  private walkRunHold(app: Application): HoldReason | undefined {
    const { queue, limit } = this.runHolds(app);
    if (app.runnableInQueue !== (queue === undefined)) {
      app.runnableInQueue = queue === undefined;
      this.runnableChanges.push({ appId: app.id, by: "queue", runnable: app.runnableInQueue });
    }
    if (app.runnableByLimit !== (limit === undefined)) {
      app.runnableByLimit = limit === undefined;
      this.runnableChanges.push({ appId: app.id, by: "quota", runnable: app.runnableByLimit });
    }
    return queue ?? limit;
  }

  /** Runnable changes the walks found since the last call (`walkRunHold`). */
  drainRunnableChanges(): RunnableChange[] {
    const c = this.runnableChanges;
    this.runnableChanges = [];
    return c;
  }

  /** Why `app` may not start running: maxapplications of its queues, else of its user/group limits. */
  private runHold(app: Application): HoldReason | undefined {
    const { queue, limit } = this.runHolds(app);
    return queue ?? limit;
  }

  /** Both maxapplications holds of `app`, checked independently as upstream does (canRunApp, ugm CanRunApp). */
  private runHolds(app: Application): { queue: HoldReason | undefined; limit: HoldReason | undefined } {
    const hold = this.limits.runHold(app);
    return { queue: queueRunHold(app.queue, app.allocatingCounted), limit: hold && { kind: "limit", hold } };
  }
}

/** `application.create.force` tag (key case-insensitive, Go ParseBool true spellings). */
function isForced(tags: Record<string, string>): boolean {
  const v = tagValue(tags, "application.create.force");
  return v !== undefined && parseGoBool(v) === true;
}
