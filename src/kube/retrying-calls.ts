/**
 * Calls to the API server that are retried with backoff, one controller per kind of call (a binding, a placeholder
 * create, an eviction), on the keyed {@link WorkQueue} with controller-runtime's semantics:
 *
 *  - a job is stored under its key (e.g. a pod UID) and the key queued; pushing a job for a key that is already
 *    pending replaces the job (the latest desired state wins) and does not queue the key twice;
 *  - each reconcile makes one attempt; an attempt that asks to be retried re-queues the key rate-limited (per-key
 *    backoff `baseMs · 2^failures`, capped at `maxMs`) until `attempts` attempts were made, then the job settles
 *    with the last result; an attempt that needs no retry settles the job at once, and the key's failures are
 *    forgotten;
 *  - `blockedBy` parks a job until another key of the same controller has settled (a gang member waits for the
 *    binding of the placeholder it replaces) without holding a worker; `before` runs once before a job's first
 *    attempt (deleting that placeholder).
 *
 * Time comes from the injected clock, so the backoff is tested with a fake one.
 */
import { type Clock, ExponentialBackoff, SYSTEM_CLOCK, WorkQueue, runController } from "./workqueue.js";

/** What one attempt came to: `retry` asks for another attempt (when any is left); `result` is what settles the job. */
export interface Attempt<R> {
  retry: boolean;
  result: R;
}

/** Options of {@link runRetryingCalls}. */
export interface RetryingCallsOptions<J, R> {
  /** The key of a job (jobs with the same key replace each other). */
  key: (job: J) => string;
  /** Makes one attempt. A rejection counts as `{ retry: true }` with `onReject`'s result. */
  attempt: (job: J) => Promise<Attempt<R>>;
  /** The result of an attempt that threw. */
  onReject: (job: J, err: unknown) => R;
  /** Called once per job with its final result and the number of attempts made. */
  settle: (job: J, result: R, attempts: number) => void;
  /** Attempts per job (at least 1), or a function of the job. */
  attempts: number | ((job: J) => number);
  /** Backoff before the second attempt, in ms; doubles per failure up to `maxMs` (default 250 ms, 60 s). */
  baseMs?: number;
  maxMs?: number;
  /** Jobs attempted at once (different keys only). */
  workers: number;
  /** A key of this controller that must settle before `job` is attempted (parked until then), if any. */
  blockedBy?: (job: J) => string | undefined;
  /** Runs once before the first attempt of `job` (after any block). */
  before?: (job: J) => Promise<void>;
  clock?: Clock;
}

/** A running controller of retried calls. */
export interface RetryingCalls<J, R> {
  /** Stores `job` under its key and queues the key. @returns the job's final result (undefined when stopped first) */
  push(job: J): Promise<R | undefined>;
  /** Whether a job is pending (queued, backing off, parked or being attempted) under `key`. */
  pending(key: string): boolean;
  /** Jobs pending. */
  readonly size: number;
  /** Stops taking jobs; resolves when the attempts in progress have ended. Pending jobs resolve undefined. */
  stop(): Promise<void>;
}

/** Starts a controller of retried calls (see the module comment). */
export function runRetryingCalls<J, R>(o: RetryingCallsOptions<J, R>): RetryingCalls<J, R> {
  const clock = o.clock ?? SYSTEM_CLOCK;
  const queue = new WorkQueue<string>({
    clock,
    rateLimiter: new ExponentialBackoff<string>({ baseMs: o.baseMs ?? 250, maxMs: o.maxMs ?? 60_000 }),
  });
  const jobs = new Map<string, { job: J; started: boolean; waiters: ((r: R | undefined) => void)[] }>();
  /** Keys parked until the key they are blocked by settles. */
  const parked = new Map<string, Set<string>>();
  /** Thrown to have the work queue re-queue a key rate-limited. */
  const RETRY = Symbol("retry");

  const finish = (key: string, entry: NonNullable<ReturnType<typeof jobs.get>>, result: R | undefined): void => {
    if (jobs.get(key) === entry) jobs.delete(key);
    for (const w of entry.waiters) w(result);
    for (const k of parked.get(key) ?? []) queue.add(k);
    parked.delete(key);
  };

  const reconcile = async (key: string): Promise<void> => {
    const entry = jobs.get(key);
    if (!entry) return;
    const blocker = o.blockedBy?.(entry.job);
    if (blocker !== undefined && blocker !== key && jobs.has(blocker)) {
      parked.set(blocker, (parked.get(blocker) ?? new Set()).add(key));
      return;
    }
    if (!entry.started) {
      entry.started = true;
      await o.before?.(entry.job);
    }
    let a: Attempt<R>;
    try {
      a = await o.attempt(entry.job);
    } catch (err) {
      a = { retry: true, result: o.onReject(entry.job, err) };
    }
    const made = queue.numRequeues(key) + 1;
    const attempts = typeof o.attempts === "number" ? o.attempts : o.attempts(entry.job);
    if (a.retry && made < attempts && jobs.get(key) === entry) throw RETRY;
    o.settle(entry.job, a.result, made);
    finish(key, entry, a.result);
  };

  const controller = runController<string>({ queue, reconcile, workers: o.workers });
  let stopped = false;
  return {
    push(job) {
      if (stopped) return Promise.resolve(undefined);
      const key = o.key(job);
      return new Promise((resolve) => {
        const prev = jobs.get(key);
        // A replaced job that was not attempted yet settles with its successor; one being attempted settles itself.
        const entry = { job, started: false, waiters: prev && !prev.started ? [...prev.waiters, resolve] : [resolve] };
        if (prev && !prev.started) prev.waiters = [];
        jobs.set(key, entry);
        queue.add(key);
      });
    },
    pending: (key) => jobs.has(key),
    get size() {
      return jobs.size;
    },
    async stop() {
      stopped = true;
      await controller.stop();
      for (const [key, entry] of [...jobs]) finish(key, entry, undefined);
    },
  };
}
