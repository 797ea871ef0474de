/**
 * The preemption snapshot (snapshot.ts) over the core's live objects: queues, applications' allocated asks and nodes,
 * read lazily so the bounded node search stops without touching every node. Nothing is copied up front; each call
 * reads the current state (the decision runs inside one scheduling step, so the state does not change meanwhile).
 * Upstream counterpart: the queue, application, allocation and node objects preemption.go reads.
 */
import type { Application, Ask } from "../application.js";
import { type Node, allocationId } from "../node.js";
import type { Queue } from "../queue.js";
import type { Res } from "../resources.js";
import type { PreemptionAllocation, PreemptionNode, PreemptionQueue, PreemptionReservation, PreemptionSnapshot } from "./snapshot.js";
import { sortVictims } from "./victims.js";

/** What the adapter reads from the partition (the partition itself). */
export interface CoreSnapshotSource {
  find(path: string): Queue | undefined;
  /** Active applications by id; `version` changes whenever one is added or removed (util/versioned-map.ts). */
  readonly apps: ReadonlyMap<string, Application> & { readonly version: number };
  /**
   * Schedulable nodes in the partition's allocation order. Nodes reserved for an ask that triggered preemption are not
   * in it (node-collection.ts `reindex`): such a reservation is never cancelled for another ask (node-search.ts), so
   * the search could only pass over them.
   */
  nodesInOrder(): Iterable<Node>;
}

/** A live queue as preemption sees it. Root's max is the cluster size (the partition keeps it there). */
export function preemptionQueue(q: Queue): PreemptionQueue {
  return {
    path: q.path,
    parent: q.parent?.path,
    isLeaf: q.isLeaf,
    managed: q.managed,
    guaranteed: q.guaranteed,
    max: q.max,
    allocated: q.allocated,
    preempting: q.preempting,
    preemptionPolicy: q.preemption.preemptionPolicy,
    priorityPolicy: q.preemption.priorityPolicy,
    priorityOffset: q.preemption.priorityOffset,
    preemptionDelayMs: q.preemption.preemptionDelayMs,
    quotaPreemptionDelayMs: q.preemption.quotaPreemptionDelayMs,
  };
}

/**
 * An allocated ask as a possible victim. The view is kept on the ask (`Ask.victimView`) and reused while every field
 * it copies is unchanged, so the node search does not build one per allocation per decision.
 */
export function preemptionAllocation(app: Application, ask: Ask, excluded?: ReadonlySet<string>): PreemptionAllocation {
  const preempted = isPreempted(app.id, ask, excluded);
  const v = ask.victimView;
  if (
    v !== undefined &&
    changingFieldsMatch(v, ask, preempted) &&
    v.queuePath === app.queue.path &&
    v.applicationId === app.id &&
    v.createTime === ask.createTime &&
    v.placeholder === (ask.placeholder === true) &&
    v.requiredNode === (ask.requiredNode !== undefined)
  )
    return v;
  return (ask.victimView = {
    key: ask.key,
    applicationId: app.id,
    queuePath: app.queue.path,
    nodeId: ask.node!,
    priority: ask.priority,
    createTime: ask.createTime,
    resource: ask.resource,
    allowPreemption: ask.allowPreemptSelf !== false,
    originator: ask.originator === true,
    placeholder: ask.placeholder === true,
    requiredNode: ask.requiredNode !== undefined,
    preempted,
  });
}

const NO_RESERVATIONS: readonly PreemptionReservation[] = Object.freeze([]);

/**
 * A node's allocations as the node search last read them, kept on the node (`Node.victimViews`): the asks whose
 * application is registered, with that application, in the node's order, valid while neither the node's allocations
 * (`Node.allocations.version`) nor the partition's applications (`CoreSnapshotSource.apps.version`) changed. Each
 * ask's view is still checked on every read (`keptViewValid`, else `preemptionAllocation`): an allocation's priority,
 * preempted flag and the other fields a view copies change without the node's allocations changing.
 */
