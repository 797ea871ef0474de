/**
 * The preemption snapshot over the core's live objects (core/preemption/core-snapshot.ts): a node's allocations as
 * possible victims are kept on the node between decisions, and every change the list depends on shows in the next
 * read — an allocation added to or removed from the node, an application registered or removed, a field of an
 * allocation (preempted, priority, opt-out), the allocations refused for one ask.
 */
import { describe, expect, it } from "vitest";
import type { Application, Ask } from "../../../src/scheduler/core/application.js";
import { decodeQueuesYaml } from "../../../src/scheduler/core/config.js";
import { Node, allocationId } from "../../../src/scheduler/core/node.js";
import { Partition } from "../../../src/scheduler/core/partition.js";
import { type CoreSnapshotSource, coreSnapshot } from "../../../src/scheduler/core/preemption/core-snapshot.js";
import type { PreemptionAllocation } from "../../../src/scheduler/core/preemption/snapshot.js";
import { validateSchedulerConfig } from "../../../src/scheduler/core/validate.js";
import { VersionedMap } from "../../../src/util/versioned-map.js";

const CPU = 1000;
const CONFIG = `partitions:
  - name: default
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: a
          - name: b
`;

/** Node n1 with pods b0, b1 of application b1 (queue b); node n2 with b2. */
function cluster(): Partition {
  const p = new Partition({
    name: "default",
    config: validateSchedulerConfig(decodeQueuesYaml(CONFIG)).partitions[0]!,
    reservationDelayMs: 60_000,
  });
  p.addNode("n1", { vcore: 4 * CPU });
  p.addNode("n2", { vcore: 4 * CPU });
  p.addApplication({ id: "b1", queue: "root.b", user: "bob", groups: [], tags: {}, now: 0 });
  for (const [key, node] of [
    ["b0", "n1"],
    ["b1", "n1"],
    ["b2", "n2"],
  ] as const)
    p.addAsk({ appId: "b1", key, resource: { vcore: CPU }, priority: 0, createTime: 1000, now: 1000, node });
  return p;
}

/** Node `id` as a new snapshot over `src` reads it. */
function nodeOf(src: CoreSnapshotSource, id: string, excluded?: ReadonlySet<string>) {
  for (const n of coreSnapshot(src, excluded).nodes()) if (n.id === id) return n;
  throw new Error(`node ${id} not in the snapshot`);
}

/** The allocations of node `id` as a new snapshot over `src` reads them. */
function allocationsOn(src: CoreSnapshotSource, id: string, excluded?: ReadonlySet<string>): readonly PreemptionAllocation[] {
  for (const n of coreSnapshot(src, excluded).nodes()) if (n.id === id) return n.allocations;
  throw new Error(`node ${id} not in the snapshot`);
}
const keys = (list: readonly PreemptionAllocation[]) => list.map((a) => a.key);

