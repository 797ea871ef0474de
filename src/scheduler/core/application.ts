/**
 * An application and its asks (apache/yunikorn-core pkg/scheduler/objects/application.go, sorted_asks.go;
 * yunikorn-core reference §4.2, §4.5). The application owns its part of the allocation walk: `tryAllocate` goes
 * through its pending asks in order and decides where the first one that can go goes; the partition applies the
 * decision. Life-cycle states come from the event table in application-state.ts.
 */
import { compareNumbers } from "../../util/compare.js";
import { SmallMap } from "../../util/small-map.js";
import { SortedList } from "../../util/sorted-list.js";
import { type AppEvent, type AppState, type StateLogEntry } from "./application-state.js";
import { DEFAULT_PLACEHOLDER_TIMEOUT_MS, type GangSchedulingStyle } from "./gang/constants.js";
import type { Replacement } from "./gang/replacement.js";
import type { HoldReason } from "./hold-reason.js";
import { touchAsk, touched } from "./lookahead.js";
import type { Node } from "./node.js";
import type { Preempting } from "./preemption/result.js";
import type { PreemptionAllocation } from "./preemption/snapshot.js";
import { OrderMember } from "./order-member.js";
import type { Queue } from "./queue.js";
import { type Res, addInto, addTo, raiseMax, subFrom } from "./resources.js";
import type { AppTracking } from "./ugm/tracker.js";

/**
 * Order of pending asks in an application: priority descending, then creation time, then arrival (§4.4; upstream
 * sorted_asks.go keeps asks of equal priority and creation time in the order they came, and the shim's creation times
 * are whole seconds). The ask is its own key in the orders (its priority changes only while it is out of them,
 * `Partition.updateAsk`): no key object per ask, and deleting the first ask is found by identity.
 */
const askOrder = (a: Ask, b: Ask) =>
  compareNumbers(b.priority, a.priority) || compareNumbers(a.createTime, b.createTime) || a.arrival - b.arrival;

/** A request for one allocation (a pod), pending until a node is chosen. */
export interface Ask {
  readonly key: string;
  readonly appId: string;
  /** Core units; changed in place only through the partition (resize). */
  resource: Res;
  priority: number;
  /** Milliseconds since the epoch. */
  readonly createTime: number;
  /** The order asks reached the partition (a counter of the partition): ties of priority and creation time. */
  readonly arrival: number;
  readonly requiredNode?: string;
  /** The resource manager's node check (YuniKorn's Predicates callback); undefined: any node with room. */
  predicate?: (nodeId: string) => boolean;
  /** Node the ask was allocated on, when allocated. */
  node?: string;
  /** Milliseconds since the epoch when it was allocated. */
  allocatedAt?: number;
  /** Node reserved for this pending ask (reference §4.6). */
  reservedNode?: string;
  /** Gang scheduling: a placeholder ask, and the task group it stands for. */
  readonly placeholder?: boolean;
  readonly taskGroup?: string;
  /**
   * Preemption flags from the resource manager (si.PreemptionPolicy, originator; shim/preemption.ts):
   * `allowPreemptSelf` false = opted out (`yunikorn.apache.org/allow-preemption: "false"` on the pod or its
   * PriorityClass, chosen last as a victim); `allowPreemptOther` false = `preemptionPolicy: Never` (never preempts);
   * `originator` = the pod that created the application (chosen after every other). Unset: true, true, false.
   */
  allowPreemptSelf?: boolean;
  allowPreemptOther?: boolean;
  originator?: boolean;
  /** An allocation chosen as a victim: it stays allocated (and counted) until the resource manager releases it. */
  preempted?: boolean;
  /**
   * Set when the allocation took a placeholder's place (gang scheduling): that placeholder's creation time, ms since
   * the epoch (upstream Allocation placeholderUsed, placeholderCreateTime).
   */
  placeholderCreateTime?: number;
  /** A pending ask whose preemption is under way: the decision (victims, reserved node, rules). */
  preemption?: Preempting;
  /** When preemption was last attempted for this pending ask (ms), for the 15 s between attempts. */
  lastPreemptionCheck?: number;
  /** Allocation ids (`appId/key`) whose eviction was refused for this ask: never chosen again for it. */
  blockedVictims?: Set<string>;
  /**
   * An allocation as preemption's node search last saw it as a possible victim (preemption/core-snapshot.ts), reused
   * while none of the fields it copies changed.
   */
  victimView?: PreemptionAllocation;
}

