/** The arrays of every empty list (see `SortedList.chunks`). */
const NONE: never[] = [];

/**
 * An ordered map of unique keys kept as a list of sorted chunks (the layout of Python's sortedcontainers SortedList):
 * `maxes[c]` is the largest key of chunk `c`, chunks hold between 1 and 2·`load` entries. Finding a key is two binary
 * searches (over the chunk maxima, then in one chunk); inserting or deleting shifts at most 2·`load` entries of one
 * plain array and allocates nothing unless a chunk splits or empties. A chunk is one array holding each key next to
 * its value (key at 2i, value at 2i + 1), so reading an entry touches one array. A list of one entry (an application's
 * only pending ask, a leaf's only application) keeps it in two fields and has no arrays until a second entry comes.
 *
 * Why not sorted-btree here: the scheduling core's queue orders re-key one member per level per allocation (remove,
 * insert at its new place), and sorted-btree deletes through its generic range-edit path; on an order of 1,000 sibling
 * queues this structure re-keys about twice as fast and walks from one member to the next in O(1) while nothing
 * changed (sorted-btree descends the tree for every step). Deleting the first key and inserting above the last (the
 * member a walk served first going to the back of its order, as fair ordering moves it) take no search at all.
 *
 * The operations are protected here and public in {@link SortedList}: a class whose instances keep members in order (a
 * queue its children or applications, an application its asks) extends `SortedStore`, so the order lives in the
 * instance itself and reading it reads no second object, without the list's operations becoming the class's API.
 */
export class SortedStore<K, V> {
  // an empty list, or one holding its sole entry in `soleKey`/`soleValue`, shares one empty array (never written:
  // `set` makes the list its own arrays at the second entry), so such a list is one object
  private chunks: (K | V)[][] = NONE;
  /** The only entry while `chunks` is NONE and `count` is 1; undefined otherwise. */
  private soleKey: K | undefined = undefined;
  private soleValue: V | undefined = undefined;
  private maxes: K[] = NONE;
  /** `chunks[0]` (NONE when empty): the first entries without going through the chunk list. */
  private head: (K | V)[] = NONE;
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

  protected get size(): number {
    return this.count;
  }

  /**
   * True while the list keeps its entries in arrays: from its second entry until it is next empty (a field read for a
   * lookahead's `touchLines`, scheduler/core/lookahead.ts).
   */
  protected get chunked(): boolean {
    return this.chunks !== NONE;
  }

  /** The smallest key, or undefined when empty. */
  protected minKey(): K | undefined {
    return this.chunks === NONE ? this.soleKey : (this.head[0] as K);
  }

  /** The value stored under the smallest key, or undefined when empty. */
  protected minValue(): V | undefined {
    return this.chunks === NONE ? this.soleValue : (this.head[1] as V);
  }

  /**
   * The value `i` places from the front (0: the smallest key's) when it is in the first chunk, else undefined (also
   * past the end). O(1), no search: the members a walk reaches next, for a lookahead that must cost nothing when the
   * list is long.
   */
  protected valueAt(i: number): V | undefined {
    if (this.chunks === NONE) return i === 0 ? this.soleValue : undefined;
    const j = 2 * i + 1;
    return j < this.head.length ? (this.head[j] as V) : undefined;
  }

  /**
   * Stores `value` under `key`; an equal key already present is replaced, key object and value (as sorted-btree's
   * `set`).
   * @returns true when the key is new
   */
  protected set(key: K, value: V): boolean {
    this.version++;
    if (this.chunks === NONE) return this.setSole(key, value);
    let c = this.maxes.length - 1;
    let chunk = this.chunks[c]!;
    // i: the index of the key's slot in `chunk` (even)
    let i = chunk.length;
    // above every key (a member served first going to the back of its order): appended without a search
    if (this.compare(this.maxes[c]!, key) >= 0) {
      c = this.chunkOf(key);
      chunk = this.chunks[c]!;
      i = this.lowerBound(chunk, key);
      if (this.compare(chunk[i] as K, key) === 0) {
        chunk[i] = key;
        chunk[i + 1] = value;
        if (i === chunk.length - 2) this.maxes[c] = key;
        return false;
      }
    }
    const len = chunk.length;
    if (i === len && c === this.chunks.length - 1 && len >= 4 * this.load) {
      // above every key and the last chunk full: a new chunk (no split copying half of a full one)
      this.chunks.push([key, value]);
      this.maxes.push(key);
      this.count++;
      return true;
    }
    if (i === len) chunk.push(key, value);
    else {
      // the last entry moves up first, so the array never has a hole
      chunk.push(chunk[len - 2]!, chunk[len - 1]!);
      for (let j = len - 1; j >= i + 2; j--) chunk[j] = chunk[j - 2]!;
      chunk[i] = key;
      chunk[i + 1] = value;
    }
    this.count++;
    if (i === chunk.length - 2) this.maxes[c] = key;
    if (chunk.length > 4 * this.load) this.split(c);
    return true;
  }

