import { describe, expect, it } from "vitest";
import { JobQueue } from "../../../src/kube/job-queue.js";
import { settle } from "../../helpers/fake-clock.js";

/** A job body that runs until released by hand. */
function gate() {
  const started: number[] = [];
  const release = new Map<number, () => void>();
  const work = (n: number) =>
    new Promise<void>((r) => {
      started.push(n);
      release.set(n, r);
    });
  return { started, release, work };
}

describe("JobQueue", () => {
  it("runs jobs in order, at most `concurrency` at once", async () => {
    const g = gate();
    const q = new JobQueue<number>({ work: g.work, concurrency: 2 });
    for (const n of [1, 2, 3]) q.push(n);
    expect(g.started).toEqual([1, 2]);
    expect(q.size).toBe(3);
    g.release.get(1)!();
    await settle();
    expect(g.started).toEqual([1, 2, 3]);
    expect(q.size).toBe(2);
  });

  it("drops the oldest waiting job beyond the limit and says which", () => {
    const g = gate();
    const dropped: number[] = [];
    const q = new JobQueue<number>({ work: g.work, concurrency: 1, limit: 2, onDrop: (n) => dropped.push(n) });
    for (const n of [1, 2, 3, 4]) q.push(n);
    expect(g.started).toEqual([1]);
    expect(dropped).toEqual([2]);
    expect(q.size).toBe(3);
  });

  it("reads a dynamic concurrency each time a job could start; pump starts more when it grew", async () => {
    const g = gate();
    let limit = 1;
    const q = new JobQueue<number>({ work: g.work, concurrency: () => limit });
    for (const n of [1, 2, 3]) q.push(n);
    expect(g.started).toEqual([1]);
    limit = 3;
    q.pump();
    expect(g.started).toEqual([1, 2, 3]);
  });

  it("passes a job's rejection to onError and goes on", async () => {
    const errors: string[] = [];
    const ran: number[] = [];
    const q = new JobQueue<number>({
      work: async (n) => {
        ran.push(n);
        if (n === 1) throw new Error("boom");
      },
      concurrency: 1,
      onError: (n, err) => errors.push(`${n}: ${(err as Error).message}`),
    });
    q.push(1);
    q.push(2);
    await settle();
    expect(errors).toEqual(["1: boom"]);
    expect(ran).toEqual([1, 2]);
    expect(q.size).toBe(0);
  });

  it("stop drops waiting jobs and takes no more", () => {
    const g = gate();
    const q = new JobQueue<number>({ work: g.work, concurrency: 1 });
    q.push(1);
    q.push(2);
    q.stop();
    q.push(3);
    expect(q.size).toBe(1);
    expect(g.started).toEqual([1]);
  });
});
