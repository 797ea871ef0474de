/**
 * sorted-btree (a B+ tree) loaded from ESM: the package is CommonJS with `exports.default = BTree`, so under Node's
 * ESM interop the class is `default.default`.
 */
import pkg from "sorted-btree";

type Ctor = typeof pkg.default;
const loaded = pkg as unknown as { default?: Ctor } & Ctor;
/** The sorted-btree class (see the module comment). */
export const BTree: Ctor = typeof loaded === "function" ? (loaded as Ctor) : (loaded as { default: Ctor }).default;
export type BTree<K, V> = InstanceType<typeof pkg.default<K, V>>;

/**
 * Compares two numbers as -1, 0 or 1. Comparators return this rather than a difference: a difference that is not a
 * small integer (a fraction, milliseconds since the epoch) is a new heap number on every comparison.
 */
export function compareNumbers(a: number, b: number): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The first result other than undefined of `f` over the tree's entries in key order; undefined when there is none.
 * Unlike `values()` it makes no iterator objects (a scheduling walk calls it per level per allocation), and `f` may
 * change the tree: the walk goes on from the next key above the one `f` was given. O(log n) per entry visited.
 */
export function firstInOrder<K, V, R>(tree: BTree<K, V>, f: (value: V, key: K) => R | undefined): R | undefined {
  const pair = [undefined, undefined] as unknown as [K, V];
  for (let p = tree.nextHigherPair(undefined, pair); p; p = tree.nextHigherPair(p[0], pair)) {
    const r = f(p[1], p[0]);
    if (r !== undefined) return r;
  }
  return undefined;
}
