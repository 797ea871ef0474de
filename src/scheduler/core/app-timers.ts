/**
 * The life-cycle timers of applications on the injected clock (yunikorn-core reference §4.2, §6): one pending timer per
 * application instance, due in time order. The partition sets a timer when an application enters a timed state
 * (Starting 5 min, Completing 30 s, Completed/Failed/Rejected 3 days) and fires the event when it is due, so a
 * scheduling cycle looks only at due timers, not at every application.
 */
import { BTree } from "../../util/btree.js";
import type { Application } from "./application.js";
import type { AppEvent } from "./application-state.js";

interface TimerKey {
  at: number;
  serial: number;
}
const timerOrder = (a: TimerKey, b: TimerKey) => a.at - b.at || a.serial - b.serial;

export class AppTimers {
  private readonly due = new BTree<TimerKey, [Application, AppEvent]>(undefined, timerOrder);
  private readonly keys = new Map<Application, TimerKey>();
  private readonly serials = new WeakMap<Application, number>();
  private nextSerial = 0;

  /** A stable number per application instance (ids repeat across runs of the same application). */
  serial(app: Application): number {
    let s = this.serials.get(app);
    if (s === undefined) this.serials.set(app, (s = this.nextSerial++));
    return s;
  }

  /** Replaces the application's timer: `event` at `at` (milliseconds), or none. */
  set(app: Application, timer: { at: number; event: AppEvent } | undefined): void {
    const old = this.keys.get(app);
    if (old) this.due.delete(old);
    this.keys.delete(app);
    if (!timer) return;
    const key = { at: timer.at, serial: this.serial(app) };
    this.due.set(key, [app, timer.event]);
    this.keys.set(app, key);
  }

  /** Takes the earliest timer due at `now`, or undefined. */
  take(now: number): [Application, AppEvent] | undefined {
    const k = this.due.minKey();
    if (!k || k.at > now) return undefined;
    const v = this.due.get(k)!;
    this.due.delete(k);
    this.keys.delete(v[0]);
    return v;
  }
}
