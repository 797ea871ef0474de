/**
 * sorted-btree (a B+ tree), the reference model the tests check `SortedList` (src/util/sorted-list.ts) against, loaded
 * from ESM: the package is CommonJS with `exports.default = BTree`, so under Node's ESM interop the class is
 * `default.default`.
 */
import pkg from "sorted-btree";

type Ctor = typeof pkg.default;
const loaded = pkg as unknown as { default?: Ctor } & Ctor;
/** The sorted-btree class (see the module comment). */
export const BTree: Ctor = typeof loaded === "function" ? (loaded as Ctor) : (loaded as { default: Ctor }).default;
export type BTree<K, V> = InstanceType<typeof pkg.default<K, V>>;

/**
 * The first result other than undefined of `f` over the tree's entries in key order; undefined when there is none.
 * `f` may change the tree: the walk goes on from the next key above the one `f` was given (the walk `SortedList`'s
 * `firstInOrder` must match). O(log n) per entry visited.
 */
export function firstInOrder<K, V, R>(tree: BTree<K, V>, f: (value: V, key: K) => R | undefined): R | undefined {
  const pair = [undefined, undefined] as unknown as [K, V];
  for (let p = tree.nextHigherPair(undefined, pair); p; p = tree.nextHigherPair(p[0], pair)) {
    const r = f(p[1], p[0]);
    if (r !== undefined) return r;
  }
  return undefined;
}