/** What holds an ask whatever the node: a user/group limit, a queue max, the cluster size (`AllocationContext.askHold`). */
export type AskHoldKind = "limit" | "queueMax" | "clusterCapacity";

/** What the walk needs from the partition: holds, node choice and reservation choice. */
export interface AllocationContext {
  /** Why an Accepted application may not start running now (maxapplications of queues, users, groups). */
  runHold(app: Application): HoldReason | undefined;
  /**
   * What holds `ask` now whatever the node — user/group headroom (`limit`), a queue max (`queueMax`), the cluster size
   * (`clusterCapacity`) — or undefined. Only the kind (the partition's `holdReason` gives the details).
   */
  askHold(app: Application, ask: Ask): AskHoldKind | undefined;
  /** How a real ask of a task group uses the application's allocated placeholders (core/gang/replacement.ts). */
  replacement(app: Application, ask: Ask): Replacement;
  nodeOf(id: string): Node | undefined;
  /** The first node in allocation order that takes `ask` now (reserved nodes excluded). */
  pickNode(ask: Ask): Node | undefined;
  /** A node to reserve for `ask`, which no node takes now; undefined while the reservation delay runs or none fits. */
  reservationNode(ask: Ask, now: number): Node | undefined;
  /**
   * Ask-triggered preemption for an ask held by `hold`, or (undefined) that no node takes now: a `preempt` decision, or
   * undefined when preemption is off, not due, cannot help or finds no victims (`PreemptionCoordinator.tryHeld`).
   */
  tryPreemption(app: Application, ask: Ask, hold: AskHoldKind | undefined, now: number): Decision | undefined;
}

/** What one application's walk decided; the partition applies it. */
export type Decision =
  /** `releasePlaceholder`: a placeholder of the ask's group given up because the ask goes elsewhere (gang). */
  | { readonly kind: "allocate"; readonly app: Application; readonly ask: Ask; readonly node: Node; readonly releasePlaceholder?: string }
  /** Gang: the real ask takes the allocated placeholder `placeholder`'s place on `node`. */
  | { readonly kind: "replace"; readonly app: Application; readonly ask: Ask; readonly placeholder: string; readonly node: Node }
  | { readonly kind: "reserve"; readonly app: Application; readonly ask: Ask; readonly node: Node }
  /** Preemption: release `result.victims`, reserve `result.nodeId` for the ask. */
  | { readonly kind: "preempt"; readonly app: Application; readonly ask: Ask; readonly result: Preempting };

/**
 * An application's gang (upstream AddApplicationRequest placeholderAsk, executionTimeoutMilliSeconds,
 * gangSchedulingStyle): what its placeholders reserve in total and what happens when they are not all allocated in
 * time.
 */
export interface GangOptions {
  /** Σ over the task groups of minMember × placeholder resource (core units); zero or empty: not a gang. */
  placeholderAsk: Res;
  /** Placeholder timeout (milliseconds); 0 or less: the 15-minute default. */
  timeoutMs?: number;
  style?: GangSchedulingStyle;
}

/** The three series of an application's resource history. */
export type ResourceHistoryKind = "used" | "preempted" | "placeholder";

/** Node attribute naming its instance type (si `InstanceType`); nodes without it count as `UNKNOWN`, as upstream. */
export const INSTANCE_TYPE_ATTRIBUTE = "si/instance-type";

/** Per task group, as upstream's PlaceholderData: placeholder asks seen, their size, how many were replaced or timed out. */
export interface PlaceholderData {
  taskGroupName: string;
  count: number;
  minResource: Res;
  replaced: number;
  timedOut: number;
}

/** What an application without placeholders or released allocations reads (never written). */
const NO_PLACEHOLDERS: ReadonlyMap<string, PlaceholderData> = new Map();
const NO_HISTORY: Readonly<Record<ResourceHistoryKind, ReadonlyMap<string, Res>>> = {
  used: new Map(),
  preempted: new Map(),
  placeholder: new Map(),
};

