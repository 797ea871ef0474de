/** The arrays of every empty list (see `SortedList.keyChunks`). */
const NONE: never[] = [];

/**
 * An ordered map of unique keys kept as a list of sorted chunks (the layout of Python's sortedcontainers SortedList):
 * `maxes[c]` is the largest key of chunk `c`, chunks hold between 1 and 2·`load` entries. Finding a key is two binary
 * searches (over the chunk maxima, then in one chunk); inserting or deleting shifts at most 2·`load` entries of one
 * plain array and allocates nothing unless a chunk splits or empties.
 *
 * Why not sorted-btree here: the scheduling core's queue orders re-key one member per level per allocation (remove,
 * insert at its new place), and sorted-btree deletes through its generic range-edit path; on an order of 1,000 sibling
 * queues this structure re-keys about twice as fast and walks from one member to the next in O(1) while nothing
 * changed (sorted-btree descends the tree for every step). Deleting the first key and inserting above the last (the
 * member a walk served first going to the back of its order, as fair ordering moves it) take no search at all.
 */
export class SortedList<K, V> {
  // an empty list shares one empty array (never written: `set` on an empty list makes its own), so an idle list is
  // one object
  private keyChunks: K[][] = NONE;
  private valueChunks: V[][] = NONE;
  private maxes: K[] = NONE;
  /** `keyChunks[0]` and `valueChunks[0]` (NONE when empty): the first entries without going through the chunk lists. */
  private headKeys: K[] = NONE;
  private headValues: V[] = NONE;
  private count = 0;
  /** Bumped on every change, so a walk knows when it must find its place again. */
  private version = 0;

  /**
   * @param compare total order of the keys: negative, 0 (the same key) or positive
   * @param load a chunk splits above 2·load entries (64: one chunk is at most 128 entries)
   */
  constructor(
    private readonly compare: (a: K, b: K) => number,
    private readonly load = 64,
  ) {}

  get size(): number {
    return this.count;
  }

  /** The smallest key, or undefined when empty. */
  minKey(): K | undefined {
    return this.headKeys[0];
  }

  /** The largest key, or undefined when empty. */
  maxKey(): K | undefined {
    return this.count === 0 ? undefined : this.maxes[this.maxes.length - 1];
  }

  /** The value stored under the smallest key, or undefined when empty. */
  minValue(): V | undefined {
    return this.headValues[0];
  }

  /** The value stored under `key`, or undefined. */
  get(key: K): V | undefined {
    const c = this.chunkOf(key);
    if (c === this.maxes.length) return undefined;
    const keys = this.keyChunks[c]!;
    const i = this.lowerBound(keys, key);
    return i < keys.length && this.compare(keys[i]!, key) === 0 ? this.valueChunks[c]![i] : undefined;
  }

  /**
   * Stores `value` under `key`; an equal key already present is replaced, key object and value (as sorted-btree's
   * `set`).
   * @returns true when the key is new
   */
  set(key: K, value: V): boolean {
    this.version++;
    if (this.count === 0) {
      this.headKeys = [key];
      this.headValues = [value];
      this.keyChunks = [this.headKeys];
      this.valueChunks = [this.headValues];
      this.maxes = [key];
      this.count = 1;
      return true;
    }
    let c: number;
    let i: number;
    let keys: K[];
    let values: V[];
    if (this.compare(this.maxes[this.maxes.length - 1]!, key) < 0) {
      // above every key (a member served first going to the back of its order): no search
      c = this.maxes.length - 1;
      keys = this.keyChunks[c]!;
      values = this.valueChunks[c]!;
      i = keys.length;
    } else {
      c = this.chunkOf(key);
      keys = this.keyChunks[c]!;
      values = this.valueChunks[c]!;
      i = this.lowerBound(keys, key);
      if (this.compare(keys[i]!, key) === 0) {
        keys[i] = key;
        values[i] = value;
        if (i === keys.length - 1) this.maxes[c] = key;
        return false;
      }
    }
    for (let j = keys.length; j > i; j--) {
      keys[j] = keys[j - 1]!;
      values[j] = values[j - 1]!;
    }
    keys[i] = key;
    values[i] = value;
    this.count++;
    if (i === keys.length - 1) this.maxes[c] = key;
    if (keys.length > 2 * this.load) {
      const rightKeys = keys.splice(this.load);
      const rightValues = values.splice(this.load);
      this.keyChunks.splice(c + 1, 0, rightKeys);
      this.valueChunks.splice(c + 1, 0, rightValues);
      this.maxes.splice(c, 0, keys[keys.length - 1]!);
    }
    return true;
  }

