/**
 * An application and its asks (apache/yunikorn-core pkg/scheduler/objects/application.go, sorted_asks.go;
 * yunikorn-core reference §4.2, §4.5). The application owns its part of the allocation walk: `tryAllocate` goes
 * through its pending asks in order and decides where the first one that can go goes; the partition applies the
 * decision. Life-cycle states come from the event table in application-state.ts.
 */
import { BTree } from "../../util/btree.js";
import { type AppState, type StateLogEntry } from "./application-state.js";
import type { HoldReason } from "./hold-reason.js";
import type { Node } from "./node.js";
import type { Queue, SortKey } from "./queue.js";
import type { Res } from "./resources.js";

/** Order of pending asks in an application: priority descending, then creation time, then key (§4.4). */
export interface AskOrder { negPriority: number; createTime: number; key: string }
const askOrder = (a: AskOrder, b: AskOrder) => a.negPriority - b.negPriority || a.createTime - b.createTime || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

/** A request for one allocation (a pod), pending until a node is chosen. */
export interface Ask {
  readonly key: string;
  readonly appId: string;
  /** Core units; changed in place only through the partition (resize). */
  resource: Res;
  priority: number;
  /** Milliseconds since the epoch. */
  readonly createTime: number;
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
}

/** What the walk needs from the partition: holds, node choice and reservation choice. */
export interface AllocationContext {
  /** Why an Accepted application may not start running now (maxapplications of queues, users, groups). */
  runHold(app: Application): HoldReason | undefined;
  /** Why `ask` may not be allocated now whatever the node: user/group headroom, queue maxima, cluster size. */
  askHold(app: Application, ask: Ask): HoldReason | undefined;
  /** The first node in allocation order that takes `ask` now (reserved nodes excluded). */
  pickNode(ask: Ask): Node | undefined;
  /** A node to reserve for `ask`, which no node takes now; undefined while the reservation delay runs or none fits. */
  reservationNode(ask: Ask, now: number): Node | undefined;
}

/** What one application's walk decided; the partition applies it. */
export type Decision =
  | { readonly kind: "allocate"; readonly app: Application; readonly ask: Ask; readonly node: Node }
  | { readonly kind: "reserve"; readonly app: Application; readonly ask: Ask; readonly node: Node };

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
}

export class Application {
  readonly id: string;
  readonly queue: Queue;
  readonly user: string;
  readonly groups: readonly string[];
  /** Milliseconds since the epoch; lowered to the earliest ask's creation time (upstream). */
  submissionTime: number;
  readonly stateAwareDisabled: boolean;
  readonly tags: Readonly<Record<string, string>>;
  readonly requestedQueue: string;
  readonly asks = new Map<string, Ask>();
  /** Pending (unallocated) asks in scheduling order; kept sorted as asks come and go, never re-sorted. */
  readonly pendingAsks = new BTree<AskOrder, Ask>(undefined, askOrder);
  readonly pending: Res = {};
  readonly allocated: Res = {};
  state: AppState = "New";
  /** Milliseconds since the epoch of the last state change. */
  stateSince: number;
  /** Every state the application was in, oldest first. */
  readonly stateLog: StateLogEntry[];
  /** Why the application was rejected (state Rejected), and the typed placement refusal when placement refused it. */
  rejectedMessage?: string;
  rejection?: HoldReason;
  /** Position in the leaf queue's order and priority index (maintained by the queue). */
  orderKey?: SortKey;
  prioKey?: SortKey;

  constructor(o: ApplicationOptions) {
    this.id = o.id;
    this.queue = o.queue;
    this.user = o.user;
    this.groups = o.groups;
    this.submissionTime = o.submissionTime;
    this.stateAwareDisabled = o.stateAwareDisabled ?? false;
    this.tags = o.tags ?? {};
    this.requestedQueue = o.requestedQueue ?? "";
    this.stateSince = o.submissionTime;
    this.stateLog = [{ time: o.submissionTime, state: "New" }];
  }

  /** Records entering `state` (called by the partition after the event table said so). */
  enter(state: AppState, now: number): void {
    this.state = state;
    this.stateSince = now;
    this.stateLog.push({ time: now, state });
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

  /**
   * This application's part of the walk (upstream `Application.tryAllocate`, reference §4.5): pending asks in order,
   * skipping reserved ones (the partition serves those first) and asks held by a limit or a queue max; the first ask a
   * node takes is allocated there; an ask no node takes may reserve one after the reservation delay.
   */
  tryAllocate(ctx: AllocationContext, now: number): Decision | undefined {
    for (const ask of this.pendingAsks.values()) {
      if (ask.reservedNode) continue;
      if (ctx.askHold(this, ask)) continue;
      const node = ctx.pickNode(ask);
      if (node) return { kind: "allocate", app: this, ask, node };
      const reserve = ctx.reservationNode(ask, now);
      if (reserve) return { kind: "reserve", app: this, ask, node: reserve };
    }
    return undefined;
  }
}