/** A state the application was in before its current one, linked to the one before it (`Application.stateLog`). */
interface PastState {
  /** Milliseconds since the epoch when it was entered. */
  readonly time: number;
  readonly state: AppState;
  readonly prev: PastState | undefined;
}

/** The tags of an application submitted without any (shared, never written). */
export const NO_TAGS: Readonly<Record<string, string>> = Object.freeze({});

/** `Application.maxAllocated` is `allocated` itself (nothing released yet); compared by identity, never read or written. */
const PEAK_IS_ALLOCATED: Res = Object.freeze({});

/** What an application without allocated placeholders reads as their resources (never written). */
const NO_RESOURCES: Readonly<Res> = Object.freeze({});

/** Constructor input of {@link Application}; the partition places the application before building it (`Partition.addApplication`). */
export interface ApplicationOptions {
  id: string;
  /** The leaf queue (for a rejected application: the partition's root; it is never added to any queue). */
  queue: Queue;
  user: string;
  groups: readonly string[];
  /** Milliseconds since the epoch. */
  submissionTime: number;
  /** `application.stateaware.disable` / `disableStateAware`: no Starting state. */
  stateAwareDisabled?: boolean;
  tags?: Readonly<Record<string, string>>;
  /** The queue name the resource manager asked for. */
  requestedQueue?: string;
  gang?: GangOptions;
}

/**
 * One application of a partition (module comment): its asks and allocations, state, state log, gang data and resource
 * history. Resources in core units, times in milliseconds since the epoch.
 */
export class Application extends OrderMember<Ask, Ask> {
  readonly id: string;
  readonly queue: Queue;
  readonly user: string;
  readonly groups: readonly string[];
  /** Milliseconds since the epoch; lowered to the earliest ask's creation time (upstream). */
  submissionTime: number;
  readonly stateAwareDisabled: boolean;
  /** Asks and allocations by allocation key, in the order added (no `Map` of its own while there is one). */
  readonly asks = new SmallMap<string, Ask>();
  /**
   * Pending (unallocated) asks without a node reservation, in scheduling order: the walk reads these. Kept sorted as
   * asks come and go, never re-sorted. The application itself (an OrderMember, order-member.ts): one object fewer to
   * read per application walked.
   */
  private get unreservedAsks(): this {
    return this;
  }
  /** The id it is ordered by in its leaf queue. */
  get orderName(): string {
    return this.id;
  }
  /** The pending asks without a node reservation, in scheduling order (a copy). */
  unreservedPending(): Ask[] {
    return this.values();
  }
  /**
   * Pending asks holding a node reservation, same order: the partition serves them first and the walk passes them by,
   * so keeping them apart spares the walk a step over each (after preemptions they wait until their victims are gone).
   * Made at the first reservation (most applications never reserve).
   */
  private reservedAsks?: SortedList<Ask, Ask>;
  readonly pending: Res = {};
  readonly allocated: Res = {};
  /**
   * The largest `allocated` reached, per type (upstream maxAllocatedResource; a type never above 0 left out); undefined
   * before the first allocation. While nothing was released, `allocated` has only grown and is that largest, so it is
   * made on read: an application's first allocation copies nothing. Set when a completed application runs again (the
   * largest it reached carries over). Read only: a copy made for the read, or the application's own.
   */
  get maxAllocated(): Readonly<Res> | undefined {
    return this.peak === PEAK_IS_ALLOCATED ? raiseMax(undefined, this.allocated) : this.peak;
  }
  set maxAllocated(r: Readonly<Res> | undefined) {
    this.peak = r && { ...r };
  }
  /** `maxAllocated` once something was released (or carried over), PEAK_IS_ALLOCATED before, undefined: no allocation yet. */
  private peak?: Res;
  state: AppState = "New";
  /** Milliseconds since the epoch of the last state change. */
  stateSince: number;
  /**
   * Every state the application was in, oldest first; made on each read from the current state (`state`, since
   * `stateSince`) and the earlier ones (kept as a chain of one small object per state: no array per application).
   */
  get stateLog(): StateLogEntry[] {
    const log: StateLogEntry[] = [{ time: this.stateSince, state: this.state }];
    for (let p = this.pastStates; p; p = p.prev) log.push({ time: p.time, state: p.state });
    return log.reverse();
  }
  /** The states before the current one, latest first. */
  private pastStates?: PastState;
  /** Gang scheduling: set while the application reserves with placeholders (cleared when it resumes as a normal one). */
  gang?: { placeholderAsk: Res; timeoutMs: number; explicitTimeout: boolean; style: GangSchedulingStyle; timerAt?: number };
  /** Resources of the allocated placeholders (part of `allocated`). */
  get allocatedPlaceholder(): Readonly<Res> {
    return this.phAllocated ?? NO_RESOURCES;
  }
  /** Allocated placeholders (count). */
  placeholderAllocations = 0;
  /** Pending placeholder asks (count). */
  pendingPlaceholders = 0;
  get placeholderData(): ReadonlyMap<string, PlaceholderData> {
    return this.phData ?? NO_PLACEHOLDERS;
  }
  /**
   * Resource × seconds of the allocations released so far, per node instance type (upstream TrackedResource of
   * usedResource, preemptedResource, placeholderResource; `trackReleased`).
   */
  get resourceHistory(): Readonly<Record<ResourceHistoryKind, ReadonlyMap<string, Res>>> {
    return this.history ?? NO_HISTORY;
  }
  /** True while the application is one of its leaf queue's applications (`Queue.addApp`/`removeApp`). */
  inQueue = false;
  /** Counted in its queues' `allocatingApps`: allocated before running (`AppLifecycle.allocating`). */
  allocatingCounted = false;
  /** The user/group tracker's state of this application (maintained by ugm/tracker.ts). */
  ugm?: AppTracking;
  /**
   * Life-cycle timers (app-timers.ts): this instance's serial number, and when its pending timer is due (milliseconds
   * since the epoch; undefined: none) with the event it fires.
   */
  serial?: number;
  timerAt?: number;
  timerEvent?: AppEvent;
  // read rarely (placement, rejection, gang, releases, the REST API): after the fields every allocation reads
  readonly tags: Readonly<Record<string, string>>;
  readonly requestedQueue: string;
  /** Why the application was rejected (state Rejected), and the typed placement refusal when placement refused it. */
  rejectedMessage?: string;
  /**
   * As the last walk found it while the application waited to run (upstream runnableInQueue, runnableByUserLimit):
   * its queues' maxapplications, and its user's and group's, leave room for it.
   */
  runnableInQueue = true;
  runnableByLimit = true;
  /** Made at the first allocated placeholder (most applications have none). */
  private phAllocated?: Res;
  /** Per task group, in the order first seen (made at the first placeholder ask: most applications have none). */
  private phData?: Map<string, PlaceholderData>;
  rejection?: HoldReason;
  /** Made at the first release (an application's maps are few objects fewer until then). */
  private history?: Record<ResourceHistoryKind, Map<string, Res>>;

