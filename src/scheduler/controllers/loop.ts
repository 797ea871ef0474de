/**
 * The scheduler's periodic work as keys of one work queue (kube/workqueue.ts), reconciled one at a time:
 *
 *  - `schedule`: one scheduling cycle; asked for by `kick()` (informer events, settled bindings), and at least
 *    every `intervalMs` (each cycle asks for the next after `intervalMs`; a kicked cycle in between does not postpone
 *    it, as a waiting key keeps the earlier time). Kicks are coalesced: a kick defers the cycle to the end of the current turn of
 *    the event loop (`defer`, `setImmediate` by default), and kicks until then ask for the same cycle;
 *  - `config`: reload the queue configuration (ConfigMap events);
 *  - `holdReasons`: report changed hold reasons, every `holdReasonsMs`;
 *  - `resync`: level-triggered repair from the informer caches (missed watch events), every `resyncMs`.
 *
 * The work itself is passed in; a throwing reconcile is retried with the work queue's backoff.
 */
import { type Clock, SYSTEM_CLOCK, WorkQueue, runController } from "../../kube/workqueue.js";

/** The keys of the loop. */
export type LoopKey = "schedule" | "config" | "holdReasons" | "resync";

/** Options of {@link runSchedulingLoop}; times in milliseconds. */
export interface SchedulingLoopOptions {
  /** One scheduling cycle. */
  schedule: () => void;
  reloadConfig: () => void;
  holdReasons: () => void;
  resync: () => void;
  intervalMs: number;
  holdReasonsMs: number;
  resyncMs: number;
  /** Runs `fn` once the current turn of the event loop is over (default `setImmediate`). */
  defer?: (fn: () => void) => void;
  /** Called with an error a reconcile threw (before it is retried). */
  onError?: (key: LoopKey, err: unknown) => void;
  clock?: Clock;
}

/** The running loop. */
export interface SchedulingLoop {
  /** Asks for a scheduling cycle soon (coalesced, see the module comment). */
  kick(): void;
  /** Asks for a configuration reload. */
  reloadConfig(): void;
  /** Stops the loop; resolves when the key being reconciled is done. */
  stop(): Promise<void>;
}

/** Starts the loop: a cycle at once, hold reasons and resync after their periods. */
export function runSchedulingLoop(o: SchedulingLoopOptions): SchedulingLoop {
  const clock = o.clock ?? SYSTEM_CLOCK;
  const defer = o.defer ?? ((fn) => void setImmediate(fn));
  const queue = new WorkQueue<LoopKey>({ clock });
  const work: Record<LoopKey, { run: () => void; every?: number }> = {
    schedule: { run: o.schedule, every: o.intervalMs },
    config: { run: o.reloadConfig },
    holdReasons: { run: o.holdReasons, every: o.holdReasonsMs },
    resync: { run: o.resync, every: o.resyncMs },
  };
  const controller = runController<LoopKey>({
    queue,
    reconcile: async (key) => {
      work[key].run();
      return { requeueAfter: work[key].every };
    },
    onError: o.onError,
  });
  let deferred = false;
  const kick = () => {
    if (deferred) return;
    deferred = true;
    defer(() => {
      deferred = false;
      queue.add("schedule");
    });
  };
  kick();
  queue.addAfter("holdReasons", o.holdReasonsMs);
  queue.addAfter("resync", o.resyncMs);
  return { kick, reloadConfig: () => queue.add("config"), stop: () => controller.stop() };
}