  /** Removes `key`. @returns true when it was present */
  delete(key: K): boolean {
    let c = 0;
    let i = 0;
    let keys = this.headKeys;
    // the first key itself (the member the walk just served): no search
    if (this.count === 0 || keys[0] !== key) {
      c = this.chunkOf(key);
      if (c === this.maxes.length) return false;
      keys = this.keyChunks[c]!;
      i = this.lowerBound(keys, key);
      if (i === keys.length || this.compare(keys[i]!, key) !== 0) return false;
    }
    const values = this.valueChunks[c]!;
    this.version++;
    const last = keys.length - 1;
    for (let j = i; j < last; j++) {
      keys[j] = keys[j + 1]!;
      values[j] = values[j + 1]!;
    }
    keys.length = last;
    values.length = last;
    this.count--;
    if (last === 0) {
      if (this.count === 0) return this.reset();
      this.keyChunks.splice(c, 1);
      this.valueChunks.splice(c, 1);
      this.maxes.splice(c, 1);
      this.headKeys = this.keyChunks[0]!;
      this.headValues = this.valueChunks[0]!;
      return true;
    }
    if (i === last) this.maxes[c] = keys[last - 1]!;
    // a small chunk joins its right neighbour (keeps the chunk count near size / load)
    if (last < this.load >> 1 && c + 1 < this.keyChunks.length) this.merge(c);
    return true;
  }

  /** Removes every entry. */
  clear(): void {
    this.version++;
    this.reset();
  }

  /**
   * The first result other than undefined of `f` over the entries in key order; undefined when there is none. `f` may
   * change the list: the walk goes on from the next key above the one `f` was given (found again by search only when
   * something changed; otherwise the next entry is the neighbour). Makes no iterator objects.
   */
  firstInOrder<R>(f: (value: V, key: K) => R | undefined): R | undefined {
    let c = 0;
    let i = 0;
    let keys = this.headKeys;
    let values = this.headValues;
    for (;;) {
      if (i >= keys.length) {
        if (++c >= this.keyChunks.length) return undefined;
        keys = this.keyChunks[c]!;
        values = this.valueChunks[c]!;
        i = 0;
        continue;
      }
      const key = keys[i]!;
      const seen = this.version;
      const r = f(values[i]!, key);
      if (r !== undefined) return r;
      if (seen === this.version) {
        i++;
        continue;
      }
      // the list changed: the first key above `key`
      c = this.chunkOf(key);
      if (c === this.maxes.length) return undefined;
      keys = this.keyChunks[c]!;
      values = this.valueChunks[c]!;
      i = this.lowerBound(keys, key);
      if (i < keys.length && this.compare(keys[i]!, key) === 0) i++;
    }
  }

  /** Every entry in key order (a copy: the list may change while it is read). */
  entries(): [K, V][] {
    const out: [K, V][] = [];
    for (let c = 0; c < this.keyChunks.length; c++) {
      const keys = this.keyChunks[c]!;
      const values = this.valueChunks[c]!;
      for (let i = 0; i < keys.length; i++) out.push([keys[i]!, values[i]!]);
    }
    return out;
  }

  private reset(): true {
    this.keyChunks = NONE;
    this.valueChunks = NONE;
    this.maxes = NONE;
    this.headKeys = NONE;
    this.headValues = NONE;
    this.count = 0;
    return true;
  }

  /** Chunk `c` and chunk `c + 1` become one (split again when too large). */
  private merge(c: number): void {
    const keys = this.keyChunks[c]!;
    const values = this.valueChunks[c]!;
    const rightKeys = this.keyChunks[c + 1]!;
    const rightValues = this.valueChunks[c + 1]!;
    for (let j = 0; j < rightKeys.length; j++) {
      keys.push(rightKeys[j]!);
      values.push(rightValues[j]!);
    }
    this.keyChunks.splice(c + 1, 1);
    this.valueChunks.splice(c + 1, 1);
    this.maxes.splice(c, 1);
    if (keys.length > 2 * this.load) {
      this.keyChunks.splice(c + 1, 0, keys.splice(this.load));
      this.valueChunks.splice(c + 1, 0, values.splice(this.load));
      this.maxes.splice(c, 0, keys[keys.length - 1]!);
    }
  }

  /** The first chunk whose largest key is ≥ `key` (`maxes.length`: above every key). */
  private chunkOf(key: K): number {
    return this.lowerBound(this.maxes, key);
  }

  /** The first index in `keys` whose key is ≥ `key`. */
  private lowerBound(keys: readonly K[], key: K): number {
    let lo = 0;
    let hi = keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.compare(keys[mid]!, key) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
