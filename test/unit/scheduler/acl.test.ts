/**
 * Queue ACLs as upstream reads them (apache/yunikorn-core pkg/common/security/acl_test.go TestACLCreate,
 * TestNewACLErrorCase, TestACLAccess): the rows replayed on corral's `Acl`, and a configuration whose ACL upstream's
 * scheduler refuses while validate-conf accepts it.
 */
import { describe, expect, it } from "vitest";
import { Acl } from "../../../src/scheduler/core/queue.js";
import { SchedulerCore } from "../../../src/scheduler/core/scheduler.js";
import { validateQueuesYaml } from "../../../src/scheduler/core/validate.js";

const shape = (a: Acl) => ({ all: a.all, users: [...a.users].sort(), groups: [...a.groups].sort() });

describe("Acl (acl.go NewACL, CheckAccess)", () => {
  it.each<[string, { all: boolean; users: string[]; groups: string[] }]>([
    ["", { all: false, users: [], groups: [] }],
    [" ", { all: false, users: [], groups: [] }],
    ["user1", { all: false, users: ["user1"], groups: [] }],
    ["user1,user2", { all: false, users: ["user1", "user2"], groups: [] }],
    ["user1,user2 ", { all: false, users: ["user1", "user2"], groups: [] }],
    ["user1,user2 group1", { all: false, users: ["user1", "user2"], groups: ["group1"] }],
    ["user1,user2 group1,group2", { all: false, users: ["user1", "user2"], groups: ["group1", "group2"] }],
    ["user2 group1,group2", { all: false, users: ["user2"], groups: ["group1", "group2"] }],
    [" group1,group2", { all: false, users: [], groups: ["group1", "group2"] }],
    ["* group1,group2", { all: true, users: [], groups: [] }],
    ["user1,user2 *", { all: true, users: [], groups: [] }],
    ["*", { all: true, users: [], groups: [] }],
    ["* ", { all: true, users: [], groups: [] }],
    [" *", { all: true, users: [], groups: [] }],
    ["dotted.user", { all: false, users: ["dotted.user"], groups: [] }],
    ["user,user", { all: false, users: ["user"], groups: [] }],
    [" dotted.group", { all: false, users: [], groups: [] }],
    [" group,group", { all: false, users: [], groups: ["group"] }],
    ["#user1,user2", { all: false, users: ["user2"], groups: [] }],
    // Kubernetes identities hold ':': not an ACL name upstream, so never admitted by name
    ["system:serviceaccount:spark:spark-sa system:serviceaccounts:spark", { all: false, users: [], groups: [] }],
  ])("TestACLCreate %j", (text, want) => {
    expect(shape(new Acl(text))).toEqual(want);
  });

  it.each(["  ", " a b ", "alice group1 ", "alice  group1", " * "])("TestNewACLErrorCase %j: more than two fields", (text) => {
    expect(() => new Acl(text)).toThrow(`multiple spaces found in ACL: '${text}'`);
  });

  it.each<[string, string, string[], boolean]>([
    ["user1,user2 group1,group2", "", [], false],
    ["user1,user2 group1,group2", "user1", [], true],
    ["user1,user2 group1,group2", "user3", ["group1"], true],
    ["user1,user2 group1,group2", "user3", ["group3", "group1"], true],
    ["user1,user2 group1,group2", "user3", ["group3"], false],
    ["*", "", [], true],
    ["*", "user1", ["group1"], true],
    ["", "", [], false],
    ["", "user1", ["group1"], false],
    ["* admins", "alice", [], true],
    ["system:serviceaccount:spark:sa", "system:serviceaccount:spark:sa", [], false],
  ])("TestACLAccess %j admits %j %j: %s", (text, user, groups, want) => {
    expect(new Acl(text).allows(user, groups)).toBe(want);
  });

  it("a configuration with such an ACL is refused by the scheduler and kept out, though validate-conf accepts it", () => {
    const yaml = (acl: string) =>
      "partitions:\n  - name: default\n    queues:\n      - name: root\n        queues:\n" +
      `          - name: a\n            submitacl: "${acl}"\n`;
    expect(validateQueuesYaml(yaml("alice group1 "))).toEqual({ allowed: true });
    const core = new SchedulerCore(() => 0, yaml("alice group1"));
    expect(core.updateConfiguration(yaml("alice group1 "))).toEqual({
      ok: false,
      error: "update of configuration failed: multiple spaces found in ACL: 'alice group1 '",
    });
    // the configuration in force is the one before
    expect(core.appliedConfig.partitions[0]!.queues![0]!.queues![0]!.submitacl).toBe("alice group1");
  });
});
