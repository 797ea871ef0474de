/**
 * The life-cycle timers of applications on the injected clock (yunikorn-core reference §4.2, §6): one pending timer per
 * application instance, due in time order. The partition sets a timer when an application enters a timed state
 * (Starting 5 min, Completing 30 s, Completed/Failed/Rejected 3 days) and fires the event when it is due, so a
 * scheduling cycle looks only at due timers, not at every application.
 */
import { compareNumbers } from "../../util/compare.js";
import { SortedList } from "../../util/sorted-list.js";
import type { Application } from "./application.js";
import type { AppEvent } from "./application-state.js";

/**
 * Timer order: due time, then application instance. An application is its own key (its pending timer is kept in
 * `Application.timerAt`/`timerEvent`, changed only while it is out of the order): no key object per timer.
 */
const timerOrder = (a: Application, b: Application) => compareNumbers(a.timerAt!, b.timerAt!) || a.serial! - b.serial!;

/**
 * The pending life-cycle timers of a partition's applications (module comment), ordered by due time (milliseconds since
 * the epoch), then by application instance.
 */
export class AppTimers {
  /** A timer due after every other (the usual case: timers are set at `now` plus a fixed delay) is appended. */
  private readonly due = new SortedList<Application, Application>(timerOrder);
  private nextSerial = 0;

  /** A stable number per application instance (ids repeat across runs of the same application). */
  serial(app: Application): number {
    return (app.serial ??= this.nextSerial++);
  }

  /** Replaces the application's timer: `event` at `at` (milliseconds). */
  set(app: Application, at: number, event: AppEvent): void {
    this.clear(app);
    this.serial(app);
    app.timerAt = at;
    app.timerEvent = event;
    this.due.set(app, app);
  }

  /** Drops the application's timer, if any. */
  clear(app: Application): void {
    if (app.timerAt !== undefined) this.due.delete(app);
    app.timerAt = undefined;
    app.timerEvent = undefined;
  }

  /** Takes the earliest timer due at `now`, or undefined. */
  take(now: number): [Application, AppEvent] | undefined {
    const app = this.due.minKey();
    if (!app || app.timerAt! > now) return undefined;
    const event = app.timerEvent!;
    this.clear(app);
    return [app, event];
  }
}
