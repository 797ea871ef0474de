/**
 * The event history: a ring buffer of records with ids (apache/yunikorn-core pkg/events/event_ringbuffer.go). Every
 * record added gets the next id (0, 1, 2…); when the buffer is full the oldest record is overwritten and the lowest
 * id available moves up. Records are never removed otherwise. Pure data structure, no clock.
 */
export interface EventRange<T> {
  records: T[];
  /** Lowest id still held (0 when empty). */
  lowestId: number;
  /** Highest id held (0 when empty, as upstream). */
  highestId: number;
}

/** The ring buffer of the module comment: `capacity` records, ids from 0. */
export class EventRingBuffer<T> {
  private items: (T | undefined)[];
  /** Id the next record gets. */
  private nextId = 0;
  /** Records held. */
  private held = 0;
  private cap: number;

  /** @throws RangeError when `capacity` is not a positive integer */
  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity <= 0)
      throw new RangeError(`ring buffer capacity must be a positive integer, got ${capacity}`);
    this.cap = capacity;
    this.items = new Array<T | undefined>(capacity);
  }

  get capacity(): number {
    return this.cap;
  }

  /** Records held now. */
  get size(): number {
    return this.held;
  }

  get lowestId(): number {
    return this.nextId - this.size;
  }

  get highestId(): number {
    return this.nextId === 0 ? 0 : this.nextId - 1;
  }

  /** Adds a record, overwriting the oldest when full. @returns its id */
  add(record: T): number {
    const id = this.nextId++;
    this.items[id % this.cap] = record;
    if (this.held < this.cap) this.held++;
    return id;
  }

  private at(id: number): T {
    return this.items[id % this.cap]!;
  }

  /**
   * Up to `count` records from id `start` on (GetEventsFromID): none when `start` is not held (too low or too high);
   * the ids held are returned either way so that a client can ask again from `lowestId`.
   */
  fromId(start: number, count: number): EventRange<T> {
    const out: T[] = [];
    if (start >= this.lowestId && start < this.nextId) {
      const end = Math.min(this.nextId, start + Math.min(count, this.cap));
      for (let id = start; id < end; id++) out.push(this.at(id));
    }
    return { records: out, lowestId: this.lowestId, highestId: this.highestId };
  }

  /** The newest `count` records, oldest first (GetRecentEvents). */
  recent(count: number): T[] {
    const n = Math.min(count, this.size);
    return this.fromId(this.nextId - n, n).records;
  }

  /**
   * A new capacity (config reload): the newest records that fit are kept with their ids; the id sequence continues.
   * @throws RangeError when `capacity` is not a positive integer
   */
  resize(capacity: number): void {
    if (!Number.isInteger(capacity) || capacity <= 0)
      throw new RangeError(`ring buffer capacity must be a positive integer, got ${capacity}`);
    if (capacity === this.cap) return;
    const keep = this.recent(capacity);
    const first = this.nextId - keep.length;
    this.cap = capacity;
    this.items = new Array<T | undefined>(capacity);
    this.held = keep.length;
    keep.forEach((r, i) => (this.items[(first + i) % capacity] = r));
  }
}
