/**
 * A rate-limited work queue of keys and the loop that reconciles them, with the semantics of client-go's workqueue
 * and controller-runtime's Reconcile (k8s.io/client-go/util/workqueue, sigs.k8s.io/controller-runtime/pkg/internal/
 * controller):
 *
 *  - a key is queued at most once: adding a key that is already queued does nothing; adding a key that is being
 *    processed marks it dirty, and it is queued again when its processing is done (never processed twice at once);
 *  - `addAfter(key, ms)` queues it after a delay; a key already waiting keeps the earlier of the two ready times;
 *  - `addRateLimited(key)` waits as long as the rate limiter says: exponential per-item backoff (base · 2^failures,
 *    capped) combined with an overall token bucket, the larger delay wins; `forget(key)` resets the item's failures;
 *  - `runController` takes keys one at a time (or `workers` at a time), calls the reconciler, and on an error
 *    re-queues the key rate-limited; on success it forgets the key and, when asked, re-queues it after `requeueAfter`.
 *
 * Time comes from an injected {@link Clock}, so backoff and delays are tested by moving a fake clock.
 */

/** Milliseconds since an arbitrary origin, and timers on the same scale. */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The process clock; its timers do not keep the process alive. */
export const SYSTEM_CLOCK: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

/** How long to wait before an item may be retried. */
export interface RateLimiter<K> {
  /** Delay in ms before `key` is retried now (counts one more failure). */
  when(key: K): number;
  /** Clears the failures of `key`. */
  forget(key: K): void;
  /** Failures counted for `key` since it was last forgotten. */
  numRequeues(key: K): number;
}

/** Per-item exponential backoff: `baseMs · 2^failures`, at most `maxMs` (client-go ItemExponentialFailureRateLimiter). */
export class ExponentialBackoff<K> implements RateLimiter<K> {
  private readonly failures = new Map<K, number>();
  constructor(private readonly o: { baseMs: number; maxMs: number }) {}
  when(key: K): number {
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    return Math.min(this.o.maxMs, this.o.baseMs * 2 ** n);
  }
  forget(key: K): void {
    this.failures.delete(key);
  }
  numRequeues(key: K): number {
    return this.failures.get(key) ?? 0;
  }
}

/**
 * A token bucket: `perSecond` tokens a second, at most `burst` held; starts with `initial` (default `burst`).
 * The rate may be changed at any time (`setRate`); tokens already earned are kept, capped at the new burst.
 * (The housekeeping eviction limit of the bootstrapper is one; the work queue's overall retry limit another.)
 */
export class TokenBucket {
  private tokens: number;
  private last: number;
  constructor(private o: { perSecond: number; burst: number; initial?: number; clock: Clock }) {
    this.tokens = o.initial ?? o.burst;
    this.last = o.clock.now();
  }
  private refill(): void {
    const now = this.o.clock.now();
    this.tokens = Math.min(this.o.burst, this.tokens + ((now - this.last) / 1000) * this.o.perSecond);
    this.last = now;
  }
  /**
   * Changes the rate and the burst. The new rate also applies to the time since the last refill (the last
   * {@link has}, {@link tryTake} or {@link reserve}), so a caller that sets the rate before each use pays at that rate.
   */
  setRate(perSecond: number, burst: number): void {
    this.o = { ...this.o, perSecond, burst };
    this.tokens = Math.min(burst, this.tokens);
  }
  /** Whether a token is there now (none is taken). */
  has(): boolean {
    this.refill();
    return this.tokens >= 1;
  }
  /** Takes a token when one is there. @returns whether one was taken */
  tryTake(): boolean {
    this.refill();
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
  /** Reserves a token (possibly going into debt). @returns ms until the reserved token is earned (0 when it was there) */
  reserve(): number {
    this.refill();
    this.tokens -= 1;
    if (this.tokens >= 0) return 0;
    return this.o.perSecond > 0 ? Math.ceil((-this.tokens / this.o.perSecond) * 1000) : Number.POSITIVE_INFINITY;
  }
}

/** The larger delay of per-item backoff and an overall token bucket (controller-runtime's default rate limiter). */
export class MaxOfRateLimiter<K> implements RateLimiter<K> {
  constructor(
    private readonly backoff: RateLimiter<K>,
    private readonly bucket: TokenBucket,
  ) {}
  when(key: K): number {
    return Math.max(this.backoff.when(key), this.bucket.reserve());
  }
  forget(key: K): void {
    this.backoff.forget(key);
  }
  numRequeues(key: K): number {
    return this.backoff.numRequeues(key);
  }
}

/**
 * controller-runtime's default: 5 ms doubling to 1000 s per item, and 10 retries a second (burst 100) overall.
 * @param o.maxMs a lower cap on the per-item backoff
 */
export function defaultRateLimiter<K>(clock: Clock, o: { baseMs?: number; maxMs?: number } = {}): RateLimiter<K> {
  return new MaxOfRateLimiter<K>(
    new ExponentialBackoff<K>({ baseMs: o.baseMs ?? 5, maxMs: o.maxMs ?? 1_000_000 }),
    new TokenBucket({ perSecond: 10, burst: 100, clock }),
  );
}

/** Options of {@link WorkQueue}. */
export interface WorkQueueOptions<K> {
  clock?: Clock;
  rateLimiter?: RateLimiter<K>;
}

/** The rate-limited, de-duplicating queue (see the module comment). Keys are compared with `===` (strings suit). */
export class WorkQueue<K> {
  readonly clock: Clock;
  private readonly limiter: RateLimiter<K>;
  private readonly queue: K[] = [];
  /** Keys that need processing: queued, or added again while being processed. */
  private readonly dirty = new Set<K>();
  private readonly processing = new Set<K>();
  /** Keys waiting for a delay: ready time and timer. */
  private readonly waiting = new Map<K, { at: number; timer: unknown }>();
  private readonly getters: ((k: K | undefined) => void)[] = [];
  private shuttingDown = false;

