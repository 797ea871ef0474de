/**
 * Node reservations (apache/yunikorn-core pkg/scheduler/objects/reservation.go; yunikorn-core reference §4.6): an ask
 * that no node takes now, but that fits some node's total capacity, holds one node once it is older than the
 * reservation delay; the node takes no other ask until the reservation ends (the ask placed, there or elsewhere,
 * removed or changed, or the node removed or made unschedulable). One normal reservation per node. The partition
 * keeps the book here and tries reservations first in each step.
 */
import type { Ask } from "./application.js";
import { type Node, allocationId } from "./node.js";
import type { Res } from "./resources.js";

/** A reservation made or ended: the node, the ask's key, and the ask's resource when known (core units). */
export interface ReservationChange {
  nodeId: string;
  key: string;
  reserved: boolean;
  resource: Res | undefined;
}

/** One ask holding one node (module comment). */
export interface Reservation {
  readonly appId: string;
  readonly key: string;
  readonly nodeId: string;
  /** Milliseconds since the epoch. */
  readonly since: number;
  /** `Reservations.epoch` at the last attempt: a reservation is tried again only once room may have appeared. */
  tried: number;
}

/** What the partition keeps in step with reservations. */
export interface ReservationHooks {
  /** The node's reservation was set or cleared (the node order leaves out nodes reserved for preemption). */
  readonly nodeChanged?: (node: Node) => void;
  /** The ask's `reservedNode` was set or cleared (its application keeps reserved asks out of the walk). */
  readonly askChanged?: (ask: Ask) => void;
}

/** A partition's node reservations, keyed by ask (module comment). */
export class Reservations {
  private readonly byAsk = new Map<string, Reservation>();
  /** Reservations made and ended since the last `drainChanges`, in order (the NODE_RESERVATION records). */
  private changes: ReservationChange[] = [];
  /** Bumped whenever room may have appeared (a release, a node change, a configuration change). */
  epoch = 0;
  /** The epoch at which every reservation was last tried without a result (the partition's reserved pass). */
  allTried = -1;

  /**
   * @param delayMs how old an ask must be before it reserves a node
   * @param hooks told after a reservation was made or ended
   */
  constructor(
    private readonly delayMs: number,
    private readonly hooks: ReservationHooks = {},
  ) {}

  get size(): number {
    return this.byAsk.size;
  }

  /** Reservations in the order made. */
  values(): IterableIterator<Reservation> {
    return this.byAsk.values();
  }

  /**
   * The node `ask` should reserve: once the ask is older than the delay, among `nodes` (schedulable, in allocation
   * order) those unreserved whose total capacity fits it and that pass its predicate, the one with the lowest fit
   * score (`Node.fitScore`), the first in order on ties. Asks with a required node do not reserve.
   */
  choose(ask: Ask, nodes: Iterable<Node>, now: number): Node | undefined {
    if (ask.requiredNode || now - ask.createTime < this.delayMs) return undefined;
    let best: Node | undefined,
      bestScore = Number.POSITIVE_INFINITY;
    for (const n of nodes) {
      if (n.reservation || !n.fitsCapacity(ask.resource) || (ask.predicate && !ask.predicate(n.id))) continue;
      const s = n.fitScore(ask.resource);
      if (s < bestScore) {
        best = n;
        bestScore = s;
      }
    }
    return best;
  }

  /** The reservations made (`reserved`) and ended since the last call, oldest first; every path is recorded. */
  drainChanges(): ReservationChange[] {
    const c = this.changes;
    this.changes = [];
    return c;
  }

  /** `ask` holds `node`; `preemption`: the ask triggered preemption and waits there for its victims. */
  reserve(ask: Ask, node: Node, now: number, preemption = false): void {
    this.changes.push({ nodeId: node.id, key: ask.key, reserved: true, resource: { ...ask.resource } });
    ask.reservedNode = node.id;
    node.reservation = preemption
      ? { appId: ask.appId, key: ask.key, since: now, preemption }
      : { appId: ask.appId, key: ask.key, since: now };
    this.byAsk.set(allocationId(ask.appId, ask.key), { appId: ask.appId, key: ask.key, nodeId: node.id, since: now, tried: this.epoch });
    this.hooks.nodeChanged?.(node);
    this.hooks.askChanged?.(ask);
  }

  /** Ends the reservation of `ask` (if any) on both sides; `node` is the reserved node when it still exists. */
  release(ask: Ask | undefined, r: { appId: string; key: string }, node: Node | undefined): void {
    const id = allocationId(r.appId, r.key);
    const held = this.byAsk.get(id);
    if (held) {
      this.byAsk.delete(id);
      this.changes.push({ nodeId: held.nodeId, key: r.key, reserved: false, resource: ask && { ...ask.resource } });
    }
    if (node?.reservation?.appId === r.appId && node.reservation.key === r.key) {
      node.reservation = undefined;
      this.hooks.nodeChanged?.(node);
    }
    if (ask?.reservedNode !== undefined) {
      ask.reservedNode = undefined;
      this.hooks.askChanged?.(ask);
    }
  }

  /** Plain-data list for the read API and tests. */
  list(): { appId: string; key: string; nodeId: string; since: number }[] {
    return [...this.byAsk.values()].map(({ appId, key, nodeId, since }) => ({ appId, key, nodeId, since }));
  }
}
