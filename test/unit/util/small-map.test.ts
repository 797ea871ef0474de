import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SmallMap } from "../../../src/util/small-map.js";

/** An operation on both maps: set or delete a key (few keys, so maps of zero, one and two entries are common). */
const op = fc.oneof(
  fc.record({ kind: fc.constant("set" as const), key: fc.constantFrom("a", "b", "c", "d", "e"), value: fc.integer() }),
  fc.record({ kind: fc.constant("delete" as const), key: fc.constantFrom("a", "b", "c", "d", "e") }),
);

describe("SmallMap", () => {
  it("answers as a Map after any sequence of sets and deletes: entries, order, size, get and has", () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        const small = new SmallMap<string, number>();
        const map = new Map<string, number>();
        for (const o of ops) {
          if (o.kind === "set") {
            expect(small.set(o.key, o.value)).toBe(small);
            map.set(o.key, o.value);
          } else expect(small.delete(o.key)).toBe(map.delete(o.key));
          expect(small.size).toBe(map.size);
          expect([...small]).toEqual([...map]);
        }
        for (const k of ["a", "b", "c", "d", "e"]) {
          expect(small.get(k)).toBe(map.get(k));
          expect(small.has(k)).toBe(map.has(k));
        }
        expect([...small.keys()]).toEqual([...map.keys()]);
        expect([...small.values()]).toEqual([...map.values()]);
        expect([...small.entries()]).toEqual([...map.entries()]);
        const seen: [string, number][] = [];
        small.forEach((v, k, m) => {
          expect(m).toBe(small);
          seen.push([k, v]);
        });
        expect(seen).toEqual([...map]);
      }),
    );
  });

  it("compares keys as a Map does: NaN is one key, 0 and -0 the same", () => {
    const m = new SmallMap<number, string>().set(Number.NaN, "nan");
    expect(m.get(Number.NaN)).toBe("nan");
    m.set(Number.NaN, "again");
    expect(m.size).toBe(1);
    m.set(0, "zero");
    expect(m.get(-0)).toBe("zero");
    expect(m.get(Number.NaN)).toBe("again");
    expect(new SmallMap<number, string>().set(-0, "z").get(0)).toBe("z");
  });
});
