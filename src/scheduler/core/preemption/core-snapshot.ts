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

/** What the adapter reads from the partition (the partition itself). */
export interface CoreSnapshotSource {
  find(path: string): Queue | undefined;
  readonly apps: ReadonlyMap<string, Application>;
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
  const preempted = ask.preempted === true || (excluded !== undefined && excluded.size > 0 && excluded.has(allocationId(app.id, ask.key)));
  const v = ask.victimView;
  if (
    v !== undefined &&
    v.nodeId === ask.node &&
    v.resource === ask.resource &&
    v.priority === ask.priority &&
    v.preempted === preempted &&
    v.queuePath === app.queue.path &&
    v.applicationId === app.id &&
    v.createTime === ask.createTime &&
    v.allowPreemption === (ask.allowPreemptSelf !== false) &&
    v.originator === (ask.originator === true) &&
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
 * A live node as preemption sees it. Its allocations and free resources are read when the search first asks for them:
 * a node the search passes over (reserved for another ask, too small) costs no more than its reservation check.
 */
class LiveNode implements PreemptionNode {
  readonly id: string;
  readonly capacity: Res;
  readonly schedulable: boolean;
  readonly reservations: readonly PreemptionReservation[];
  private allocs?: PreemptionAllocation[];
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
      this.allocs = [];
      for (const ask of this.n.allocations.values()) {
        const app = this.src.apps.get(ask.appId);
        if (app && ask.node) this.allocs.push(preemptionAllocation(app, ask, this.excluded));
      }
    }
    return this.allocs;
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

  *nodes(): Generator<PreemptionNode> {
    for (const n of this.src.nodesInOrder()) yield new LiveNode(n, this.src, this.excluded);
  }
}

/** The preemption snapshot over a partition (see `CoreSnapshot`). */
export function coreSnapshot(src: CoreSnapshotSource, excluded?: ReadonlySet<string>): PreemptionSnapshot {
  return new CoreSnapshot(src, excluded);
}
