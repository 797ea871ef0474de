/**
 * A queue of the hierarchy (apache/yunikorn-core pkg/scheduler/objects/queue.go, sorters.go; yunikorn-core reference
 * §4.3, §4.4). A queue owns its part of the allocation walk: a parent walks its children, a leaf its applications,
 * each in allocation order. The queue is that order and each member is its own key there (`OrderMember`,
 * order-member.ts), updated when a member's pending, usage or priority changes
 * (`update`): one allocation re-keys O(depth) members at O(log n) each instead of sorting every member, and reads no
 * object besides the queues and applications it re-keys.
 *
 * Orders (ties always broken by name / application id, so the same inputs give the same schedule):
 * - children: priority enabled on this queue ⇒ (higher pending priority, lower fair share, more pending);
 *   disabled ⇒ (lower fair share, higher priority, more pending). Fair share: `dominantShare` of allocated over
 *   guaranteed, else the fair max. "More pending" compares the sum of pending quantities (a queue pending more of
 *   every type sorts first, as upstream's `pending − other.pending > 0`).
 * - applications, `fifo`: priority enabled ⇒ (higher priority, earlier submission); disabled ⇒ (earlier submission,
 *   higher priority). `fair`: priority enabled ⇒ (higher priority, lower usage shares, earlier submission); disabled
 *   ⇒ (lower usage shares, higher priority, earlier submission). Usage shares as upstream's CompUsageRatio against the
 *   leaf's guaranteed (sorters.go sortApplications, resources.go GetShares / compareShares): per type allocated ÷
 *   guaranteed, or the quantity itself where the leaf guarantees none of that type (no guarantee: raw quantities);
 *   compared largest first, then the next largest… (resources.ts `usageShares`: the two largest).
 */
import type { AllocationContext, Application, Decision } from "./application.js";
import { SCHEDULABLE_STATES } from "./application-state.js";
import { touched } from "./lookahead.js";
import { OrderMember, memberOrder } from "./order-member.js";
import { priorityValueByPolicy } from "./preemption/priority.js";
import { DEFAULT_PREEMPTION_DELAY_MS, DEFAULT_QUOTA_PREEMPTION_DELAY_MS, type QueuePreemptionProperties } from "./queue-properties.js";
import { type Res, addTo, dominantShare, subFrom, total, usageShares } from "./resources.js";
import type { UsageRecord } from "./ugm/tracker.js";

/** A user an ACL may name (upstream acl.go userNameRegExp: no `:`, unlike a limit's user). */
const ACL_USER = /^[_a-zA-Z][a-zA-Z0-9_.@-]*[$]?$/;
/** A group an ACL may name (upstream acl.go groupRegExp). */
const ACL_GROUP = /^[_a-zA-Z][a-zA-Z0-9_-]*$/;

/**
 * An ACL (apache/yunikorn-core pkg/common/security/acl.go NewACL; §2.4): comma-separated users, one space,
 * comma-separated groups. `*` alone, or as the whole user or group list (`* admins`, `alice *`), admits everyone. An
 * entry that is not a valid ACL name (a user or group with `:`, as Kubernetes service accounts have; a group with `.`)
 * is ignored, as upstream ignores it.
 * @throws Error `multiple spaces found in ACL: '<acl>'` when splitting on single spaces gives more than two fields
 *   (upstream refuses the queue, so the configuration is not applied; validate-conf, which trims first, accepts it)
 */
export class Acl {
  readonly all: boolean;
  readonly users: ReadonlySet<string>;
  readonly groups: ReadonlySet<string>;
  constructor(text: string | undefined) {
    const raw = text ?? "";
    const fields = raw === "" ? [] : raw.split(" ");
    if (fields.length > 2) throw new Error(`multiple spaces found in ACL: '${raw}'`);
    const userList = (fields[0] ?? "").split(",");
    const groupList = fields.length === 2 ? fields[1]!.split(",") : [];
    const wildcard = (list: string[]) => list.length === 1 && list[0] === "*";
    this.all = raw.trim() === "*" || wildcard(userList) || wildcard(groupList);
    this.users = new Set(this.all ? [] : userList.filter((u) => ACL_USER.test(u)));
    this.groups = new Set(this.all ? [] : groupList.filter((g) => ACL_GROUP.test(g)));
  }
  allows(user: string, groups: readonly string[]): boolean {
    if (this.all || this.users.has(user)) return true;
    for (const g of groups) if (this.groups.has(g)) return true;
    return false;
  }
}

