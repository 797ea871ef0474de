/**
 * User and group limits (src/scheduler/core/ugm) against the upstream tests they follow, in
 * apache/yunikorn-core pkg/scheduler/ugm/manager_test.go; and the typed holds with the texts pods report.
 */
import { describe, expect, it } from "vitest";
import { decodeQueuesYaml, type QueueConfig } from "../../../src/scheduler/core/config.js";
import { Partition } from "../../../src/scheduler/core/partition.js";
import { validateSchedulerConfig } from "../../../src/scheduler/core/validate.js";
import { formatLimitHold, type LimitHold } from "../../../src/scheduler/core/ugm/hold.js";
import { LimitTracker, type TrackedApp } from "../../../src/scheduler/core/ugm/tracker.js";
import { allocationOf } from "../../../src/scheduler/core/allocation-result.js";
import { formatHoldReason, holdState } from "../../../src/scheduler/core/hold-reason.js";

const pendingReason = (p: Partition, appId: string, key: string) => {
  const r = p.holdReason(appId, key);
  return r && { state: holdState(r), reason: formatHoldReason(r) };
};

/** The validated root queue of a partition whose root has `children` (YAML list items indented 10). */
const rootOf = (limitsYaml: string, children = ""): QueueConfig =>
  validateSchedulerConfig(
    decodeQueuesYaml(`partitions:
  - name: default
    queues:
      - name: root
        submitacl: "*"
${limitsYaml}        queues:
          - name: parent
            parent: true
${children || "            queues: [{name: leaf}]\n"}`),
  ).partitions[0]!.queues![0]!;

/** A partition whose root (submitacl "*") has `rootYaml` below it (YAML indented 8). */
const partitionUnderRoot = (rootYaml: string): Partition =>
  new Partition({
    name: "default",
    config: validateSchedulerConfig(
      decodeQueuesYaml(`partitions:
  - name: default
    queues:
      - name: root
        submitacl: "*"
${rootYaml}`),
    ).partitions[0]!,
  });

const app = (id: string, user: string, groups: string[], path = "root.parent.leaf"): TrackedApp => ({ id, user, groups, queue: { path } });
const tracker = (root: QueueConfig) => {
  const t = new LimitTracker();
  t.load(root);
  return t;
};
const MEDIUM = { memory: 50 };

describe("group resolution (manager_test.go TestGetGroup)", () => {
  // limits: group test_root on root, test_parent on root.parent, nothing on the leaf
  const root = rootOf(
    `        limits:
          - groups: [test_root]
            maxapplications: 10
`,
    `            limits:
              - groups: [test_parent]
                maxapplications: 5
            queues: [{name: leaf}]
          - name: parent1
            parent: true
            queues: [{name: leaf1}]
`,
  );

  it("walks up from the leaf: the nearest level with a limit on one of the user's groups wins", () => {
    const t = tracker(root);
    expect(t.groupOf(app("a1", "test1", ["test", "test_root", "test_parent"]))).toBe("test_parent");
    expect(t.groupOf(app("a2", "test1", ["test", "test_root", "test_parent"], "root.parent1.leaf1"))).toBe("test_root");
    expect(t.groupOf(app("a3", "test1", ["test", "test_root"]))).toBe("test_root");
    expect(t.groupOf(app("a4", "test3", ["test"]))).toBeUndefined();
  });

  it("at one level the configured order decides, not the order of the user's groups", () => {
    const t = tracker(
      rootOf(`        limits:
          - groups: [test, test1]
            maxapplications: 10
`),
    );
    expect(t.groupOf(app("a1", "u", ["test", "test1"]))).toBe("test");
    expect(t.groupOf(app("a2", "u", ["test1", "test"]))).toBe("test");
  });

  it("no named group matches: the level's wildcard group limit, shared as group `*`", () => {
    const t = tracker(
      rootOf(`        limits:
          - groups: [dev]
            maxapplications: 10
          - groups: ["*"]
            maxapplications: 1
`),
    );
    expect(t.groupOf(app("a1", "u1", ["ops"]))).toBe("*");
    expect(t.groupOf(app("a2", "u2", ["dev", "ops"]))).toBe("dev");
  });

  it("a config without group limits: no group tracking", () => {
    const t = tracker(rootOf(""));
    t.track(app("a1", "test", ["test"]), { memory: 5 }, 1, true);
    expect([...t.snapshot("groups").keys()]).toEqual([]);
    expect(t.snapshot("users").get("test")!.get("root.parent.leaf")!.res).toEqual({ memory: 5 });
  });
});