  /**
   * Adds a released allocation to the resource history (upstream Application.trackCompletedResource): a preemption
   * victim to `preempted`, a placeholder to `placeholder`, any other to `used`; each quantity times the whole seconds
   * between its allocation and `now` (Unix ms), under the instance type of its node.
   */
  trackReleased(ask: Ask, instanceType: string, now: number): void {
    const kind: ResourceHistoryKind = ask.preempted ? "preempted" : ask.placeholder ? "placeholder" : "used";
    const seconds = Math.max(0, Math.floor((now - (ask.allocatedAt ?? now)) / 1000));
    const m = (this.history ??= { used: new Map(), preempted: new Map(), placeholder: new Map() })[kind];
    const r = m.get(instanceType) ?? {};
    for (const k in ask.resource) r[k] = (r[k] ?? 0) + ask.resource[k]! * seconds;
    m.set(instanceType, r);
  }

  constructor(o: ApplicationOptions) {
    super(askOrder);
    this.id = o.id;
    this.queue = o.queue;
    this.user = o.user;
    this.groups = o.groups;
    this.submissionTime = o.submissionTime;
    this.stateAwareDisabled = o.stateAwareDisabled ?? false;
    this.tags = o.tags ?? NO_TAGS;
    this.requestedQueue = o.requestedQueue ?? "";
    this.stateSince = o.submissionTime;
    if (o.gang && Object.values(o.gang.placeholderAsk).some((v) => v > 0)) {
      const t = o.gang.timeoutMs ?? 0;
      this.gang = {
        placeholderAsk: { ...o.gang.placeholderAsk },
        timeoutMs: t > 0 ? t : DEFAULT_PLACEHOLDER_TIMEOUT_MS,
        explicitTimeout: t > 0,
        style: o.gang.style ?? "Soft",
      };
    }
  }

