/**
 * Placement rules (src/scheduler/core/placement) against the upstream tests they follow, in
 * apache/yunikorn-core pkg/scheduler/placement/*_test.go, on real queue trees.
 */
import { describe, expect, it } from "vitest";
import { decodeQueuesYaml, type PlacementRuleConfig } from "../../../src/scheduler/core/config.js";
import { Partition } from "../../../src/scheduler/core/partition.js";
import { SchedulerCore } from "../../../src/scheduler/core/scheduler.js";
import { validateSchedulerConfig } from "../../../src/scheduler/core/validate.js";
import { Filter } from "../../../src/scheduler/core/placement/filter.js";
import { PlacementManager, newRule } from "../../../src/scheduler/core/placement/manager.js";
import { goRegExp } from "../../../src/util/go-regexp.js";
import {
  type PlacementApp,
  type PlacementContext,
  PlacementRefusedError,
  RECOVERY_QUEUE,
  formatPlacementRefusal,
} from "../../../src/scheduler/core/placement/types.js";

/** A partition with `queues` (YAML list items at indent 10) under a root that lets everyone submit unless `rootAcl`. */
const partition = (queues: string, rules = "", rootAcl = '"*"') =>
  new Partition({
    name: "default",
    config: validateSchedulerConfig(
      decodeQueuesYaml(`partitions:
  - name: default
${rules}    queues:
      - name: root
        submitacl: ${rootAcl}
        queues:
${queues}`),
    ).partitions[0]!,
  });
const ctxOf = (p: Partition): PlacementContext => ({ queue: (path) => p.find(path) });
const app = (over: Partial<PlacementApp> = {}): PlacementApp => ({
  user: "testuser",
  groups: [],
  tags: {},
  queueName: "",
  forced: false,
  ...over,
});

/** upstream placement tests' `confParentChild`-like tree: root.testparent.testchild, root.testchild (leaf), root.testqueue. */
const TREE = `          - name: testparent
            queues:
              - name: testchild
          - name: testchild
          - name: testqueue
`;

describe("filter (filter_test.go)", () => {
  it("no users and no groups: the type decides for everyone, so `type: deny` alone denies every user (TestNewFilterLists)", () => {
    expect(new Filter({ type: "deny" }).allows("anyone", ["any"])).toBe(false);
    expect(new Filter({ type: "deny", users: [], groups: [] }).allows("anyone", [])).toBe(false);
    expect(new Filter({ type: "allow" }).allows("anyone", [])).toBe(true);
    expect(new Filter(undefined).allows("anyone", [])).toBe(true);
  });

  it("deny and allow with a user list and a user expression (TestAllowUser)", () => {
    expect(new Filter({ type: "deny", users: ["user1"] }).allows("user1", [])).toBe(false);
    expect(new Filter({ type: "deny", users: ["user1"] }).allows("user2", [])).toBe(true);
    expect(new Filter({ type: "allow", users: ["user1"] }).allows("user2", [])).toBe(false);
    expect(new Filter({ type: "deny", users: ["user[0-1]"] }).allows("user1", [])).toBe(false);
    expect(new Filter({ type: "allow", users: ["user[0-1]"] }).allows("user2", [])).toBe(false);
  });

  it("a group match gives the type; a group filter leaves users without the group the opposite (TestAllowGroup)", () => {
    const f = new Filter({ type: "deny", groups: ["group1"] });
    expect(f.allows("", ["group1"])).toBe(false);
    expect(f.allows("", ["group2"])).toBe(true);
  });

  it("single entries: a name without regexp characters is a literal, lists are literal and drop invalid names (TestFilterUser, TestNewFilterExceptions)", () => {
    expect(new Filter({ users: ["user1"] }).allows("USER1", [])).toBe(false);
    expect(new Filter({ users: ["john.doe"] }).allows("johnXdoe", [])).toBe(false); // '.' alone does not make an expression
    expect(new Filter({ users: ["user1", "user*"] }).allows("user12", [])).toBe(false); // an expression in a list is a name
    expect(new Filter({ users: ["use!r1", "user2"] }).allows("user2", [])).toBe(true);
    expect(new Filter({ users: ["user!1"] }).allows("user!1", [])).toBe(false); // invalid single name: matches nobody
  });

  it("Go expressions: inline flags and unanchored matching; an expression that does not compile matches nobody (TestComplexExpression, TestNewFilterExpressions)", () => {
    const f = new Filter({ users: ["(?i)user1"], groups: ["^(group1.|other)$"] });
    expect(f.allows("USER1", [])).toBe(true);
    expect(f.allows("user2", ["group12"])).toBe(true);
    expect(f.allows("user2", ["other"])).toBe(true);
    expect(f.allows("user2", ["group101"])).toBe(false);
    expect(new Filter({ users: ["user[a-z"] }).allows("user[a-z", [])).toBe(false);
    expect(goRegExp("(?P<n>a)b")?.test("xab")).toBe(true);
  });
});

