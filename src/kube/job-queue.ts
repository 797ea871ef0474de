/**
 * A bounded first-in-first-out queue of jobs that are not keyed (events, status writes): each job is run once, at most
 * `concurrency` at a time, and when `limit` jobs are waiting the oldest waiting one is dropped for a new one. Jobs that
 * stand for a desired state of an object belong on a keyed {@link WorkQueue} instead (kube/workqueue.ts).
 */

/** Options of {@link JobQueue}. */
export interface JobQueueOptions<T> {
  /** Runs one job; a rejection is the job's own business (it is not retried) and is passed to `onError`. */
  work: (job: T) => Promise<void>;
  /** Jobs run at once: a number, or a function read each time a job could start (so it may change with load). */
  concurrency: number | (() => number);
  /** Jobs waiting at most (default unbounded); beyond it the oldest waiting job is dropped. */
  limit?: number;
  /** Called once per dropped job. */
  onDrop?: (job: T) => void;
  /** Called with a job's rejection (default: ignored). */
  onError?: (job: T, err: unknown) => void;
}

/** See the module comment. */
export class JobQueue<T> {
  private readonly waiting: T[] = [];
  private active = 0;
  private stopped = false;
  constructor(private readonly o: JobQueueOptions<T>) {}

  /** Queues `job` (dropping the oldest waiting job when the queue is full) and starts what may start. */
  push(job: T): void {
    if (this.stopped) return;
    if (this.waiting.length >= (this.o.limit ?? Number.POSITIVE_INFINITY)) this.o.onDrop?.(this.waiting.shift()!);
    this.waiting.push(job);
    this.pump();
  }

  /** Jobs waiting or running. */
  get size(): number {
    return this.waiting.length + this.active;
  }

  /** Starts waiting jobs up to the concurrency (call when a dynamic concurrency may have grown). */
  pump(): void {
    const limit = typeof this.o.concurrency === "number" ? this.o.concurrency : this.o.concurrency();
    while (!this.stopped && this.active < limit && this.waiting.length > 0) {
      const job = this.waiting.shift()!;
      this.active++;
      void this.o
        .work(job)
        .catch((err: unknown) => this.o.onError?.(job, err))
        .finally(() => {
          this.active--;
          this.pump();
        });
    }
  }

  /** Drops the waiting jobs and runs no more; running jobs finish. */
  stop(): void {
    this.stopped = true;
    this.waiting.length = 0;
  }
}