  /** Records entering `state` (called by the partition after the event table said so). */
  enter(state: AppState, now: number): void {
    this.pastStates = { time: this.stateSince, state: this.state, prev: this.pastStates };
    this.state = state;
    this.stateSince = now;
  }

  /**
   * An allocation's resources enter `allocated`, here and on the queue path; `maxAllocated` rises where it is
   * exceeded.
   */
  addAllocated(r: Readonly<Res>): void {
    addTo(this.allocated, r);
    this.queue.incAllocated(r);
    if (this.peak === undefined) this.peak = PEAK_IS_ALLOCATED;
    else if (this.peak !== PEAK_IS_ALLOCATED) raiseMax(this.peak, this.allocated);
  }

  /** An allocated placeholder's resources enter `allocatedPlaceholder`. */
  addPlaceholderAllocated(r: Readonly<Res>): void {
    this.phAllocated = addInto(this.phAllocated, r);
  }

  /** An allocated placeholder's resources leave `allocatedPlaceholder`. */
  removePlaceholderAllocated(r: Readonly<Res>): void {
    subFrom((this.phAllocated ??= {}), r);
  }

  /** An allocation's resources leave `allocated`, here and on the queue path. */
  removeAllocated(r: Readonly<Res>): void {
    // from now on `allocated` may be below its largest: that is kept apart
    if (this.peak === PEAK_IS_ALLOCATED) this.peak = raiseMax(undefined, this.allocated);
    subFrom(this.allocated, r);
    this.queue.decAllocated(r);
  }

  /**
   * A new ask joins the application (upstream AddAllocationAsk): the submission time drops to the earliest ask's
   * creation, and a placeholder is counted in its task group's placeholder data. Pending or allocated is the
   * partition's next step.
   */
  addAsk(ask: Ask): void {
    this.asks.set(ask.key, ask);
    if (ask.createTime < this.submissionTime) this.submissionTime = ask.createTime;
    if (!ask.placeholder || !ask.taskGroup) return;
    const d = this.phData?.get(ask.taskGroup);
    if (d) d.count++;
    else
      (this.phData ??= new Map()).set(ask.taskGroup, {
        taskGroupName: ask.taskGroup,
        count: 1,
        minResource: { ...ask.resource },
        replaced: 0,
        timedOut: 0,
      });
  }

  /** Highest priority among pending asks (−∞ when none). */
  maxPendingPriority(): number {
    const u = this.unreservedAsks.minKey();
    const r = this.reservedAsks?.minKey();
    return Math.max(u ? u.priority : Number.NEGATIVE_INFINITY, r ? r.priority : Number.NEGATIVE_INFINITY);
  }

  hasPending(): boolean {
    return this.unreservedAsks.size > 0 || (this.reservedAsks !== undefined && this.reservedAsks.size > 0);
  }

  /** Has pending asks the walk may place now: while Reserving only placeholders (a gang's real asks wait). */
  hasSchedulable(): boolean {
    return this.state === "Reserving" ? this.pendingPlaceholders > 0 : this.hasPending();
  }

  /** A pending ask enters the ask order and `pending`, here and on the queue path. */
  addPending(ask: Ask): void {
    const added = ask.reservedNode
      ? (this.reservedAsks ??= new SortedList<Ask, Ask>(askOrder)).set(ask, ask)
      : this.unreservedAsks.set(ask, ask);
    if (added && ask.placeholder) this.pendingPlaceholders++;
    addTo(this.pending, ask.resource);
    this.queue.incPending(ask.resource);
  }

  /** A pending ask leaves the ask order and `pending` (placed, changed or removed). */
  deletePending(ask: Ask): void {
    if ((this.unreservedAsks.delete(ask) || this.reservedAsks?.delete(ask)) && ask.placeholder) this.pendingPlaceholders--;
    subFrom(this.pending, ask.resource);
    this.queue.decPending(ask.resource);
  }

