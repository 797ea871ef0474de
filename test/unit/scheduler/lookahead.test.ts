/**
 * The walk's lookahead (src/scheduler/core/lookahead.ts): it only reads (the schedule and the partition's whole object
 * graph are the same as without it, and unchanged by extra lookaheads between allocations), it reads the members the
 * module comment's table names at each place, it copes with every shape of order (empty, one member, a parent among
 * leaves, asks holding reservations), and the `touchLines` methods read a field on every cache line of their objects.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { Application } from "../../../src/scheduler/core/application.js";
import { decodeQueuesYaml } from "../../../src/scheduler/core/config.js";
import { lookahead } from "../../../src/scheduler/core/lookahead.js";
import { Partition } from "../../../src/scheduler/core/partition.js";
import { Queue } from "../../../src/scheduler/core/queue.js";
import { validateSchedulerConfig } from "../../../src/scheduler/core/validate.js";

// the partition's own lookahead after each decision, switched off for the runs that are the reference without it
const control = vi.hoisted(() => ({ enabled: true }));
vi.mock("../../../src/scheduler/core/lookahead.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../../src/scheduler/core/lookahead.js")>();
  return { ...real, lookahead: (root: Queue) => (control.enabled ? real.lookahead(root) : undefined) };
});

afterEach(() => {
  control.enabled = true;
  vi.restoreAllMocks();
});

/** The configuration up to root's `queues:` (anyone may submit). */
const ROOT = 'partitions:\n  - name: default\n    queues:\n      - name: root\n        submitacl: "*"\n        queues:\n';

/** A partition whose root holds `queues`: YAML lines at the indentation of root's children. */
const partitionOf = (queues: string) =>
  new Partition({ name: "default", config: validateSchedulerConfig(decodeQueuesYaml(ROOT + queues)).partitions[0]!, createdAt: 0 });

/** `tenants` with leaves t0…t(n−1), as root's child. */
const tenants = (n: number) =>
  ["          - name: tenants", "            queues:", ...Array.from({ length: n }, (_, i) => `              - name: t${i}`)].join("\n");

const CONFIG = [
  tenants(8),
  "              - name: sub",
  "                queues:",
  "                  - name: s0",
  "                  - name: s1",
  "          - name: solo",
  "            properties: {application.sort.policy: fair}",
].join("\n");

/** 8 + 2 leaves under `tenants` (one parent among them) and one more leaf, with applications of 1–3 asks. */
function build(): Partition {
  const p = partitionOf(CONFIG);
  for (let n = 0; n < 6; n++) p.addNode(`node-${n}`, { memory: 40, vcore: 40 });
  const leaves = [...Array.from({ length: 8 }, (_, i) => `root.tenants.t${i}`), "root.tenants.sub.s0", "root.tenants.sub.s1", "root.solo"];
  let serial = 0;
  leaves.forEach((queue, q) => {
    for (let a = 0; a < 1 + (q % 3); a++) {
      const id = `app-${q}-${a}`;
      p.addApplication({ id, queue, user: "u", groups: [], tags: {}, now: 0 });
      for (let k = 0; k < 1 + ((q + a) % 3); k++) {
        p.addAsk({
          appId: id,
          key: `${id}-${k}`,
          resource: { memory: 1 + ((q + k) % 4), vcore: 1 },
          priority: (q + k) % 2,
          createTime: serial++,
          now: 0,
        });
      }
    }
  });
  // an ask larger than any node's free room once the others are placed: it reserves a node (the walk passes it by)
  p.addApplication({ id: "big", queue: "root.tenants.t0", user: "u", groups: [], tags: {}, now: 0 });
  p.addAsk({ appId: "big", key: "big-0", resource: { memory: 39, vcore: 1 }, priority: 0, createTime: serial++, now: 0 });
  return p;
}

/**
 * Every object reachable from `root` as plain data, objects numbered in the order first reached: own fields (a field
 * holding undefined is kept apart from a missing one), array elements, map and set entries; functions by name only.
 */
function graph(root: object): unknown[] {
  const ids = new Map<object, number>();
  const out: unknown[] = [];
  const ref = (v: unknown): unknown => {
    if (typeof v === "function") return `function ${v.name}`;
    if (typeof v !== "object" || v === null) return v === undefined ? "<undefined>" : v;
    let id = ids.get(v);
    if (id === undefined) {
      id = ids.size;
      ids.set(v, id);
      queue.push(v);
    }
    return `#${id}`;
  };
  const queue: object[] = [];
  ref(root);
  for (let i = 0; i < queue.length; i++) {
    const o = queue[i]!;
    if (o instanceof Map) out.push({ map: [...o.entries()].map(([k, v]) => [ref(k), ref(v)]) });
    else if (o instanceof Set) out.push({ set: [...o.values()].map(ref) });
    else if (Array.isArray(o)) out.push({ array: o.map(ref) });
    else out.push({ type: o.constructor?.name, fields: Object.keys(o).map((k) => [k, ref((o as Record<string, unknown>)[k])]) });
  }
  return out;
}

/** Allocates until nothing more can change; `between` runs after every result. */
function run(p: Partition, between: () => void = () => {}): unknown[] {
  const results: unknown[] = [];
  for (let now = 1000, r = p.tryAllocate(now); r; now += 1000, r = p.tryAllocate(now)) {
    results.push(r.kind === "allocated" || r.kind === "allocatedReserved" ? [r.kind, r.allocation.key, r.allocation.nodeId] : [r.kind, r]);
    between();
  }
  return results;
}

