/**
 * A node: capacity, usage by the core's allocations and by pods it does not manage, the allocations on it and its
 * reservation (apache/yunikorn-core pkg/scheduler/objects/node.go, nodesorting.go; yunikorn-core reference §4.4,
 * §4.6). The node owns its fit and usage arithmetic; the partition keeps nodes in allocation order.
 */
import { compareNumbers } from "../../util/compare.js";
import { VersionedMap } from "../../util/versioned-map.js";
import type { Ask } from "./application.js";
import type { NodeVictimViews } from "./preemption/core-snapshot.js";
import { type Res, addTo, fitsIn, subFrom } from "./resources.js";

/**
 * Order of nodes: score ascending (fair: least used; binpacking: most used), then id. `rank` is the node's position
 * among all node ids (assigned by the partition), so ties compare numbers instead of strings.
 */
export interface NodeOrder {
  score: number;
  rank: number;
  id: string;
}
/** Compares two node order keys: score, then rank (see {@link NodeOrder}). */
export const nodeOrder = (a: NodeOrder, b: NodeOrder) => compareNumbers(a.score, b.score) || a.rank - b.rank;

/** An ask holding a node (reference §4.6): the node takes no other ask until it is released. */
export interface NodeReservation {
  readonly appId: string;
  readonly key: string;
  /** Milliseconds since the epoch. */
  readonly since: number;
  /**
   * The ask triggered preemption and waits here for its victims: no other ask may take or reserve the node, nor
   * preempt on it, so the node is left out of the allocation order until the reservation ends.
   */
  readonly preemption?: boolean;
}

/** Constructor input of {@link Node} (from the resource manager's node info). Resources in core units. */
export interface NodeOptions {
  id: string;
  /** Allocatable capacity (core units). */
  capacity: Res;
  /** Used by pods the core does not manage (other schedulers, static pods). */
  occupied?: Res;
  schedulable?: boolean;
  attributes?: Readonly<Record<string, string>>;
}

/**
 * A node of a partition (apache/yunikorn-core pkg/scheduler/objects/node.go): capacity, usage by pods the core does not
 * manage, schedulable flag, attributes and the allocations placed on it. Resources in core units.
 */
export class Node {
  readonly id: string;
  capacity: Res;
  occupied: Res;
  schedulable: boolean;
  attributes: Readonly<Record<string, string>>;
  readonly allocated: Res = {};
  /**
   * The asks allocated on the node (the applications' own objects) by `allocationId(appId, key)`; its `version`
   * tells preemption's node search when its `victimViews` are out of date.
   */
  readonly allocations = new VersionedMap<string, Ask>();
  /** The allocations as possible victims, as preemption's node search last read them (preemption/core-snapshot.ts). */
  victimViews?: NodeVictimViews;
  reservation?: NodeReservation;
  /** Key in the partition's node index (undefined while not indexed). */
  sortKey?: NodeOrder;
  /** Position among the partition's node ids (assigned by the partition before the node is indexed). */
  rank = 0;

  constructor(o: NodeOptions) {
    this.id = o.id;
    this.capacity = { ...o.capacity };
    this.occupied = { ...(o.occupied ?? {}) };
    this.schedulable = o.schedulable ?? true;
    this.attributes = o.attributes ?? {};
  }

  /** Free resources: capacity − allocated − occupied. */
  available(): Res {
    const r: Res = { ...this.capacity };
    for (const k in this.allocated) r[k] = (r[k] ?? 0) - this.allocated[k]!;
    for (const k in this.occupied) r[k] = (r[k] ?? 0) - this.occupied[k]!;
    return r;
  }

  /** True when `r` fits in what is free now. */
  fits(r: Readonly<Res>): boolean {
    for (const k in r) {
      const free = (this.capacity[k] ?? 0) - (this.allocated[k] ?? 0) - (this.occupied[k] ?? 0);
      if (r[k]! > Math.max(0, free)) return false;
    }
    return true;
  }

  /** True when `r` fits the node's total capacity (it could run here once the node is empty). */
  fitsCapacity(r: Readonly<Res>): boolean {
    return fitsIn(this.capacity, r);
  }

  /** Weighted usage share in [0, 1] (§4.4): Σ w·(1 − free/total) / Σ w over types the node has. */
  usage(weights: Readonly<Record<string, number>>): number {
    let num = 0,
      den = 0;
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

  /**
   * How well `ask` uses what is free (upstream `FitInScore`, lower is better): Σ over free types of
   * (ask ≤ 0 ? 1 : free > ask ? (free − ask) / free : 0).
   */
  fitScore(ask: Readonly<Res>): number {
    const free = this.available();
    let score = 0;
    for (const k in free) {
      const f = free[k]!;
      if (f <= 0) continue;
      const a = ask[k] ?? 0;
      score += a <= 0 ? 1 : f > a ? (f - a) / f : 0;
    }
    return score;
  }

  addAllocation(id: string, a: Ask): void {
    this.allocations.set(id, a);
    addTo(this.allocated, a.resource);
  }

  removeAllocation(id: string): Ask | undefined {
    const a = this.allocations.get(id);
    if (!a) return undefined;
    this.allocations.delete(id);
    subFrom(this.allocated, a.resource);
    return a;
  }
}

/** Key of an allocation on a node: application id and ask key. */
export function allocationId(appId: string, key: string): string {
  return `${appId}\u0000${key}`;
}