  /** A pending ask's reservation was made or ended (`ask.reservedNode` set or cleared): it moves to the matching order. */
  reservationChanged(ask: Ask): void {
    if (ask.reservedNode) {
      if (this.unreservedAsks.delete(ask)) (this.reservedAsks ??= new SortedList<Ask, Ask>(askOrder)).set(ask, ask);
    } else if (this.reservedAsks?.delete(ask)) this.unreservedAsks.set(ask, ask);
  }

  // ---------------------------------------------------------------- lookahead (lookahead.ts)

  /** The first pending ask without a node reservation (the one the walk tries first), or undefined. */
  firstPending(): Ask | undefined {
    return this.unreservedAsks.minValue();
  }

  /**
   * Reads a field on each cache line of this application (lookahead.ts): with the fields in declaration order (the sorted
   * store's, the order key's, then this class's), one in every eight words of the object, the header included.
   * @returns a count no decision reads (`touched`)
   */
  touchLines(): number {
    return (
      touched(this.chunked) +
      touched(this.unreservedAsks.size) +
      touched(this.id) +
      touched(this.reservedAsks) +
      touched(this.gang) +
      touched(this.timerAt) +
      touched(this.runnableByLimit) +
      touched(this.rejection) +
      touched(this.history)
    );
  }

  /** Reads the objects a walk into this application reads besides the application: resources, tracking, asks, first ask. */
  touchParts(): number {
    const ask = this.firstPending();
    return (
      touched(this.allocated.memory) +
      touched(this.pending.memory) +
      touched(this.ugm?.live) +
      touched(this.asks.size) +
      (ask === undefined ? 0 : touchAsk(ask))
    );
  }

  /**
   * This application's part of the walk (upstream `Application.tryAllocate`, reference §4.5): pending asks in order
   * (reserved ones are in an order of their own, which the partition serves first), skipping asks held by a limit or
   * a queue max; the first ask a node takes is allocated there; an ask no node takes (or held by a queue max or the
   * cluster size) may preempt (upstream tryPreemption: victims released, a node reserved for it), else reserve a node
   * after the reservation delay. Placeholders preempt like any ask (upstream walks them the same way), for their gang's reservation.
   * Gang scheduling (upstream tryPlaceholderAllocate): while Reserving only placeholder asks are walked; a real ask of
   * a task group with allocated placeholders of its group takes one's place (or goes elsewhere giving one up, or
   * waits, also while its group's placeholders left are being preempted); once its group has none left it is
   * scheduled normally.
   */
  tryAllocate(ctx: AllocationContext, now: number): Decision | undefined {
    // Asks holding a reservation are not in this order (the partition serves them first).
    return this.unreservedAsks.firstInOrder(tryPendingAsk, this, ctx, now);
  }

  /** One pending ask's part of `tryAllocate`: a decision, or undefined to go on with the next ask. */
  tryAsk(ctx: AllocationContext, ask: Ask, now: number): Decision | undefined {
    if (this.state === "Reserving" && !ask.placeholder) return undefined;
    let releasePlaceholder: string | undefined;
    if (!ask.placeholder && ask.taskGroup && this.placeholderAllocations > 0) {
      const r = ctx.replacement(this, ask);
      if (r.kind === "replace") return { kind: "replace", app: this, ask, placeholder: r.placeholder, node: ctx.nodeOf(r.nodeID)! };
      if (r.kind === "elsewhere") releasePlaceholder = r.placeholder;
      else if (r.kind === "wait") return undefined;
    }
    const hold = ctx.askHold(this, ask);
    if (hold) return ctx.tryPreemption(this, ask, hold, now);
    const node = ctx.pickNode(ask);
    if (node) {
      const d: Decision = releasePlaceholder
        ? { kind: "allocate", app: this, ask, node, releasePlaceholder }
        : { kind: "allocate", app: this, ask, node };
      return d;
    }
    const preempt = ctx.tryPreemption(this, ask, undefined, now);
    if (preempt) return preempt;
    const reserve = ctx.reservationNode(ask, now);
    return reserve && { kind: "reserve", app: this, ask, node: reserve };
  }
}

/** `Application.tryAllocate`'s walk over one pending ask (a function, not a closure per walk). */
function tryPendingAsk(ask: Ask, _key: Ask, app: Application, ctx: AllocationContext, now: number): Decision | undefined {
  return app.tryAsk(ctx, ask, now);
}