/** The ACL of a queue configured without one, and of every dynamic queue: nobody (shared; ACLs are never changed). */
const NO_ACL = new Acl("");

/** The children of a queue that never had any (shared, never written: `addChild` makes a queue its own map). */
const NO_CHILDREN: ReadonlyMap<string, Queue> = new Map();

/** Properties of a queue without any (shared; a queue's properties are replaced, never changed in place). */
const NO_PROPERTIES: Readonly<Record<string, string>> = Object.freeze({});

/** A member of a queue's order: a child queue or an application. */
type Member = Queue | Application;

/** A member's key as computed: `childKey`/`appKey` fill this one object, compared with the member's and copied into it. */
interface OrderKey {
  k0: number;
  k1: number;
  k2: number;
  k3: number;
}
const ORDER_SCRATCH: OrderKey = { k0: 0, k1: 0, k2: 0, k3: 0 };
/**
 * The order key (k0…k3) in the reused scratch key. Callers negate as `0 - x`, never `-x`: `-0` is not a small integer
 * in V8, and a heap number in a key field would change the field's representation for every member.
 */
function orderKeyOf(k0: number, k1 = 0, k2 = 0, k3 = 0): OrderKey {
  ORDER_SCRATCH.k0 = k0;
  ORDER_SCRATCH.k1 = k1;
  ORDER_SCRATCH.k2 = k2;
  ORDER_SCRATCH.k3 = k3;
  return ORDER_SCRATCH;
}
function hasKey(m: Member, key: OrderKey): boolean {
  return m.k0 === key.k0 && m.k1 === key.k1 && m.k2 === key.k2 && m.k3 === key.k3;
}

function setKey(m: Member, key: OrderKey): void {
  m.k0 = key.k0;
  m.k1 = key.k1;
  m.k2 = key.k2;
  m.k3 = key.k3;
}

/** A queue's `application.sort.policy`: `fifo` (default: submission order) or `fair` (applications with less usage first). */
export type SortPolicy = "fifo" | "fair";

/** childtemplate: applied to dynamic leaf children created by placement (§2.1, §2.3). */
export interface QueueTemplate {
  guaranteed?: Res;
  max?: Res;
  maxApps: number;
  sortPolicy: SortPolicy;
  sortPriority: boolean;
  /** The template's properties (entries with an empty key or value left out, as upstream); a dynamic leaf's own. */
  properties: Readonly<Record<string, string>>;
}

/** Constructor input of {@link Queue}. */
export interface QueueOptions {
  name: string;
  parent?: Queue;
  leaf: boolean;
  /** Configured (true) or created by placement (false). */
  managed: boolean;
  guaranteed?: Res;
  max?: Res;
  /** maxapplications; 0: unlimited. */
  maxApps?: number;
  sortPolicy?: SortPolicy;
  sortPriority?: boolean;
  submitAcl?: Acl;
  adminAcl?: Acl;
  template?: QueueTemplate;
}

/**
 * A queue of a partition (apache/yunikorn-core pkg/scheduler/objects/queue.go): configuration, ACLs, limits, usage and
 * the ordered applications (leaf) or children (parent). Resources in core units.
 */
