import { describe, expect, it } from "vitest";
import {
  findTaskGroup,
  gangSpecOf,
  isPlaceholder,
  isTrustedPlaceholder,
  taskGroupNameOf,
} from "../../../../src/scheduler/shim/gang/membership.js";
import { parseTaskGroups } from "../../../../src/scheduler/shim/gang/task-groups.js";

// apache/yunikorn-site docs/user_guide/gang_scheduling.md, the Job example "gang-app-timeout"
const SITE_TIMEOUT_JOB_ANNOTATIONS = {
  "yunikorn.apache.org/task-group-name": "sched-style",
  "yunikorn.apache.org/schedulingPolicyParameters": "placeholderTimeoutInSeconds=60 gangSchedulingStyle=Hard",
  "yunikorn.apache.org/task-groups": `[{
    "name": "sched-style",
    "minMember": 4,
    "minResource": {
      "cpu": "1",
      "memory": "1000M"
    },
    "nodeSelector": {},
    "tolerations": [],
    "affinity": {},
    "topologySpreadConstraints": []
}]`,
};

const pod = (annotations: Record<string, string> = {}) => ({ metadata: { name: "p", namespace: "ns", uid: "u", annotations } });

describe("gangSpecOf", () => {
  it("the user guide's Hard-timeout job: one group of 4, 60 s, Hard; definitions kept verbatim for the placeholders", () => {
    const r = gangSpecOf(pod(SITE_TIMEOUT_JOB_ANNOTATIONS));
    expect(r.problem).toBeUndefined();
    expect(r.spec.taskGroups.map((g) => [g.name, g.minMember, g.minResource])).toEqual([["sched-style", 4, { cpu: "1", memory: "1000M" }]]);
    expect(r.spec.schedulingPolicyParameters).toEqual({ placeholderTimeoutSeconds: 60, gangSchedulingStyle: "Hard" });
    expect(r.spec.taskGroupsDefinition).toBe(SITE_TIMEOUT_JOB_ANNOTATIONS["yunikorn.apache.org/task-groups"]);
    expect(r.spec.schedulingParamsDefinition).toBe("placeholderTimeoutInSeconds=60 gangSchedulingStyle=Hard");
  });
  it("invalid task groups: no gang, the problem for the Warning event, the policy still read", () => {
    const r = gangSpecOf(
      pod({
        "yunikorn.apache.org/task-groups": '[{"name":"g","minMember":0,"minResource":{}}]',
        "yunikorn.apache.org/schedulingPolicyParameters": "gangSchedulingStyle=Hard x",
      }),
    );
    expect(r.spec.taskGroups).toEqual([]);
    expect(r.problem).toEqual({
      annotation: "yunikorn.apache.org/task-groups",
      index: 0,
      group: "g",
      field: "minMember",
      problem: "is missing or 0 (must be at least 1)",
    });
    expect(r.spec.schedulingPolicyParameters.gangSchedulingStyle).toBe("Hard");
    expect(r.ignoredParameters).toEqual([{ pair: "x", reason: "malformed" }]);
  });
  it("a pod without annotations: no gang, defaults, nothing to report", () => {
    expect(gangSpecOf({ metadata: {} })).toEqual({
      spec: {
        taskGroups: [],
        taskGroupsDefinition: "",
        schedulingPolicyParameters: { placeholderTimeoutSeconds: 0, gangSchedulingStyle: "Soft" },
        schedulingParamsDefinition: "",
      },
      ignoredParameters: [],
    });
  });
  it("service.disableGangScheduling: task groups and group names are not read (even invalid ones), the policy is", () => {
    const r = gangSpecOf(pod({ ...SITE_TIMEOUT_JOB_ANNOTATIONS, "yunikorn.apache.org/task-groups": "{" }), { disableGangScheduling: true });
    expect(r.spec.taskGroups).toEqual([]);
    expect(r.spec.taskGroupsDefinition).toBe("");
    expect(r.problem).toBeUndefined();
    expect(r.spec.schedulingPolicyParameters.placeholderTimeoutSeconds).toBe(60);
    expect(taskGroupNameOf(pod(SITE_TIMEOUT_JOB_ANNOTATIONS), { disableGangScheduling: true })).toBeUndefined();
  });
});

describe("taskGroupNameOf, isPlaceholder", () => {
  it("task group name from the annotation; empty counts as none", () => {
    expect(taskGroupNameOf(pod(SITE_TIMEOUT_JOB_ANNOTATIONS))).toBe("sched-style");
    expect(taskGroupNameOf(pod({ "yunikorn.apache.org/task-group-name": "" }))).toBeUndefined();
    expect(taskGroupNameOf({})).toBeUndefined();
  });
  it.each([
    ["true", true],
    ["True", true],
    ["TRUE", true],
    ["1", true],
    ["t", true],
    ["T", true],
    ["false", false],
    ["0", false],
    ["yes", false],
    ["", false],
    [" true", false],
  ])("internal.yunikorn.apache.org/placeholder=%j → %s (Go ParseBool; invalid is false)", (v, want) => {
    expect(isPlaceholder(pod({ "internal.yunikorn.apache.org/placeholder": v }))).toBe(want);
  });
  it("the old markers are no longer read (upstream YUNIKORN-3315)", () => {
    expect(isPlaceholder(pod({ "yunikorn.apache.org/placeholder": "true" }))).toBe(false);
    expect(isPlaceholder({ metadata: { labels: { placeholder: "true" } } })).toBe(false);
  });
});

describe("isTrustedPlaceholder", () => {
  const SCHED = "system:serviceaccount:corral:corral-scheduler";
  const stamped = (user: string | undefined, flag = "true") =>
    pod({
      "internal.yunikorn.apache.org/placeholder": flag,
      ...(user === undefined ? {} : { "yunikorn.apache.org/user.info": JSON.stringify({ user, groups: ["system:serviceaccounts"] }) }),
    });
  it("only the flag together with the scheduler's own user.info user", () => {
    expect(isTrustedPlaceholder(stamped(SCHED), SCHED)).toBe(true);
    expect(isTrustedPlaceholder(stamped("alice"), SCHED)).toBe(false);
    expect(isTrustedPlaceholder(stamped(undefined), SCHED)).toBe(false);
    expect(isTrustedPlaceholder(stamped(SCHED, "false"), SCHED)).toBe(false);
    expect(isTrustedPlaceholder(stamped("system:serviceaccount:other:corral-scheduler"), SCHED)).toBe(false);
  });
});

describe("findTaskGroup", () => {
  // apache/yunikorn-k8shim pkg/cache/gang_utils_test.go TestFindAppTaskGroup
  const r = parseTaskGroups(
    '[{"name":"test-group-0","minMember":1,"minResource":{"cpu":"500m"}},' +
      '{"name":"test-group-1","minMember":2,"minResource":{"cpu":"500m"}}]',
  );
  const groups = r.ok ? r.taskGroups : [];
  it.each([
    ["no name", groups, undefined, { kind: "none" }],
    ["no groups, no name", [], undefined, { kind: "none" }],
    ["no groups, a name", [], "test-group-0", { kind: "none" }],
    ["a name the application does not define", groups, "test-group-3", { kind: "undefined", name: "test-group-3" }],
  ])("%s", (_, gs, name, want) => {
    expect(findTaskGroup(gs, name)).toEqual(want);
  });
  it("a member gets its group", () => {
    const m = findTaskGroup(groups, "test-group-1");
    expect(m.kind === "member" && [m.taskGroup.name, m.taskGroup.minMember]).toEqual(["test-group-1", 2]);
  });
});
