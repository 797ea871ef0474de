import { describe, expect, it } from "vitest";
import { Node } from "../../../src/scheduler/core/node.js";
import { NodeCollection } from "../../../src/scheduler/core/node-collection.js";
import { Reservations } from "../../../src/scheduler/core/reservations.js";
import type { Ask } from "../../../src/scheduler/core/application.js";

describe("NodeCollection order and reservations", () => {
  const setup = () => {
    const c = new NodeCollection();
    for (let i = 0; i < 5; i++) c.add(new Node({ id: `n${i}`, capacity: { vcore: 1000 + i } }));
    const r = new Reservations(0, { nodeChanged: (n) => c.reindex(n) });
    const ids = () => [...c.inOrder()].map((n) => n.id);
    const ask = (key: string) => ({ appId: "app", key, resource: { vcore: 1 }, createTime: 0 }) as unknown as Ask;
    return { c, r, ids, ask };
  };

  it("leaves a node reserved for preemption out of the order until the reservation ends, then puts it back in place", () => {
    const { c, r, ids, ask } = setup();
    const all = ids();
    expect(all).toHaveLength(5);
    const a = ask("a");
    const n2 = c.byId.get("n2")!;
    r.reserve(a, n2, 0, true);
    expect(ids()).toEqual(all.filter((id) => id !== "n2"));
    n2.allocated.vcore = 500; // usage changes while reserved (victims released) do not bring it back
    c.reindex(n2);
    expect(ids()).not.toContain("n2");
    n2.allocated.vcore = 0;
    c.reindex(n2);
    r.release(a, a, n2);
    expect(ids()).toEqual(all);
  });

  it("keeps a node with an ordinary reservation in the order", () => {
    const { c, r, ids, ask } = setup();
    const all = ids();
    r.reserve(ask("b"), c.byId.get("n3")!, 0);
    expect(ids()).toEqual(all);
  });
});

// apache/yunikorn-core objects/nodesorting.go NewNodeSortingPolicy (nodesorting_test.go
// TestSpecifiedResourceWeightsFromConfig): configured weights replace the defaults
describe("NodeCollection resource weights", () => {
  const twoNodes = (policy: "fair" | "binpacking", weights: Record<string, number>) => {
    const c = new NodeCollection();
    // n1: half its cores used, no memory; n2: no cores, a quarter of its memory
    c.add(new Node({ id: "n1", capacity: { vcore: 1000, memory: 1000 } }));
    c.add(new Node({ id: "n2", capacity: { vcore: 1000, memory: 1000 } }));
    c.configure(policy, weights);
    const n1 = c.byId.get("n1")!;
    const n2 = c.byId.get("n2")!;
    n1.allocated.vcore = 500;
    n2.allocated.memory = 250;
    c.reindex(n1);
    c.reindex(n2);
    return { ids: [...c.inOrder()].map((n) => n.id), weights: c.resourceWeights };
  };
  it("memory alone weighted: only memory orders the nodes", () => {
    expect(twoNodes("fair", { memory: 1 })).toEqual({ ids: ["n1", "n2"], weights: { memory: 1 } });
    expect(twoNodes("binpacking", { memory: 1 }).ids).toEqual(["n2", "n1"]);
  });
  it("none configured: vcore and memory, 1 each", () => {
    expect(twoNodes("fair", {})).toEqual({ ids: ["n2", "n1"], weights: { vcore: 1, memory: 1 } });
  });
});
