/**
 * The life-cycle timers of applications on the injected clock (yunikorn-core reference §4.2, §6): one pending timer per
 * application instance, due in time order. The partition sets a timer when an application enters a timed state
 * (Starting 5 min, Completing 30 s, Completed/Failed/Rejected 3 days) and fires the event when it is due, so a
 * scheduling cycle looks only at due timers, not at every application.
 */
import { compareNumbers } from "../../util/btree.js";
import { SortedList } from "../../util/sorted-list.js";
import type { Application } from "./application.js";
import type { AppEvent } from "./application-state.js";

/** A pending timer (kept on the application, `Application.timer`): when, and the event it fires. */
export interface TimerKey {
  readonly at: number;
  readonly serial: number;
  readonly event: AppEvent;
}
const timerOrder = (a: TimerKey, b: TimerKey) => compareNumbers(a.at, b.at) || a.serial - b.serial;

/**
 * The pending life-cycle timers of a partition's applications (module comment), ordered by due time (milliseconds since
 * the epoch), then by application instance.
 */
export class AppTimers {
  /** A timer due after every other (the usual case: timers are set at `now` plus a fixed delay) is appended. */
  private readonly due = new SortedList<TimerKey, Application>(timerOrder);
  private nextSerial = 0;

  /** A stable number per application instance (ids repeat across runs of the same application). */
  serial(app: Application): number {
    return (app.serial ??= this.nextSerial++);
  }

  /** Replaces the application's timer: `event` at `at` (milliseconds), or none. */
  set(app: Application, timer: { at: number; event: AppEvent } | undefined): void {
    if (app.timer) this.due.delete(app.timer);
    app.timer = undefined;
    if (!timer) return;
    const key = { at: timer.at, serial: this.serial(app), event: timer.event };
    this.due.set(key, app);
    app.timer = key;
  }

  /** Takes the earliest timer due at `now`, or undefined. */
  take(now: number): [Application, AppEvent] | undefined {
    const k = this.due.minKey();
    if (!k || k.at > now) return undefined;
    const app = this.due.minValue()!;
    this.due.delete(k);
    app.timer = undefined;
    return [app, k.event];
  }
}
