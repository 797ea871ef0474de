// resources.ts: addInto and raiseMax against the plain definitions they shortcut (the copy made when there is no
// target yet must equal adding into, or raising, an empty one); the two equalities.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type Res, add, addInto, equals, hasNegative, raiseMax, sameResource } from "../../../src/scheduler/core/resources.js";

const TYPES = ["memory", "vcore", "pods", "nvidia.com/gpu"];
const res = fc.dictionary(fc.constantFrom(...TYPES), fc.integer({ min: -5, max: 1_000_000 }), { maxKeys: TYPES.length });

/** The max raised type by type from `max` (or nothing): the definition `raiseMax` shortcuts. */
const raisedByLoop = (max: Res | undefined, r: Res): Res => {
  const m: Res = { ...max };
  for (const k in r) if (r[k]! > (m[k] ?? 0)) m[k] = r[k]!;
  return m;
};

describe("addInto", () => {
  it("with no target returns a copy of the addend; with one adds in place and returns it", () => {
    fc.assert(
      fc.property(res, res, (a, b) => {
        const first = addInto(undefined, b);
        expect(first).toEqual(b);
        expect(first).not.toBe(b);
        const target = { ...a };
        expect(addInto(target, b)).toBe(target);
        expect(target).toEqual(add(a, b));
      }),
    );
  });
});

describe("raiseMax", () => {
  it("equals raising type by type, in place when there is a max, a new object when there is none", () => {
    fc.assert(
      fc.property(fc.option(res, { nil: undefined }), res, (max, r) => {
        const before = max && { ...max };
        const out = raiseMax(max, r);
        expect(out).toEqual(raisedByLoop(before, r));
        if (max) expect(out).toBe(max);
        else expect(out).not.toBe(r);
      }),
    );
  });

  it("never adds a type whose quantity is at or below 0", () => {
    expect(raiseMax(undefined, { memory: 4, vcore: 0, pods: -1 })).toEqual({ memory: 4 });
    expect(raiseMax({ memory: 5 }, { memory: 4, vcore: 2 })).toEqual({ memory: 5, vcore: 2 });
  });
});

describe("equals and sameResource", () => {
  it("equals counts a type missing on one side as 0, as upstream resources.go Equals", () => {
    expect(equals({ memory: 10, vcore: 0 }, { memory: 10 })).toBe(true);
    expect(equals({}, { vcore: 0 })).toBe(true);
    expect(equals({ memory: 10 }, { memory: 10, vcore: 1 })).toBe(false);
    expect(equals({ memory: -1 }, {})).toBe(false);
  });

  it("sameResource needs the same keys (a configured 0 is a change), undefined and {} being the same", () => {
    expect(sameResource({ memory: 10, vcore: 0 }, { memory: 10 })).toBe(false);
    expect(sameResource(undefined, {})).toBe(true);
    expect(sameResource({ memory: 10, vcore: 1 }, { vcore: 1, memory: 10 })).toBe(true);
  });

  it("both are symmetric; sameResource implies equals", () => {
    fc.assert(
      fc.property(res, res, (a, b) => {
        expect(equals(a, b)).toBe(equals(b, a));
        expect(sameResource(a, b)).toBe(sameResource(b, a));
        if (sameResource(a, b)) expect(equals(a, b)).toBe(true);
      }),
    );
  });

  it("hasNegative finds a type below 0", () => {
    expect(hasNegative({ memory: 10, vcore: 0 })).toBe(false);
    expect(hasNegative({ memory: 10, vcore: -1 })).toBe(true);
  });
});