describe("maxapplications (manager_test.go TestCanRunApp)", () => {
  const cases: [string, string, LimitHold][] = [
    [
      "specific user limit",
      "- users: [user1]\n  maxapplications: 1",
      { kind: "user", name: "user1", queuePath: "root.parent.leaf", wildcard: false, limit: { type: "applications", max: 1, running: 1 } },
    ],
    [
      "specific group limit",
      "- groups: [group1]\n  maxapplications: 1",
      {
        kind: "group",
        name: "group1",
        queuePath: "root.parent.leaf",
        wildcard: false,
        limit: { type: "applications", max: 1, running: 1 },
      },
    ],
    [
      "wildcard user limit",
      "- users: ['*']\n  maxapplications: 1",
      { kind: "user", name: "user1", queuePath: "root.parent.leaf", wildcard: true, limit: { type: "applications", max: 1, running: 1 } },
    ],
    [
      "wildcard group limit",
      "- groups: [nonexistent-group]\n  maxapplications: 100\n- groups: ['*']\n  maxapplications: 1",
      { kind: "group", name: "*", queuePath: "root.parent.leaf", wildcard: true, limit: { type: "applications", max: 1, running: 1 } },
    ],
    [
      "specific user lower than specific group limit",
      "- users: [user1]\n  maxapplications: 1\n- groups: [group1]\n  maxapplications: 100",
      { kind: "user", name: "user1", queuePath: "root.parent.leaf", wildcard: false, limit: { type: "applications", max: 1, running: 1 } },
    ],
    [
      "specific group lower than specific user limit",
      "- users: [user1]\n  maxapplications: 100\n- groups: [group1]\n  maxapplications: 1",
      {
        kind: "group",
        name: "group1",
        queuePath: "root.parent.leaf",
        wildcard: false,
        limit: { type: "applications", max: 1, running: 1 },
      },
    ],
  ];
  it.each(cases)("%s: the first app runs, a second is held by the limit", (_, limits, hold) => {
    const indented = limits
      .split("\n")
      .map((l) => `                  ${l}`)
      .join("\n");
    const t = tracker(rootOf("", `            queues:\n              - name: leaf\n                limits:\n${indented}\n`));
    const user = (id: string) => app(id, "user1", ["group1"]);
    expect(t.runHold(user("app-1"))).toBeUndefined();
    t.track(user("app-1"), MEDIUM, 1, true);
    expect(t.runHold(user("app-1"))).toBeUndefined(); // a running app is never held by maxapplications
    expect(t.runHold(user("app-2"))).toEqual(hold);
  });
});

describe("resources (manager_test.go TestSeparateUserGroupHeadroom, TestUserGroupHeadroom)", () => {
  it("the tighter of user and group limits holds; the hold names the limit, usage and ask in core units", () => {
    const t = tracker(
      rootOf(
        "",
        `            limits:
              - users: [user1]
                maxresources: {memory: 100}
              - groups: [group1]
                maxresources: {memory: 60}
            queues: [{name: leaf}]
`,
      ),
    );
    const a = app("app-1", "user1", ["group1"]);
    t.track(a, { memory: 40 }, 1, true);
    expect(t.headroom(a, { memory: 20 })).toBeUndefined();
    expect(t.headroom(a, { memory: 21 })).toEqual({
      kind: "group",
      name: "group1",
      queuePath: "root.parent",
      wildcard: false,
      limit: { type: "resources", max: { memory: 60 }, used: { memory: 40 }, ask: { memory: 21 } },
    });
    // another user of the same group shares the group's usage
    expect(t.headroom(app("app-2", "user2", ["group1"]), { memory: 21 })?.name).toBe("group1");
  });

  it("a type the limit does not set is unlimited", () => {
    const t = tracker(
      rootOf(`        limits:
          - users: ['*']
            maxresources: {memory: 10}
`),
    );
    expect(t.headroom(app("a", "u", []), { vcore: 1_000_000 })).toBeUndefined();
    expect(t.headroom(app("a", "u", []), { memory: 11 })).toMatchObject({ kind: "user", queuePath: "root", wildcard: true });
  });
});