describe("preemption snapshot over the core: a node's victims kept between decisions", () => {
  it("the same list while nothing changed", () => {
    const p = cluster();
    const first = allocationsOn(p, "n1");
    expect(keys(first)).toEqual(["b0", "b1"]);
    expect(allocationsOn(p, "n1")).toBe(first);
  });

  it("an allocation placed on the node or removed from it shows in the next read", () => {
    const p = cluster();
    expect(keys(allocationsOn(p, "n1"))).toEqual(["b0", "b1"]);
    p.addAsk({ appId: "b1", key: "b3", resource: { vcore: CPU }, priority: 0, createTime: 2000, now: 2000, node: "n1" });
    expect(keys(allocationsOn(p, "n1"))).toEqual(["b0", "b1", "b3"]);
    p.removeAsk("b1", "b0", 3000);
    expect(keys(allocationsOn(p, "n1"))).toEqual(["b1", "b3"]);
    expect(keys(allocationsOn(p, "n2"))).toEqual(["b2"]);
    p.removeApplication("b1", 4000);
    expect(allocationsOn(p, "n1")).toEqual([]);
  });

  it("a field of an allocation changed without the node's allocations changing shows in the next read", () => {
    const p = cluster();
    const ask = p.apps.get("b1")!.asks.get("b1")!;
    const before = allocationsOn(p, "n1");
    expect(before.map((a) => [a.key, a.preempted, a.priority, a.allowPreemption])).toEqual([
      ["b0", false, 0, true],
      ["b1", false, 0, true],
    ]);
    ask.preempted = true;
    ask.priority = 7;
    ask.allowPreemptSelf = false;
    const after = allocationsOn(p, "n1");
    expect(after).not.toBe(before);
    expect(after.map((a) => [a.key, a.preempted, a.priority, a.allowPreemption])).toEqual([
      ["b0", false, 0, true],
      ["b1", true, 7, false],
    ]);
    // the list handed out before is not changed
    expect(before[1]!.preempted).toBe(false);
    ask.preempted = false;
    expect(allocationsOn(p, "n1")[1]!.preempted).toBe(false);
    ask.originator = true;
    expect(allocationsOn(p, "n1")[1]!.originator).toBe(true);
    ask.resource = { vcore: 2 * CPU };
    expect(allocationsOn(p, "n1")[1]!.resource).toEqual({ vcore: 2 * CPU });
    // a view the ask got elsewhere (another snapshot's read of its queue) replaces the kept one
    const elsewhere = [...coreSnapshot(p, new Set([allocationId("b1", "b1")])).allocations("root.b")].find((a) => a.key === "b1")!;
    expect(elsewhere.preempted).toBe(true);
    const again = allocationsOn(p, "n1")[1]!;
    expect(again.preempted).toBe(false);
    expect(again).toBe(ask.victimView);
  });

  it("the kept list in victim order: sorted once while the node is unchanged, again after a view changed", () => {
    const p = cluster();
    p.addAsk({ appId: "b1", key: "b3", resource: { vcore: CPU }, priority: 0, createTime: 2000, now: 2000, node: "n1" });
    const ask = p.apps.get("b1")!.asks.get("b1")!;
    ask.priority = 5;
    // victim order: lower priority first, then the younger (b3, created later), then the key
    const first = nodeOf(p, "n1").allocationsInVictimOrder!;
    expect(keys(first)).toEqual(["b3", "b0", "b1"]);
    expect(keys(nodeOf(p, "n1").allocations)).toEqual(["b0", "b1", "b3"]);
    expect(nodeOf(p, "n1").allocationsInVictimOrder).toBe(first);
    ask.priority = -1;
    const after = nodeOf(p, "n1").allocationsInVictimOrder!;
    expect(after).not.toBe(first);
    expect(keys(after)).toEqual(["b1", "b3", "b0"]);
    // one ask's refusals make a list of their own, sorted for it; the next read without them sorts the views again
    const refused = nodeOf(p, "n1", new Set([allocationId("b1", "b0")])).allocationsInVictimOrder!;
    expect(refused.map((a) => [a.key, a.preempted])).toEqual([
      ["b1", false],
      ["b3", false],
      ["b0", true],
    ]);
    const plain = nodeOf(p, "n1").allocationsInVictimOrder!;
    expect(plain).not.toBe(refused);
    expect(plain.map((a) => a.preempted)).toEqual([false, false, false]);
  });

  it("allocations refused for one ask are preempted in its snapshot only", () => {
    const p = cluster();
    const refused = new Set([allocationId("b1", "b0")]);
    expect(allocationsOn(p, "n1", refused).map((a) => a.preempted)).toEqual([true, false]);
    expect(allocationsOn(p, "n1").map((a) => a.preempted)).toEqual([false, false]);
    expect(allocationsOn(p, "n1", refused).map((a) => a.preempted)).toEqual([true, false]);
  });

  it("an application registered, removed or replaced in the registry shows in the next read", () => {
    // a source of its own: the registry changed while the node still holds the allocations
    const queue = (path: string) => ({ path }) as Application["queue"];
    const app = (id: string, path: string) => ({ id, queue: queue(path) }) as Application;
    const apps = new VersionedMap<string, Application>();
    const node = new Node({ id: "n1", capacity: { vcore: 4 * CPU } });
    const ask = (key: string, appId: string): Ask => ({
      key,
      appId,
      resource: { vcore: CPU },
      priority: 0,
      createTime: 1000,
      arrival: 0,
      node: "n1",
    });
    node.addAllocation(allocationId("x", "x0"), ask("x0", "x"));
    node.addAllocation(allocationId("y", "y0"), ask("y0", "y"));
    const src: CoreSnapshotSource = { find: () => undefined, apps, nodesInOrder: () => [node] };
    apps.set("x", app("x", "root.a"));
    expect(allocationsOn(src, "n1").map((a) => [a.key, a.queuePath])).toEqual([["x0", "root.a"]]);
    apps.set("y", app("y", "root.b"));
    expect(allocationsOn(src, "n1").map((a) => [a.key, a.queuePath])).toEqual([
      ["x0", "root.a"],
      ["y0", "root.b"],
    ]);
    apps.set("x", app("x", "root.c"));
    expect(allocationsOn(src, "n1").map((a) => [a.key, a.queuePath])).toEqual([
      ["x0", "root.c"],
      ["y0", "root.b"],
    ]);
    apps.delete("y");
    expect(allocationsOn(src, "n1").map((a) => [a.key, a.queuePath])).toEqual([["x0", "root.c"]]);
    // an allocation taken off its node (`node` cleared) while still listed on it is not read
    node.allocations.get(allocationId("x", "x0"))!.node = undefined;
    expect(allocationsOn(src, "n1")).toEqual([]);
  });
});

describe("VersionedMap", () => {
  it("counts every set, every delete that removes a key and every clear of a non-empty map", () => {
    const m = new VersionedMap<string, number>();
    expect(m.version).toBe(0);
    m.set("a", 1);
    m.set("a", 2);
    expect([m.version, m.get("a"), m.size]).toEqual([2, 2, 1]);
    expect(m.delete("b")).toBe(false);
    expect(m.version).toBe(2);
    expect(m.delete("a")).toBe(true);
    expect(m.version).toBe(3);
    m.clear();
    expect(m.version).toBe(3);
    m.set("c", 3);
    m.clear();
    expect([m.version, m.size]).toEqual([5, 0]);
  });
});
