/**
 * What a queue and an application share in the allocation walk (apache/yunikorn-core pkg/scheduler/objects queue.go,
 * application.go, sorters.go): each keeps its own members in order (a queue its children or applications, an
 * application its pending asks: the sorted list's `SortedStore`, util/sorted-list.ts) and is itself a member of its
 * parent queue's order, where it is its own key. Kept in the object itself rather than in a list and a key object of
 * their own, so walking a queue or an application, and re-keying it, reads that object and nothing else.
 */
import { compareNumbers } from "../../util/compare.js";
import { SortedStore } from "../../util/sorted-list.js";

/** A queue or an application: its members in order (`K`, `V`: the store's keys and values) and its own key. */
export abstract class OrderMember<K, V> extends SortedStore<K, V> {
  /**
   * Its key in its queue's order: up to four numbers compared in turn (unused ones 0), then `orderName`. Set by the
   * queue (`Queue.position`); they change only while the member is out of the order, or as the order's only member.
   */
  k0 = 0;
  k1 = 0;
  k2 = 0;
  k3 = 0;
  /** The pending priority it is counted at in its queue's order; undefined exactly while it is not in that order. */
  queuedPriority: number | undefined = undefined;
  /** The name that orders members with equal numbers: a queue's name, an application's id. */
  abstract get orderName(): string;
}

/** What `memberOrder` reads of a member. */
type Keyed = Pick<OrderMember<unknown, unknown>, "k0" | "k1" | "k2" | "k3" | "orderName">;

/** Compares two members of one order by their keys: the numbers in turn, then their names. */
export const memberOrder = (a: Keyed, b: Keyed): number =>
  compareNumbers(a.k0, b.k0) ||
  compareNumbers(a.k1, b.k1) ||
  compareNumbers(a.k2, b.k2) ||
  compareNumbers(a.k3, b.k3) ||
  (a.orderName < b.orderName ? -1 : a.orderName > b.orderName ? 1 : 0);
