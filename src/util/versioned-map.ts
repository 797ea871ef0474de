/**
 * A `Map` that counts its changes, so that what a reader derived from it can be kept while the map is unchanged:
 * `version` grows by one on every `set`, on every `delete` that removes a key and on every `clear` of a non-empty
 * map. Reads cost what a `Map`'s cost.
 */
export class VersionedMap<K, V> extends Map<K, V> {
  /** Changes so far (0 for a new map). */
  version = 0;

  constructor() {
    // no initial entries: `set` would run before `version` exists
    super();
  }

  override set(key: K, value: V): this {
    this.version++;
    return super.set(key, value);
  }

  override delete(key: K): boolean {
    const had = super.delete(key);
    if (had) this.version++;
    return had;
  }

  override clear(): void {
    if (this.size > 0) this.version++;
    super.clear();
  }
}