describe("config changes", () => {
  const twoGroups = (named: string, wildcard = "") =>
    rootOf(
      "",
      `            limits:
${named}${wildcard}            queues: [{name: leaf}]
`,
    );

  it("a group removed from a named limit falls back to the wildcard group (manager_test.go TestMultipleGroupLimitChange)", () => {
    const wildcard = "              - groups: ['*']\n                maxresources: {memory: 50}\n                maxapplications: 1\n";
    const t = tracker(
      twoGroups(
        "              - groups: [group1, group2]\n                maxresources: {memory: 100}\n                maxapplications: 2\n",
        wildcard,
      ),
    );
    const u1 = (id: string) => app(id, "user1", ["group1"], "root.parent");
    const u2 = (id: string) => app(id, "user2", ["group2"], "root.parent");
    const u3 = (id: string) => app(id, "user3", ["group3"], "root.parent");
    for (const a of [u1("1-1"), u2("2-1"), u3("3-1")]) {
      expect(t.headroom(a, MEDIUM)).toBeUndefined();
      t.track(a, MEDIUM, 1, true);
    }
    t.load(
      twoGroups(
        "              - groups: [group1]\n                maxresources: {memory: 100}\n                maxapplications: 2\n",
        wildcard,
      ),
    );
    expect(t.headroom(u1("1-2"), MEDIUM)).toBeUndefined();
    expect(t.headroom(u2("2-2"), MEDIUM)).toMatchObject({ kind: "group", name: "*", queuePath: "root.parent", wildcard: true });
    expect(t.headroom(u3("3-2"), MEDIUM)).toMatchObject({ kind: "group", name: "*" });
  });

  it("an application tracked under a group whose limit is removed is tracked under the group it resolves to now (issue: it escaped a new limit on another of its groups)", () => {
    const before = twoGroups(
      "              - groups: [g1]\n                maxresources: {memory: 100}\n                maxapplications: 5\n",
    );
    const after = twoGroups(
      "              - groups: [g2]\n                maxresources: {memory: 60}\n                maxapplications: 1\n",
    );
    const t = tracker(before);
    const old = app("old", "alice", ["g1", "g2"]);
    t.track(old, { memory: 40 }, 1, true);
    expect(t.groupOf(old)).toBe("g1");
    t.load(after);
    // upstream resetGroupEarlierUsage: g1 no longer counts the app, and with nothing left and no limit it is gone ...
    expect(t.snapshot("groups").has("g1")).toBe(false);
    // ... and the app now counts against g2, with the usage it already has
    expect(t.groupOf(old)).toBe("g2");
    expect(t.snapshot("groups").get("g2")!.get("root.parent")).toEqual({ res: { memory: 40 }, apps: new Set(["old"]) });
    expect(t.headroom(old, { memory: 21 })).toMatchObject({
      kind: "group",
      name: "g2",
      limit: { type: "resources", used: { memory: 40 } },
    });
    // a new application of g2 is held by maxapplications, as before the fix; the old one no longer escapes
    expect(t.runHold(app("new", "bob", ["g2"]))).toMatchObject({
      kind: "group",
      name: "g2",
      limit: { type: "applications", max: 1, running: 1 },
    });
    // releasing the old app's allocation leaves g2 at zero, not below
    t.track(old, { memory: 40 }, -1, false);
    expect(t.snapshot("groups").get("g2")!.get("root")).toEqual({ res: { memory: 0 }, apps: new Set() });
    expect(t.runHold(app("new", "bob", ["g2"]))).toBeUndefined();
  });

  it("a group limit removed on one queue keeps the group for applications elsewhere", () => {
    const root = (leafLimit: boolean) =>
      rootOf(
        `        limits:
          - groups: [dev]
            maxapplications: 9
`,
        `            queues:
              - name: leaf
${
  leafLimit ? "                limits:\n                  - groups: [dev]\n" + "                    maxapplications: 3\n" : ""
}              - name: other
`,
      );
    const t = tracker(root(true));
    const inLeaf = app("a", "u", ["dev"]);
    const inOther = app("b", "u", ["dev"], "root.parent.other");
    t.track(inLeaf, MEDIUM, 1, true);
    t.track(inOther, MEDIUM, 1, true);
    t.load(root(false));
    // `a` was unlinked and resolved again (to dev on root); `b` kept its link; dev's totals are exact
    expect(t.groupOf(inLeaf)).toBe("dev");
    expect(t.snapshot("groups").get("dev")!.get("root")).toEqual({ res: { memory: 100 }, apps: new Set(["a", "b"]) });
  });

  it("the link is dropped with the application's last allocation (user_tracker.go decreaseTrackedResource removeApp)", () => {
    const withLimit = twoGroups("              - groups: [g2]\n                maxapplications: 1\n");
    const t = tracker(rootOf(""));
    const a = app("a", "u", ["g2"]);
    t.track(a, MEDIUM, 1, true);
    expect(t.groupOf(a)).toBeUndefined();
    t.load(withLimit);
    expect(t.groupOf(a)).toBeUndefined(); // as upstream: a resolved "no group" sticks while the app runs
    t.track(a, MEDIUM, -1, false);
    expect(t.groupOf(a)).toBe("g2");
  });
});