export interface NodeVictimViews {
  readonly allocationsVersion: number;
  readonly appsVersion: number;
  readonly asks: readonly Ask[];
  /** `apps[i]`: the application of `asks[i]`. */
  readonly apps: readonly Application[];
  /** The list last handed out, one view per ask, while every ask is on a node; replaced when a view changes. */
  views: readonly PreemptionAllocation[] | undefined;
  /** `views` in victim order (`compareVictims`), made when first asked for; dropped with the list it sorts. */
  ordered?: readonly PreemptionAllocation[];
}

/**
 * `preemptionAllocation` would return `v`, the view of `ask` in the list last handed out for its node: `v` is still the
 * ask's view and the fields of the ask that can change while it is allocated are as `v` copied them. The others need
 * no check: `v` was checked against them with the same application (the node's `NodeVictimViews` is rebuilt, and its
 * list dropped, when the registered applications change), and the ask's key, creation time, required node and
 * placeholder flag are fixed.
 */
function keptViewValid(v: PreemptionAllocation, ask: Ask, excluded: ReadonlySet<string> | undefined): boolean {
  return ask.victimView === v && changingFieldsMatch(v, ask, isPreempted(v.applicationId, ask, excluded));
}

/** An allocation is taken already: chosen as a victim, or its eviction refused for the ask under way (`excluded`). */
function isPreempted(appId: string, ask: Ask, excluded: ReadonlySet<string> | undefined): boolean {
  return ask.preempted === true || (excluded !== undefined && excluded.size > 0 && excluded.has(allocationId(appId, ask.key)));
}

/** The view `v` has the fields of `ask` that can change while it is allocated (and `preempted`). */
function changingFieldsMatch(v: PreemptionAllocation, ask: Ask, preempted: boolean): boolean {
  return (
    v.nodeId === ask.node &&
    v.resource === ask.resource &&
    v.priority === ask.priority &&
    v.preempted === preempted &&
    v.allowPreemption === (ask.allowPreemptSelf !== false) &&
    v.originator === (ask.originator === true)
  );
}

/** The node's `NodeVictimViews`, rebuilt when the node's allocations or the registered applications changed. */
function victimViewsOf(n: Node, apps: CoreSnapshotSource["apps"]): NodeVictimViews {
  const c = n.victimViews;
  if (c !== undefined && c.allocationsVersion === n.allocations.version && c.appsVersion === apps.version) return c;
  const asks: Ask[] = [];
  const owners: Application[] = [];
  for (const ask of n.allocations.values()) {
    const app = apps.get(ask.appId);
    if (!app) continue;
    asks.push(ask);
    owners.push(app);
  }
  return (n.victimViews = { allocationsVersion: n.allocations.version, appsVersion: apps.version, asks, apps: owners, views: undefined });
}

/**
 * A live node as preemption sees it. Its allocations and free resources are read when the search first asks for them:
 * a node the search passes over (reserved for another ask, too small) costs no more than its reservation check.
 */
class LiveNode implements PreemptionNode {
  readonly id: string;
  readonly capacity: Res;
  readonly schedulable: boolean;
  readonly reservations: readonly PreemptionReservation[];
  private allocs?: readonly PreemptionAllocation[];
  private free?: Res;

  constructor(
    private readonly n: Node,
    private readonly src: CoreSnapshotSource,
    private readonly excluded: ReadonlySet<string> | undefined,
  ) {
    this.id = n.id;
    this.capacity = n.capacity;
    this.schedulable = n.schedulable;
    const r = n.reservation;
    const reserving = r ? src.apps.get(r.appId)?.asks.get(r.key) : undefined;
    this.reservations =
      r && reserving
        ? [
            {
              askKey: r.key,
              applicationId: r.appId,
              priority: reserving.priority,
              createTime: reserving.createTime,
              requiredNode: reserving.requiredNode !== undefined,
              triggeredPreemption: reserving.preemption !== undefined,
            },
          ]
        : NO_RESERVATIONS;
  }

  get available(): Res {
    return (this.free ??= this.n.available());
  }