describe("rules (rule_test.go, *_rule_test.go)", () => {
  it("configuration errors have upstream's texts (TestNewRule, TestFixedRule, TestTagRule)", () => {
    expect(() => newRule({ name: "bogus" })).toThrow("unknown rule name specified bogus, failing placement rule config");
    expect(() => newRule({ name: "recovery" })).toThrow("recovery rule cannot be part of the config, failing placement rule config");
    expect(() => newRule({ name: "fixed" })).toThrow("a fixed queue rule must have a queue name set");
    expect(() => newRule({ name: "tag" })).toThrow("a tag queue rule must have a tag name set");
    expect(() => newRule({ name: "fixed", value: "root.testchild", parent: { name: "fixed", value: "testparent" } })).toThrow(
      "cannot have a fixed queue rule with qualified queue getName and a parent rule: {fixed false { [] []} &{fixed " +
        "false { [] []} <nil> testparent} root.testchild}",
    );
    expect(() => newRule({ name: "fixed", value: "a!b" })).toThrow(/^invalid queue name/);
    expect(newRule({ name: "TaG", value: "label1", parent: { name: "tag", value: "label2" } }).name).toBe("tag");
  });

  it("an unknown rule name fails the configuration update, as upstream's UpdateRules", () => {
    expect(() => partition(TREE, "    placementrules:\n      - name: nosuchrule\n")).toThrow(
      "unknown rule name specified nosuchrule, failing placement rule config",
    );
  });

  it("provided: a name below root or a qualified name, the queue must exist without create (TestProvidedRulePlace)", () => {
    const ctx = ctxOf(partition(TREE));
    const rule = newRule({ name: "provided" });
    expect(rule.place(app({ queueName: "unknown" }), ctx)).toEqual({ type: "next" });
    expect(rule.place(app({ queueName: "" }), ctx)).toEqual({ type: "next" });
    expect(rule.place(app({ queueName: "root.unknown" }), ctx)).toEqual({ type: "next" });
    expect(newRule({ name: "provided", create: true }).place(app({ queueName: "root.unknown" }), ctx)).toEqual({
      type: "queue",
      path: "root.unknown",
    });
    expect(rule.place(app({ queueName: "root.testparent.testchild" }), ctx)).toEqual({ type: "queue", path: "root.testparent.testchild" });
    expect(newRule({ name: "provided", create: true }).place(app({ queueName: "a.b" }), ctx)).toEqual({
      type: "queue",
      path: "root.a_dot_b",
    });
    // the `root.` prefix is case-sensitive (provided_rule.go strings.HasPrefix): `ROOT.a` is a plain name
    expect(newRule({ name: "provided", create: true }).place(app({ queueName: "ROOT.testparent" }), ctx)).toEqual({
      type: "queue",
      path: "root.root_dot_testparent",
    });
    expect(rule.place(app({ queueName: "ROOT.testparent.testchild" }), ctx)).toEqual({ type: "next" });
  });

  it("user: dots become _dot_, an invalid name refuses the application (TestUserRulePlace)", () => {
    const ctx = ctxOf(partition(TREE));
    expect(newRule({ name: "user" }).place(app({ user: "testchild" }), ctx)).toEqual({ type: "queue", path: "root.testchild" });
    expect(newRule({ name: "user", create: true }).place(app({ user: "test.user@gmail.com" }), ctx)).toEqual({
      type: "queue",
      path: "root.test_dot_user@gmail_dot_com",
    });
    const refused = newRule({ name: "user", create: true }).place(app({ user: "invalid!us>er" }), ctx);
    expect(refused).toEqual({ type: "refused", refusal: { reason: "invalid queue name", rule: "user", name: "invalid!us>er" } });
    expect(newRule({ name: "user", filter: { type: "deny" } }).place(app({ user: "unknown" }), ctx)).toEqual({ type: "next" });
  });

  it("tag: missing tag does not match, the key is case-insensitive, invalid values refuse (TestTagRulePlace)", () => {
    const ctx = ctxOf(partition(TREE));
    const rule = newRule({ name: "tag", value: "label1" });
    expect(rule.place(app(), ctx)).toEqual({ type: "next" });
    expect(rule.place(app({ tags: { LABEL1: "testqueue" } }), ctx)).toEqual({ type: "queue", path: "root.testqueue" });
    expect(rule.place(app({ tags: { label1: "test!queue" } }), ctx).type).toBe("refused");
    expect(rule.place(app({ tags: { label1: "unknown" } }), ctx)).toEqual({ type: "next" });
    expect(rule.place(app({ tags: { label1: "root.testparent.testchild" } }), ctx)).toEqual({
      type: "queue",
      path: "root.testparent.testchild",
    });
    expect(rule.place(app({ tags: { label1: "root.testparent.test!child" } }), ctx).type).toBe("refused");
    expect(rule.place(app({ tags: { label1: RECOVERY_QUEUE } }), ctx)).toEqual({ type: "next" });
  });

  describe("parent rules (TestUserRuleParent, TestFixedRuleParent, TestProvidedRuleParent, TestTagRuleParent)", () => {
    const ctx = ctxOf(partition(TREE));
    const user = app({ user: "testchild" });

    it("a child without create below an existing parent does not match when it does not exist", () => {
      expect(newRule({ name: "user", parent: { name: "fixed", value: "testparent" } }).place(app({ user: "other" }), ctx)).toEqual({
        type: "next",
      });
    });

    it("a parent rule with `create: false` never creates the parent, even when the child rule may create", () => {
      const rule = newRule({ name: "user", create: true, parent: { name: "fixed", value: "testother", create: false } });
      expect(rule.place(user, ctx)).toEqual({ type: "next" });
      const creatable = newRule({ name: "user", create: true, parent: { name: "fixed", value: "testparentnew", create: true } });
      expect(creatable.place(user, ctx)).toEqual({ type: "queue", path: "root.testparentnew.testchild" });
    });

    it("a parent that is an existing leaf refuses the application", () => {
      const rule = newRule({ name: "user", create: true, parent: { name: "fixed", value: "testchild" } });
      expect(rule.place(user, ctx)).toEqual({
        type: "refused",
        refusal: { reason: "parent is a leaf", rule: "user", queuePath: "root.testchild" },
      });
      expect(formatPlacementRefusal({ reason: "parent is a leaf", rule: "user", queuePath: "root.testchild" })).toBe(
        "parent rule returned a leaf queue: root.testchild",
      );
    });

    it("a `fixed` parent `root` makes the child root.root.<child>, as upstream", () => {
      expect(newRule({ name: "user", create: true, parent: { name: "fixed", value: "root" } }).place(user, ctx)).toEqual({
        type: "queue",
        path: "root.root.testchild",
      });
      expect(
        newRule({ name: "fixed", value: "testchild", create: true, parent: { name: "fixed", value: "root" } }).place(user, ctx),
      ).toEqual({ type: "queue", path: "root.root.testchild" });
    });

    it("a qualified provided name skips the parent rule", () => {
      const rule = newRule({ name: "provided", parent: { name: "fixed", value: "nosuchparent" } });
      expect(rule.place(app({ queueName: "root.testqueue" }), ctx)).toEqual({ type: "queue", path: "root.testqueue" });
    });
  });
});

