import { describe, expect, it } from "vitest";
import { describeTaskGroupsProblem, parseTaskGroups } from "../../../../src/scheduler/shim/gang/task-groups.js";

// apache/yunikorn-k8shim pkg/cache/utils_test.go TestGetTaskGroupFromAnnotation: testGroup (the correct case)
const UPSTREAM_TEST_GROUP = `
	[
		{
			"name": "test-group-1",
			"minMember": 10,
			"minResource": {
				"cpu": 1,
				"memory": "2Gi"
			},
			"nodeSelector": {
				"test": "testnode",
				"locate": "west"
			},
			"tolerations": [
				{
					"key": "key",
					"operator": "Equal",
					"value": "value",
					"effect": "NoSchedule"
				}
			]
		},
		{
			"name": "test-group-2",
			"minMember": 5,
			"minResource": {
				"cpu": 2,
				"memory": "4Gi"
			}
		}
	]`;

// apache/yunikorn-site docs/user_guide/gang_scheduling.md "Enable Gang scheduling for Spark jobs" (driver pod)
const SITE_SPARK_DRIVER = `[{
        "name": "spark-driver",
        "minMember": 1,
        "minResource": {
          "cpu": "1",
          "memory": "2Gi"
        },
        "nodeSelector": {},
        "tolerations": [],
        "affinity": {},
        "topologySpreadConstraints": []
     },
     {
        "name": "spark-executor",
        "minMember": 1,
        "minResource": {
          "cpu": "1",
          "memory": "2Gi"
        }
     }]`;

describe("parseTaskGroups: accepted", () => {
  it("upstream's correct case: values, node selector and tolerations kept", () => {
    const r = parseTaskGroups(UPSTREAM_TEST_GROUP);
    expect(r).toEqual({
      ok: true,
      taskGroups: [
        {
          name: "test-group-1",
          minMember: 10,
          minResource: { cpu: "1", memory: "2Gi" },
          nodeSelector: { test: "testnode", locate: "west" },
          tolerations: [{ key: "key", operator: "Equal", value: "value", effect: "NoSchedule" }],
        },
        { name: "test-group-2", minMember: 5, minResource: { cpu: "2", memory: "4Gi" } },
      ],
    });
  });
  it("the user guide's Spark driver annotation (empty selector, tolerations, affinity and spread kept as written)", () => {
    const r = parseTaskGroups(SITE_SPARK_DRIVER);
    expect(r.ok && r.taskGroups.map((g) => [g.name, g.minMember, g.minResource])).toEqual([
      ["spark-driver", 1, { cpu: "1", memory: "2Gi" }],
      ["spark-executor", 1, { cpu: "1", memory: "2Gi" }],
    ]);
    expect(r.ok && r.taskGroups[0]).toMatchObject({ nodeSelector: {}, tolerations: [], affinity: {}, topologySpreadConstraints: [] });
  });
  it.each([
    ["absent", undefined],
    ["empty", ""],
    ["JSON null (Go leaves the list nil)", "null"],
    ["empty list", "[]"],
  ])("no task groups: %s", (_, raw) => {
    expect(parseTaskGroups(raw)).toEqual({ ok: true, taskGroups: [] });
  });
  it("field names fold case as Go's encoding/json does; the last spelling wins; unknown fields are ignored", () => {
    const r = parseTaskGroups(
      '[{"Name":"a","name":"b","MINMEMBER":2,"MinResource":{"cpu":"500m"},"NodeSelector":{"k":"v"},"priorityClassName":"x"}]',
    );
    expect(r).toEqual({ ok: true, taskGroups: [{ name: "b", minMember: 2, minResource: { cpu: "500m" }, nodeSelector: { k: "v" } }] });
  });
  it("quantities: numbers become their decimal text, null is 0, an empty minResource is allowed", () => {
    const r = parseTaskGroups(
      '[{"name":"g","minMember":2,"minResource":{"cpu":0.5,"memory":null,"nvidia.com/gpu":1,"hugepages-2Mi":" 4Mi ' +
        '"}},{"name":"h","minMember":1,"minResource":{}}]',
    );
    expect(r.ok && r.taskGroups.map((g) => g.minResource)).toEqual([
      { cpu: "0.5", memory: "0", "nvidia.com/gpu": "1", "hugepages-2Mi": "4Mi" },
      {},
    ]);
  });
  it("upstream's representable case is accepted (utils_test.go TestGetTaskGroupsFromAnnotationValidatesResources)", () => {
    expect(parseTaskGroups('[{"name":"g","minMember":2,"minResource":{"cpu":"1","memory":"1Gi"}}]').ok).toBe(true);
  });
});

