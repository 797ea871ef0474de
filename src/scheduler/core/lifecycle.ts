/**
 * What entering an application state means (apache/yunikorn-core pkg/scheduler/objects/application_state.go
 * callbacks, partition.go's application maps; yunikorn-core reference §4.2): the event table (application-state.ts)
 * says where an event leads, `Lifecycle.fire` applies it — running counts up the queue path (once per entry into and
 * exit from Starting/Running), the state log, timers (Starting 5 min, Completing 30 s, Completed/Failed/Rejected
 * 3 days), the registry of finished and rejected applications until they expire, and the change records for the
 * resource manager (none for Rejected, as upstream).
 */
import type { Application } from "./application.js";
import {
  type AppEvent,
  type AppState,
  COMPLETING_TIMEOUT_MS,
  RUNNING_STATES,
  STARTING_TIMEOUT_MS,
  TERMINATED_TIMEOUT_MS,
  nextState,
} from "./application-state.js";
import { AppTimers } from "./app-timers.js";
import type { Queue } from "./queue.js";
import { type CoreCounts, countTerminal } from "./counts.js";

/** An application state change, for the resource manager (UpdatedApplication). */
export interface AppStateChange {
  /** The partition the application is in. */
  partition: string;
  appId: string;
  from: AppState;
  to: AppState;
  at: number;
  /** Why (upstream's state change info), e.g. `ResourceReservationTimeout` for a failed gang. */
  message?: string;
}

/**
 * Applies application state events for one partition (module comment): counts, state log, timers and the registry of
 * finished and rejected applications.
 */
export class Lifecycle {
  /** Rejected applications by id, until they expire. */
  readonly rejected = new Map<string, Application>();
  /** Completed and failed application instances, until they expire (an id may run again). */
  readonly terminated = new Map<number, Application>();
  /** The latest completed or failed instance of each application id (lookups without a scan). */
  readonly lastTerminated = new Map<string, Application>();
  private changes: AppStateChange[] = [];
  private readonly timers = new AppTimers();

  private readonly partition: string;
  private readonly leave: (app: Application) => void;
  private readonly counts: CoreCounts;

  /**
   * @param o.partition the partition's name, in every change record
   * @param o.leave takes a Completed or Failed application out of its queue and the active registry
   * @param o.counts the core's counts (counts.ts): entries into Accepted, Completed, Failed and Rejected
   */
  constructor(o: { partition: string; leave: (app: Application) => void; counts: CoreCounts }) {
    this.partition = o.partition;
    this.leave = o.leave;
    this.counts = o.counts;
  }

  /**
   * Moves `app` by `event`.
   * @throws Error `event <e> inappropriate in current state <s>` when the table has no row (a bug of the caller)
   */
  fire(app: Application, event: AppEvent, now: number, message?: string): void {
    const from = app.state;
    const to = nextState(from, event);
    if (to === from) return;
    app.enter(to, now);
    const delta = (RUNNING_STATES.has(to) ? 1 : 0) - (RUNNING_STATES.has(from) ? 1 : 0);
    if (delta !== 0) for (let q: Queue | undefined = app.queue; q; q = q.parent) q.runningApps += delta;
    if (app.allocatingCounted && to !== "Accepted" && to !== "Reserving") this.uncountAllocating(app);
    if (to !== "Rejected")
      this.changes.push(
        message
          ? { partition: this.partition, appId: app.id, from, to, at: now, message }
          : { partition: this.partition, appId: app.id, from, to, at: now },
      );
    switch (to) {
      case "Starting":
        this.timers.set(app, now + STARTING_TIMEOUT_MS, "runApplication");
        break;
      case "Completing":
        this.timers.set(app, now + COMPLETING_TIMEOUT_MS, "completeApplication");
        break;
      case "Accepted":
        this.counts.submissions.accepted++;
        this.timers.clear(app);
        break;
      case "Completed":
      case "Failed":
        if (to === "Completed") this.counts.terminated.completed++;
        else this.counts.terminated.failed++;
        countTerminal(this.counts, app.queue.path, to === "Completed" ? "completed" : "failed", app.queue);
        this.leave(app);
        this.terminated.set(this.timers.serial(app), app);
        this.lastTerminated.set(app.id, app);
        this.timers.set(app, now + TERMINATED_TIMEOUT_MS, "expireApplication");
        break;
      case "Rejected":
        this.counts.submissions.rejected++;
        this.rejected.set(app.id, app);
        this.timers.set(app, now + TERMINATED_TIMEOUT_MS, "expireApplication");
        break;
      case "Expired":
        this.timers.clear(app);
        this.terminated.delete(this.timers.serial(app));
        if (this.lastTerminated.get(app.id) === app) this.lastTerminated.delete(app.id);
        if (this.rejected.get(app.id) === app) this.rejected.delete(app.id);
        break;
      default:
        this.timers.clear(app);
    }
  }

  /** Fires every timer due at `now`. */
  tick(now: number): void {
    for (let t = this.timers.take(now); t; t = this.timers.take(now)) this.fire(t[0], t[1], now);
  }

  /**
   * `app` got an allocation before running (a gang's placeholder while Accepted or Reserving): from now until it runs
   * or leaves those states it counts as running for its queues' maxapplications (upstream setAllocatingAccepted).
   */
  allocating(app: Application): void {
    if (app.allocatingCounted || (app.state !== "Accepted" && app.state !== "Reserving")) return;
    app.allocatingCounted = true;
    for (let q: Queue | undefined = app.queue; q; q = q.parent) q.allocatingApps++;
  }

  private uncountAllocating(app: Application): void {
    app.allocatingCounted = false;
    for (let q: Queue | undefined = app.queue; q; q = q.parent) q.allocatingApps--;
  }

  /** Drops the timer of an application removed by the resource manager, and its place among the allocating ones. */
  forget(app: Application): void {
    this.timers.clear(app);
    if (app.allocatingCounted) this.uncountAllocating(app);
  }

  /** State changes since the last call. */
  drainChanges(): AppStateChange[] {
    const c = this.changes;
    this.changes = [];
    return c;
  }
}