describe("usage records along the queue path", () => {
  // queues linked to their parents as the partition's are, each keeping the records of the user and group looked up last
  const queues = () => {
    const parent: TrackedApp["queue"] = { path: "root.parent", parent: { path: "root" } };
    return { parent, leaf: { path: "root.parent.leaf", parent } as TrackedApp["queue"] };
  };
  const linked = (id: string, user: string, q: TrackedApp["queue"]): TrackedApp => ({ id, user, groups: ["dev"], queue: q });
  const limits = `        limits:
          - groups: [dev]
            maxapplications: 10
`;
  const usage = (t: LimitTracker, kind: "users" | "groups", name: string) =>
    Object.fromEntries([...(t.snapshot(kind).get(name) ?? new Map())].map(([path, u]) => [path, u.res]));

  it("users alternating on one leaf are each charged at every level, by queue links or by path alike", () => {
    const { parent, leaf } = queues();
    const byLinks = tracker(rootOf(limits));
    const byPath = tracker(rootOf(limits));
    const charges: [string, string, number][] = [
      ["a1", "alice", 10],
      ["b1", "bob", 20],
      ["a2", "alice", 30],
      ["b2", "bob", 5],
    ];
    for (const [id, user, memory] of charges) {
      byLinks.track(linked(id, user, leaf), { memory }, 1, true);
      byPath.track(app(id, user, ["dev"]), { memory }, 1, true);
    }
    for (const t of [byLinks, byPath]) {
      expect(usage(t, "users", "alice")).toEqual({
        root: { memory: 40 },
        "root.parent": { memory: 40 },
        "root.parent.leaf": { memory: 40 },
      });
      expect(usage(t, "users", "bob")).toEqual({ root: { memory: 25 }, "root.parent": { memory: 25 }, "root.parent.leaf": { memory: 25 } });
      expect(usage(t, "groups", "dev")).toEqual({
        root: { memory: 65 },
        "root.parent": { memory: 65 },
        "root.parent.leaf": { memory: 65 },
      });
    }
    // the leaf keeps the record looked up last (b2's first charge); its parent the one that record links to
    expect(leaf.ugmUser?.name).toBe("bob");
    expect(leaf.ugmUser?.parent).toBe(parent.ugmUser);
  });

  it("a slot filled by another tracker is not used: each tracker charges its own records", () => {
    const { leaf } = queues();
    const first = tracker(rootOf(limits));
    const second = tracker(rootOf(limits));
    first.track(linked("a1", "alice", leaf), { memory: 10 }, 1, true);
    second.track(linked("a2", "alice", leaf), { memory: 7 }, 1, true);
    expect(usage(first, "users", "alice")["root.parent.leaf"]).toEqual({ memory: 10 });
    expect(usage(second, "users", "alice")["root.parent.leaf"]).toEqual({ memory: 7 });
  });

  it("a user with nothing left is removed from the tracker, so its records do not grow with every user ever seen (manager.go DecreaseTrackedResource)", () => {
    const { leaf } = queues();
    const t = tracker(rootOf(limits));
    for (let i = 0; i < 1000; i++) {
      const a = linked(`app-${i}`, `user-${i}`, leaf);
      t.track(a, { memory: 10 }, 1, true);
      t.track(a, { memory: 10 }, -1, false);
    }
    expect(t.snapshot("users").size).toBe(0);
    // the group keeps its records: a limit applies to it (upstream keeps a tracker whose queue trackers have limits)
    expect(usage(t, "groups", "dev")).toEqual({ root: { memory: 0 }, "root.parent": { memory: 0 }, "root.parent.leaf": { memory: 0 } });
    // a user with an application still running stays, with its usage
    const a = linked("a", "alice", leaf);
    const b = linked("b", "alice", leaf);
    t.track(a, { memory: 4 }, 1, true);
    t.track(b, { memory: 6 }, 1, true);
    t.track(a, { memory: 4 }, -1, false);
    expect(usage(t, "users", "alice")["root"]).toEqual({ memory: 6 });
  });

  it("a user removed and back on the same leaf is charged on new records, not the removed ones the queue still holds", () => {
    const { leaf } = queues();
    const t = tracker(rootOf(limits));
    const a1 = linked("a1", "alice", leaf);
    t.track(a1, { memory: 10 }, 1, true);
    const removed = leaf.ugmUser;
    t.track(a1, { memory: 10 }, -1, false);
    expect(t.snapshot("users").has("alice")).toBe(false);
    t.track(linked("a2", "alice", leaf), { memory: 3 }, 1, true);
    expect(usage(t, "users", "alice")).toEqual({ root: { memory: 3 }, "root.parent": { memory: 3 }, "root.parent.leaf": { memory: 3 } });
    expect(leaf.ugmUser).not.toBe(removed);
    expect(removed?.res).toEqual({ memory: 0 });
  });

  it("a user or group kept only by a limit goes when a configuration removes that limit (manager.go resetUserEarlierUsage)", () => {
    const { leaf } = queues();
    const withLimits = rootOf(`        limits:
          - users: [carol]
            maxapplications: 2
          - groups: [dev]
            maxapplications: 10
`);
    const t = tracker(withLimits);
    const c = linked("c", "carol", leaf);
    t.track(c, { memory: 10 }, 1, true);
    t.track(c, { memory: 10 }, -1, false);
    expect(t.snapshot("users").has("carol")).toBe(true);
    expect(t.snapshot("groups").has("dev")).toBe(true);
    t.load(rootOf(""));
    expect(t.snapshot("users").has("carol")).toBe(false);
    expect(t.snapshot("groups").has("dev")).toBe(false);
  });

  it("a queue made again for the same path (a dynamic queue removed and re-created) charges the same records", () => {
    const { parent, leaf } = queues();
    const t = tracker(rootOf(limits));
    const a1 = linked("a1", "alice", leaf);
    t.track(a1, { memory: 10 }, 1, true);
    const again: TrackedApp["queue"] = { path: "root.parent.leaf", parent };
    t.track(linked("a2", "alice", again), { memory: 5 }, 1, true);
    t.track(a1, { memory: 10 }, -1, false);
    expect(usage(t, "users", "alice")).toEqual({ root: { memory: 5 }, "root.parent": { memory: 5 }, "root.parent.leaf": { memory: 5 } });
    expect(again.ugmUser).toBe(leaf.ugmUser);
  });
});

