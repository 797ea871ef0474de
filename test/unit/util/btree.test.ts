import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BTree, compareNumbers, firstInOrder, firstInOrderSkipping } from "../../../src/util/btree.js";

describe("firstInOrderSkipping", () => {
  it("finds what firstInOrder finds with the skipped entries answering undefined", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: 500 }), { maxLength: 300 }),
        fc.integer({ min: 1, max: 7 }),
        fc.integer({ min: 0, max: 600 }),
        (keys, mod, target) => {
          const tree = new BTree<number, number>(
            keys.map((k) => [k, k * 2]),
            compareNumbers,
          );
          const skip = (v: number) => (v / 2) % mod === 0;
          const seen: number[] = [];
          const f = (v: number, k: number) => (seen.push(k), k >= target ? v : undefined);
          const expected = firstInOrder(tree, (v, k) => (skip(v) ? undefined : f(v, k)));
          const expectedSeen = seen.splice(0);
          expect(firstInOrderSkipping(tree, skip, f)).toBe(expected);
          expect(seen).toEqual(expectedSeen);
        },
      ),
    );
  });

  it("goes on from the next key when the callback deletes the entry it was given", () => {
    const tree = new BTree<number, string>(
      [
        [1, "a"],
        [2, "b"],
        [3, "c"],
        [4, "d"],
      ],
      compareNumbers,
    );
    const r = firstInOrderSkipping(
      tree,
      (v) => v === "b",
      (v, k) => {
        tree.delete(k);
        return v === "d" ? v : undefined;
      },
    );
    expect(r).toBe("d");
    expect(tree.keysArray()).toEqual([2]);
  });
});
