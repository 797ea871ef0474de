import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BTree, compareNumbers, firstInOrder, firstInOrderChunked } from "../../../src/util/btree.js";

describe("firstInOrderChunked", () => {
  it("calls f as firstInOrder does and finds the same, also when f changes the tree", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: 500 }), { maxLength: 300 }),
        fc.integer({ min: 0, max: 600 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 500 }), fc.constantFrom("delete", "insert")), { maxLength: 20 }),
        (keys, target, edits) => {
          type Walk = (
            tree: BTree<number, number>,
            f: (v: number, k: number) => number | undefined,
            version: () => number,
          ) => number | undefined;
          const run = (walk: Walk) => {
            const tree = new BTree<number, number>(
              keys.map((k) => [k, k]),
              compareNumbers,
            );
            let version = 0;
            const pending = [...edits];
            const seen: number[] = [];
            const result = walk(
              tree,
              (v, k) => {
                seen.push(k);
                if (k >= target) return v;
                // every third key visited changes the tree: deletes or inserts some key, maybe ahead of the walk
                if (k % 3 === 0 && pending.length > 0) {
                  const [at, op] = pending.shift()!;
                  if (op === "delete" ? tree.delete(at) : tree.set(at, at)) version++;
                }
                return undefined;
              },
              () => version,
            );
            return { result, seen };
          };
          const plain = run((tree, f) => firstInOrder(tree, f));
          const chunked = run((tree, f, version) => firstInOrderChunked(tree, version, f));
          expect(chunked).toEqual(plain);
        },
      ),
    );
  });
});
