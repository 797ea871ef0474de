/**
 * queues.yaml validation: a table of valid and invalid configurations built from the rules in the yunikorn-core
 * reference (§2.1-2.8), each with the exact outcome YuniKorn gives.
 */
import { describe, expect, it } from "vitest";
import { decodeQueuesYaml } from "../../../src/scheduler/core/config.js";
import { parseQuantity } from "../../../src/scheduler/core/quantity.js";
import { format } from "../../../src/scheduler/core/resources.js";
import { validateQueuesYaml } from "../../../src/scheduler/core/validate.js";

/** A partition with the given queue body under root (YAML, indented for `queues:` children of root). */
const part = (body: string, extra = "") => `partitions:
  - name: default
${extra}    queues:
      - name: root
        submitacl: "*"
${body}`;

type Case = [name: string, yaml: string, expected: true | string | RegExp];

const CASES: Case[] = [
  // --- structure ---
  ["empty input is valid", "", true],
  ["no partitions is valid", "partitions: []\n", true],
  ["minimal root", part(""), true],
  ["queues missing", "partitions:\n  - name: default\n", "queue config is not set"],
  ["root inserted above two top queues", "partitions:\n  - name: default\n    queues:\n      - name: a\n      - name: b\n", true],
  ["root with resources", part("        resources:\n          max: {memory: 10}\n"), "root queue must not have resource limits set"],
  [
    "root with empty guaranteed map",
    part("        resources:\n          guaranteed: {}\n"),
    "root queue must not have resource limits set",
  ],
  [
    "duplicate partition",
    "partitions:\n  - name: default\n    queues: [{name: root}]\n  - name: DEFAULT\n    queues: [{name: root}]\n",
    "duplicate partition name found with name default",
  ],
  [
    "duplicate partition, case-insensitive",
    "partitions:\n  - name: gpu\n    queues: [{name: root}]\n  - name: GPU\n    queues: [{name: root}]\n",
    "duplicate partition name found with name GPU",
  ],
  [
    "empty partition name means default",
    'partitions:\n  - name: ""\n    queues: [{name: root}]\n  - name: default\n    queues: [{name: root}]\n',
    "duplicate partition name found with name default",
  ],
  // upstream config_test.go TestLoadSchedulerConfigFromByteArray: the error says "unmarshal error"
  [
    "unknown top-level key",
    "partition:\n  - name: default\n",
    /^yaml: unmarshal errors:\n {2}line 1: field partition not found in type configs.SchedulerConfig$/,
  ],
  [
    "unknown queue key names the line",
    part("        queues:\n          - name: a\n            maxapps: 3\n"),
    /^yaml: unmarshal errors:\n {2}line 8: field maxapps not found in type configs.QueueConfig$/,
  ],
  [
    "removed statedumpfilepath key",
    "partitions:\n  - name: default\n    statedumpfilepath: /tmp/x\n    queues: [{name: root}]\n",
    /field statedumpfilepath not found in type configs.PartitionConfig/,
  ],
  [
    "negative maxapplications is a decode error",
    part("        queues:\n          - name: a\n            maxapplications: -1\n"),
    /line 8: cannot decode "-1" into uint64/,
  ],
  ["parent must be a bool", part("        queues:\n          - name: a\n            parent: maybe\n"), /into bool/],
  [
    "duplicate YAML key",
    part("        queues:\n          - name: a\n            name: b\n"),
    /line \d+: .*[Uu]nique|duplicate|Map keys must be unique/,
  ],
  ["checksum accepted and ignored", `checksum: ABC\n${part("")}`, true],
  // --- queue names ---
  ["valid name characters", part("        queues:\n          - name: team_A-1:x#y@z/w\n"), true],
  [
    "dot in queue name",
    part("        queues:\n          - name: a.b\n"),
    "invalid queue name, max 64 characters consisting of alphanumeric characters and '-', '_', '#', '@', '/', ':' allowed",
  ],
  ["65-character queue name", part(`        queues:\n          - name: ${"a".repeat(65)}\n`), /^invalid queue name/],
  ["64-character queue name", part(`        queues:\n          - name: ${"a".repeat(64)}\n`), true],
  ["space in queue name", part("        queues:\n          - name: 'a b'\n"), /^invalid queue name/],
  [
    "duplicate child, case-insensitive",
    part("        queues:\n          - name: a\n          - name: A\n"),
    "duplicate child name found with name 'A', level 1",
  ],
  [
    "duplicate grandchild level 2",
    part("        queues:\n          - name: a\n            queues:\n              - name: x\n              - name: x\n"),
    "duplicate child name found with name 'x', level 2",
  ],
  ["same name at different levels", part("        queues:\n          - name: a\n            queues:\n              - name: a\n"), true],
  // --- quantities ---
  [
    "vcore and memory quantities",
    part(
      "        queues:\n          - name: a\n            resources:\n              max: {vcore: 500m, memory: 1Gi, nvidia.com/gpu: 2}\n",
    ),
    true,
  ],
  [
    "decimal quantity",
    part("        queues:\n          - name: a\n            resources:\n              max: {memory: '1.5'}\n"),
    "invalid quantity",
  ],
  [
    "negative quantity",
    part("        queues:\n          - name: a\n            resources:\n              max: {memory: '-50'}\n"),
    "invalid quantity",
  ],
  [
    "empty quantity",
    part("        queues:\n          - name: a\n            resources:\n              max: {memory: ''}\n"),
    "invalid quantity",
  ],
  [
    "m suffix on memory",
    part("        queues:\n          - name: a\n            resources:\n              max: {memory: 10m}\n"),
    "invalid suffix",
  ],
  [
    "K suffix (not in the table)",
    part("        queues:\n          - name: a\n            resources:\n              max: {memory: 10K}\n"),
    "invalid suffix",
  ],
  [
    "overflow",
    part("        queues:\n          - name: a\n            resources:\n              max: {memory: 9Ei}\n"),
    "invalid quantity: overflow",
  ],
  [
    "vcore overflow through the millis",
    part("        queues:\n          - name: a\n            resources:\n              max: {vcore: 9223372036854776}\n"),
    "invalid quantity: overflow",
  ],
  // --- resources hierarchy ---
  [
    "guaranteed above max",
    part(
      "        queues:\n          - name: a\n            resources:\n              guaranteed: {memory: 20}\n" +
        "              max: {memory: 10}\n",
    ),
    "guaranteed resource map[memory:20] is larger than maximum resource map[memory:10] for queue a",
  ],
  [
    "guaranteed of a type max does not limit",
    part(
      "        queues:\n          - name: a\n            resources:\n              guaranteed: {vcore: 2}\n" +
        "              max: {memory: 10}\n",
    ),
    true,
  ],
  [
    "child max above parent max",
    part(
      "        queues:\n          - name: a\n            resources:\n              max: {memory: 10}\n" +
        "            queues:\n              - name: b\n                resources:\n                  max: {memory: 20}\n",
    ),
    "max resource of parent map[memory:10] is smaller than maximum resource map[memory:20] for queue b",
  ],
  [
    "grandchild above grandparent effective max",
    part(
      "        queues:\n          - name: a\n            resources:\n              max: {memory: 10}\n" +
        "            queues:\n              - name: b\n                queues:\n                  - name: c\n" +
        "                    resources:\n                      max: {memory: 11}\n",
    ),
    "max resource of parent map[memory:10] is smaller than maximum resource map[memory:11] for queue c",
  ],
  [
    "children guaranteed above parent guaranteed",
    part(
      "        queues:\n          - name: a\n            resources:\n              guaranteed: {memory: 10}\n" +
        "            queues:\n              - name: b\n                resources:\n" +
        "                  guaranteed: {memory: 6}\n              - name: c\n                resources:\n" +
        "                  guaranteed: {memory: 6}\n",
    ),
    "guaranteed resource of parent map[memory:10] is smaller than sum of guaranteed resources map[memory:12] of the children for queue a",
  ],
  [
    "children guaranteed above parent max",
    part(
      "        queues:\n          - name: a\n            resources:\n              max: {memory: 10}\n" +
        "            queues:\n              - name: b\n                resources:\n" +
        "                  guaranteed: {memory: 6}\n              - name: c\n                resources:\n" +
        "                  guaranteed: {memory: 6}\n",
    ),
    "max resource map[memory:10] is smaller than sum of guaranteed resources map[memory:12] of the children for queue a",
  ],
  [
    "children guaranteed fit",
    part(
      "        queues:\n          - name: a\n            resources:\n              guaranteed: {memory: 12}\n" +
        "              max: {memory: 20}\n            queues:\n              - name: b\n                resources:\n" +
        "                  guaranteed: {memory: 6}\n              - name: c\n                resources:\n" +
        "                  guaranteed: {memory: 6}\n",
    ),
    true,
  ],
  [
    "vcore prints in millis",
    part(
      "        queues:\n          - name: a\n            resources:\n              guaranteed: {vcore: 2}\n              max: {vcore: 1}\n",
    ),
    "guaranteed resource map[vcore:2000] is larger than maximum resource map[vcore:1000] for queue a",
  ],
  // --- ACLs ---
  [
    "ACL users and groups",
    part("        queues:\n          - name: a\n            submitacl: 'alice,bob devs'\n            adminacl: ' admins'\n"),
    true,
  ],
  [
    "ACL with three fields",
    part("        queues:\n          - name: a\n            submitacl: 'alice bob devs'\n"),
    "multiple spaces found in ACL: 'alice bob devs'",
  ],
  // --- limits ---
  ["user limit", part("        limits:\n          - limit: l1\n            users: [alice]\n            maxapplications: 2\n"), true],
  [
    "limit without users and groups",
    part("        limits:\n          - limit: l1\n            maxapplications: 2\n"),
    "empty user and group lists defined in limit '{l1 [] [] map[] 2}'",
  ],
  [
    "limit user name invalid",
    part("        limits:\n          - users: ['1alice']\n            maxapplications: 2\n"),
    "invalid limit user name '1alice' in limit definition",
  ],
  [
    "limit group name invalid",
    part("        limits:\n          - groups: ['dev ops']\n            maxapplications: 2\n"),
    "invalid limit group name 'dev ops' in limit definition",
  ],
  [
    "duplicated user",
    part(
      "        limits:\n          - users: [alice]\n            maxapplications: 2\n          - users: [alice]\n" +
        "            maxapplications: 3\n",
    ),
    "duplicated user name 'alice', already exists",
  ],
  [
    "duplicated group",
    part(
      "        limits:\n          - groups: [dev]\n            maxapplications: 2\n          - groups: [dev]\n" +
        "            maxapplications: 3\n",
    ),
    "duplicated group name 'dev'",
  ],
  [
    "named user after wildcard",
    part(
      "        limits:\n          - users: ['*']\n            maxapplications: 2\n          - users: [alice]\n" +
        "            maxapplications: 3\n",
    ),
    "should not set no wildcard user alice after wildcard user limit",
  ],
  [
    "wildcard user last",
    part(
      "        limits:\n          - users: [alice]\n            maxapplications: 3\n          - users: ['*']\n" +
        "            maxapplications: 2\n",
    ),
    true,
  ],
  [
    "only a wildcard group",
    part("        limits:\n          - groups: ['*']\n            maxapplications: 2\n"),
    "should not specify only one group limit that is using the wildcard. There must be at least one limit with a group name defined ",
  ],
  [
    "wildcard group after a named group",
    part(
      "        limits:\n          - groups: [dev]\n            maxapplications: 3\n          - groups: ['*']\n" +
        "            maxapplications: 2\n",
    ),
    true,
  ],
  [
    "named group after wildcard group",
    part(
      "        limits:\n          - groups: [dev]\n            maxapplications: 3\n          - groups: ['*']\n" +
        "            maxapplications: 2\n          - groups: [ops]\n            maxapplications: 2\n",
    ),
    "should not set no wildcard group ops after wildcard group limit",
  ],
  // the limit errors name the limit's description (upstream handlers_test.go TestUserGroupLimits)
  [
    "limit with nothing limited",
    part("        limits:\n          - limit: l\n            users: [alice]\n"),
    "invalid resource combination for limit l all resource limits are null",
  ],
  [
    "limit maxresources zero",
    part("        limits:\n          - limit: l\n            users: [alice]\n            maxresources: {memory: 0}\n"),
    "MaxResources should be greater than zero in 'l' limit",
  ],
  [
    "limit maxresources bad quantity",
    part("        limits:\n          - users: [alice]\n            maxresources: {memory: 1.5}\n"),
    "invalid quantity",
  ],
  [
    "limit apps above queue maxapplications",
    part(
      "        queues:\n          - name: a\n            maxapplications: 2\n            limits:\n" +
        "              - limit: l\n                users: [alice]\n                maxapplications: 3\n",
    ),
    "invalid MaxApplications settings for limit l exceed current the queue MaxApplications",
  ],
  [
    "limit resources above queue max",
    part(
      "        queues:\n          - name: a\n            resources:\n              max: {memory: 10}\n" +
        "            limits:\n              - limit: l\n                users: [alice]\n                maxresources: {memory: 20}\n",
    ),
    "invalid MaxResources settings for limit l exeecd current the queue MaxResources",
  ],
  [
    "limit of a type the queue max does not set",
    part(
      "        queues:\n          - name: a\n            resources:\n              max: {memory: 10}\n" +
        "            limits:\n              - users: [alice]\n                maxresources: {vcore: 20}\n",
    ),
    true,
  ],
  [
    "partition limits copied to root",
    "partitions:\n  - name: default\n    limits:\n      - users: [alice]\n        maxapplications: 1\n    queues: [{name: root}]\n",
    true,
  ],
  [
    "partition and root limits differ",
    "partitions:\n  - name: default\n    limits:\n      - users: [alice]\n        maxapplications: 1\n    queues:\n" +
      "      - name: root\n        limits:\n          - users: [bob]\n            maxapplications: 1\n",
    "partition limits and root queue limits are not equivalent",
  ],
  [
    "partition and root limits equal, keys in another order (upstream reflect.DeepEqual on the decoded limits)",
    "partitions:\n  - name: default\n    limits:\n      - users: [alice]\n        maxapplications: 2\n    queues:\n" +
      "      - name: root\n        limits:\n          - maxapplications: 2\n            users: [alice]\n",
    true,
  ],
  [
    "a named user limit under a wildcard carries its own limit down, not the wildcard's (checkLimitResource)",
    part(
      "        queues:\n          - name: a\n            limits:\n              - users: ['*']\n" +
        "                maxresources: {memory: 100}\n" +
        "            queues:\n              - name: b\n                limits:\n                  - users: [alice]\n" +
        "                    maxresources: {vcore: 10}\n                queues:\n                  - name: c\n" +
        "                    limits:\n                      - users: [alice]\n                        maxresources: {memory: 200}\n",
    ),
    true,
  ],
  [
    "a parent's guarantee of 0 is a guarantee the children may not exceed (upstream checkQueueResource)",
    part(
      "        queues:\n          - name: a\n            resources:\n              guaranteed: {memory: 0}\n            queues:\n" +
        "              - name: b\n                resources:\n                  guaranteed: {memory: 10}\n",
    ),
    "guaranteed resource of parent map[memory:0] is smaller than sum of guaranteed resources map[memory:10] of the children for queue a",
  ],
  [
    "child user limit above parent's",
    part(
      "        limits:\n          - users: [alice]\n            maxresources: {memory: 10}\n        queues:\n" +
        "          - name: a\n            limits:\n              - users: [alice]\n                maxresources: {memory: 20}\n",
    ),
    "user alice max resource map[memory:20] of queue a is greater than immediate or ancestor parent maximum resource map[memory:10]",
  ],
  [
    "child user limit above parent wildcard",
    part(
      "        limits:\n          - users: ['*']\n            maxresources: {memory: 10}\n        queues:\n" +
        "          - name: a\n            limits:\n              - users: [alice]\n                maxresources: {memory: 20}\n",
    ),
    "user alice max resource map[memory:20] of queue a is greater than wildcard maximum resource map[memory:10] of " +
      "immediate or ancestor parent queue",
  ],
  [
    "child group apps above parent's",
    part(
      "        limits:\n          - groups: [dev]\n            maxapplications: 2\n        queues:\n" +
        "          - name: a\n            limits:\n              - groups: [dev]\n                maxapplications: 3\n",
    ),
    "group dev max applications 3 of queue a is greater than immediate or ancestor parent max applications 2",
  ],
  [
    "child group apps unlimited under a parent limit",
    part(
      "        limits:\n          - groups: [dev]\n            maxapplications: 2\n        queues:\n" +
        "          - name: a\n            limits:\n              - groups: [dev]\n                maxresources: {memory: 5}\n",
    ),
    "group dev max applications 0 of queue a is greater than immediate or ancestor parent max applications 2",
  ],
  // --- maxapplications ---
  [
    "child maxapplications above parent",
    part(
      "        queues:\n          - name: a\n            maxapplications: 2\n            queues:\n" +
        "              - name: b\n                maxapplications: 3\n",
    ),
    "parent maxApplications must be larger than child maxApplications",
  ],
  [
    "child maxapplications unset under a set parent",
    part("        queues:\n          - name: a\n            maxapplications: 2\n            queues:\n              - name: b\n"),
    "maxApplications is either undefined or zero, which is not allowed when parent queue's maxApplications is defined",
  ],
  // --- node sorting ---
  ["binpacking", part("", "    nodesortpolicy:\n      type: binpacking\n      resourceweights: {memory: 2.0, vcore: 1.0}\n"), true],
  ["unknown node sort policy", part("", "    nodesortpolicy:\n      type: invalid\n"), "undefined policy: invalid"],
  ["node sort policy is case-sensitive", part("", "    nodesortpolicy:\n      type: Fair\n"), "undefined policy: Fair"],
  [
    "negative resource weight",
    part("", "    nodesortpolicy:\n      resourceweights: {memory: -1}\n"),
    "negative resource weight for memory is not allowed",
  ],
  // --- placement rules ---
  [
    "provided and tag rules",
    part(
      "",
      "    placementrules:\n      - name: provided\n        create: true\n      - name: tag\n        value: namespace\n" +
        "        create: true\n",
    ),
    true,
  ],
  ["unknown rule name passes the validator (runtime-only check)", part("", "    placementrules:\n      - name: nosuchrule\n"), true],
  [
    "rule name not an identifier",
    part("", "    placementrules:\n      - name: 'user-rule'\n"),
    "invalid rule name user-rule, a name must be a valid identifier",
  ],
  [
    "filter type",
    part("", "    placementrules:\n      - name: user\n        filter:\n          type: permit\n"),
    "invalid rule filter type permit, filter type  must be either '', allow or deny",
  ],
  [
    "filter user regexp",
    part("", "    placementrules:\n      - name: user\n        filter:\n          type: allow\n          users: ['^dev.*$']\n"),
    true,
  ],
  [
    "filter user Go regexp with an inline flag (Go syntax, as upstream compiles it)",
    part("", "    placementrules:\n      - name: user\n        filter:\n          users: ['(?i)^dev.*$']\n"),
    true,
  ],
  [
    "filter user regexp that compiles nowhere",
    part("", "    placementrules:\n      - name: user\n        filter:\n          users: ['user[a-z']\n"),
    "invalid rule filter user list is not a proper list or regexp: [user[a-z]",
  ],
  [
    "filter single bad user",
    part("", "    placementrules:\n      - name: user\n        filter:\n          users: ['1bad']\n"),
    "invalid rule filter user list is not a proper list or regexp: [1bad]",
  ],
  [
    "filter single bad group",
    part("", "    placementrules:\n      - name: user\n        filter:\n          groups: ['a b']\n"),
    "invalid rule filter group list is not a proper list or regexp: [a b]",
  ],
  [
    "filter single service-account user system:serviceaccounts:username:username-77 (upstream TestServiceAccountUserName)",
    part(
      "",
      "    placementrules:\n      - name: user\n        filter:\n          users: ['system:serviceaccounts:username:username-77']\n",
    ),
    true,
  ],
  [
    "filter single service-account user system:serviceaccounts:username.12:username-77-11 (upstream TestServiceAccountUserName)",
    part(
      "",
      "    placementrules:\n      - name: user\n        filter:\n          users: ['system:serviceaccounts:username.12:username-77-11']\n",
    ),
    true,
  ],
  [
    "filter single user system:serviceaccounts:username!:username refused (upstream TestServiceAccountUserName)",
    part("", "    placementrules:\n      - name: user\n        filter:\n          users: ['system:serviceaccounts:username!:username']\n"),
    "invalid rule filter user list is not a proper list or regexp: [system:serviceaccounts:username!:username]",
  ],
  [
    "filter single group system:authenticated (upstream TestServiceAccountGroupName)",
    part("", "    placementrules:\n      - name: user\n        filter:\n          groups: ['system:authenticated']\n"),
    true,
  ],
  [
    "filter single group system:serviceaccounts:kube.system (upstream TestServiceAccountGroupName)",
    part("", "    placementrules:\n      - name: user\n        filter:\n          groups: ['system:serviceaccounts:kube.system']\n"),
    true,
  ],
  [
    "filter user regexp Go refuses (lookahead)",
    part("", "    placementrules:\n      - name: user\n        filter:\n          users: ['user(?=1)']\n"),
    "invalid rule filter user list is not a proper list or regexp: [user(?=1)]",
  ],
  [
    "filter user regexp Go refuses (a repeat count above 1,000)",
    part("", "    placementrules:\n      - name: user\n        filter:\n          users: ['user{1001}']\n"),
    "invalid rule filter user list is not a proper list or regexp: [user{1001}]",
  ],
  [
    "filter user regexp Go refuses (a backreference)",
    part("", "    placementrules:\n      - name: user\n        filter:\n          users: ['(a)\\1']\n"),
    "invalid rule filter user list is not a proper list or regexp: [(a)\\1]",
  ],
  [
    "fixed rule to an existing leaf",
    part("        queues:\n          - name: batch\n", "    placementrules:\n      - name: fixed\n        value: batch\n"),
    true,
  ],
  [
    "fixed rule to a missing queue without create",
    part("", "    placementrules:\n      - name: fixed\n        value: batch\n"),
    "placement rule no. #0 (fixed) references non-existing queues (root.batch) and create is 'false'",
  ],
  [
    "fixed rule to a missing queue with create",
    part("", "    placementrules:\n      - name: fixed\n        value: batch\n        create: true\n"),
    true,
  ],
  [
    "fixed rule to a parent",
    part(
      "        queues:\n          - name: batch\n            parent: true\n",
      "    placementrules:\n      - name: fixed\n        value: root.batch\n",
    ),
    "placement rule no. #0 (fixed) references a queue (root.batch) which is not a leaf",
  ],
  [
    "user under a fixed parent",
    part(
      "        queues:\n          - name: users\n            parent: true\n",
      "    placementrules:\n      - name: user\n        create: true\n        parent:\n          name: fixed\n          value: users\n",
    ),
    true,
  ],
  [
    "user under a fixed leaf",
    part(
      "        queues:\n          - name: users\n",
      "    placementrules:\n      - name: user\n        create: true\n        parent:\n          name: fixed\n          value: users\n",
    ),
    "placement rule no. #0 (fixed->user) references a queue (root.users) which is not a leaf",
  ],
  [
    "two qualified fixed rules in one chain",
    part(
      "",
      "    placementrules:\n      - name: fixed\n        value: root.b\n        parent:\n          name: fixed\n          value: root.a\n",
    ),
    "illegal fully qualified 'fixed' rule with value root.b",
  ],
  [
    "fixed below a leaf",
    part(
      "        queues:\n          - name: a\n",
      "    placementrules:\n      - name: fixed\n        value: root.a.b\n        create: true\n",
    ),
    "placement rule no. #0 (fixed) references non-existing queues (root.a.b) which cannot be created because the last " +
      "queue (a) in the hierarchy is a leaf",
  ],
];