describe("hold texts (the formatter at the edge)", () => {
  it("formats resource and application holds as pods and the simulator report them", () => {
    const base = { name: "alice", queuePath: "root.shared", wildcard: false } as const;
    expect(
      formatLimitHold({
        ...base,
        kind: "user",
        limit: { type: "resources", max: { memory: 20 }, used: { memory: 20 }, ask: { memory: 10 } },
      }),
    ).toBe("user alice quota reached on root.shared");
    expect(formatLimitHold({ ...base, kind: "group", name: "dev", limit: { type: "resources", max: {}, used: {}, ask: {} } })).toBe(
      "group dev quota reached on root.shared",
    );
    expect(formatLimitHold({ ...base, kind: "user", limit: { type: "applications", max: 2, running: 2 } })).toBe(
      "user alice running applications limit 2 reached on root.shared",
    );
    expect(
      formatLimitHold({ ...base, kind: "group", name: "*", wildcard: true, limit: { type: "applications", max: 1, running: 1 } }),
    ).toBe("group * running applications limit 1 reached on root.shared");
  });

  it("the partition reports a user maxapplications hold with that text", () => {
    const p = partitionUnderRoot(`        limits:
          - users: [alice]
            maxapplications: 1
        queues: [{name: a}]
`);
    p.addNode("n1", { memory: 100 });
    p.addApplication({ id: "x", queue: "root.a", user: "alice", groups: [], tags: {}, now: 0 });
    p.addApplication({ id: "y", queue: "root.a", user: "alice", groups: [], tags: {}, now: 1 });
    p.addAsk({ appId: "x", key: "k", resource: { memory: 1 }, priority: 0, createTime: 0, now: 0 });
    p.addAsk({ appId: "y", key: "k", resource: { memory: 1 }, priority: 0, createTime: 1, now: 0 });
    expect(allocationOf(p.tryAllocate(0)!)?.appId).toBe("x");
    expect(p.tryAllocate(0)).toBeUndefined();
    expect(pendingReason(p, "y", "k")).toEqual({ state: "Skipped", reason: "user alice running applications limit 1 reached on root" });
  });
});