export class Queue extends OrderMember<Member, Member> {
  // Fields the walk and the re-keying read on every allocation come first (after the inherited order and key): declared
  // together, they share a few cache lines; on a queue last touched a thousand allocations ago each line is a miss.
  readonly parent: Queue | undefined;
  isLeaf: boolean;
  /** Allocated and pending resources of everything below (apps of this leaf, or children). */
  readonly allocated: Res = {};
  readonly pending: Res = {};
  /** Applications below in a running state (Starting, Running). */
  runningApps = 0;
  /**
   * Applications below not yet running that already have an allocation (a gang placing its placeholders): they count as
   * running for `maxapplications` (upstream allocatingAcceptedApps; `AppLifecycle.allocating`).
   */
  allocatingApps = 0;
  /** The fair max (reference §4.3), refreshed by the partition when capacities or the configuration change. */
  fairMax: Res | undefined;
  /**
   * The pending priorities of the members in `order`, for this queue's own `priority`: the highest and how many members
   * have it, the others (priority → members) in a map made at the first member at a lower one. Kept in plain fields so
   * reading a queue's priority (its parent re-keys it on every allocation below) reads no member's key.
   */
  private topPriority = 0;
  private topCount = 0;
  private lowerPriorities?: Map<number, number>;
  /** `priority.offset`, and `priority.policy` is `fence` (from `preemption`; read with the priority on every re-key). */
  private priorityOffset = 0;
  private priorityFence = false;
  /** Kept by the user/group tracker (ugm/tracker.ts `TrackedQueue`): the usage records looked up on this queue last. */
  ugmUser?: UsageRecord = undefined;
  ugmGroup?: UsageRecord = undefined;
  readonly name: string;
  /** Full dotted name (`root.a.b`); fixed, as a queue never moves. */
  readonly path: string;
  /** Configured; a dynamic queue becomes managed when a configuration names it (upstream queue.go applyConf). */
  managed: boolean;
  guaranteed: Res | undefined;
  max: Res | undefined;
  maxApps: number;
  sortPolicy: SortPolicy;
  sortPriority: boolean;
  submitAcl: Acl;
  adminAcl: Acl;
  template?: QueueTemplate;
  /**
   * The queue's properties in force (upstream `Queue.properties`): a configured queue's own over its parent's
   * (inheritQueueProperties), a dynamic leaf's from its parent's child template, else none.
   */
  properties: Readonly<Record<string, string>> = NO_PROPERTIES;
  draining = false;
  /**
   * Dynamic leaves only: the namespace whose tags (`namespace.resourcequota`, …) set this queue's limits
   * (namespace-tags.ts); undefined until an application with namespace tags is added.
   */
  namespaceTagsFrom?: string;
  /** Child queues by name (a leaf's, or a parent's before its first child: one shared empty map). */
  get children(): ReadonlyMap<string, Queue> {
    return this.childMap ?? NO_CHILDREN;
  }
  private childMap?: Map<string, Queue>;
  readonly apps = new Map<string, Application>();
  /** Usage of allocations below chosen as preemption victims and not yet released (part of `allocated`). */
  readonly preempting: Res = {};
  /**
   * Since the queue was made (counts.ts; they go with the queue, as upstream unregisters its queue metrics with it):
   * allocations made on this leaf and released from it (`yunikorn_<queue>_queue_container{state}`), and its
   * applications that reached Completed or Failed, or were rejected after placement chose it
   * (`yunikorn_queue_app{state}`).
   */
  readonly counts = { allocated: 0, released: 0, completed: 0, failed: 0, rejected: 0 };
  /**
   * `preemption.policy`, `preemption.delay`, `priority.policy`, `priority.offset`, `quota.preemption.delay` after
   * inheritance and defaults (queue-properties.ts); a dynamic queue has the defaults. Replaced whole, never changed in
   * place: the queue keeps the priority ones in plain fields for `priority`.
   */
  get preemption(): QueuePreemptionProperties {
    return this.preemptionProperties;
  }
  set preemption(p: QueuePreemptionProperties) {
    this.preemptionProperties = p;
    this.priorityOffset = p.priorityOffset;
    this.priorityFence = p.priorityPolicy === "fence";
  }
  private preemptionProperties: QueuePreemptionProperties = {
    preemptionPolicy: "default",
    preemptionDelayMs: DEFAULT_PREEMPTION_DELAY_MS,
    priorityPolicy: "default",
    priorityOffset: 0,
    quotaPreemptionDelayMs: DEFAULT_QUOTA_PREEMPTION_DELAY_MS,
  };
  /**
   * Members (children or applications) with schedulable pending asks, in allocation order: the queue itself (an
   * OrderMember, order-member.ts), so the walk reads no second object per queue.
   */
  private get order(): this {
    return this;
  }

