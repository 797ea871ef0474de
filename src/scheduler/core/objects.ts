/**
 * Objects of the scheduling core: queues, applications, asks and nodes (apache/yunikorn-core pkg/scheduler/objects;
 * yunikorn-core reference §4.2-4.4). Plain data plus the bookkeeping that keeps usage totals consistent; policy
 * (ordering, limits, placement) lives in partition.ts.
 */
import { BTree } from "../../util/btree.js";
import { type Res, addTo, subFrom } from "./resources.js";

/** Order of pending asks in an application: priority descending, then creation time, then key (§4.4). */
export interface AskOrder { negPriority: number; createTime: number; key: string }
const askOrder = (a: AskOrder, b: AskOrder) => a.negPriority - b.negPriority || a.createTime - b.createTime || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

/** Order of nodes: score ascending (fair: least used; binpacking: most used), then id. */
export interface NodeOrder { score: number; id: string }
export const nodeOrder = (a: NodeOrder, b: NodeOrder) => a.score - b.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Application states (§4.2; `Starting` is the pre-1.6 state kept for design 000's disableStateAware). */
export type AppState = "New" | "Accepted" | "Starting" | "Running" | "Completing" | "Completed" | "Failing" | "Failed" | "Rejected" | "Expired";

/** An ACL: `"*"` everyone, else comma-separated users, one space, comma-separated groups (§2.4). */
export class Acl {
  readonly all: boolean;
  readonly users: ReadonlySet<string>;
  readonly groups: ReadonlySet<string>;
  constructor(text: string | undefined) {
    const t = (text ?? "").trim();
    this.all = t === "*";
    const raw = text ?? "";
    const sp = raw.indexOf(" ");
    const u = sp < 0 ? raw : raw.slice(0, sp);
    const g = sp < 0 ? "" : raw.slice(sp + 1).trim();
    this.users = new Set(this.all ? [] : u.split(",").filter(Boolean));
    this.groups = new Set(this.all ? [] : g.split(",").filter(Boolean));
  }
  allows(user: string, groups: readonly string[]): boolean {
    if (this.all || this.users.has(user)) return true;
    for (const g of groups) if (this.groups.has(g)) return true;
    return false;
  }
}

export class Queue {
  readonly children = new Map<string, Queue>();
  readonly apps = new Map<string, Application>();
  /** Allocated and pending resources of everything below (apps of this leaf, or children). */
  readonly allocated: Res = {};
  readonly pending: Res = {};
  runningApps = 0;
  draining = false;
  /** childtemplate: applied to dynamic leaf children created by placement (§2.1, §2.3). */
  template?: { guaranteed?: Res; max?: Res; maxApps: number; sortPolicy: "fifo" | "fair"; sortPriority: boolean };

  constructor(
    readonly name: string,
    readonly parent: Queue | undefined,
    public isLeaf: boolean,
    public guaranteed: Res | undefined,
    public max: Res | undefined,
    public maxApps: number,
    public sortPolicy: "fifo" | "fair",
    public sortPriority: boolean,
    public submitAcl: Acl,
    public adminAcl: Acl,
    readonly managed: boolean,
  ) {
    this.path = parent ? `${parent.path}.${name}` : name;
  }

  /** Full dotted name (`root.a.b`); fixed, as a queue never moves. */
  readonly path: string;


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

  /** Submit access: submit or admin ACL of this queue or any ancestor (§2.4). */
  canSubmit(user: string, groups: readonly string[]): boolean {
    for (let q: Queue | undefined = this; q; q = q.parent) {
      if (q.submitAcl.allows(user, groups) || q.adminAcl.allows(user, groups)) return true;
    }
    return false;
  }
}

/** A request for one allocation (a pod), pending until a node is chosen. */
export interface Ask {
  readonly key: string;
  readonly appId: string;
  resource: Res;
  readonly priority: number;
  /** Milliseconds since the epoch. */
  readonly createTime: number;
  readonly requiredNode?: string;
  /** The resource manager's node check (YuniKorn's Predicates callback); undefined: any node with room. */
  readonly predicate?: (nodeId: string) => boolean;
  /** Node the ask was allocated on, when allocated. */
  node?: string;
}

export class Application {
  readonly asks = new Map<string, Ask>();
  /** Pending (unallocated) asks in scheduling order; kept sorted as asks come and go, never re-sorted. */
  readonly pendingAsks = new BTree<AskOrder, Ask>(undefined, askOrder);
  readonly pending: Res = {};
  readonly allocated: Res = {};
  state: AppState = "New";
  stateSince: number;

  constructor(
    readonly id: string,
    readonly queue: Queue,
    readonly user: string,
    readonly groups: readonly string[],
    /** Milliseconds since the epoch. */
    public submissionTime: number,
    readonly stateAwareDisabled: boolean,
    readonly tags: Readonly<Record<string, string>>,
  ) {
    this.stateSince = submissionTime;
  }

  /** Highest priority among pending asks (−∞ when none). */
  maxPendingPriority(): number {
    const first = this.pendingAsks.minKey();
    return first ? -first.negPriority : Number.NEGATIVE_INFINITY;
  }

  hasPending(): boolean {
    return this.pendingAsks.size > 0;
  }

  addPending(ask: Ask): void {
    this.pendingAsks.set({ negPriority: -ask.priority, createTime: ask.createTime, key: ask.key }, ask);
  }

  deletePending(ask: Ask): void {
    this.pendingAsks.delete({ negPriority: -ask.priority, createTime: ask.createTime, key: ask.key });
  }
}

export class Node {
  readonly allocated: Res = {};
  /** Resources used by pods the core does not manage (other schedulers, static pods). */
  occupied: Res = {};
  readonly allocations = new Set<string>();
  /** Key in the partition's node index (undefined while unschedulable). */
  sortKey?: NodeOrder;
  constructor(readonly id: string, public capacity: Res, public schedulable: boolean, public attributes: Readonly<Record<string, string>>) {}

  /** Free resources: capacity − allocated − occupied. */
  available(): Res {
    const r: Res = { ...this.capacity };
    for (const k in this.allocated) r[k] = (r[k] ?? 0) - this.allocated[k]!;
    for (const k in this.occupied) r[k] = (r[k] ?? 0) - this.occupied[k]!;
    return r;
  }

  /** True when `r` fits in what is free now. */
  fits(r: Res): boolean {
    for (const k in r) {
      const free = (this.capacity[k] ?? 0) - (this.allocated[k] ?? 0) - (this.occupied[k] ?? 0);
      if (r[k]! > Math.max(0, free)) return false;
    }
    return true;
  }

  /** Weighted usage share in [0, 1] (§4.4): Σ w·(1 − free/total) / Σ w over types the node has. */
  usage(weights: Readonly<Record<string, number>>): number {
    let num = 0, den = 0;
    for (const k in this.capacity) {
      const total = this.capacity[k]!;
      const w = weights[k] ?? 0;
      if (total <= 0 || w === 0) continue;
      const free = total - (this.allocated[k] ?? 0) - (this.occupied[k] ?? 0);
      num += w * (1 - free / total);
      den += w;
    }
    return den === 0 ? 0 : num / den;
  }
}
