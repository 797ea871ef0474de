/**
 * A map of insertion-ordered entries, as `Map`, that holds its first entry in two fields and makes a `Map` only at
 * the second: one small object for the common case of one entry (an application's only ask), instead of a `Map` and its
 * hash table (about 180 bytes). Keys compare as a `Map`'s (SameValueZero); undefined and null are not keys. Once made,
 * the `Map` stays (deleting down to one entry keeps it), so the order of iteration is always a `Map`'s.
 */
export class SmallMap<K extends NonNullable<unknown>, V> implements ReadonlyMap<K, V> {
  /** The only entry while `map` is undefined (undefined: empty). */
  private soleKey: K | undefined = undefined;
  private soleValue: V | undefined = undefined;
  private map: Map<K, V> | undefined = undefined;

  get size(): number {
    return this.map ? this.map.size : this.soleKey === undefined ? 0 : 1;
  }

  get(key: K): V | undefined {
    if (this.map) return this.map.get(key);
    return this.soleKey !== undefined && sameValueZero(this.soleKey, key) ? this.soleValue : undefined;
  }

  has(key: K): boolean {
    if (this.map) return this.map.has(key);
    return this.soleKey !== undefined && sameValueZero(this.soleKey, key);
  }

  set(key: K, value: V): this {
    if (this.map) this.map.set(key, value);
    else if (this.soleKey === undefined || sameValueZero(this.soleKey, key)) {
      this.soleKey = key;
      this.soleValue = value;
    } else {
      this.map = new Map<K, V>([[this.soleKey, this.soleValue as V]]).set(key, value);
      this.soleKey = undefined;
      this.soleValue = undefined;
    }
    return this;
  }

  delete(key: K): boolean {
    if (this.map) return this.map.delete(key);
    if (this.soleKey === undefined || !sameValueZero(this.soleKey, key)) return false;
    this.soleKey = undefined;
    this.soleValue = undefined;
    return true;
  }

  entries(): MapIterator<[K, V]> {
    if (this.map) return this.map.entries();
    return (this.soleKey === undefined ? [] : [[this.soleKey, this.soleValue as V] as [K, V]]).values();
  }

  keys(): MapIterator<K> {
    if (this.map) return this.map.keys();
    return (this.soleKey === undefined ? [] : [this.soleKey]).values();
  }

  values(): MapIterator<V> {
    if (this.map) return this.map.values();
    return (this.soleKey === undefined ? [] : [this.soleValue as V]).values();
  }

  [Symbol.iterator](): MapIterator<[K, V]> {
    return this.entries();
  }

  forEach(callback: (value: V, key: K, map: ReadonlyMap<K, V>) => void, thisArg?: unknown): void {
    for (const [k, v] of this.entries()) callback.call(thisArg, v, k, this);
  }
}

/** `Map`'s key equality: `===`, except that NaN equals NaN. */
function sameValueZero(a: unknown, b: unknown): boolean {
  return a === b || (a !== a && b !== b);
}