  constructor(o: QueueOptions) {
    super(memberOrder);
    this.name = o.name;
    this.parent = o.parent;
    this.path = o.parent ? `${o.parent.path}.${o.name}` : o.name;
    this.isLeaf = o.leaf;
    this.managed = o.managed;
    this.guaranteed = o.guaranteed;
    this.max = o.max;
    this.maxApps = o.maxApps ?? 0;
    this.sortPolicy = o.sortPolicy ?? "fifo";
    this.sortPriority = o.sortPriority ?? true;
    this.submitAcl = o.submitAcl ?? NO_ACL;
    this.adminAcl = o.adminAcl ?? NO_ACL;
    this.template = o.template;
  }

  /** The name it is ordered by among its siblings. */
  get orderName(): string {
    return this.name;
  }

  /**
   * The queue's priority as its parent orders it (upstream getCurrentPriority): the highest pending priority of the
   * schedulable applications (leaf) or children (parent) below, with `priority.offset` added (clamped to int32), or
   * only the offset under `priority.policy: fence` (priorityValueByPolicy); −∞ when nothing below is pending.
   */
  get priority(): number {
    if (this.topCount === 0) return Number.NEGATIVE_INFINITY;
    if (!this.priorityFence && this.priorityOffset === 0) return this.topPriority;
    return priorityValueByPolicy(this.priorityFence ? "fence" : "default", this.priorityOffset, this.topPriority);
  }

  /** True when some application below has schedulable pending asks. */
  hasWork(): boolean {
    return this.order.size > 0;
  }

  /** Adds to pending/allocated here and on every ancestor. */
  incPending(r: Res): void {
    for (let q: Queue | undefined = this; q; q = q.parent) addTo(q.pending, r);
  }
  decPending(r: Res): void {
    for (let q: Queue | undefined = this; q; q = q.parent) subFrom(q.pending, r);
  }
  incAllocated(r: Res): void {
    for (let q: Queue | undefined = this; q; q = q.parent) addTo(q.allocated, r);
  }
  decAllocated(r: Res): void {
    for (let q: Queue | undefined = this; q; q = q.parent) subFrom(q.allocated, r);
  }
  incPreempting(r: Res): void {
    for (let q: Queue | undefined = this; q; q = q.parent) addTo(q.preempting, r);
  }
  decPreempting(r: Res): void {
    for (let q: Queue | undefined = this; q; q = q.parent) subFrom(q.preempting, r);
  }

  /** Submit access: submit or admin ACL of this queue or any ancestor (§2.4). */
  canSubmit(user: string, groups: readonly string[]): boolean {
    for (let q: Queue | undefined = this; q; q = q.parent) {
      if (q.submitAcl.allows(user, groups) || q.adminAcl.allows(user, groups)) return true;
    }
    return false;
  }

  /** The nearest queue with a guarantee on the path from this queue up to root (this one first), or undefined. */
  nearestGuaranteed(): Queue | undefined {
    for (let q: Queue | undefined = this; q; q = q.parent) if (q.guaranteed) return q;
    return undefined;
  }

  /** Path from root to this queue. */
  ancestry(): Queue[] {
    const out: Queue[] = [];
    for (let q: Queue | undefined = this; q; q = q.parent) out.push(q);
    return out.reverse();
  }

  // ---------------------------------------------------------------- order

  /**
   * Re-keys `app` in this leaf (after its pending, usage, priority or state changed) and this queue up to root.
   * O(depth · log n).
   */
  update(app: Application): void {
    // an application of a leaf the configuration made a parent is never ordered: the walk below a parent reads queues
    const eligible = this.isLeaf && app.hasSchedulable() && SCHEDULABLE_STATES.has(app.state) && app.inQueue;
    if (eligible) {
      const p = app.maxPendingPriority();
      this.position(app, this.appKey(app, p), p);
    } else this.position(app, undefined, undefined);
    this.propagate();
  }