describe("queues.yaml validation table", () => {
  it("has at least 60 cases, valid and invalid", () => {
    expect(CASES.length).toBeGreaterThanOrEqual(60);
    expect(CASES.filter(([, , e]) => e === true).length).toBeGreaterThanOrEqual(20);
    expect(CASES.filter(([, , e]) => e !== true).length).toBeGreaterThanOrEqual(40);
  });
  it.each(CASES)("%s", (_name, yaml, expected) => {
    const r = validateQueuesYaml(yaml);
    if (expected === true) {
      expect(r).toEqual({ allowed: true });
    } else {
      expect(r.allowed).toBe(false);
      if (typeof expected === "string") expect(r.reason).toBe(expected);
      else expect(r.reason).toMatch(expected);
    }
  });
});

describe("quantities", () => {
  it.each([
    ["memory", "1", 1n],
    ["memory", "1k", 1000n],
    ["memory", "1Ki", 1024n],
    ["memory", " 2 Gi ", 2n * 1024n ** 3n],
    ["memory", "1E", 10n ** 18n],
    ["vcore", "1", 1000n],
    ["vcore", "250m", 250n],
    ["vcore", "2k", 2_000_000n],
    ["pods", "110", 110n],
    ["memory", "7Ei", 7n << 60n],
  ] as const)("%s %s = %s", (k, v, n) => {
    expect(parseQuantity(k, v)).toBe(n);
  });
  it("prints like Go maps", () => {
    expect(format({ vcore: 2000, memory: 10 })).toBe("map[memory:10 vcore:2000]");
  });
});

