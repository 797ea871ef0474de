import { describe, expect, it } from "vitest";
import { type Attempt, runRetryingCalls } from "../../../src/kube/retrying-calls.js";
import { FakeClock, settle } from "../../helpers/fake-clock.js";

type Job = { key: string; after?: string };

/** A controller whose attempts answer from a script per key (default: done), logging attempts and settlements. */
function harness(script: Record<string, Attempt<string>[]>, extra: { attempts?: number; workers?: number } = {}) {
  const clock = new FakeClock();
  const log: string[] = [];
  const calls = runRetryingCalls<Job, string>({
    clock,
    key: (j) => j.key,
    attempt: async (j) => {
      log.push(`try ${j.key} @${clock.now()}`);
      const next = script[j.key]?.shift();
      if (next === undefined) return { retry: false, result: "ok" };
      if (next.result === "throw") throw new Error("network");
      return next;
    },
    onReject: (_j, err) => (err as Error).message,
    settle: (j, r, n) => log.push(`settled ${j.key} ${r} after ${n}`),
    attempts: extra.attempts ?? 4,
    baseMs: 250,
    maxMs: 10_000,
    workers: extra.workers ?? 2,
    blockedBy: (j) => j.after,
    before: async (j) => {
      if (j.after) log.push(`before ${j.key}`);
    },
  });
  return { clock, log, calls };
}

describe("runRetryingCalls", () => {
  it("retries with backoff 250 ms doubling, then settles with the first result that needs no retry", async () => {
    const h = harness({
      a: [
        { retry: true, result: "503" },
        { retry: true, result: "throw" },
      ],
    });
    const done = h.calls.push({ key: "a" });
    await settle();
    h.clock.advance(250);
    await settle();
    h.clock.advance(499);
    await settle();
    expect(h.log).toEqual(["try a @0", "try a @250"]);
    h.clock.advance(1);
    await settle();
    expect(await done).toBe("ok");
    expect(h.log).toEqual(["try a @0", "try a @250", "try a @750", "settled a ok after 3"]);
    expect(h.calls.size).toBe(0);
  });

  it("gives up after `attempts` attempts and settles with the last result (a thrown error's included)", async () => {
    const retry = { retry: true, result: "503" };
    const h = harness({ a: [retry, { retry: true, result: "throw" }, retry] }, { attempts: 2 });
    const done = h.calls.push({ key: "a" });
    await settle();
    h.clock.advance(250);
    await settle();
    expect(await done).toBe("network");
    expect(h.log).toEqual(["try a @0", "try a @250", "settled a network after 2"]);
  });

  it("an attempt that needs no retry settles at once, even when it failed", async () => {
    const h = harness({ a: [{ retry: false, result: "403" }] });
    expect(await h.calls.push({ key: "a" })).toBe("403");
    expect(h.log).toEqual(["try a @0", "settled a 403 after 1"]);
  });

  it("a job pushed again before its attempt replaces the first; both pushes get the one result", async () => {
    const h = harness({}, { workers: 1 });
    const first = h.calls.push({ key: "busy" });
    const a1 = h.calls.push({ key: "a" });
    const a2 = h.calls.push({ key: "a" });
    expect(h.calls.size).toBe(2);
    expect(await Promise.all([first, a1, a2])).toEqual(["ok", "ok", "ok"]);
    expect(h.log.filter((l) => l.startsWith("try a"))).toHaveLength(1);
  });

  it("a job blocked by a pending key waits, without a worker, until that key settles; then `before` runs once", async () => {
    const h = harness({ ph: [{ retry: true, result: "503" }] }, { workers: 1 });
    const ph = h.calls.push({ key: "ph" });
    const member = h.calls.push({ key: "m", after: "ph" });
    const other = h.calls.push({ key: "x" });
    await settle();
    // ph backs off; m is parked; x is attempted meanwhile by the one worker
    expect(h.log).toEqual(["try ph @0", "try x @0", "settled x ok after 1"]);
    h.clock.advance(250);
    await Promise.all([ph, member, other]);
    expect(h.log.slice(3)).toEqual(["try ph @250", "settled ph ok after 2", "before m", "try m @250", "settled m ok after 1"]);
  });

  it("a job blocked by a key that is not pending goes ahead", async () => {
    const h = harness({});
    expect(await h.calls.push({ key: "m", after: "gone" })).toBe("ok");
    expect(h.log).toEqual(["before m", "try m @0", "settled m ok after 1"]);
  });

  it("stop drops backing-off jobs: they resolve undefined and are not settled", async () => {
    const h = harness({ a: [{ retry: true, result: "503" }] });
    const done = h.calls.push({ key: "a" });
    await settle();
    await h.calls.stop();
    expect(await done).toBeUndefined();
    expect(await h.calls.push({ key: "b" })).toBeUndefined();
    expect(h.log).toEqual(["try a @0"]);
    expect(h.clock.pending).toBe(0);
  });
});