  /** `set` on a list without arrays (empty, or holding its sole entry). */
  private setSole(key: K, value: V): boolean {
    if (this.count === 0) {
      this.soleKey = key;
      this.soleValue = value;
      this.count = 1;
      return true;
    }
    const sole = this.soleKey as K;
    const order = this.compare(sole, key);
    if (order === 0) {
      this.soleKey = key;
      this.soleValue = value;
      return false;
    }
    this.head = order < 0 ? [sole, this.soleValue as V, key, value] : [key, value, sole, this.soleValue as V];
    this.chunks = [this.head];
    this.maxes = [order < 0 ? key : sole];
    this.soleKey = undefined;
    this.soleValue = undefined;
    this.count = 2;
    return true;
  }

  /** Removes `key`. @returns true when it was present */
  protected delete(key: K): boolean {
    if (this.chunks === NONE) {
      if (this.count === 0 || (this.soleKey !== key && this.compare(this.soleKey as K, key) !== 0)) return false;
      this.version++;
      return this.reset();
    }
    let c = 0;
    let i = 0;
    let chunk = this.head;
    // the first key itself (the member the walk just served): no search
    if (this.count === 0 || chunk[0] !== key) {
      c = this.chunkOf(key);
      if (c === this.maxes.length) return false;
      chunk = this.chunks[c]!;
      i = this.lowerBound(chunk, key);
      if (i === chunk.length || this.compare(chunk[i] as K, key) !== 0) return false;
    }
    this.version++;
    const last = chunk.length - 2;
    if (i === 0) {
      // the first entry: the array's start moves (V8 trims it in place), nothing is copied
      chunk.shift();
      chunk.shift();
    } else {
      for (let j = i; j < last; j++) chunk[j] = chunk[j + 2]!;
      chunk.length = last;
    }
    this.count--;
    if (last === 0) {
      if (this.count === 0) return this.reset();
      removeAt(this.chunks, c);
      removeAt(this.maxes, c);
      this.head = this.chunks[0]!;
      return true;
    }
    if (i === last) this.maxes[c] = chunk[last - 2] as K;
    // a small chunk joins its right neighbour (keeps the chunk count near size / load); the first chunk drained from
    // its front (members served first leaving, as a walk serves them) is left to empty and be dropped instead: merging
    // it would copy its neighbour into it, and split it again, every few dozen deletions
    if ((c > 0 || i > 0) && last < this.load && c + 1 < this.chunks.length) this.merge(c);
    return true;
  }

  /** Removes every entry. */
  protected clear(): void {
    this.version++;
    this.reset();
  }

  /**
   * The first result other than undefined of `f` over the entries in key order; undefined when there is none. `f` may
   * change the list: the walk goes on from the next key above the one `f` was given (found again by search only when
   * something changed; otherwise the next entry is the neighbour). Makes no iterator objects; `a`, `b` and `c` are
   * passed on to `f`, so a caller that walks per allocation needs no closure per walk.
   */
  protected firstInOrder<R, A = undefined, B = undefined, C = undefined>(
    f: (value: V, key: K, a: A, b: B, c: C) => R | undefined,
    a?: A,
    b?: B,
    c?: C,
  ): R | undefined {
    // after a change made by `f`: the walk resumes above `after`
    let resumed = false;
    let after: K | undefined;
    for (;;) {
      if (this.chunks === NONE) {
        if (this.count === 0) return undefined;
        const key = this.soleKey as K;
        if (resumed && this.compare(key, after as K) <= 0) return undefined;
        const seen = this.version;
        const r = f(this.soleValue as V, key, a as A, b as B, c as C);
        if (r !== undefined || seen === this.version) return r;
        resumed = true;
        after = key;
        continue;
      }
      let n = 0;
      let i = 0;
      let chunk = this.head;
      if (resumed) {
        // the first key above `after`
        n = this.chunkOf(after as K);
        if (n === this.maxes.length) return undefined;
        chunk = this.chunks[n]!;
        i = this.indexAbove(chunk, after as K);
      }
      for (;;) {
        if (i >= chunk.length) {
          if (++n >= this.chunks.length) return undefined;
          chunk = this.chunks[n]!;
          i = 0;
          continue;
        }
        const key = chunk[i] as K;
        const seen = this.version;
        const r = f(chunk[i + 1] as V, key, a as A, b as B, c as C);
        if (r !== undefined) return r;
        if (seen === this.version) {
          i += 2;
          continue;
        }
        resumed = true;
        after = key;
        break;
      }
    }
  }

  /**
   * The first entry whose key is above `after` (the first entry when `after` is undefined), written into `out` as
   * [key, value] and returned; undefined when there is none. O(log n), no allocation: a walk that may change the list
   * between steps reads it one entry at a time this way.
   */
  protected nextAbove(after: K | undefined, out: [K, V]): [K, V] | undefined {
    if (this.chunks === NONE) {
      if (this.count === 0 || (after !== undefined && this.compare(this.soleKey as K, after) <= 0)) return undefined;
      out[0] = this.soleKey as K;
      out[1] = this.soleValue as V;
      return out;
    }
    let chunk = this.head;
    let i = 0;
    if (after !== undefined) {
      const c = this.chunkOf(after);
      if (c === this.maxes.length) return undefined;
      chunk = this.chunks[c]!;
      i = this.indexAbove(chunk, after);
      if (i >= chunk.length) {
        if (c + 1 >= this.chunks.length) return undefined;
        chunk = this.chunks[c + 1]!;
        i = 0;
      }
    }
    out[0] = chunk[i] as K;
    out[1] = chunk[i + 1] as V;
    return out;
  }

