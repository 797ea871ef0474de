import type { Clock } from "../../src/kube/workqueue.js";

/** A clock that moves only when told; timers fire in time order as it passes them. */
export class FakeClock implements Clock {
  t = 0;
  private seq = 0;
  private timers = new Map<number, { at: number; fn: () => void }>();
  now(): number {
    return this.t;
  }
  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.seq;
    this.timers.set(id, { at: this.t + ms, fn });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as number);
  }
  advance(ms: number): void {
    const end = this.t + ms;
    for (;;) {
      const next = [...this.timers.entries()].filter(([, v]) => v.at <= end).sort((a, b) => a[1].at - b[1].at || a[0] - b[0])[0];
      if (!next) break;
      this.timers.delete(next[0]);
      this.t = next[1].at;
      next[1].fn();
    }
    this.t = end;
  }
  /**
   * Moves to `t + ms` timer by timer, letting promise callbacks run after each (work started by a timer runs at that
   * timer's time, and the timers it sets are honoured).
   */
  async advanceAsync(ms: number): Promise<void> {
    const end = this.t + ms;
    for (;;) {
      const next = Math.min(...[...this.timers.values()].map((v) => v.at));
      if (!(next <= end)) break;
      this.advance(next - this.t);
      await settle();
    }
    this.t = end;
    await settle();
  }
  get pending(): number {
    return this.timers.size;
  }
}

/** Lets queued promise callbacks run. */
export const settle = async (): Promise<void> => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

/** Lets every queued promise callback run, however long the chain (one turn of the event loop). */
export const flush = (): Promise<void> => new Promise((r) => setImmediate(r));