describe("parseTaskGroups: refused with the problem named", () => {
  // The first six are upstream's error cases (utils_test.go testGroupErr … testGroupErr6), the next eight its
  // resource validation cases (TestGetTaskGroupsFromAnnotationValidatesResources) where corral's range allows the same
  // verdict, then corral's own checks.
  it.each([
    [
      "upstream testGroupErr: trailing comma (invalid JSON)",
      `[{"name": "test-group-err-1","minMember": "ERR","minResource": {"cpu": "ERR","memory": "ERR"},}]`,
      { problem: expect.stringMatching(/^is not valid JSON: /) },
    ],
    [
      "upstream testGroupErr2: without name",
      `[{"minMember": 3,"minResource": {"cpu": 2,"memory": "1Gi"}}]`,
      { index: 0, field: "name", problem: "is missing or empty" },
    ],
    [
      "upstream testGroupErr3: without minMember",
      `[{"name": "test-group-err-3","minResource": {"cpu": 2,"memory": "1Gi"}}]`,
      { index: 0, group: "test-group-err-3", field: "minMember", problem: "is missing or 0 (must be at least 1)" },
    ],
    [
      "upstream testGroupErr4: without minResource",
      `[{"name": "test-group-err-4","minMember": 3}]`,
      { index: 0, group: "test-group-err-4", field: "minResource", problem: "is missing" },
    ],
    [
      "upstream testGroupErr5: negative minMember without minResource (minResource checked first)",
      `[{"name": "test-group-err-5","minMember": -100}]`,
      { field: "minResource", problem: "is missing" },
    ],
    [
      "upstream testGroupErr6: negative minMember",
      `[{"name": "test-group-err-6","minMember": -100,"minResource": {"cpu": 2,"memory": "1Gi"}}]`,
      { field: "minMember", problem: "cannot be negative, got -100" },
    ],
    [
      "upstream: negative cpu",
      `[{"name":"g","minMember":1,"minResource":{"cpu":"-1"}}]`,
      { field: "minResource.cpu", problem: 'cannot be negative, got "-1"' },
    ],
    [
      "upstream: cpu MilliValue overflow",
      `[{"name":"g","minMember":1,"minResource":{"cpu":"9223372036854776"}}]`,
      { field: "minResource.cpu", problem: expect.stringContaining("too large") },
    ],
    [
      "upstream: memory Value overflow",
      `[{"name":"g","minMember":1,"minResource":{"memory":"9223372036854775808"}}]`,
      { field: "minResource.memory", problem: expect.stringContaining("too large") },
    ],
    [
      "upstream: minMember times minResource overflow",
      `[{"name":"g","minMember":2000000000,"minResource":{"cpu":"5000000"}}]`,
      { field: "minResource.cpu", problem: '"5000000" × minMember 2000000000 is too large (must stay below 2^53)' },
    ],
    [
      "upstream: aggregate overflow across taskGroups (5E each: corral's bound is 2^53, so the first is already too large)",
      `[{"name":"a","minMember":1,"minResource":{"memory":"5E"}},{"name":"b","minMember":1,"minResource":{"memory":"5E"}}]`,
      { index: 0, field: "minResource.memory" },
    ],
    [
      "upstream: cpu and vcore collide within a group",
      `[{"name":"g","minMember":1,"minResource":{"cpu":"1","vcore":"1"}}]`,
      { field: "minResource.vcore", problem: 'collides with "cpu" (both count as "vcore")' },
    ],
    [
      "upstream: explicit pods collides with the implicit count",
      `[{"name":"a","minMember":2147483647,"minResource":{}},{"name":"b","minMember":1,"minResource":{"pods":"9223372036854775807"}}]`,
      { index: 1, group: "b", field: "minResource.pods", problem: 'collides with the placeholder count (both count as "pods")' },
    ],
    [
      "aggregate across groups above 2^53",
      `[{"name":"a","minMember":1,"minResource":{"memory":"4Pi"}},{"name":"b","minMember":1,"minResource":{"memory":"4Pi"}}]`,
      { index: 1, field: "minResource.memory", problem: 'the sum over all task groups of "memory" is too large (must stay below 2^53)' },
    ],
    [
      "duplicate names (the user guide requires unique names)",
      `[{"name":"exec","minMember":1,"minResource":{}},{"name":"exec","minMember":2,"minResource":{}}]`,
      {
        index: 1,
        group: "exec",
        field: "name",
        problem: '"exec" is already the name of task group 0; names must be unique within the application',
      },
    ],
    [
      "empty resource name",
      `[{"name":"g","minMember":1,"minResource":{"":"1"}}]`,
      { field: "minResource.", problem: '"" is not a resource name (`name` or `prefix/name`, as `memory` or `nvidia.com/gpu`)' },
    ],
    [
      "a resource name Kubernetes refuses",
      `[{"name":"g","minMember":1,"minResource":{"GPU/x":"1"}}]`,
      { field: "minResource.GPU/x", problem: expect.stringContaining("is not a resource name") },
    ],
    [
      "__proto__ is not a resource name (and is never silently dropped)",
      `[{"name":"g","minMember":1,"minResource":{"__proto__":"1"}}]`,
      { field: "minResource.__proto__", problem: expect.stringContaining("is not a resource name") },
    ],
    [
      "not a quantity",
      `[{"name":"g","minMember":1,"minResource":{"memory":"lots"}}]`,
      { field: "minResource.memory", problem: '"lots" is not a Kubernetes quantity' },
    ],
    [
      "a quantity of the wrong JSON type",
      `[{"name":"g","minMember":1,"minResource":{"memory":true}}]`,
      { field: "minResource.memory", problem: "must be a quantity (string or number), got true" },
    ],
    [
      "minMember as a string (Go cannot unmarshal it into int32)",
      `[{"name":"g","minMember":"2","minResource":{}}]`,
      { field: "minMember", problem: 'must be an integer (int32), got "2"' },
    ],
    [
      "minMember written as a decimal (Go's encoding/json refuses 10.0 for an int32)",
      `[{"name":"g","minMember":10.0,"minResource":{}}]`,
      { field: "minMember", problem: "must be an integer (int32), got 10.0" },
    ],
    [
      "minMember in exponent form, any spelling of the key",
      `[{"name":"g","MinMember":1e1,"minResource":{}}]`,
      { field: "minMember", problem: "must be an integer (int32), got 1e1" },
    ],
    [
      "minMember beyond int32",
      `[{"name":"g","minMember":2147483648,"minResource":{}}]`,
      { field: "minMember", problem: "must be an integer (int32), got 2147483648" },
    ],
    ["name not a string", `[{"name":7,"minMember":1,"minResource":{}}]`, { field: "name", problem: "must be a string, got 7" }],
    [
      "labels with a non-string value",
      `[{"name":"g","minMember":1,"minResource":{},"labels":{"tier":1}}]`,
      { group: "g", field: "labels.tier", problem: "must be a string, got 1" },
    ],
    [
      "tolerations not a list",
      `[{"name":"g","minMember":1,"minResource":{},"tolerations":{"key":"k"}}]`,
      { field: "tolerations", problem: "must be a list of objects, got an object" },
    ],
    [
      "a toleration not an object",
      `[{"name":"g","minMember":1,"minResource":{},"tolerations":["k"]}]`,
      { field: "tolerations[0]", problem: 'must be an object, got "k"' },
    ],
    [
      "affinity not an object",
      `[{"name":"g","minMember":1,"minResource":{},"affinity":[]}]`,
      { field: "affinity", problem: "must be an object, got a list" },
    ],
    [
      "an object instead of a list",
      `{"name":"g","minMember":1,"minResource":{}}`,
      { problem: "must be a JSON list of task groups, got an object" },
    ],
    ["an entry that is not an object", `[null]`, { index: 0, problem: "must be an object, got null" }],
    ["blank (Go: unexpected end of JSON input)", "  ", { problem: expect.stringMatching(/^is not valid JSON/) }],
  ])("%s", (_, raw, expected) => {
    const r = parseTaskGroups(raw);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problem).toMatchObject({ annotation: "yunikorn.apache.org/task-groups", ...expected });
  });
  it("type errors anywhere in the list are found before any group is checked, as upstream unmarshals first", () => {
    const r = parseTaskGroups('[{"minMember":1,"minResource":{}},{"name":"b","minMember":"x","minResource":{}}]');
    expect(!r.ok && r.problem).toMatchObject({ index: 1, group: "b", field: "minMember" });
  });
  it("describes the problem in one line for the Warning event", () => {
    const r = parseTaskGroups(
      `[{"name":"driver","minMember":1,"minResource":{}},{"name":"exec","minMember":-1,"minResource":{"cpu":"1"}}]`,
    );
    expect(!r.ok && describeTaskGroupsProblem(r.problem)).toBe(
      'yunikorn.apache.org/task-groups: task group 1 ("exec") minMember: cannot be negative, got -1',
    );
    const j = parseTaskGroups("{");
    expect(!j.ok && describeTaskGroupsProblem(j.problem)).toMatch(/^yunikorn\.apache\.org\/task-groups: is not valid JSON: /);
  });
});