describe("through the partition", () => {
  it("after a reload that moves a group limit from g1 to g2, the running application is held by g2 like a new one", () => {
    const conf = (group: string, limit: string) =>
      validateSchedulerConfig(
        decodeQueuesYaml(`partitions:
  - name: default
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: a
            limits:
              - groups: [${group}]
${limit}`),
      ).partitions[0]!;
    const p = new Partition({ name: "default", config: conf("g1", "                maxapplications: 5\n") });
    p.addNode("n1", { memory: 100 });
    p.addApplication({ id: "old", queue: "root.a", user: "alice", groups: ["g1", "g2"], tags: {}, now: 0 });
    p.addAsk({ appId: "old", key: "k1", resource: { memory: 40 }, priority: 0, createTime: 0, now: 0 });
    expect(allocationOf(p.tryAllocate(0)!)?.appId).toBe("old");
    p.applyConfig(conf("g2", "                maxresources: {memory: 60}\n                maxapplications: 1\n"));
    p.addAsk({ appId: "old", key: "k2", resource: { memory: 30 }, priority: 0, createTime: 1, now: 1 });
    p.addApplication({ id: "new", queue: "root.a", user: "bob", groups: ["g2"], tags: {}, now: 1 });
    p.addAsk({ appId: "new", key: "k1", resource: { memory: 10 }, priority: 0, createTime: 1, now: 1 });
    expect(p.tryAllocate(1)).toBeUndefined();
    expect(pendingReason(p, "old", "k2")).toEqual({ state: "Skipped", reason: "group g2 quota reached on root.a" });
    expect(pendingReason(p, "new", "k1")).toEqual({ state: "Skipped", reason: "group g2 running applications limit 1 reached on root.a" });
  });
});