  get allocations(): readonly PreemptionAllocation[] {
    if (!this.allocs) {
      const c = victimViewsOf(this.n, this.src.apps);
      const { asks, apps } = c;
      const last = c.views;
      // the last list as long as every view in it is still the ask's view; else a new one
      let out: PreemptionAllocation[] | undefined = last === undefined ? [] : undefined;
      let i = 0;
      for (let j = 0; j < asks.length; j++) {
        const ask = asks[j]!;
        if (!ask.node) {
          out ??= last!.slice(0, j);
          continue;
        }
        const kept = last?.[j];
        const v = kept !== undefined && keptViewValid(kept, ask, this.excluded) ? kept : preemptionAllocation(apps[j]!, ask, this.excluded);
        if (out === undefined && last![j] !== v) out = last!.slice(0, j);
        if (out !== undefined) out[i] = v;
        i++;
      }
      if (out === undefined) this.allocs = last!;
      else {
        this.allocs = out;
        if (i === asks.length) {
          c.views = out;
          c.ordered = undefined;
        }
      }
    }
    return this.allocs;
  }

  /**
   * The kept list in victim order, sorted once per list (its views never change: a changed view makes a new list);
   * undefined while the node's list is not kept (an ask without a node).
   */
  get allocationsInVictimOrder(): readonly PreemptionAllocation[] | undefined {
    const list = this.allocations;
    const c = this.n.victimViews;
    if (c === undefined || c.views !== list) return undefined;
    if (!c.ordered) {
      const sorted = list.slice();
      sortVictims(sorted);
      c.ordered = sorted;
    }
    return c.ordered;
  }
}

/** `CoreSnapshot.nodes`: the partition's nodes in order as `LiveNode`s, one iterator result reused. */
class LiveNodes implements Iterable<PreemptionNode>, Iterator<PreemptionNode> {
  private readonly result: IteratorResult<PreemptionNode> = { done: false, value: undefined as unknown as PreemptionNode };
  private readonly nodes: Iterator<Node>;

  constructor(
    private readonly src: CoreSnapshotSource,
    private readonly excluded: ReadonlySet<string> | undefined,
  ) {
    this.nodes = src.nodesInOrder()[Symbol.iterator]();
  }

  [Symbol.iterator](): Iterator<PreemptionNode> {
    return this;
  }

  next(): IteratorResult<PreemptionNode> {
    const n = this.nodes.next();
    const r = this.result as { done: boolean; value: PreemptionNode | undefined };
    if (n.done) {
      r.done = true;
      r.value = undefined;
    } else r.value = new LiveNode(n.value, this.src, this.excluded);
    return this.result;
  }
}

/**
 * The snapshot over a partition's live state (nodes as `LiveNode`s, read lazily); `excluded` allocation ids
 * (`appId/key`) are never chosen (victims whose eviction was refused for this ask). A queue's view is built once per
 * snapshot (the decision reads a queue many times, and the state does not change while it runs).
 */
class CoreSnapshot implements PreemptionSnapshot {
  private readonly views = new Map<string, PreemptionQueue>();

  constructor(
    private readonly src: CoreSnapshotSource,
    private readonly excluded: ReadonlySet<string> | undefined,
  ) {}

  private view(q: Queue): PreemptionQueue {
    let v = this.views.get(q.path);
    if (!v) this.views.set(q.path, (v = preemptionQueue(q)));
    return v;
  }

  queue(path: string): PreemptionQueue | undefined {
    const cached = this.views.get(path);
    if (cached) return cached;
    const q = this.src.find(path);
    return q && this.view(q);
  }

  children(path: string): PreemptionQueue[] {
    const out: PreemptionQueue[] = [];
    for (const c of this.src.find(path)?.children.values() ?? []) out.push(this.view(c));
    return out;
  }

  *allocations(leafPath: string): Generator<PreemptionAllocation> {
    const q = this.src.find(leafPath);
    if (!q?.isLeaf) return;
    for (const app of q.apps.values())
      for (const ask of app.asks.values()) if (ask.node) yield preemptionAllocation(app, ask, this.excluded);
  }

  nodes(): Iterable<PreemptionNode> {
    return new LiveNodes(this.src, this.excluded);
  }
}

/** The preemption snapshot over a partition (see `CoreSnapshot`). */
export function coreSnapshot(src: CoreSnapshotSource, excluded?: ReadonlySet<string>): PreemptionSnapshot {
  return new CoreSnapshot(src, excluded);
}
