/**
 * The scheduling core on real configurations: the worked scenarios of the yunikorn-core reference (§4.12), limits,
 * placement, config reload, determinism, and random event sequences checked against the accounting invariants.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeQueuesYaml } from "../../../src/scheduler/core/config.js";
import { type Allocation, allocationOf } from "../../../src/scheduler/core/allocation-result.js";
import { formatHoldReason, holdEventText, queueMaxHold } from "../../../src/scheduler/core/hold-reason.js";
import { Partition } from "../../../src/scheduler/core/partition.js";
import { validateSchedulerConfig } from "../../../src/scheduler/core/validate.js";
import type { Res } from "../../../src/scheduler/core/resources.js";
import { formatLimitHold } from "../../../src/scheduler/core/ugm/hold.js";

const partitionFrom = (yaml: string) =>
  new Partition({ name: "default", config: validateSchedulerConfig(decodeQueuesYaml(yaml)).partitions[0]! });
const drain = (p: Partition, now = 0): Allocation[] => {
  const out: Allocation[] = [];
  for (let r = p.tryAllocate(now); r; r = p.tryAllocate(now)) {
    const a = allocationOf(r);
    if (a) out.push(a);
  }
  return out;
};
const NODE = { memory: 100_000_000, vcore: 20_000 };
const ASK = { memory: 10_000_000, vcore: 1000 };

describe("worked scenarios (yunikorn-core reference §4.12)", () => {
  it("queue max caps allocation at 150M", () => {
    const p = partitionFrom(`partitions:
  - name: default
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: leaf
            resources:
              max: {memory: 150M, vcore: 20}
`);
    p.addNode("n1", NODE);
    p.addNode("n2", NODE);
    p.addApplication({ id: "app-1", queue: "root.leaf", user: "alice", groups: ["users"], tags: {}, now: 0 });
    p.addAsk({ appId: "app-1", key: "a1", resource: ASK, priority: 0, createTime: 1, now: 1 });
    p.addAsk({ appId: "app-1", key: "a2", resource: ASK, priority: 0, createTime: 2, now: 2 });
    expect(p.apps.get("app-1")!.state).toBe("Accepted");
    expect(p.find("root.leaf")!.pending.memory).toBe(20_000_000);
    expect(drain(p)).toHaveLength(2);
    expect(p.find("root.leaf")!.pending.memory).toBe(0);
    expect(["Starting", "Running"]).toContain(p.apps.get("app-1")!.state);
    p.addAsk({ appId: "app-1", key: "b1", resource: { memory: 50_000_000, vcore: 1000 }, priority: 0, createTime: 3, now: 3 });
    p.addAsk({ appId: "app-1", key: "b2", resource: { memory: 50_000_000, vcore: 1000 }, priority: 0, createTime: 4, now: 4 });
    p.addAsk({ appId: "app-1", key: "c1", resource: { memory: 100_000_000, vcore: 1000 }, priority: 0, createTime: 5, now: 5 });
    p.addAsk({ appId: "app-1", key: "c2", resource: { memory: 100_000_000, vcore: 1000 }, priority: 0, createTime: 6, now: 6 });
    const more = drain(p);
    expect(more.map((a) => a.key).sort()).toEqual(["b1", "b2"]);
    expect(p.find("root.leaf")!.allocated.memory).toBe(120_000_000);
    expect(p.find("root.leaf")!.pending.memory).toBe(200_000_000);
    expect(formatHoldReason(queueMaxHold(p.find("root.leaf")!, { memory: 100_000_000 })!)).toMatch(
      /queue root.leaf maximum map\[memory:150000000 vcore:20000\] reached/,
    );
  });

  it("10/10 fairness between two queues", () => {
    const p = partitionFrom(`partitions:
  - name: default
    queues:
      - name: root
        submitacl: "*"
        queues: [{name: a}, {name: b}]
`);
    p.addNode("n1", NODE);
    p.addNode("n2", NODE);
    p.addApplication({ id: "app-a", queue: "root.a", user: "alice", groups: [], tags: {}, now: 0 });
    p.addApplication({ id: "app-b", queue: "root.b", user: "bob", groups: [], tags: {}, now: 0 });
    for (let i = 0; i < 20; i++) {
      p.addAsk({ appId: "app-a", key: `a${i}`, resource: ASK, priority: 0, createTime: i, now: 0 });
      p.addAsk({ appId: "app-b", key: `b${i}`, resource: ASK, priority: 0, createTime: i, now: 0 });
    }
    expect(drain(p)).toHaveLength(20);
    expect(p.apps.get("app-a")!.allocated.memory).toBe(100_000_000);
    expect(p.apps.get("app-b")!.allocated.memory).toBe(100_000_000);
  });

  it("10/10 fairness within a fair leaf; fifo gives everything to the older app", () => {
    for (const [policy, expected] of [
      ["fair", [10, 10]],
      ["fifo", [20, 0]],
    ] as const) {
      const p = partitionFrom(`partitions:
  - name: default
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: leaf
            properties: {application.sort.policy: ${policy}}
`);
      p.addNode("n1", NODE);
      p.addNode("n2", NODE);
      p.addApplication({ id: "app-1", queue: "root.leaf", user: "alice", groups: [], tags: {}, now: 0 });
      p.addApplication({ id: "app-2", queue: "root.leaf", user: "alice", groups: [], tags: {}, now: 1 });
      for (let i = 0; i < 20; i++) {
        p.addAsk({ appId: "app-1", key: `a${i}`, resource: ASK, priority: 0, createTime: 10 + i, now: 0 });
        p.addAsk({ appId: "app-2", key: `b${i}`, resource: ASK, priority: 0, createTime: 10 + i, now: 0 });
      }
      const allocs = drain(p);
      expect(allocs).toHaveLength(20);
      expect([allocs.filter((a) => a.appId === "app-1").length, allocs.filter((a) => a.appId === "app-2").length]).toEqual(expected);
    }
  });
});

describe("limits, placement and reload", () => {
  const yaml = `partitions:
  - name: default
    placementrules:
      - name: provided
      - name: user
        create: true
        parent: {name: fixed, value: users}
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: shared
            maxapplications: 2
            limits:
              - users: [alice]
                maxresources: {memory: 20M}
          - name: users
            parent: true
          - name: old
`;
  it("alice is capped by her user limit, bob is not", () => {
    const p = partitionFrom(yaml);
    p.addNode("n1", NODE);
    p.addApplication({ id: "a", queue: "root.shared", user: "alice", groups: ["users"], tags: {}, now: 0 });
    p.addApplication({ id: "b", queue: "root.shared", user: "bob", groups: ["users"], tags: {}, now: 0 });
    for (let i = 0; i < 4; i++) {
      p.addAsk({ appId: "a", key: `a${i}`, resource: ASK, priority: 0, createTime: i, now: 0 });
      p.addAsk({ appId: "b", key: `b${i}`, resource: ASK, priority: 0, createTime: i, now: 0 });
    }
    const allocs = drain(p);
    expect(allocs.filter((x) => x.appId === "a")).toHaveLength(2);
    expect(allocs.filter((x) => x.appId === "b")).toHaveLength(4);
    expect(formatLimitHold(p.limits.headroom(p.apps.get("a")!, ASK)!)).toBe("user alice quota reached on root.shared");
  });

  it("queue maxapplications holds back a third application", () => {
    const p = partitionFrom(yaml);
    p.addNode("n1", NODE);
    for (const id of ["x", "y", "z"]) {
      p.addApplication({ id, queue: "root.shared", user: "bob", groups: [], tags: {}, now: id.charCodeAt(0) });
      p.addAsk({ appId: id, key: "k", resource: ASK, priority: 0, createTime: id.charCodeAt(0), now: 0 });
    }
    expect(
      drain(p)
        .map((a) => a.appId)
        .sort(),
    ).toEqual(["x", "y"]);
    expect(p.apps.get("z")!.state).toBe("Accepted");
    p.removeAsk("x", "k", 10);
    expect(drain(p).map((a) => a.appId)).toEqual(["z"]);
  });

  it("placement: provided queue, else a per-user queue created under root.users", () => {
    const p = partitionFrom(yaml);
    expect(p.addApplication({ id: "a", queue: "root.shared", user: "alice", groups: [], tags: {}, now: 0 })).toBe("root.shared");
    expect(p.addApplication({ id: "b", queue: "", user: "carol.smith", groups: [], tags: {}, now: 0 })).toBe("root.users.carol_dot_smith");
    expect(p.addApplication({ id: "c", queue: "root.nope", user: "dave", groups: [], tags: {}, now: 0 })).toBe("root.users.dave");
  });

  it("placement filters: a deny filter on a group skips the rule", () => {
    const p = partitionFrom(`partitions:
  - name: default
    placementrules:
      - name: user
        create: true
        filter: {type: deny, groups: [contractors]}
      - name: fixed
        value: shared
    queues:
      - name: root
        submitacl: "*"
        queues: [{name: shared}]
`);
    expect(p.addApplication({ id: "a", queue: "", user: "alice", groups: ["staff"], tags: {}, now: 0 })).toBe("root.alice");
    expect(p.addApplication({ id: "b", queue: "", user: "carol", groups: ["contractors"], tags: {}, now: 0 })).toBe("root.shared");
  });

  it("dynamic per-user queues get the parent's child template (max, maxapplications, sort policy)", () => {
    const p = partitionFrom(`partitions:
  - name: default
    placementrules:
      - name: user
        create: true
        parent: {name: fixed, value: tenants}
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: tenants
            parent: true
            childtemplate:
              maxapplications: 1
              properties: {application.sort.policy: fair}
              resources:
                max: {memory: 20M}
`);
    p.addNode("n1", NODE);
    p.addApplication({ id: "a1", queue: "", user: "alice", groups: [], tags: {}, now: 0 });
    p.addApplication({ id: "a2", queue: "", user: "alice", groups: [], tags: {}, now: 1 });
    const q = p.find("root.tenants.alice")!;
    expect([q.isLeaf, q.managed, q.maxApps, q.sortPolicy, q.max]).toEqual([true, false, 1, "fair", { memory: 20_000_000 }]);
    for (let i = 0; i < 3; i++) {
      p.addAsk({ appId: "a1", key: `k${i}`, resource: ASK, priority: 0, createTime: i, now: 0 });
      p.addAsk({ appId: "a2", key: `k${i}`, resource: ASK, priority: 0, createTime: i, now: 0 });
    }
    const allocs = drain(p);
    expect(allocs.map((a) => a.appId)).toEqual(["a1", "a1"]); // one running app, 20M max
  });

  it("forced applications nothing places go to root.@recovery@, an anonymous one runs as nobody", () => {
    const p = partitionFrom(
      "partitions:\n  - name: default\n    queues:\n      - name: root\n        queues: [{name: locked, submitacl: ' admins'}]\n",
    );
    expect(() => p.addApplication({ id: "x", queue: "root.locked", user: "alice", groups: ["users"], tags: {}, now: 0 })).toThrow(
      "application rejected: no placement rule matched",
    );
    expect(
      p.addApplication({
        id: "y",
        queue: "root.locked",
        user: "alice",
        groups: ["users"],
        tags: { "application.create.force": "true" },
        now: 0,
      }),
    ).toBe("root.@recovery@");
    expect(p.addApplication({ id: "z", queue: "", user: "", groups: [], tags: { "Application.Create.Force": "t" }, now: 0 })).toBe(
      "root.@recovery@",
    );
    expect(p.apps.get("z")!.user).toBe("nobody");
  });

  it("a queue removed from the config drains: no new applications, running ones finish", () => {
    const p = partitionFrom(yaml);
    p.addNode("n1", NODE);
    p.addApplication({ id: "keep", queue: "root.old", user: "alice", groups: [], tags: {}, now: 0 });
    p.addAsk({ appId: "keep", key: "k1", resource: ASK, priority: 0, createTime: 0, now: 0 });
    p.applyConfig(validateSchedulerConfig(decodeQueuesYaml(yaml.replace("          - name: old\n", ""))).partitions[0]!);
    expect(p.find("root.old")!.draining).toBe(true);
    expect(drain(p)).toHaveLength(1);
    expect(() => p.addApplication({ id: "new", queue: "root.old", user: "alice", groups: [], tags: {}, now: 1 })).not.toThrow();
    expect(p.apps.get("new")!.queue.path).toBe("root.users.alice");
  });

  it("bad input is rejected with a reason, never thrown past the caller's catch", () => {
    const p = partitionFrom(yaml);
    p.addNode("n1", NODE);
    p.addApplication({ id: "a", queue: "root.shared", user: "alice", groups: [], tags: {}, now: 0 });
    expect(() => p.addAsk({ appId: "nope", key: "k", resource: ASK, priority: 0, createTime: 0, now: 0 })).toThrow(
      "failed to find application nope",
    );
    expect(() => p.addAsk({ appId: "a", key: "k", resource: { memory: -1 }, priority: 0, createTime: 0, now: 0 })).toThrow(
      "allocation contains negative resources",
    );
    expect(() => p.addAsk({ appId: "a", key: "k", resource: {}, priority: 0, createTime: 0, now: 0 })).toThrow(
      "allocation contains no resources",
    );
    expect(() => p.addNode("n1", NODE)).toThrow(/node name must be unique/);
    expect(() => p.addApplication({ id: "e", queue: "root.shared", user: "", groups: [], tags: {}, now: 0 })).toThrow(
      "empty user cannot resolve",
    );
    expect(p.rejected.get("e")!.rejectedMessage).toBe("empty user cannot resolve");
    expect(() => p.addAsk({ appId: "a", key: "huge", resource: { memory: 10 * NODE.memory }, priority: 0, createTime: 0, now: 0 })).toThrow(
      "ask huge requests map[memory:1000000000], more than any node provides (nodes: 1)",
    );
    expect(() => p.addAsk({ appId: "a", key: "gpu", resource: { "nvidia.com/gpu": 1 }, priority: 0, createTime: 0, now: 0 })).toThrow(
      /more than any node provides/,
    );
    expect(() => p.addAsk({ appId: "a", key: "dup", resource: ASK, priority: 0, createTime: 0, now: 0 })).not.toThrow();
    // an existing key is an update (UpdateAllocation), not a duplicate: see "UpdateAllocation for an existing key"
    expect(() => p.addAsk({ appId: "a", key: "dup", resource: ASK, priority: 0, createTime: 0, now: 0 })).not.toThrow();
    expect(p.apps.get("a")!.asks.size).toBe(1);
  });
});

describe("invariants under random event sequences", () => {
  it("no node over capacity, no queue over max, usage totals agree between nodes, queues and apps", () => {
    const cfg = `partitions:
  - name: default
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: a
            resources: {max: {memory: 300, vcore: 30}}
          - name: b
            resources: {guaranteed: {memory: 100}}
            limits:
              - users: ["*"]
                maxresources: {memory: 150}
`;
    const event = fc.oneof(
      fc.record({
        t: fc.constant("node" as const),
        id: fc.integer({ min: 0, max: 4 }),
        mem: fc.integer({ min: 0, max: 400 }),
        cpu: fc.integer({ min: 0, max: 40 }),
      }),
      fc.record({
        t: fc.constant("app" as const),
        id: fc.integer({ min: 0, max: 5 }),
        q: fc.constantFrom("root.a", "root.b", "root.c"),
        user: fc.constantFrom("alice", "bob"),
      }),
      fc.record({
        t: fc.constant("ask" as const),
        app: fc.integer({ min: 0, max: 5 }),
        key: fc.integer({ min: 0, max: 30 }),
        mem: fc.integer({ min: -5, max: 120 }),
        cpu: fc.integer({ min: 0, max: 12 }),
        prio: fc.integer({ min: 0, max: 3 }),
      }),
      fc.record({ t: fc.constant("release" as const), app: fc.integer({ min: 0, max: 5 }), key: fc.integer({ min: 0, max: 30 }) }),
      fc.record({ t: fc.constant("removeNode" as const), id: fc.integer({ min: 0, max: 4 }) }),
      fc.record({ t: fc.constant("removeApp" as const), app: fc.integer({ min: 0, max: 5 }) }),
      fc.record({ t: fc.constant("schedule" as const), n: fc.integer({ min: 1, max: 10 }) }),
      // application churn: removed and submitted again under the same id; time passing (reservation delay, timers)
      fc.record({ t: fc.constant("churn" as const), app: fc.integer({ min: 0, max: 5 }), q: fc.constantFrom("root.a", "root.b") }),
      fc.record({ t: fc.constant("wait" as const), ms: fc.integer({ min: 1000, max: 60_000 }) }),
      fc.record({ t: fc.constant("drainNode" as const), id: fc.integer({ min: 0, max: 7 }), on: fc.boolean() }),
      // small nodes: fragmentation, so asks that fit a node's capacity but no node's free space reserve one
      fc.record({
        t: fc.constant("node" as const),
        id: fc.integer({ min: 5, max: 7 }),
        mem: fc.integer({ min: 60, max: 150 }),
        cpu: fc.integer({ min: 6, max: 15 }),
      }),
    );
    fc.assert(
      fc.property(fc.array(event, { maxLength: 80 }), (events) => {
        const p = partitionFrom(cfg);
        const running = new RunningModel();
        let now = 0;
        for (const e of events) {
          now += 1000;
          try {
            switch (e.t) {
              case "node":
                p.addNode(`n${e.id}`, { memory: e.mem, vcore: e.cpu });
                break;
              case "app":
                p.addApplication({ id: `app${e.id}`, queue: e.q, user: e.user, groups: [], tags: {}, now });
                break;
              case "ask":
                p.addAsk({
                  appId: `app${e.app}`,
                  key: `k${e.key}`,
                  resource: { memory: e.mem, vcore: e.cpu },
                  priority: e.prio,
                  createTime: now,
                  now,
                });
                break;
              case "release":
                p.removeAsk(`app${e.app}`, `k${e.key}`, now);
                break;
              case "removeNode":
                p.removeNode(`n${e.id}`, now);
                break;
              case "removeApp":
                p.removeApplication(`app${e.app}`, now);
                break;
              case "schedule":
                for (let i = 0; i < e.n; i++) p.tryAllocate(now);
                break;
              case "churn":
                p.removeApplication(`app${e.app}`, now);
                p.addApplication({ id: `app${e.app}`, queue: e.q, user: "alice", groups: [], tags: {}, now });
                break;
              case "wait":
                now += e.ms;
                p.tick(now);
                break;
              case "drainNode":
                p.updateNode(`n${e.id}`, { schedulable: e.on });
                break;
            }
          } catch (err) {
            expect((err as Error).message.length).toBeGreaterThan(0); // a clear rejection, the partition stays usable
          }
          checkInvariants(p, running);
        }
      }),
      { numRuns: 300 },
    );
  });
  it("with fragmented nodes: reservations are made and released consistently under application churn", () => {
    const cfg = `partitions:
  - name: default
    queues:
      - name: root
        submitacl: "*"
        queues: [{name: a}, {name: b, resources: {guaranteed: {memory: 20}}}]
`;
    const event = fc.oneof(
      {
        arbitrary: fc.record({
          t: fc.constant("ask" as const),
          app: fc.integer({ min: 0, max: 4 }),
          key: fc.integer({ min: 0, max: 20 }),
          mem: fc.integer({ min: 1, max: 9 }),
          prio: fc.integer({ min: 0, max: 2 }),
        }),
        weight: 6,
      },
      {
        arbitrary: fc.record({
          t: fc.constant("release" as const),
          app: fc.integer({ min: 0, max: 4 }),
          key: fc.integer({ min: 0, max: 20 }),
        }),
        weight: 3,
      },
      {
        arbitrary: fc.record({
          t: fc.constant("churn" as const),
          app: fc.integer({ min: 0, max: 4 }),
          q: fc.constantFrom("root.a", "root.b"),
        }),
        weight: 1,
      },
      { arbitrary: fc.record({ t: fc.constant("wait" as const), ms: fc.integer({ min: 500, max: 40_000 }) }), weight: 2 },
      { arbitrary: fc.record({ t: fc.constant("schedule" as const), n: fc.integer({ min: 1, max: 20 }) }), weight: 4 },
      {
        arbitrary: fc.record({
          t: fc.constant("node" as const),
          id: fc.integer({ min: 0, max: 4 }),
          remove: fc.boolean(),
          drain: fc.boolean(),
        }),
        weight: 1,
      },
    );
    let reserved = 0;
    fc.assert(
      fc.property(fc.array(event, { minLength: 20, maxLength: 120 }), (events) => {
        const p = partitionFrom(cfg);
        const running = new RunningModel();
        let now = 0;
        for (let i = 0; i < 4; i++) p.addNode(`n${i}`, { memory: 10 });
        for (let i = 0; i < 5; i++)
          p.addApplication({ id: `app${i}`, queue: i % 2 ? "root.a" : "root.b", user: i % 3 ? "alice" : "bob", groups: [], tags: {}, now });
        for (const e of events) {
          now += 250;
          try {
            switch (e.t) {
              case "ask":
                p.addAsk({ appId: `app${e.app}`, key: `k${e.key}`, resource: { memory: e.mem }, priority: e.prio, createTime: now, now });
                break;
              case "release":
                p.removeAsk(`app${e.app}`, `k${e.key}`, now);
                break;
              case "churn":
                p.removeApplication(`app${e.app}`, now);
                p.addApplication({ id: `app${e.app}`, queue: e.q, user: "alice", groups: [], tags: {}, now });
                break;
              case "wait":
                now += e.ms;
                p.tick(now);
                break;
              case "schedule":
                for (let i = 0; i < e.n; i++) p.tryAllocate(now);
                break;
              case "node":
                if (e.remove) p.removeNode(`n${e.id}`, now);
                else if (p.nodes.has(`n${e.id}`)) p.updateNode(`n${e.id}`, { schedulable: !e.drain });
                else p.addNode(`n${e.id}`, { memory: 10 });
                break;
            }
          } catch (err) {
            expect((err as Error).message.length).toBeGreaterThan(0);
          }
          if (p.reservationList().length > 0) reserved++;
          checkInvariants(p, running);
        }
      }),
      { numRuns: 100 },
    );
    expect(reserved).toBeGreaterThan(0); // the generator does reach reservations
  });
});

/**
 * Upstream's rule for the applications that run for their user (application.go removeAllocationInternal,
 * hasZeroAllocations): from an application's first allocation until it holds no allocation and asks for none. Fed the
 * partition after every event; none releases and allocates one application in the same event.
 */