// apache/yunikorn-core pkg/scheduler/objects/application.go removeAllocationInternal: decUserResourceUsage with
// removeApp = hasZeroAllocations() (pending and allocated both zero); partition_test.go TestLimitMaxApplications
describe("an application stays running for its user while it asks for more", () => {
  it("its last allocation released with an ask pending: still counted against maxapplications until that ask goes too", () => {
    const p = partitionUnderRoot(`        queues:
          - name: a
            limits:
              - users: [alice]
                maxapplications: 1
`);
    const runningOf = (user: string) => p.limits.snapshot("users").get(user)?.get("root.a")?.apps;
    p.addNode("n1", { memory: 10 });
    p.addApplication({ id: "other", queue: "root.a", user: "bob", groups: [], tags: {}, now: 0 });
    p.addAsk({ appId: "other", key: "k", resource: { memory: 7 }, priority: 0, createTime: 0, now: 0 });
    expect(allocationOf(p.tryAllocate(0)!)?.appId).toBe("other");
    p.addApplication({ id: "x", queue: "root.a", user: "alice", groups: [], tags: {}, now: 0 });
    p.addAsk({ appId: "x", key: "k1", resource: { memory: 2 }, priority: 0, createTime: 0, now: 0 });
    expect(allocationOf(p.tryAllocate(0)!)?.appId).toBe("x");
    // a second pod that does not fit the node's free space, then the first one ends
    p.addAsk({ appId: "x", key: "k2", resource: { memory: 5 }, priority: 0, createTime: 1, now: 1 });
    p.removeAsk("x", "k1", 1);
    expect([...runningOf("alice")!]).toEqual(["x"]);
    p.addApplication({ id: "y", queue: "root.a", user: "alice", groups: [], tags: {}, now: 2 });
    p.addAsk({ appId: "y", key: "k", resource: { memory: 1 }, priority: 0, createTime: 2, now: 2 });
    expect(p.tryAllocate(2)).toBeUndefined();
    expect(pendingReason(p, "y", "k")).toEqual({ state: "Skipped", reason: "user alice running applications limit 1 reached on root.a" });
    // the pending pod goes as well: x asks for nothing and holds nothing, so y may run
    p.removeAsk("x", "k2", 3);
    expect([...runningOf("alice")!]).toEqual([]); // the record stays: alice has a limit there
    expect(allocationOf(p.tryAllocate(3)!)?.appId).toBe("y");
    expect([...runningOf("alice")!]).toEqual(["y"]);
  });
});

// apache/yunikorn-core pkg/scheduler/ugm manager_test.go (trackers removed once empty; kept while a limit is set)
describe("usage views list what upstream's trackers keep", () => {
  it("a user with nothing left goes; a queue with that user's limit stays, with its ancestors", async () => {
    const { SchedulerCore } = await import("../../../src/scheduler/core/scheduler.js");
    const core = new SchedulerCore(
      () => 1_000,
      `partitions:
  - name: default
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: a
          - name: b
            limits:
              - users: [carol]
                maxapplications: 2
`,
    );
    core.updateNode([{ nodeID: "n", action: "CREATE", schedulableResource: { memory: 100 } }]);
    for (const [app, user, queue] of [
      ["x", "dave", "root.a"],
      ["y", "carol", "root.b"],
      ["z", "carol", "root.a"],
    ] as const) {
      core.updateApplication({ new: [{ applicationID: app, queueName: queue, ugi: { user } }] });
      core.updateAllocation({ allocations: [{ allocationKey: "k", applicationID: app, resourcePerAlloc: { memory: 10 } }] });
    }
    expect(core.schedule()).toHaveLength(3);
    const users = () =>
      core
        .usageViews("users")
        .map((u) => [u.name, u.queues.map((q) => q.queuePath)])
        .sort(([a], [b]) => (String(a) < String(b) ? -1 : 1));
    expect(users()).toEqual([
      ["carol", ["root", "root.a", "root.b"]],
      ["dave", ["root", "root.a"]],
    ]);
    for (const app of ["x", "y", "z"]) core.updateAllocation({ releases: [{ applicationID: app, allocationKey: "k" }] });
    // dave: nothing left; carol: her limit on root.b keeps that queue (and root), root.a goes
    expect(users()).toEqual([["carol", ["root", "root.b"]]]);
  });
});