describe("lookahead", () => {
  it("only reads: the same schedule and object graph as without it, and extra lookaheads change nothing", () => {
    control.enabled = false;
    const plain = build();
    const expected = run(plain);
    control.enabled = true;
    const read = build();
    const seen = run(read, () => {
      const before = graph(read);
      for (let i = 0; i < 3; i++) lookahead(read.root);
      expect(graph(read)).toStrictEqual(before);
    });
    expect(seen).toStrictEqual(expected);
    expect(graph(read)).toStrictEqual(graph(plain));
    // the schedule went through every kind of order: a reservation was made and every other ask placed
    expect(expected.some((r) => (r as unknown[])[0] === "reserved")).toBe(true);
    expect(expected.filter((r) => (r as unknown[])[0] === "allocated").length).toBeGreaterThan(30);
    // three extra lookaheads after each result
    expect(3 * seen.length).toBeGreaterThan(90);
  });

  it("reads, at each place of the order the walk moves along, the objects of the module comment's table", () => {
    const leaves = 8;
    const p = partitionOf(tenants(leaves));
    p.addNode("n", { memory: 100, vcore: 100 });
    for (let i = 0; i < leaves; i++) {
      p.addApplication({ id: `app-${i}`, queue: `root.tenants.t${i}`, user: "u", groups: [], tags: {}, now: 0 });
      p.addAsk({ appId: `app-${i}`, key: `k-${i}`, resource: { memory: 1, vcore: 1 }, priority: 0, createTime: i, now: 0 });
    }
    // the objects each method is called on (spies call through)
    const queueLines = vi.spyOn(Queue.prototype, "touchLines").mock.contexts;
    const queueParts = vi.spyOn(Queue.prototype, "touchParts").mock.contexts;
    const appLines = vi.spyOn(Application.prototype, "touchLines");
    const appParts = vi.spyOn(Application.prototype, "touchParts");
    const parent = p.root.children.get("tenants")!;
    const at = (i: number) => parent.memberAt(i) as Queue;
    lookahead(p.root);
    expect(queueLines).toEqual([at(4)]);
    expect(queueParts).toEqual([at(3)]);
    expect(appLines.mock.contexts).toEqual([at(2).memberAt(0)]);
    expect(appParts.mock.contexts).toEqual([at(1).memberAt(0)]);
    // one leaf holding every application: its order is the one read ahead, applications at places 2 and 1
    const one = partitionOf("          - name: a");
    for (let i = 0; i < 4; i++) {
      one.addApplication({ id: `app-${i}`, queue: "root.a", user: "u", groups: [], tags: {}, now: 0 });
      one.addAsk({ appId: `app-${i}`, key: `k-${i}`, resource: { memory: 1 }, priority: 0, createTime: i, now: 0 });
    }
    appLines.mockClear();
    appParts.mockClear();
    lookahead(one.root);
    const a = one.root.children.get("a")!;
    expect(appLines.mock.contexts).toEqual([a.memberAt(2)]);
    expect(appParts.mock.contexts).toEqual([a.memberAt(1)]);
  });

  it("goes down a parent that comes first among several members", () => {
    const p = build();
    const queueLines = vi.spyOn(Queue.prototype, "touchLines").mock.contexts;
    const parent = p.root.children.get("tenants")!;
    // root orders tenants and solo; tenants comes first (it pends more), and its order of 9 members is read ahead too
    expect(p.root.orderLength).toBe(2);
    expect(p.root.memberAt(0)).toBe(parent);
    lookahead(p.root);
    expect(queueLines).toEqual([parent.memberAt(4)]);
  });

  it("copes with an empty root and with orders of one member", () => {
    const p = partitionOf(CONFIG);
    expect(() => lookahead(p.root)).not.toThrow();
    p.addNode("n", { memory: 10, vcore: 10 });
    p.addApplication({ id: "one", queue: "root.tenants.sub.s1", user: "u", groups: [], tags: {}, now: 0 });
    p.addAsk({ appId: "one", key: "k", resource: { memory: 1, vcore: 1 }, priority: 0, createTime: 0, now: 0 });
    // root → tenants → sub → s1 → one → k: every order on the path holds one member
    expect(() => lookahead(p.root)).not.toThrow();
    expect(p.tryAllocate(1)?.kind).toBe("allocated");
    expect(() => lookahead(p.root)).not.toThrow();
  });

  it("touchLines reads a field in every eight words of a queue and an application (one per cache line)", () => {
    const p = build();
    const leaf = p.root.children.get("tenants")!.children.get("t1")!;
    const app = p.apps.get("app-1-0")!;
    for (const target of [leaf, app] as const) {
      const read = new Set<PropertyKey>();
      const spy = new Proxy(target, {
        get(t, k, receiver) {
          read.add(k);
          return Reflect.get(t, k, receiver) as unknown;
        },
      });
      (target.touchLines as (this: unknown) => number).call(spy);
      // the fields in declaration order, as V8 lays them out after a three-word header whose first word (the map)
      // every read reads; one past the last field closes the last line
      const fields = Object.keys(target);
      const places = [-3, ...fields.flatMap((f, i) => (read.has(f) ? [i] : [])), fields.length];
      const gaps = places.slice(1).map((x, i) => x - places[i]!);
      expect(Math.max(...gaps), `${target.constructor.name}: fields ${fields.join(",")}, read ${[...read].join(",")}`).toBeLessThanOrEqual(
        8,
      );
    }
  });
});