class RunningModel {
  private readonly ran = new WeakSet<object>();
  /** User → the applications that run for them now. */
  observe(p: Partition): Map<string, Set<string>> {
    const out = new Map<string, Set<string>>();
    for (const a of p.apps.values()) {
      if ([...a.asks.values()].some((x) => x.node)) this.ran.add(a);
      if (a.asks.size === 0) this.ran.delete(a);
      if (!this.ran.has(a)) continue;
      if (!out.has(a.user)) out.set(a.user, new Set());
      out.get(a.user)!.add(a.id);
    }
    return out;
  }
}

function checkInvariants(p: Partition, runningModel?: RunningModel): void {
  const sum = (rs: Res[]) =>
    rs.reduce<Res>((acc, r) => {
      for (const k in r) acc[k] = (acc[k] ?? 0) + r[k]!;
      return acc;
    }, {});
  const clean = (r: Res) => Object.fromEntries(Object.entries(r).filter(([, v]) => v !== 0));
  for (const n of p.nodes.values()) for (const k in n.capacity) expect(n.allocated[k] ?? 0).toBeLessThanOrEqual(n.capacity[k]!);
  const apps = [...p.apps.values()];
  const allocatedAsks = apps.flatMap((a) => [...a.asks.values()].filter((x) => x.node).map((x) => x.resource));
  expect(clean(sum([...p.nodes.values()].map((n) => n.allocated)))).toEqual(clean(sum(allocatedAsks)));
  expect(clean(p.root.allocated)).toEqual(clean(sum(apps.map((a) => a.allocated))));
  expect(clean(p.root.pending)).toEqual(
    clean(sum(apps.flatMap((a) => [...a.asks.values()].filter((x) => !x.node).map((x) => x.resource)))),
  );
  // user usage agrees with the applications' allocations
  for (const [user, byPath] of p.limits.snapshot("users")) {
    const mine = apps.filter((a) => a.user === user);
    expect(clean(byPath.get("root")?.res ?? {})).toEqual(clean(sum(mine.map((a) => a.allocated))));
  }
  // the applications running for each user are the model's (RunningModel)
  if (runningModel) {
    const want = runningModel.observe(p);
    const got = new Map([...p.limits.snapshot("users")].map(([user, byPath]) => [user, byPath.get("root")?.apps ?? new Set<string>()]));
    for (const user of new Set([...want.keys(), ...got.keys()]))
      expect([...(got.get(user) ?? [])].sort(), user).toEqual([...(want.get(user) ?? [])].sort());
  }
  for (const user of ["alice", "bob"]) {
    const used = apps.filter((a) => a.user === user && a.queue.path === "root.b").reduce((m, a) => m + (a.allocated.memory ?? 0), 0);
    expect(used).toBeLessThanOrEqual(150); // wildcard user limit on root.b
  }
  // reservations: one per node, each for a pending ask of an active application, recorded on both sides
  const reservations = p.reservationList();
  for (const r of reservations) {
    const ask = p.apps.get(r.appId)?.asks.get(r.key);
    expect(ask && !ask.node && ask.reservedNode).toBe(r.nodeId);
    expect(p.nodes.get(r.nodeId)?.reservation).toMatchObject({ appId: r.appId, key: r.key });
    expect(p.nodes.get(r.nodeId)!.schedulable).toBe(true);
  }
  expect(new Set(reservations.map((r) => r.nodeId)).size).toBe(reservations.length);
  for (const n of p.nodes.values()) if (n.reservation) expect(reservations.some((r) => r.nodeId === n.id)).toBe(true);
  for (const a of apps)
    for (const x of a.asks.values()) if (x.reservedNode) expect(reservations.some((r) => r.appId === a.id && r.key === x.key)).toBe(true);
  // running counts: exactly the applications in a running state below each queue, never negative
  const running = (q: NonNullable<ReturnType<Partition["find"]>>): number =>
    [...q.apps.values()].filter((a) => a.state === "Starting" || a.state === "Running").length +
    [...q.children.values()].reduce((m, c) => m + running(c), 0);
  const walk = (q: NonNullable<ReturnType<Partition["find"]>>): void => {
    expect(q.runningApps).toBe(running(q));
    for (const c of q.children.values()) walk(c);
  };
  walk(p.root);
  const qa = p.find("root.a");
  if (qa?.max) for (const k in qa.max) expect(qa.allocated[k] ?? 0).toBeLessThanOrEqual(qa.max[k]!);
}