// apache/yunikorn-core pkg/scheduler/ugm manager.go setUserLimits/setGroupLimits (manager_test.go TestUpdateConfig,
// TestUpdateConfigClearEarlierSetLimits: a tracker exists right after the configuration, before any usage)
describe("users and groups a limit names", () => {
  it("are listed from the configuration on, with their limits, before any usage (not the wildcard user)", async () => {
    const { SchedulerCore } = await import("../../../src/scheduler/core/scheduler.js");
    const cfg = (limits: string) =>
      "partitions:\n  - name: default\n    queues:\n      - name: root\n        queues:\n" +
      `          - name: a\n            limits:\n${limits}`;
    const core = new SchedulerCore(
      () => 0,
      cfg(
        "              - {users: [user1], maxresources: {memory: 10}}\n" +
          "              - {users: ['*'], maxapplications: 3}\n" +
          "              - {groups: [group1, '*'], maxapplications: 2}\n",
      ),
    );
    const view = (kind: "users" | "groups") =>
      core.usageViews(kind).map((u) => [u.name, u.queues.map((q) => [q.queuePath, q.maxResources, q.maxApplications])]);
    expect(view("users")).toEqual([
      [
        "user1",
        [
          ["root", undefined, undefined],
          ["root.a", { memory: 10 }, undefined],
        ],
      ],
    ]);
    expect(view("groups").sort()).toEqual([
      [
        "*",
        [
          ["root", undefined, undefined],
          ["root.a", undefined, 2],
        ],
      ],
      [
        "group1",
        [
          ["root", undefined, undefined],
          ["root.a", undefined, 2],
        ],
      ],
    ]);
    // a configuration without those limits: gone (they never used anything)
    expect(core.updateConfiguration(cfg("              - {users: [user2], maxapplications: 1}\n"))).toEqual({ ok: true });
    expect(view("users").map(([name]) => name)).toEqual(["user2"]);
    expect(view("groups")).toEqual([]);
  });
});

// apache/yunikorn-core resources.go FitInMaxUndef (resources_test.go TestFitInMaxUndef "{a:0,b:10} fits {a:-5}"): the
// user headroom below 0 after a limit was lowered counts as 0, so a type the ask requests as 0 never holds it
describe("user headroom below zero", () => {
  it("an ask of 0 memory passes a lowered memory limit; 1 byte does not", async () => {
    const { SchedulerCore } = await import("../../../src/scheduler/core/scheduler.js");
    const cfg = (max: number) => `partitions:
  - name: default
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: a
            limits:
              - users: [u]
                maxresources: {memory: ${max}}
`;
    const core = new SchedulerCore(() => 0, cfg(100));
    core.updateNode([{ nodeID: "n", action: "CREATE", schedulableResource: { memory: 1000, vcore: 1000 } }]);
    core.updateApplication({ new: [{ applicationID: "x", queueName: "root.a", ugi: { user: "u" } }] });
    core.updateAllocation({ allocations: [{ allocationKey: "1", applicationID: "x", resourcePerAlloc: { memory: 80 } }] });
    expect(core.schedule()).toHaveLength(1);
    expect(core.updateConfiguration(cfg(50))).toEqual({ ok: true });
    core.updateAllocation({
      allocations: [
        { allocationKey: "2", applicationID: "x", resourcePerAlloc: { memory: 0, vcore: 10 } },
        { allocationKey: "3", applicationID: "x", resourcePerAlloc: { memory: 1, vcore: 10 } },
      ],
    });
    expect(core.schedule().map((a) => a.key)).toEqual(["2"]);
    expect(core.holdReason("x", "3")).toMatchObject({ kind: "limit" });
  });
});
