import { describe, expect, it } from "vitest";
import { Node } from "../../../src/scheduler/core/node.js";
import { NodeCollection } from "../../../src/scheduler/core/node-collection.js";

describe("NodeCollection.inOrderExcept", () => {
  it("gives the nodes of inOrder in the same order, without those skipped, across read-ahead chunks", () => {
    const c = new NodeCollection();
    for (let i = 0; i < 50; i++) c.add(new Node({ id: `n${String(49 - i).padStart(2, "0")}`, capacity: { vcore: 1000 + (i % 3) } }));
    const all = [...c.inOrder()].map((n) => n.id);
    expect(all).toHaveLength(50);
    const skip = (n: Node) => Number(n.id.slice(1)) % 3 === 0;
    expect([...c.inOrderExcept(skip)].map((n) => n.id)).toEqual(all.filter((id) => Number(id.slice(1)) % 3 !== 0));
    expect([...c.inOrderExcept(() => false)].map((n) => n.id)).toEqual(all);
    expect([...c.inOrderExcept(() => true)]).toEqual([]);
  });

  it("reads only as far as the consumer goes", () => {
    const c = new NodeCollection();
    for (let i = 0; i < 100; i++) c.add(new Node({ id: `n${String(i).padStart(3, "0")}`, capacity: { vcore: 1000 } }));
    let asked = 0;
    const it = c.inOrderExcept(() => (asked++, false));
    it.next();
    expect(asked).toBeLessThan(100);
    expect([...new NodeCollection().inOrderExcept(() => false)]).toEqual([]);
  });
});