describe("normalisation", () => {
  it("inserts root and lower-cases nothing it should not", () => {
    const cfg = decodeQueuesYaml("partitions:\n  - queues:\n      - name: A\n      - name: b\n");
    expect(cfg.partitions[0]!.name).toBe("");
    const r = validateQueuesYaml("partitions:\n  - queues:\n      - name: A\n      - name: b\n");
    expect(r.allowed).toBe(true);
  });
});

describe("scalars decoded as yaml.v3 decodes them into upstream's config types", () => {
  const queueOf = (text: string) =>
    decodeQueuesYaml(`partitions:\n  - name: default\n    queues:\n      - name: root\n${text}`).partitions[0]!.queues![0]!;
  it("a string field keeps the scalar as written: a queue named 007 is 007, not 7", () => {
    const root = queueOf("        queues:\n          - name: 007\n          - name: 0x1F\n          - name: 1e3\n          - name: true\n");
    expect(root.queues!.map((q) => q.name)).toEqual(["007", "0x1F", "1e3", "true"]);
  });
  it("a quantity written as a hex number is text, refused as upstream's quantity parser refuses it", () => {
    const r = validateQueuesYaml(
      "partitions:\n  - name: default\n    queues:\n      - name: root\n        resources: {max: {memory: 0x10}}\n",
    );
    expect(r.allowed).toBe(false);
  });
  it("YAML 1.1 booleans into a bool field (parent: yes, create: on), as yaml.v3's compatibility rule", () => {
    const root = queueOf("        queues:\n          - name: a\n            parent: yes\n          - name: b\n            parent: Off\n");
    expect(root.queues!.map((q) => q.parent)).toEqual([true, false]);
    expect(() => queueOf("        parent: maybe\n")).toThrow(/cannot decode "maybe" into bool/);
  });
  it.each<[string, number | undefined]>([
    ["5", 5],
    ["0x10", 16],
    ["0o17", 15],
    ["017", 15],
    ["0b101", 5],
    ["1_000", 1000],
    ["1e3", 1000],
    ["2.7", 2],
    ["08", 8],
  ])("maxapplications: %s is %s (ParseInt base 0, then a float truncated)", (text, want) => {
    expect(queueOf(`        maxapplications: ${text}\n`).maxapplications).toBe(want);
  });
  it("a queue without a name is refused by name, as upstream's empty Name", () => {
    for (const entry of ["          - parent: true\n", "          - name: ~\n"]) {
      const r = validateQueuesYaml(`partitions:\n  - name: default\n    queues:\n      - name: root\n        queues:\n${entry}`);
      expect(r).toEqual({ allowed: false, reason: expect.stringContaining("invalid queue name") });
    }
  });
  it.each(['"5"', "-1", "abc", "2001-12-14"])("maxapplications: %s is refused", (text) => {
    expect(() => queueOf(`        maxapplications: ${text}\n`)).toThrow(/into uint64/);
  });
});

describe("values the core cannot hold exactly", () => {
  it("validate-conf refuses a quantity above 2^53, as the core's configuration update does", () => {
    const r = validateQueuesYaml(
      "partitions:\n  - name: default\n    queues:\n      - name: root\n        queues:\n          - name: a\n" +
        "            resources: {max: {memory: 1E}}\n",
    );
    expect(r).toEqual({ allowed: false, reason: "resource memory=1000000000000000000 is too large (max 9007199254740991)" });
  });
});
