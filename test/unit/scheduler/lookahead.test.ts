/**
 * The walk's lookahead (src/scheduler/core/lookahead.ts): it only reads (the schedule and every queue's and
 * application's state are the same with extra lookaheads between the allocations), it copes with every shape of order
 * (empty, one member, a parent among leaves, asks holding reservations), and the `touchLines` methods read a field on
 * every cache line of their objects.
 */
import { describe, expect, it } from "vitest";
import { decodeQueuesYaml } from "../../../src/scheduler/core/config.js";
import { lookahead, lookaheadSink } from "../../../src/scheduler/core/lookahead.js";
import { Partition } from "../../../src/scheduler/core/partition.js";
import type { Queue } from "../../../src/scheduler/core/queue.js";
import { validateSchedulerConfig } from "../../../src/scheduler/core/validate.js";

const CONFIG = `partitions:
  - name: default
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: tenants
            queues:
${Array.from({ length: 8 }, (_, i) => `              - name: t${i}\n`).join("")}              - name: sub
                queues:
                  - name: s0
                  - name: s1
          - name: solo
            properties: {application.sort.policy: fair}
`;

/** A partition with 8 + 2 leaves under `tenants` (one parent among them) and one more leaf, each with applications of 1–3 asks. */
function build(): Partition {
  const p = new Partition({ name: "default", config: validateSchedulerConfig(decodeQueuesYaml(CONFIG)).partitions[0]!, createdAt: 0 });
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

/** An object's own fields that hold numbers, strings or booleans (order keys, counts, states, times…). */
const scalars = (o: object): Record<string, unknown> =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v === undefined || (typeof v !== "object" && typeof v !== "function")));

/** Every queue's and application's scalar fields, resources and order (members by name), as plain data. */
function state(p: Partition): unknown {
  const queues: unknown[] = [];
  const visit = (q: Queue): void => {
    const order: string[] = [];
    for (let i = 0; q.memberAt(i) !== undefined; i++) {
      const m = q.memberAt(i)!;
      order.push("id" in m ? m.id : m.name);
    }
    queues.push({ ...scalars(q), pending: { ...q.pending }, allocated: { ...q.allocated }, order });
    for (const c of q.children.values()) visit(c);
  };
  visit(p.root);
  const apps = [...p.apps.values()].map((a) => ({
    ...scalars(a),
    pending: { ...a.pending },
    allocated: { ...a.allocated },
    first: a.firstPending()?.key,
  }));
  return { queues, apps };
}

/** Allocates until nothing more can change; `between` runs after every result. */
function run(p: Partition, between: () => void): unknown[] {
  const results: unknown[] = [];
  for (let now = 1000, r = p.tryAllocate(now); r; now += 1000, r = p.tryAllocate(now)) {
    results.push(r.kind === "allocated" || r.kind === "allocatedReserved" ? [r.kind, r.allocation.key, r.allocation.nodeId] : [r.kind, r]);
    between();
  }
  return results;
}

describe("lookahead", () => {
  it("only reads: the same schedule and the same state with extra lookaheads between the allocations", () => {
    const plain = build();
    const expected = run(plain, () => {});
    const read = build();
    const seen = run(read, () => {
      const before = state(read);
      for (let i = 0; i < 3; i++) lookahead(read.root);
      expect(state(read)).toEqual(before);
      expect(lookaheadSink).toBe(0);
    });
    expect(seen).toEqual(expected);
    expect(state(read)).toEqual(state(plain));
    // the schedule went through every kind of order: a reservation was made and every other ask placed
    expect(expected.some((r) => (r as unknown[])[0] === "reserved")).toBe(true);
    expect(expected.filter((r) => (r as unknown[])[0] === "allocated").length).toBeGreaterThan(30);
  });

  it("copes with an empty root and with orders of one member", () => {
    const p = new Partition({ name: "default", config: validateSchedulerConfig(decodeQueuesYaml(CONFIG)).partitions[0]!, createdAt: 0 });
    expect(() => lookahead(p.root)).not.toThrow();
    p.addNode("n", { memory: 10, vcore: 10 });
    p.addApplication({ id: "one", queue: "root.tenants.sub.s1", user: "u", groups: [], tags: {}, now: 0 });
    p.addAsk({ appId: "one", key: "k", resource: { memory: 1, vcore: 1 }, priority: 0, createTime: 0, now: 0 });
    // root → tenants → sub → s1 → one → k: every order on the path holds one member
    expect(() => lookahead(p.root)).not.toThrow();
    expect(p.tryAllocate(1)?.kind).toBe("allocated");
    expect(() => lookahead(p.root)).not.toThrow();
  });

  it("touchLines reads a field in every seven or fewer of a queue's and an application's fields (one per cache line)", () => {
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
      // the fields in declaration order (as V8 lays them out in the object), and the places of the ones read
      const fields = Object.keys(target);
      const places = fields.flatMap((f, i) => (read.has(f) ? [i] : []));
      const gaps = [places[0]!, ...places.slice(1).map((x, i) => x - places[i]!), fields.length - 1 - places.at(-1)!];
      expect(Math.max(...gaps), `${target.constructor.name}: fields ${fields.join(",")}, read ${[...read].join(",")}`).toBeLessThanOrEqual(
        7,
      );
    }
  });
});
