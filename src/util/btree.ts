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

/** Entries `firstInOrderChunked` reads in its first range scan, and at most in one. */
const FIRST_CHUNK = 8;
const MAX_CHUNK = 64;

/**
 * `firstInOrder` reading the entries after the first a chunk at a time in one range scan (8, 32, then 64 entries)
 * instead of a descent of the tree per entry: the same calls of `f` and the same result, provided `version()` changes
 * whenever the tree does. After an `f` that changed the tree the walk goes on from the next key above the one `f` was
 * given, as `firstInOrder` does. The first entry is read alone, as most walks stop there.
 */
export function firstInOrderChunked<K, V, R>(
  tree: BTree<K, V>,
  version: () => number,
  f: (value: V, key: K) => R | undefined,
): R | undefined {
  const first = tree.nextHigherPair(undefined, [undefined, undefined] as unknown as [K, V]);
  if (!first) return undefined;
  const r0 = f(first[1], first[0]);
  if (r0 !== undefined) return r0;
  const keys: K[] = [];
  const values: V[] = [];
  let from = tree.nextHigherKey(first[0]);
  let size = FIRST_CHUNK;
  while (from !== undefined) {
    let n = 0;
    let next: K | undefined;
    tree.forRange(from, tree.maxKey()!, true, (k, v) => {
      if (n === size) {
        next = k;
        return { break: true };
      }
      keys[n] = k;
      values[n++] = v;
      return undefined;
    });
    const seen = version();
    let changedAt = -1;
    for (let i = 0; i < n; i++) {
      const r = f(values[i]!, keys[i]!);
      if (r !== undefined) return r;
      if (version() !== seen) {
        changedAt = i;
        break;
      }
    }
    from = changedAt >= 0 ? tree.nextHigherKey(keys[changedAt]!) : next;
    size = Math.min(MAX_CHUNK, size * 4);
  }
  return undefined;
}
