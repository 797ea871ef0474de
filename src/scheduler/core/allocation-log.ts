/**
 * The allocation log of pending asks (apache/yunikorn-core pkg/scheduler/objects/allocation.go LogAllocationFailure,
 * AllocationLogEntry; REST AllocationAskLogDAOInfo): each distinct reason an ask was held for, how often it was seen
 * and when last. Bounded: at most `ALLOCATION_LOG_ENTRIES` reasons per ask (the oldest seen is dropped for a new one),
 * since corral's reasons carry amounts and may vary while an ask waits.
 */

/** Reasons kept per ask. */
export const ALLOCATION_LOG_ENTRIES = 10;

/** One reason an ask was held for. */
export interface AllocationLogEntry {
  readonly message: string;
  /** Unix milliseconds. */
  readonly lastOccurrence: number;
  readonly count: number;
}

/** The logs of every pending ask, by an id the caller chooses (the core: partition and allocation id). */
export class AllocationLogs {
  private readonly logs = new Map<string, Map<string, { count: number; last: number }>>();

  /** Counts `message` for ask `id` at `now` (Unix ms). */
  record(id: string, message: string, now: number): void {
    let log = this.logs.get(id);
    if (!log) this.logs.set(id, (log = new Map()));
    const e = log.get(message);
    if (e) {
      e.count++;
      e.last = now;
      // keep the map in order of last occurrence: the first entry is the one to drop
      log.delete(message);
      log.set(message, e);
      return;
    }
    if (log.size >= ALLOCATION_LOG_ENTRIES) log.delete(log.keys().next().value!);
    log.set(message, { count: 1, last: now });
  }

  /** The entries of ask `id`, oldest `lastOccurrence` first. */
  entries(id: string): AllocationLogEntry[] {
    return [...(this.logs.get(id)?.entries() ?? [])].map(([message, e]) => ({ message, lastOccurrence: e.last, count: e.count }));
  }

  forget(id: string): void {
    this.logs.delete(id);
  }

  /** Number of asks with a log. */
  get size(): number {
    return this.logs.size;
  }
}
