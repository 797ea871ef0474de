import { describe, expect, it } from "vitest";
import { parseSchedulingPolicyParameters, placeholderTimeoutMs } from "../../../../src/scheduler/shim/gang/policy-parameters.js";
import { type PlaceholderState, placeholderTimeout, placeholderTimerMs } from "../../../../src/scheduler/core/gang/timeout.js";
import { reservationStart } from "../../../../src/scheduler/shim/gang/timeout.js";

const T0 = Date.parse("2026-11-22T10:00:00Z");
const MIN = 60_000;

describe("placeholderTimerMs (ConvertSITimeoutWithAdjustment)", () => {
  it.each([
    ["no creation time: the timeout as is", { timeoutMs: 15 * MIN, acceptedAtMs: T0 }, 15 * MIN],
    ["accepted 2 s after the pod was created", { timeoutMs: 15 * MIN, createdAtMs: T0, acceptedAtMs: T0 + 2000 }, 15 * MIN - 2000],
    ["restart 10 minutes in: what remains", { timeoutMs: 15 * MIN, createdAtMs: T0, acceptedAtMs: T0 + 10 * MIN }, 5 * MIN],
    ["restart after the deadline: the smallest timer, 1 ms", { timeoutMs: 15 * MIN, createdAtMs: T0, acceptedAtMs: T0 + 60 * MIN }, 1],
    ["a zero creation time counts as unknown", { timeoutMs: 30_000, createdAtMs: 0, acceptedAtMs: T0 }, 30_000],
  ])("%s", (_, o, want) => {
    expect(placeholderTimerMs(o)).toBe(want);
  });
});

describe("placeholderTimeout", () => {
  // the user guide's Hard example: placeholderTimeoutInSeconds=60 gangSchedulingStyle=Hard
  const { parameters } = parseSchedulingPolicyParameters("placeholderTimeoutInSeconds=60 gangSchedulingStyle=Hard");
  const timerMs = placeholderTimeoutMs(parameters);
  const phs = (...s: [string, boolean, ("released" | "preempted")?][]): PlaceholderState[] =>
    s.map(([key, allocated, flag]) => ({
      allocationKey: key,
      taskGroupName: "sched-style",
      allocated,
      released: flag === "released",
      preempted: flag === "preempted",
    }));
  const base = {
    now: T0,
    timerStartedAt: T0,
    timerMs,
    style: parameters.gangSchedulingStyle,
    state: "Accepted",
    placeholders: phs(["a", true], ["b", true], ["c", false], ["d", false]),
  };

  it("no placeholder allocated yet: no timer", () => {
    expect(placeholderTimeout({ ...base, timerStartedAt: undefined, now: T0 + 99 * MIN })).toEqual({ kind: "notStarted" });
  });
  it("before the deadline: wait until it (60 s after the first placeholder allocation)", () => {
    expect(placeholderTimeout({ ...base, now: T0 + 59_999 })).toEqual({ kind: "wait", deadline: T0 + 60_000 });
  });
  it("Hard, still reserving at the deadline: fail with ResourceReservationTimeout, release the two allocated, cancel the two pending", () => {
    expect(placeholderTimeout({ ...base, now: T0 + 60_000 })).toEqual({
      kind: "fail",
      reason: "ResourceReservationTimeout",
      releaseAllocated: ["a", "b"],
      cancelPending: ["c", "d"],
      preempted: 0,
    });
  });
  it("Soft (the default, also for an unknown style): resume as a normal application", () => {
    const soft = parseSchedulingPolicyParameters("placeholderTimeoutInSeconds=60 gangSchedulingStyle=Firm").parameters.gangSchedulingStyle;
    expect(placeholderTimeout({ ...base, style: soft, now: T0 + 61_000 })).toMatchObject({
      kind: "resume",
      releaseAllocated: ["a", "b"],
      cancelPending: ["c", "d"],
    });
  });
  it("preempted placeholders are not released again (counted instead)", () => {
    expect(placeholderTimeout({ ...base, now: T0 + MIN, placeholders: phs(["a", true, "preempted"], ["b", true], ["c", false]) })).toEqual({
      kind: "fail",
      reason: "ResourceReservationTimeout",
      releaseAllocated: ["b"],
      cancelPending: ["c"],
      preempted: 1,
    });
  });
  it("Running: keeps running and releases only the placeholders no real pod is taking, whatever the style", () => {
    const running = {
      ...base,
      now: T0 + MIN,
      state: "Running",
      placeholders: phs(["a", true, "released"], ["b", true], ["c", true, "preempted"], ["d", true]),
    };
    expect(placeholderTimeout(running)).toEqual({ kind: "releaseUnused", release: ["b", "d"], replacing: 1, preempted: 1 });
    expect(placeholderTimeout({ ...running, state: "Completing", style: "Soft" })).toMatchObject({
      kind: "releaseUnused",
      release: ["b", "d"],
    });
  });
  it("the default 15 minutes when the annotation names no timeout", () => {
    const d = placeholderTimeoutMs(parseSchedulingPolicyParameters(undefined).parameters);
    expect(placeholderTimeout({ ...base, timerMs: d, style: "Soft", now: T0 + 14 * MIN })).toEqual({
      kind: "wait",
      deadline: T0 + 15 * MIN,
    });
    expect(placeholderTimeout({ ...base, timerMs: d, style: "Soft", now: T0 + 15 * MIN }).kind).toBe("resume");
  });
});

describe("reservationStart (onReserving)", () => {
  const base = { now: T0 + 2 * MIN, existingPlaceholders: 0, placeholderTimeoutSeconds: 60, style: "Hard" as const, createdAtMs: T0 };
  it.each([
    ["placeholders already exist (restart): recover, even past the timeout", { existingPlaceholders: 3 }, { kind: "recover" }],
    ["explicit timeout passed since the pod's creation, Hard: create nothing, fail", {}, { kind: "expired", then: "fail" }],
    ["the same, Soft: create nothing, run as a normal application", { style: "Soft" as const }, { kind: "expired", then: "run" }],
    ["exactly at the timeout counts as passed", { now: T0 + MIN }, { kind: "expired", then: "fail" }],
    ["within the timeout: create", { now: T0 + 59_000 }, { kind: "create" }],
    [
      "no explicit timeout (the 15-minute default is not checked here, as upstream)",
      { placeholderTimeoutSeconds: 0, now: T0 + 99 * MIN },
      { kind: "create" },
    ],
    ["creation time unknown", { createdAtMs: undefined }, { kind: "create" }],
  ])("%s", (_, over, want) => {
    expect(reservationStart({ ...base, ...over })).toEqual(want);
  });
});
