/**
 * The nodes of a partition in allocation order (apache/yunikorn-core pkg/scheduler/objects/node_collection.go,
 * nodesorting.go; yunikorn-core reference §4.4): the registry by id, the cluster size (sum of capacities, the root
 * queue's max) and an index ordered by `fair` (least used first) or `binpacking` (most used first), ties by node id.
 * Only a node whose usage changed is re-keyed (O(log n)), so choosing a node costs O(log n) plus the nodes skipped
 * because the ask does not fit — not a sort of every node per allocation.
 */
import { SortedList } from "../../util/sorted-list.js";
import type { Ask } from "./application.js";
import { type Node, type NodeOrder, nodeOrder } from "./node.js";
import { type Res, addTo, fitsIn, subFrom } from "./resources.js";

/** The partition's `nodesortpolicy` type: `fair` (least used first, default) or `binpacking` (most used first). */
export type NodeSortPolicy = "fair" | "binpacking";

/** A partition's nodes by id and in allocation order (module comment). */
export class NodeCollection {
  /** Every node by id, schedulable or not. */
  readonly byId = new Map<string, Node>();
  /** Sum of node capacities, kept incrementally. */
  readonly capacity: Res = {};
  private sortPolicy: NodeSortPolicy = "fair";
  private weights: Readonly<Record<string, number>> = { vcore: 1, memory: 1 };
  /**
   * Schedulable nodes by their order key (`Node.sortKey`). A sorted list of chunks (util/sorted-list.ts): re-keying a
   * node after an allocation (delete, insert at its new place) allocates nothing, where sorted-btree's delete made
   * arrays through its range-edit path on every allocation.
   */
  private readonly index = new SortedList<NodeOrder, Node>(nodeOrder);
  /** Node ids changed: ranks and the index are rebuilt before the index is used next. */
  private ranksDirty = false;

  get policy(): NodeSortPolicy {
    return this.sortPolicy;
  }

  /** Resource weights of the usage score: the configured ones, or vcore and memory 1 when none is configured. */
  get resourceWeights(): Readonly<Record<string, number>> {
    return this.weights;
  }

  /** A new sort policy and weights (configuration): every node is re-keyed. */
  configure(policy: NodeSortPolicy, weights: Readonly<Record<string, number>>): void {
    this.sortPolicy = policy;
    // configured weights replace the defaults (upstream NewNodeSortingPolicy): only the types they name count
    this.weights = Object.keys(weights).length > 0 ? { ...weights } : { vcore: 1, memory: 1 };
    for (const n of this.byId.values()) this.reindex(n);
  }

  /** Adds a node (the caller checked its id is new). */
  add(n: Node): void {
    this.byId.set(n.id, n);
    addTo(this.capacity, n.capacity);
    this.ranksDirty = true;
  }

  /** Replaces a node's capacity, keeping the cluster size in step. */
  setCapacity(n: Node, capacity: Res): void {
    subFrom(this.capacity, n.capacity);
    n.capacity = { ...capacity };
    addTo(this.capacity, n.capacity);
  }

  /** Removes a node from the registry, the cluster size and the index. */
  remove(n: Node): void {
    this.byId.delete(n.id);
    subFrom(this.capacity, n.capacity);
    this.reindex(n, false);
  }

  /**
   * Re-keys a node in the index after its usage, schedulable flag or reservation changed (O(log n)); `present` false:
   * the node is being removed. A node reserved for an ask that triggered preemption is not indexed: no ask may take,
   * reserve or preempt on it until the reservation ends, so the allocation order and the preemption search never
   * pass over it.
   */
  reindex(n: Node, present = true): void {
    if (this.ranksDirty) return;
    const indexed = present && n.schedulable && !n.reservation?.preemption;
    const u = indexed ? n.usage(this.weights) : 0;
    const score = this.sortPolicy === "binpacking" ? -u : u;
    const key = n.sortKey;
    if (indexed && key?.score === score) return;
    if (key) this.index.delete(key);
    if (!indexed) {
      n.sortKey = undefined;
      return;
    }
    // the node's key object is reused while it is out of the index (walks copy the key they resume from, see InOrder)
    if (key) {
      key.score = score;
      key.rank = n.rank;
    } else n.sortKey = { score, rank: n.rank, id: n.id };
    this.index.set(n.sortKey!, n);
  }

  /** The index, rebuilt after nodes came or went (ranks follow the sorted node ids). */
  private ordered(): SortedList<NodeOrder, Node> {
    if (this.ranksDirty) {
      this.ranksDirty = false;
      [...this.byId.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).forEach((n, i) => (n.rank = i));
      this.index.clear();
      for (const n of this.byId.values()) {
        n.sortKey = undefined;
        this.reindex(n);
      }
    }
    return this.index;
  }

  /**
   * Schedulable nodes in allocation order (without the nodes reserved for preemption, see `reindex`), read lazily one
   * key above the other (O(log n) a node) with no object made per node; a change to the index meanwhile does not end
   * the walk, which goes on from the next key above the last node read.
   */
  inOrder(): Iterable<Node> {
    return new InOrder(this.ordered());
  }

  /** The first node in allocation order with room for the ask that passes its predicate (reserved nodes excepted). */
  pick(ask: Ask): Node | undefined {
    if (ask.requiredNode) {
      const n = this.byId.get(ask.requiredNode);
      return n && n.schedulable && !n.reservation && n.fits(ask.resource) && (!ask.predicate || ask.predicate(n.id)) ? n : undefined;
    }
    return this.ordered().firstInOrder(nodeFor, ask);
  }

  /** True when some node's total capacity could hold `r` (a type no node has never fits). */
  fitsSome(r: Res): boolean {
    for (const n of this.byId.values()) if (fitsIn(n.capacity, r)) return true;
    return false;
  }
}

/** `NodeCollection.pick`'s test of one node (a function, not a closure per pick): `n` when `ask` may go there now. */
function nodeFor(n: Node, _key: NodeOrder, ask: Ask | undefined): Node | undefined {
  return !n.reservation && n.fits(ask!.resource) && (!ask!.predicate || ask!.predicate(n.id)) ? n : undefined;
}

/**
 * `NodeCollection.inOrder`: an iterable walk of the index by `nextAbove`, one entry pair and result reused. The key the
 * walk resumes from is a copy: a node re-keyed meanwhile has its key object changed in place.
 */
class InOrder implements Iterable<Node>, Iterator<Node> {
  private readonly pair = [undefined, undefined] as unknown as [NodeOrder, Node];
  private readonly last: NodeOrder = { score: 0, rank: 0, id: "" };
  private started = false;
  private stepped = false;
  private readonly result: IteratorResult<Node> = { done: false, value: undefined as unknown as Node };

  constructor(private readonly tree: SortedList<NodeOrder, Node>) {}

  [Symbol.iterator](): Iterator<Node> {
    return this.started ? new InOrder(this.tree) : ((this.started = true), this);
  }

  next(): IteratorResult<Node> {
    const p = this.tree.nextAbove(this.stepped ? this.last : undefined, this.pair);
    const r = this.result as { done: boolean; value: Node | undefined };
    if (!p) {
      r.done = true;
      r.value = undefined;
    } else {
      this.stepped = true;
      this.last.score = p[0].score;
      this.last.rank = p[0].rank;
      this.last.id = p[0].id;
      r.value = p[1];
    }
    return this.result;
  }
}