describe("determinism", () => {
  it("the same inputs give the same schedule, whatever the insertion order of nodes", () => {
    const run = (order: number[]) => {
      const p = partitionFrom(
        "partitions:\n  - name: default\n    queues:\n      - name: root\n        submitacl: '*'\n        queues: [{name: a}, {name: b}]\n",
      );
      for (const i of order) p.addNode(`n${i}`, NODE);
      p.addApplication({ id: "x", queue: "root.a", user: "alice", groups: [], tags: {}, now: 0 });
      p.addApplication({ id: "y", queue: "root.b", user: "bob", groups: [], tags: {}, now: 0 });
      for (let i = 0; i < 15; i++) {
        p.addAsk({ appId: "x", key: `k${i}`, resource: ASK, priority: i % 3, createTime: 5, now: 5 });
        p.addAsk({ appId: "y", key: `k${i}`, resource: ASK, priority: 0, createTime: 5, now: 5 });
      }
      return drain(p).map((a) => `${a.appId}/${a.key}@${a.nodeId}`);
    };
    const first = run([0, 1, 2, 3]);
    expect(first).toHaveLength(30);
    expect(run([3, 1, 0, 2])).toEqual(first);
  });
});

describe("holdEventText: the pod event for a hold", () => {
  it("says quota only for a quota; other skipped holds and node waits have their own words", () => {
    const quota = { kind: "queueMaxApplications", queuePath: "root.a", maxApplications: 1 } as const;
    expect(holdEventText("ns/p", quota)).toMatch(/^Task ns\/p is skipped from scheduling because the queue quota has been exceeded: /);
    const parent = { kind: "queueNotLeaf", queuePath: "root.a" } as const;
    expect(holdEventText("ns/p", parent)).toBe(`Task ns/p is skipped from scheduling: ${formatHoldReason(parent)}`);
    const gang = { kind: "gangReservation", appId: "g", allocated: {}, reservation: { memory: 1 }, taskGroups: [] } as const;
    expect(holdEventText("ns/p", gang)).toBe(`Task ns/p is skipped from scheduling: ${formatHoldReason(gang)}`);
    const noNode = { kind: "noNodeFits", ask: { memory: 1 }, nodes: 2 } as const;
    expect(holdEventText("ns/p", noNode)).toBe(
      `Task ns/p is pending for the requested resources become available: ${formatHoldReason(noNode)}`,
    );
  });
});
