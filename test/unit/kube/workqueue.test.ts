import { describe, expect, it } from "vitest";
import {
  ExponentialBackoff,
  MaxOfRateLimiter,
  TokenBucket,
  WorkQueue,
  defaultRateLimiter,
  runController,
} from "../../../src/kube/workqueue.js";
import { FakeClock, settle } from "../../helpers/fake-clock.js";

describe("WorkQueue", () => {
  it("queues a key once however often it is added", async () => {
    const q = new WorkQueue<string>({ clock: new FakeClock() });
    q.add("a");
    q.add("b");
    q.add("a");
    expect(q.length).toBe(2);
    expect(await q.get()).toBe("a");
    expect(await q.get()).toBe("b");
    expect(q.length).toBe(0);
  });

  it("a key added while it is processed is queued again only when it is done, never handed out twice at once", async () => {
    const q = new WorkQueue<string>({ clock: new FakeClock() });
    q.add("a");
    const k = await q.get();
    q.add("a");
    q.add("a");
    expect(q.length).toBe(0);
    q.done(k!);
    expect(q.length).toBe(1);
    expect(await q.get()).toBe("a");
    q.done("a");
    expect(q.length).toBe(0);
  });

  it("get waits for a key and hands it to the first waiter", async () => {
    const q = new WorkQueue<string>({ clock: new FakeClock() });
    const got = q.get();
    q.add("x");
    expect(await got).toBe("x");
  });

  it("addAfter queues after the delay; a key already waiting keeps the earlier ready time", () => {
    const clock = new FakeClock();
    const q = new WorkQueue<string>({ clock });
    q.addAfter("a", 1000);
    q.addAfter("a", 5000);
    q.addAfter("b", 500);
    q.addAfter("b", 200);
    expect(clock.pending).toBe(2);
    clock.advance(199);
    expect(q.length).toBe(0);
    clock.advance(1);
    expect(q.length).toBe(1);
    clock.advance(800);
    expect(q.length).toBe(2);
    expect(clock.pending).toBe(0);
  });

  it("addAfter with no delay queues at once", () => {
    const q = new WorkQueue<string>({ clock: new FakeClock() });
    q.addAfter("a", 0);
    expect(q.length).toBe(1);
  });

  it("shutDown drops waiting keys, ends waiting getters and ignores adds", async () => {
    const clock = new FakeClock();
    const q = new WorkQueue<string>({ clock });
    const got = q.get();
    q.addAfter("a", 100);
    q.shutDown();
    expect(await got).toBeUndefined();
    expect(clock.pending).toBe(0);
    q.add("b");
    expect(await q.get()).toBeUndefined();
  });
});

describe("rate limiters", () => {
  it("exponential backoff doubles per failure up to the cap, per item, until forgotten", () => {
    const b = new ExponentialBackoff<string>({ baseMs: 5, maxMs: 100 });
    expect([b.when("a"), b.when("a"), b.when("a"), b.when("a"), b.when("a"), b.when("a")]).toEqual([5, 10, 20, 40, 80, 100]);
    expect(b.when("b")).toBe(5);
    expect(b.numRequeues("a")).toBe(6);
    b.forget("a");
    expect(b.numRequeues("a")).toBe(0);
    expect(b.when("a")).toBe(5);
  });

  it("a token bucket refills with time, holds at most its burst and can change rate", () => {
    const clock = new FakeClock();
    const t = new TokenBucket({ perSecond: 2, burst: 2, initial: 0, clock });
    expect(t.tryTake()).toBe(false);
    clock.advance(500);
    expect(t.tryTake()).toBe(true);
    expect(t.tryTake()).toBe(false);
    clock.advance(10_000);
    expect([t.tryTake(), t.tryTake(), t.tryTake()]).toEqual([true, true, false]);
    t.setRate(1 / 60, 1);
    clock.advance(30_000);
    expect(t.has()).toBe(false);
    expect(t.tryTake()).toBe(false);
    clock.advance(30_000);
    expect(t.tryTake()).toBe(true);
  });

  it("a new rate applies to the time since the last use", () => {
    const clock = new FakeClock();
    const t = new TokenBucket({ perSecond: 0, burst: 0, initial: 0, clock });
    clock.advance(60_000);
    t.setRate(2 / 60, 2);
    expect(t.has()).toBe(true);
    expect([t.tryTake(), t.tryTake(), t.tryTake()]).toEqual([true, true, false]);
  });

  it("a reserved token past the burst is paid for with a delay", () => {
    const clock = new FakeClock();
    const t = new TokenBucket({ perSecond: 10, burst: 2, clock });
    expect([t.reserve(), t.reserve(), t.reserve(), t.reserve()]).toEqual([0, 0, 100, 200]);
  });

  it("the combined limiter takes the larger delay", () => {
    const clock = new FakeClock();
    const l = new MaxOfRateLimiter<string>(
      new ExponentialBackoff({ baseMs: 5, maxMs: 1000 }),
      new TokenBucket({ perSecond: 1, burst: 1, clock }),
    );
    expect(l.when("a")).toBe(5);
    expect(l.when("b")).toBe(1000);
  });

  it("controller-runtime's default starts at 5 ms per item", () => {
    const l = defaultRateLimiter<string>(new FakeClock());
    expect([l.when("a"), l.when("a"), l.when("a")]).toEqual([5, 10, 20]);
  });
});