  constructor(o: WorkQueueOptions<K> = {}) {
    this.clock = o.clock ?? SYSTEM_CLOCK;
    this.limiter = o.rateLimiter ?? defaultRateLimiter<K>(this.clock);
  }

  /** Queues `key` unless it is queued already; a key being processed is queued again when it is done. */
  add(key: K): void {
    if (this.shuttingDown || this.dirty.has(key)) return;
    this.dirty.add(key);
    if (this.processing.has(key)) return;
    const getter = this.getters.shift();
    if (getter) {
      this.dirty.delete(key);
      this.processing.add(key);
      getter(key);
    } else {
      this.queue.push(key);
    }
  }

  /** Queues `key` after `ms` (at once when `ms` ≤ 0); a key already waiting keeps the earlier ready time. */
  addAfter(key: K, ms: number): void {
    if (this.shuttingDown) return;
    if (ms <= 0) return this.add(key);
    const at = this.clock.now() + ms;
    const w = this.waiting.get(key);
    if (w && w.at <= at) return;
    if (w) this.clock.clearTimeout(w.timer);
    const timer = this.clock.setTimeout(() => {
      this.waiting.delete(key);
      this.add(key);
    }, ms);
    this.waiting.set(key, { at, timer });
  }

  /** Queues `key` after the rate limiter's delay (one more failure counted). */
  addRateLimited(key: K): void {
    this.addAfter(key, this.limiter.when(key));
  }

  /** Clears the failures of `key` (call after it was processed successfully). */
  forget(key: K): void {
    this.limiter.forget(key);
  }

  /** Failures counted for `key`. */
  numRequeues(key: K): number {
    return this.limiter.numRequeues(key);
  }

  /** Keys queued and ready (not waiting, not being processed). */
  get length(): number {
    return this.queue.length;
  }

  /** The next key, once one is ready; undefined after {@link shutDown}. The caller must call {@link done} with it. */
  get(): Promise<K | undefined> {
    const key = this.queue.shift();
    if (key !== undefined) {
      this.dirty.delete(key);
      this.processing.add(key);
      return Promise.resolve(key);
    }
    if (this.shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.getters.push(resolve));
  }

  /** Ends the processing of `key`; queues it again when it was added meanwhile. */
  done(key: K): void {
    this.processing.delete(key);
    if (this.dirty.has(key)) {
      this.dirty.delete(key);
      this.add(key);
    }
  }

  /** Stops the queue: waiting keys are dropped, `get` returns undefined, `add` does nothing. */
  shutDown(): void {
    this.shuttingDown = true;
    for (const w of this.waiting.values()) this.clock.clearTimeout(w.timer);
    this.waiting.clear();
    for (const g of this.getters.splice(0)) g(undefined);
  }
}

/** What a reconciler asks for after success: nothing, or to be run again after `requeueAfter` ms. */
export interface ReconcileResult {
  requeueAfter?: number;
}

/** Options of {@link runController}. */
export interface ControllerOptions<K> {
  queue: WorkQueue<K>;
  /** Makes the state of `key` right; throws to be retried with backoff. */
  reconcile: (key: K) => Promise<ReconcileResult | void>;
  /** Called with each reconcile error (before the key is re-queued rate-limited). */
  onError?: (key: K, err: unknown) => void;
  /** Keys reconciled at once (different keys only). Default 1. */
  workers?: number;
}

/** A running controller: its queue, a way to wait for a run, and the promise of its workers ending. */
export interface Controller<K> {
  queue: WorkQueue<K>;
  /**
   * Queues `key` and resolves once a reconcile of it that started after this call has ended (success or error); at
   * once when the controller is stopped.
   */
  enqueueAndWait(key: K): Promise<void>;
  /** Shuts the queue down and resolves when the workers have finished their current keys. */
  stop(): Promise<void>;
}

/** Runs workers that take keys from the queue and reconcile them (controller-runtime's processNextWorkItem). */
export function runController<K>(o: ControllerOptions<K>): Controller<K> {
  const { queue } = o;
  /** Waiters for the next run of a key, and waiters for the run in progress. */
  const pending = new Map<K, (() => void)[]>();
  const running = new Map<K, (() => void)[]>();
  const worker = async (): Promise<void> => {
    for (;;) {
      const key = await queue.get();
      if (key === undefined) return;
      running.set(key, pending.get(key) ?? []);
      pending.delete(key);
      try {
        const r = await o.reconcile(key);
        queue.forget(key);
        if (r && r.requeueAfter !== undefined) queue.addAfter(key, r.requeueAfter);
      } catch (err) {
        o.onError?.(key, err);
        queue.addRateLimited(key);
      } finally {
        for (const w of running.get(key) ?? []) w();
        running.delete(key);
        queue.done(key);
      }
    }
  };
  let stopped = false;
  const workers = Array.from({ length: o.workers ?? 1 }, () => worker());
  return {
    queue,
    enqueueAndWait(key) {
      if (stopped) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const list = pending.get(key) ?? [];
        list.push(resolve);
        pending.set(key, list);
        queue.add(key);
      });
    },
    async stop() {
      stopped = true;
      queue.shutDown();
      await Promise.all(workers);
      for (const list of pending.values()) for (const w of list) w();
      pending.clear();
    },
  };
}