  /** Re-keys this queue in its ancestors' orders. */
  propagate(): void {
    for (let q: Queue = this; q.parent; q = q.parent) {
      const p = q.parent;
      const has = q.hasWork();
      p.position(q, has ? p.childKey(q) : undefined, has ? q.priority : undefined);
    }
  }

  /** Adds a child queue under `name`. */
  addChild(name: string, child: Queue): void {
    (this.childMap ??= new Map()).set(name, child);
  }

  /** Removes the child queue `name`. */
  removeChild(name: string): void {
    this.childMap?.delete(name);
  }

  /** Adds `app` to this leaf's applications (an instance of the same id already here leaves it). */
  addApp(app: Application): void {
    const before = this.apps.get(app.id);
    if (before && before !== app) before.inQueue = false;
    this.apps.set(app.id, app);
    app.inQueue = true;
  }

  /** Takes `app` out of this leaf's applications and order (it left the queue); another instance of its id stays. */
  removeApp(app: Application): void {
    if (!app.inQueue) return;
    this.apps.delete(app.id);
    app.inQueue = false;
    this.position(app, undefined, undefined);
    this.propagate();
  }

  /** Drops every order entry (before a rebuild). */
  clearOrder(): void {
    this.order.clear();
    this.topPriority = 0;
    this.topCount = 0;
    this.lowerPriorities = undefined;
    this.queuedPriority = undefined;
    for (const a of this.apps.values()) a.queuedPriority = undefined;
  }

  /**
   * Places this leaf's applications, or this parent's children, in order again (after `clearOrder`, or to re-key after
   * fair maxima changed; bottom-up). Members whose key did not change stay where they are.
   */
  rebuildOrder(): void {
    if (this.isLeaf) {
      for (const a of this.apps.values()) {
        const eligible = a.hasSchedulable() && SCHEDULABLE_STATES.has(a.state);
        const p = eligible ? a.maxPendingPriority() : undefined;
        this.position(a, p === undefined ? undefined : this.appKey(a, p), p);
      }
    } else {
      for (const c of this.children.values()) {
        const has = c.hasWork();
        this.position(c, has ? this.childKey(c) : undefined, has ? c.priority : undefined);
      }
    }
  }

  /**
   * Moves a member to `key` with its pending `priority`, both given or both undefined (out of the order); a key that did
   * not change is left alone. A member is in the order exactly while its `queuedPriority` is set.
   */
  private position(m: Member, key: OrderKey | undefined, priority: number | undefined): void {
    const queued = m.queuedPriority !== undefined;
    if (!key) {
      if (queued) this.order.delete(m);
    } else if (!queued) {
      setKey(m, key);
      this.order.set(m, m);
    } else if (!hasKey(m, key)) {
      // the only member has no neighbour to stay ordered against: re-keyed in place
      const only = this.order.size === 1;
      if (!only) this.order.delete(m);
      setKey(m, key);
      if (!only) this.order.set(m, m);
    }
    if (m.queuedPriority === priority) return;
    if (m.queuedPriority !== undefined) this.uncountPriority(m.queuedPriority);
    if (priority !== undefined) this.countPriority(priority);
    m.queuedPriority = priority;
  }

  /** One more member at pending priority `p` (see `topPriority`). */
  private countPriority(p: number): void {
    if (this.topCount === 0) {
      this.topPriority = p;
      this.topCount = 1;
    } else if (p === this.topPriority) this.topCount++;
    else {
      const lower = (this.lowerPriorities ??= new Map());
      if (p > this.topPriority) {
        lower.set(this.topPriority, this.topCount);
        this.topPriority = p;
        this.topCount = 1;
      } else lower.set(p, (lower.get(p) ?? 0) + 1);
    }
  }

