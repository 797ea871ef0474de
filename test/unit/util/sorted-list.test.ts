import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareNumbers } from "../../../src/util/compare.js";
import { BTree, firstInOrder } from "../../helpers/btree.js";
import { SortedList } from "../../../src/util/sorted-list.js";

/** An operation on both structures: set a key, delete a key, delete the first key. */
const op = fc.oneof(
  fc.record({ kind: fc.constant("set" as const), key: fc.integer({ min: 0, max: 400 }), value: fc.integer() }),
  fc.record({ kind: fc.constant("delete" as const), key: fc.integer({ min: 0, max: 400 }) }),
  fc.record({ kind: fc.constant("deleteFirst" as const) }),
);

describe("SortedList", () => {
  it("holds the same entries in the same order as sorted-btree after any sequence of sets and deletes", () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 600 }), fc.integer({ min: 2, max: 8 }), (ops, load) => {
        const list = new SortedList<number, number>(compareNumbers, load);
        const tree = new BTree<number, number>(undefined, compareNumbers);
        for (const o of ops) {
          if (o.kind === "set") expect(list.set(o.key, o.value)).toBe(tree.set(o.key, o.value));
          else if (o.kind === "delete") expect(list.delete(o.key)).toBe(tree.delete(o.key));
          else if (tree.size > 0) expect(list.delete(list.minKey()!)).toBe(tree.delete(tree.minKey()!));
          expect(list.size).toBe(tree.size);
        }
        expect(list.entries()).toEqual(tree.toArray());
        expect(list.values()).toEqual(tree.valuesArray());
        expect(list.minKey()).toBe(tree.minKey());
        expect(list.minValue()).toBe(tree.minKey() === undefined ? undefined : tree.get(tree.minKey()!));
      }),
    );
  });

  it("reads the first entries by position without a search: a prefix of the values in order, nothing past the end", () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 400 }), fc.integer({ min: 2, max: 8 }), (ops, load) => {
        const list = new SortedList<number, number>(compareNumbers, load);
        for (const o of ops) {
          if (o.kind === "set") list.set(o.key, o.value);
          else if (o.kind === "delete") list.delete(o.key);
          else if (list.size > 0) list.delete(list.minKey()!);
        }
        const values = list.values();
        expect(list.valueAt(0)).toBe(list.minValue());
        let i = 0;
        while (list.valueAt(i) !== undefined) {
          expect(list.valueAt(i)).toBe(values[i]);
          i++;
        }
        // the positions read are a prefix: none after the first gap, none past the end
        for (let j = i; j <= values.length + 2; j++) expect(list.valueAt(j)).toBeUndefined();
      }),
    );
    // entries in one chunk (at most 2·load) are all reachable by position
    const list = new SortedList<number, string>(compareNumbers);
    for (const k of [5, 1, 9, 3, 7]) list.set(k, `v${k}`);
    expect([0, 1, 2, 3, 4, 5].map((i) => list.valueAt(i))).toEqual(["v1", "v3", "v5", "v7", "v9", undefined]);
    const sole = new SortedList<number, string>(compareNumbers);
    expect(sole.valueAt(0)).toBeUndefined();
    sole.set(4, "only");
    expect([sole.valueAt(0), sole.valueAt(1)]).toEqual(["only", undefined]);
  });

  it("finds the next entry above any key as sorted-btree's nextHigherPair does", () => {
    fc.assert(
      fc.property(
        fc.array(op, { maxLength: 400 }),
        fc.integer({ min: 2, max: 8 }),
        fc.array(fc.integer({ min: -5, max: 405 }), { maxLength: 30 }),
        (ops, load, probes) => {
          const list = new SortedList<number, number>(compareNumbers, load);
          const tree = new BTree<number, number>(undefined, compareNumbers);
          for (const o of ops) {
            if (o.kind === "set") {
              list.set(o.key, o.value);
              tree.set(o.key, o.value);
            } else if (o.kind === "delete") {
              list.delete(o.key);
              tree.delete(o.key);
            } else if (tree.size > 0) {
              list.delete(list.minKey()!);
              tree.delete(tree.minKey()!);
            }
          }
          for (const k of [undefined, ...probes]) expect(list.nextAbove(k, [0, 0])).toEqual(tree.nextHigherPair(k, [0, 0]));
          // a whole walk, one entry at a time, reads every entry in order
          const walked: [number, number][] = [];
          for (let p = list.nextAbove(undefined, [0, 0]); p; p = list.nextAbove(p[0], [0, 0])) walked.push([p[0], p[1]]);
          expect(walked).toEqual(tree.toArray());
        },
      ),
    );
  });

  it("walks like firstInOrder over sorted-btree when the callback deletes and inserts entries", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: 300 }), { maxLength: 200 }),
        fc.integer({ min: 2, max: 6 }),
        fc.integer({ min: 0, max: 320 }),
        fc.integer({ min: 1, max: 5 }),
        (keys, load, target, step) => {
          const list = new SortedList<number, number>(compareNumbers, load);
          const tree = new BTree<number, number>(undefined, compareNumbers);
          for (const k of keys) {
            list.set(k, k);
            tree.set(k, k);
          }
          // the callback moves every key it is given below `target` up by `step` (delete, insert), as a re-keyed member
          const walk = (set: (k: number) => void, del: (k: number) => void, seen: number[]) => (v: number, k: number) => {
            seen.push(k);
            if (k >= target) return v;
            if (k % 3 === 0) {
              del(k);
              set(k + step);
            }
            return undefined;
          };
          const seenList: number[] = [];
          const seenTree: number[] = [];
          const a = list.firstInOrder(
            walk(
              (k) => list.set(k, k),
              (k) => list.delete(k),
              seenList,
            ),
          );
          const b = firstInOrder(
            tree,
            walk(
              (k) => tree.set(k, k),
              (k) => tree.delete(k),
              seenTree,
            ),
          );
          expect(a).toBe(b);
          expect(seenList).toEqual(seenTree);
          expect(list.entries()).toEqual(tree.toArray());
        },
      ),
    );
  });

  it("empties and fills again", () => {
    const list = new SortedList<number, string>(compareNumbers, 2);
    for (let k = 0; k < 20; k++) list.set(k, String(k));
    for (let k = 0; k < 20; k++) expect(list.delete(k)).toBe(true);
    expect(list.size).toBe(0);
    expect(list.minKey()).toBeUndefined();
    expect(list.firstInOrder(() => 1)).toBeUndefined();
    list.set(5, "5");
    list.clear();
    expect(list.entries()).toEqual([]);
    list.set(3, "3");
    expect(list.entries()).toEqual([[3, "3"]]);
  });
});
