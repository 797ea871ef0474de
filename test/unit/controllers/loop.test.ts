import { describe, expect, it } from "vitest";
import { runSchedulingLoop } from "../../../src/scheduler/controllers/loop.js";
import { FakeClock, settle } from "../../helpers/fake-clock.js";

/** The loop on a fake clock, with deferred kicks run by hand (`turn()`: the event loop's turn is over). */
function harness() {
  const clock = new FakeClock();
  const log: string[] = [];
  const deferred: (() => void)[] = [];
  const loop = runSchedulingLoop({
    schedule: () => log.push(`schedule @${clock.now()}`),
    reloadConfig: () => log.push(`config @${clock.now()}`),
    holdReasons: () => log.push(`holds @${clock.now()}`),
    resync: () => log.push(`resync @${clock.now()}`),
    intervalMs: 100,
    holdReasonsMs: 1000,
    resyncMs: 30_000,
    defer: (fn) => deferred.push(fn),
    clock,
  });
  const turn = async () => {
    for (const fn of deferred.splice(0)) fn();
    await settle();
  };
  const at = async (ms: number) => {
    await clock.advanceAsync(ms - clock.now());
  };
  return { clock, log, loop, turn, at };
}

describe("runSchedulingLoop", () => {
  it("starts with a cycle once the turn is over, then one every intervalMs", async () => {
    const h = harness();
    await settle();
    expect(h.log).toEqual([]);
    await h.turn();
    expect(h.log).toEqual(["schedule @0"]);
    await h.at(250);
    expect(h.log).toEqual(["schedule @0", "schedule @100", "schedule @200"]);
  });

  it("kicks until the turn is over ask for one cycle", async () => {
    const h = harness();
    await h.turn();
    await h.at(50);
    h.loop.kick();
    h.loop.kick();
    h.loop.kick();
    await settle();
    expect(h.log).toEqual(["schedule @0"]);
    await h.turn();
    expect(h.log).toEqual(["schedule @0", "schedule @50"]);
    // a kicked cycle does not postpone the periodic one (a waiting key keeps the earlier time)
    await h.at(99);
    expect(h.log).toHaveLength(2);
    await h.at(200);
    expect(h.log).toEqual(["schedule @0", "schedule @50", "schedule @100", "schedule @200"]);
  });

  it("reports hold reasons every holdReasonsMs and resyncs every resyncMs; reloads config when asked", async () => {
    const h = harness();
    await h.turn();
    h.loop.reloadConfig();
    await settle();
    await h.at(2000);
    await h.at(30_000);
    const others = h.log.filter((l) => !l.startsWith("schedule"));
    expect(others.slice(0, 3)).toEqual(["config @0", "holds @1000", "holds @2000"]);
    expect(others.filter((l) => l.startsWith("resync"))).toEqual(["resync @30000"]);
    expect(others.filter((l) => l.startsWith("holds"))).toHaveLength(30);
  });

  it("stop ends the loop: no more cycles or timers", async () => {
    const h = harness();
    await h.turn();
    await h.loop.stop();
    h.loop.kick();
    await h.turn();
    await h.at(5000);
    expect(h.log).toEqual(["schedule @0"]);
    expect(h.clock.pending).toBe(0);
  });
});