describe("manager (placement_test.go)", () => {
  it("rules in order with ACL, leaf and draining checks (TestManagerPlaceApp)", () => {
    const p = partition(
      `          - name: testparent
            submitacl: "*"
            queues:
              - name: testchild
          - name: fixed
            submitacl: "other-user "
            parent: true
`,
      "",
      "' '",
    );
    const ctx = ctxOf(p);
    const rules: PlacementRuleConfig[] = [
      { name: "user", create: false, parent: { name: "fixed", value: "testparent" } },
      { name: "provided", create: true },
      { name: "tag", value: "namespace", create: true },
    ];
    const m = new PlacementManager(rules);
    expect(m.ruleNames).toEqual(["user", "provided", "tag", "recovery"]);
    const place = (a: Partial<PlacementApp>) => m.place(app(a), ctx);
    const refused = { type: "refused", refusal: { reason: "no rule matched" } };
    expect(place({ user: "testchild" })).toEqual({ type: "placed", path: "root.testparent.testchild" });
    expect(place({ user: "other-user" })).toEqual(refused);
    expect(place({ user: "other-user", queueName: "root.fixed.leaf" })).toEqual({ type: "placed", path: "root.fixed.leaf" });
    expect(place({ user: "unknown-user", queueName: "root.fixed.other" })).toEqual(refused);
    expect(place({ user: "other-user", queueName: "root.fixed" })).toEqual(refused); // a parent queue
    p.find("root.testparent.testchild")!.draining = true;
    expect(place({ user: "other-user", queueName: "root.testparent.testchild" })).toEqual(refused);
  });

  describe("forced applications and the recovery queue (TestForcePlaceApp)", () => {
    const queues = (
      withDefault: boolean,
    ) => `${withDefault ? '          - name: default\n            submitacl: "*"\n' : ""}          - name: provided
            submitacl: "*"
          - name: acldeny
            submitacl: " "
          - name: parent
            parent: true
            submitacl: "*"
`;
    const rules: PlacementRuleConfig[] = [
      { name: "provided", create: false },
      { name: "tag", value: "namespace", create: true },
    ];
    const forced = { "application.create.force": "true" };
    const ns = { namespace: "namespace" };
    // [name, queue, placed ("" = refused), tags, user]
    const cases: [string, string, string, Record<string, string>, string][] = [
      ["empty", "", "", {}, "any-user"],
      ["provided unqualified", "provided", "root.provided", {}, "any-user"],
      ["provided not exist", "unknown", "", {}, "any-user"],
      ["provided parent", "root.parent", "", {}, "any-user"],
      ["acl deny", "root.acldeny", "", {}, "deny-user"],
      ["create", "unknown", "root.namespace", ns, "any-user"],
      ["deny create", "unknown", "", ns, "deny-user"],
      ["forced exist", "root.provided", "root.provided", forced, "any-user"],
      ["forced and create", "unknown", "root.namespace", { ...forced, ...ns }, "any-user"],
      ["forced and deny create", "unknown", RECOVERY_QUEUE, { ...forced, ...ns }, "deny-user"],
      ["forced parent", "root.parent", RECOVERY_QUEUE, forced, "any-user"],
      ["forced acl deny", "root.acldeny", RECOVERY_QUEUE, forced, "deny-user"],
      ["forced not exist", "unknown", RECOVERY_QUEUE, forced, "any-user"],
    ];
    it.each(cases)("%s", (_, queueName, placed, tags, user) => {
      const m = new PlacementManager(rules);
      const r = m.place(
        app({ user, queueName, tags, forced: "application.create.force" in tags }),
        ctxOf(partition(queues(false), "", '"any-user"')),
      );
      expect(r).toEqual(placed ? { type: "placed", path: placed } : { type: "refused", refusal: { reason: "no rule matched" } });
    });

    it("with root.default defined, applications that are not forced fall back to it; forced ones still go to recovery", () => {
      const m = new PlacementManager(rules);
      const ctx = ctxOf(partition(queues(true), "", '"any-user"'));
      expect(m.place(app({ user: "any-user", queueName: "unknown" }), ctx)).toEqual({ type: "placed", path: "root.default" });
      expect(m.place(app({ user: "deny-user", queueName: "root.acldeny" }), ctx)).toEqual({ type: "placed", path: "root.default" });
      expect(m.place(app({ user: "any-user", queueName: "root.parent", forced: true }), ctx)).toEqual({
        type: "placed",
        path: RECOVERY_QUEUE,
      });
    });
  });

  it("no ordinary submission reaches root.@recovery@, whichever rule names it, even once it exists", () => {
    const p = partition(
      TREE,
      `    placementrules:
      - name: provided
        create: true
      - name: tag
        value: namespace
        create: true
      - name: fixed
        value: testqueue
`,
    );
    // a forced application creates the recovery queue; root lets everyone submit
    expect(
      p.addApplication({
        id: "forced",
        queue: "",
        user: "alice",
        groups: [],
        tags: { "application.create.force": "true", namespace: "root.@recovery@" },
        now: 0,
      }),
    ).toBe(RECOVERY_QUEUE);
    expect(p.addApplication({ id: "a", queue: "root.@recovery@", user: "alice", groups: [], tags: {}, now: 0 })).toBe("root.testqueue");
    expect(p.addApplication({ id: "b", queue: "@recovery@", user: "alice", groups: [], tags: {}, now: 0 })).toBe("root.testqueue");
    expect(p.addApplication({ id: "c", queue: "", user: "alice", groups: [], tags: { namespace: "root.@recovery@" }, now: 0 })).toBe(
      "root.testqueue",
    );
    expect(p.addApplication({ id: "d", queue: "", user: "alice", groups: [], tags: { Namespace: "@RECOVERY@" }, now: 0 })).toBe(
      "root.testqueue",
    );
  });

  it("namespace quota tags are never applied to the recovery queue (upstream partition.go AddApplication)", () => {
    const p = partition(TREE, "    placementrules:\n      - name: provided\n");
    const quota = { "namespace.resourcequota": JSON.stringify({ resources: { memory: { value: 10 } } }), "namespace.resourcemaxapps": "1" };
    expect(
      p.addApplication({
        id: "x",
        queue: "root.nope",
        user: "",
        groups: [],
        tags: { "application.create.force": "true", ...quota },
        now: 0,
      }),
    ).toBe(RECOVERY_QUEUE);
    const rec = p.find(RECOVERY_QUEUE)!;
    expect([rec.max, rec.maxApps]).toEqual([undefined, 0]);
  });

  it("namespace quota tags keep zeros as caps; negatives or all zeros set nothing (upstream getResourceFromTags)", () => {
    const p = partition(TREE, "    placementrules:\n      - name: tag\n        value: namespace\n        create: true\n");
    const tags = (ns: string, resources: Record<string, unknown>) => ({
      namespace: ns,
      "namespace.resourcequota": JSON.stringify({ resources }),
    });
    // a quantity without value is 0, as Go reads an omitted int64 (upstream's shim writes a zero as {})
    p.addApplication({ id: "z", queue: "", user: "u", groups: [], tags: tags("zero", { vcore: {}, memory: { value: 1000 } }), now: 0 });
    expect(p.find("root.zero")!.max).toEqual({ vcore: 0, memory: 1000 });
    p.addApplication({
      id: "n",
      queue: "",
      user: "u",
      groups: [],
      tags: tags("neg", { vcore: { value: -1 }, memory: { value: 1000 } }),
      now: 0,
    });
    expect(p.find("root.neg")!.max).toBeUndefined();
    p.addApplication({ id: "a", queue: "", user: "u", groups: [], tags: tags("allzero", { vcore: { value: 0 } }), now: 0 });
    expect(p.find("root.allzero")!.max).toBeUndefined();
  });

  it("a namespace quota of vcore 0 holds asks that request vcore and lets the others run", () => {
    const core = new SchedulerCore(
      () => 1,
      "partitions:\n  - name: default\n    placementrules:\n      - name: tag\n        value: namespace\n        create: true\n" +
        "    queues:\n      - name: root\n        submitacl: '*'\n",
    );
    core.updateNode([{ nodeID: "n1", action: "CREATE", schedulableResource: { memory: 1e9, vcore: 4000 } }]);
    const quota = JSON.stringify({ resources: { vcore: { value: 0 }, memory: { value: 1e8 } } });
    const ugi = { user: "u", groups: [] };
    core.updateApplication({
      new: [{ applicationID: "a", queueName: "", ugi, tags: { namespace: "ns", "namespace.resourcequota": quota } }],
    });
    core.updateAllocation({
      allocations: [
        { allocationKey: "cpu", applicationID: "a", resourcePerAlloc: { memory: 10, vcore: 1 } },
        { allocationKey: "mem", applicationID: "a", resourcePerAlloc: { memory: 10 } },
      ],
    });
    expect(core.schedule().map((a) => a.key)).toEqual(["mem"]);
  });

  it("attack: another namespace's application placed in a namespace's dynamic queue does not change its quota", () => {
    // provided before tag: a tenant of team-a names team-b's queue (root lets everyone submit)
    const p = partition(
      TREE,
      "    placementrules:\n      - name: provided\n        create: true\n      - name: tag\n        value: namespace\n" +
        "        create: true\n",
    );
    const quota = (vcore: number, maxApps: string) => ({
      "namespace.resourcequota": JSON.stringify({ resources: { vcore: { value: vcore } } }),
      "namespace.resourcemaxapps": maxApps,
    });
    expect(
      p.addApplication({ id: "b1", queue: "", user: "bob", groups: [], tags: { namespace: "team-b", ...quota(1000, "1") }, now: 0 }),
    ).toBe("root.team-b");
    expect(
      p.addApplication({
        id: "a1",
        queue: "root.team-b",
        user: "alice",
        groups: [],
        tags: { namespace: "team-a", ...quota(10000, "50") },
        now: 0,
      }),
    ).toBe("root.team-b");
    const q = p.find("root.team-b")!;
    expect([q.max, q.maxApps]).toEqual([{ vcore: 1000 }, 1]);
  });

  it("attack: a namespace's own quota replaces what another namespace's application set first on its queue", () => {
    const p = partition(
      TREE,
      "    placementrules:\n      - name: provided\n        create: true\n      - name: tag\n        value: namespace\n" +
        "        create: true\n",
    );
    const quota = (vcore: number) => ({ "namespace.resourcequota": JSON.stringify({ resources: { vcore: { value: vcore } } }) });
    // alice creates root.team-b first, with her namespace's large quota
    p.addApplication({ id: "a1", queue: "root.team-b", user: "alice", groups: [], tags: { namespace: "team-a", ...quota(10000) }, now: 0 });
    p.addApplication({ id: "b1", queue: "", user: "bob", groups: [], tags: { namespace: "team-b", ...quota(1000) }, now: 0 });
    p.addApplication({ id: "a2", queue: "root.team-b", user: "alice", groups: [], tags: { namespace: "team-a", ...quota(10000) }, now: 0 });
    expect(p.find("root.team-b")!.max).toEqual({ vcore: 1000 });
    // a dynamic queue not named after a namespace keeps the tags of the namespace that first filled it
    p.addApplication({
      id: "a3",
      queue: "root.scratch",
      user: "alice",
      groups: [],
      tags: { namespace: "team-a", ...quota(10000) },
      now: 0,
    });
    p.addApplication({ id: "b2", queue: "root.scratch", user: "bob", groups: [], tags: { namespace: "team-b", ...quota(1000) }, now: 0 });
    expect(p.find("root.scratch")!.max).toEqual({ vcore: 10000 });
    // the namespace without a quota still takes its queue back: alice's limits do not stay on it
    p.addApplication({ id: "a4", queue: "root.team-c", user: "alice", groups: [], tags: { namespace: "team-a", ...quota(10000) }, now: 0 });
    p.addApplication({ id: "c1", queue: "", user: "carol", groups: [], tags: { namespace: "team-c" }, now: 0 });
    expect(p.find("root.team-c")!.max).toBeUndefined();
  });

  it("a refused application is rejected with the refusal's text and the typed refusal", () => {
    const p = partition(TREE, "    placementrules:\n      - name: user\n        create: true\n");
    let err: unknown;
    try {
      p.addApplication({ id: "x", queue: "", user: "bad!user", groups: [], tags: {}, now: 0 });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(PlacementRefusedError);
    expect((err as PlacementRefusedError).refusal).toEqual({ reason: "invalid queue name", rule: "user", name: "bad!user" });
    // upstream PartitionContext.AddApplication wraps the rule's error
    expect(p.rejected.get("x")?.rejectedMessage).toBe(
      "failed to place application x: invalid queue name, max 64 characters consisting of alphanumeric characters and " +
        "'-', '_', '#', '@', '/', ':' allowed",
    );
  });
});

describe("through the partition", () => {
  it("a user rule with create below a `fixed` parent without create: the parent is not created, the next rule places", () => {
    const p = partition(
      TREE,
      `    placementrules:
      - name: user
        create: true
        parent: {name: fixed, value: tenants, create: false}
      - name: fixed
        value: testqueue
`,
    );
    expect(p.addApplication({ id: "a", queue: "", user: "alice", groups: [], tags: {}, now: 0 })).toBe("root.testqueue");
    expect(p.find("root.tenants")).toBeUndefined();
  });

  it("a rule whose filter is `type: deny` without users or groups places nobody", () => {
    const p = partition(
      TREE,
      `    placementrules:
      - name: user
        create: true
        filter: {type: deny}
      - name: fixed
        value: testqueue
`,
    );
    expect(p.addApplication({ id: "a", queue: "", user: "alice", groups: ["staff"], tags: {}, now: 0 })).toBe("root.testqueue");
    expect(p.find("root.alice")).toBeUndefined();
  });
});