describe("runController", () => {
  it("retries a failing key with exponential backoff and forgets its failures after a success", async () => {
    const clock = new FakeClock();
    const queue = new WorkQueue<string>({ clock, rateLimiter: new ExponentialBackoff({ baseMs: 100, maxMs: 10_000 }) });
    const runs: number[] = [];
    const errors: string[] = [];
    let failures = 3;
    const c = runController({
      queue,
      reconcile: async () => {
        runs.push(clock.now());
        if (failures-- > 0) throw new Error("API server unavailable");
      },
      onError: (key, err) => errors.push(`${key}: ${(err as Error).message}`),
    });
    queue.add("sync");
    await settle();
    for (const step of [100, 200, 400]) {
      clock.advance(step);
      await settle();
    }
    expect(runs).toEqual([0, 100, 300, 700]);
    expect(errors).toEqual(["sync: API server unavailable", "sync: API server unavailable", "sync: API server unavailable"]);
    expect(queue.numRequeues("sync")).toBe(0);
    await c.stop();
  });

  it("requeueAfter runs the key again after that delay", async () => {
    const clock = new FakeClock();
    const queue = new WorkQueue<string>({ clock });
    const runs: number[] = [];
    const c = runController({ queue, reconcile: async () => (runs.push(clock.now()), { requeueAfter: 60_000 }) });
    queue.add("housekeep");
    await settle();
    clock.advance(60_000);
    await settle();
    clock.advance(59_999);
    await settle();
    expect(runs).toEqual([0, 60_000]);
    await c.stop();
  });

  it("one key is never reconciled twice at once; adds during a run coalesce into one more run", async () => {
    const queue = new WorkQueue<string>({ clock: new FakeClock() });
    let active = 0;
    let maxActive = 0;
    let runs = 0;
    let release: () => void = () => undefined;
    const c = runController({
      queue,
      workers: 3,
      reconcile: async () => {
        runs++;
        maxActive = Math.max(maxActive, ++active);
        await new Promise<void>((r) => (release = r));
        active--;
      },
    });
    queue.add("k");
    await settle();
    queue.add("k");
    queue.add("k");
    await settle();
    expect(runs).toBe(1);
    release();
    await settle();
    expect(runs).toBe(2);
    release();
    await settle();
    expect(runs).toBe(2);
    expect(maxActive).toBe(1);
    await c.stop();
  });

  it("enqueueAndWait resolves after a run that started after the call", async () => {
    const queue = new WorkQueue<string>({ clock: new FakeClock() });
    const log: string[] = [];
    let release: () => void = () => undefined;
    const c = runController({
      queue,
      reconcile: async (k) => {
        log.push(`start ${k}`);
        await new Promise<void>((r) => (release = r));
        log.push(`end ${k}`);
      },
    });
    queue.add("sync");
    await settle();
    const waited = c.enqueueAndWait("sync").then(() => log.push("waited"));
    release();
    await settle();
    expect(log).toEqual(["start sync", "end sync", "start sync"]);
    release();
    await waited;
    expect(log).toEqual(["start sync", "end sync", "start sync", "end sync", "waited"]);
    await c.stop();
  });

  it("stop ends the workers and releases waiters", async () => {
    const queue = new WorkQueue<string>({ clock: new FakeClock() });
    const c = runController({ queue, reconcile: async () => undefined });
    await c.stop();
    await expect(c.enqueueAndWait("x")).resolves.toBeUndefined();
  });
});