  /** One member fewer at pending priority `p`; the next lower priority becomes the highest when `p`'s last one goes. */
  private uncountPriority(p: number): void {
    const lower = this.lowerPriorities;
    if (p !== this.topPriority) {
      const n = lower!.get(p)! - 1;
      if (n > 0) lower!.set(p, n);
      else lower!.delete(p);
      return;
    }
    if (--this.topCount > 0) return;
    if (!lower || lower.size === 0) return;
    let top = Number.NEGATIVE_INFINITY;
    for (const q of lower.keys()) if (q > top) top = q;
    this.topPriority = top;
    this.topCount = lower.get(top)!;
    lower.delete(top);
  }

  private childKey(c: Queue): OrderKey {
    const share = dominantShare(c.allocated, c.guaranteed, c.fairMax);
    const p = c.priority;
    const pend = 0 - total(c.pending);
    return this.sortPriority ? orderKeyOf(0 - p, share, pend) : orderKeyOf(share, 0 - p, pend);
  }

  /** `a`'s key in this leaf's order; `p` its pending priority (`maxPendingPriority`). */
  private appKey(a: Application, p: number): OrderKey {
    if (this.sortPolicy === "fair") {
      const s = usageShares(a.allocated, this.guaranteed);
      return this.sortPriority ? orderKeyOf(0 - p, s.s0, s.s1, a.submissionTime) : orderKeyOf(s.s0, s.s1, 0 - p, a.submissionTime);
    }
    return this.sortPriority ? orderKeyOf(0 - p, a.submissionTime) : orderKeyOf(a.submissionTime, 0 - p);
  }

  // ---------------------------------------------------------------- lookahead (lookahead.ts)

  /** How many members (children or applications) are in the walk's order. */
  get orderLength(): number {
    return this.order.size;
  }

  /** The member `i` places from the front of the walk's order when it is in the order's first chunk, else undefined. */
  memberAt(i: number): Member | undefined {
    return this.order.valueAt(i);
  }

  /**
   * Reads a field on each cache line of this queue (lookahead.ts): with the fields in declaration order (the sorted
   * store's, the order key's, then this class's), one in every eight words of the object, the header included.
   * @returns a count no decision reads (`touched`)
   */
  touchLines(): number {
    return (
      touched(this.chunked) +
      touched(this.order.size) +
      touched(this.parent) +
      touched(this.topPriority) +
      touched(this.name) +
      touched(this.sortPriority) +
      touched(this.childMap) +
      touched(this.preemptionProperties)
    );
  }

  /** Reads the objects a walk into this queue reads besides the queue itself: resources, usage record, order array. */
  touchParts(): number {
    return touched(this.allocated.memory) + touched(this.pending.memory) + touched(this.ugmUser?.running) + touched(this.memberAt(0));
  }

  /** Reads the resources of the user's usage record on this queue. */
  touchUsage(): number {
    return touched(this.ugmUser?.res.memory);
  }

  // ---------------------------------------------------------------- walk

  /**
   * This queue's part of the walk (upstream `Queue.TryAllocate`): members in order, the first decision wins. An
   * application in Accepted that may not start running (maxapplications, user/group limits) is skipped.
   */
  tryAllocate(ctx: AllocationContext, now: number): Decision | undefined {
    return this.order.firstInOrder(this.isLeaf ? tryApplication : tryChild, ctx, now);
  }
}

/** A parent's walk over one child (`Queue.tryAllocate`; a function, not a closure per walk). */
function tryChild(m: Member, _key: Member, ctx: AllocationContext, now: number): Decision | undefined {
  return (m as Queue).tryAllocate(ctx, now);
}

/**
 * A leaf's walk over one application (`Queue.tryAllocate`): one in Accepted or Reserving that may not start running
 * (maxapplications, user/group limits) is skipped.
 */
function tryApplication(m: Member, _key: Member, ctx: AllocationContext, now: number): Decision | undefined {
  const app = m as Application;
  if ((app.state === "Accepted" || app.state === "Reserving") && ctx.runHold(app)) return undefined;
  return app.tryAllocate(ctx, now);
}