  /** Every value in key order (a copy: the list may change while it is read). */
  protected values(): V[] {
    if (this.chunks === NONE) return this.count === 0 ? [] : [this.soleValue as V];
    const out: V[] = [];
    for (const chunk of this.chunks) for (let i = 1; i < chunk.length; i += 2) out.push(chunk[i] as V);
    return out;
  }

  /** Every entry in key order (a copy: the list may change while it is read). */
  protected entries(): [K, V][] {
    if (this.chunks === NONE) return this.count === 0 ? [] : [[this.soleKey as K, this.soleValue as V]];
    const out: [K, V][] = [];
    for (const chunk of this.chunks) for (let i = 0; i < chunk.length; i += 2) out.push([chunk[i] as K, chunk[i + 1] as V]);
    return out;
  }

  private reset(): true {
    this.chunks = NONE;
    this.maxes = NONE;
    this.head = NONE;
    this.soleKey = undefined;
    this.soleValue = undefined;
    this.count = 0;
    return true;
  }

  /**
   * Chunk `c` and chunk `c + 1` become one (split again when too large). Index loops, no `splice` of the chunk list: a
   * merge happens every few dozen deletions from the same chunk and makes no garbage but a split-off chunk.
   */
  private merge(c: number): void {
    const chunk = this.chunks[c]!;
    const next = this.chunks[c + 1]!;
    for (let i = 0; i < next.length; i++) chunk.push(next[i]!);
    removeAt(this.chunks, c + 1);
    removeAt(this.maxes, c);
    if (chunk.length > 4 * this.load) this.split(c);
  }

  /** The upper half of chunk `c` becomes chunk `c + 1`. */
  private split(c: number): void {
    const chunk = this.chunks[c]!;
    const upper = chunk.slice(2 * this.load);
    chunk.length = 2 * this.load;
    insertAt(this.chunks, c + 1, upper);
    insertAt(this.maxes, c, chunk[chunk.length - 2] as K);
  }

  /** The first chunk whose largest key is ≥ `key` (`maxes.length`: above every key). */
  private chunkOf(key: K): number {
    const m = this.maxes;
    let lo = 0;
    let hi = m.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.compare(m[mid]!, key) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The index (even) of the first key in `chunk` above `key` (`chunk.length`: none). */
  private indexAbove(chunk: readonly (K | V)[], key: K): number {
    const i = this.lowerBound(chunk, key);
    return i < chunk.length && this.compare(chunk[i] as K, key) === 0 ? i + 2 : i;
  }

  /** The index (even) of the first key in `chunk` that is ≥ `key` (`chunk.length`: none). */
  private lowerBound(chunk: readonly (K | V)[], key: K): number {
    let lo = 0;
    let hi = chunk.length >> 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.compare(chunk[2 * mid] as K, key) < 0) lo = mid + 1;
      else hi = mid;
    }
    return 2 * lo;
  }
}

/** Removes `xs[i]`, moving the later elements down (no array made, unlike `splice`). */
function removeAt<T>(xs: T[], i: number): void {
  for (let j = i; j < xs.length - 1; j++) xs[j] = xs[j + 1]!;
  xs.length--;
}

/** Inserts `x` at `i`, moving the later elements up (no array made, unlike `splice`). */
function insertAt<T>(xs: T[], i: number, x: T): void {
  xs.push(x);
  for (let j = xs.length - 1; j > i; j--) xs[j] = xs[j - 1]!;
  xs[i] = x;
}

/** A sorted list (see {@link SortedStore}) with its operations public. */
export class SortedList<K, V> extends SortedStore<K, V> {
  override get size(): number {
    return super.size;
  }
  override minKey(): K | undefined {
    return super.minKey();
  }
  override minValue(): V | undefined {
    return super.minValue();
  }
  override valueAt(i: number): V | undefined {
    return super.valueAt(i);
  }
  override set(key: K, value: V): boolean {
    return super.set(key, value);
  }
  override delete(key: K): boolean {
    return super.delete(key);
  }
  override clear(): void {
    super.clear();
  }
  override firstInOrder<R, A = undefined, B = undefined, C = undefined>(
    f: (value: V, key: K, a: A, b: B, c: C) => R | undefined,
    a?: A,
    b?: B,
    c?: C,
  ): R | undefined {
    return super.firstInOrder(f, a, b, c);
  }
  override nextAbove(after: K | undefined, out: [K, V]): [K, V] | undefined {
    return super.nextAbove(after, out);
  }
  override values(): V[] {
    return super.values();
  }
  override entries(): [K, V][] {
    return super.entries();
  }
}
