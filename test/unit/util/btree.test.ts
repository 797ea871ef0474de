import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareNumbers } from "../../../src/util/compare.js";
import { BTree, firstInOrder } from "../../helpers/btree.js";

describe("firstInOrder", () => {
  it("calls f in key order and returns its first result; after f changed the tree it goes on above f's key", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: 500 }), { maxLength: 300 }),
        fc.integer({ min: 0, max: 600 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 500 }), fc.constantFrom("delete", "insert")), { maxLength: 20 }),
        (keys, target, edits) => {
          const tree = new BTree<number, number>(
            keys.map((k) => [k, k]),
            compareNumbers,
          );
          // the model: a sorted array of the keys, edited alongside the tree
          const model = [...keys].sort((a, b) => a - b);
          const pending = [...edits];
          const seen: number[] = [];
          const expected: number[] = [];
          let last = -1;
          const result = firstInOrder(tree, (v, k) => {
            // the key visited is the model's smallest key above the previous one
            expected.push(model.find((m) => m > last)!);
            last = k;
            seen.push(k);
            if (k >= target) return v;
            // every third key visited changes the tree: deletes or inserts some key, maybe ahead of the walk
            if (k % 3 === 0 && pending.length > 0) {
              const [at, op] = pending.shift()!;
              if (op === "delete") {
                tree.delete(at);
                if (model.includes(at)) model.splice(model.indexOf(at), 1);
              } else if (!model.includes(at)) {
                tree.set(at, at);
                model.push(at);
                model.sort((a, b) => a - b);
              }
            }
            return undefined;
          });
          expect(seen).toEqual(expected);
          // the walk ends at the first key at or above the target (its value), or runs out
          const end = seen.at(-1);
          expect(result).toBe(end !== undefined && end >= target ? end : undefined);
          if (result === undefined) expect(model.filter((m) => m > (end ?? -1))).toEqual([]);
        },
      ),
    );
  });
});
