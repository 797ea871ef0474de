/**
 * Pod preemption flags as the YuniKorn shim reads them (apache/yunikorn-k8shim pkg/cache/task.go
 * isPreemptSelfAllowed / isPreemptOtherAllowed, whose PriorityClass rule is pinned for the admission side by
 * pkg/admission/priority_class_cache_test.go TestIsPreemptSelfAllowed; context_test.go TestAddTask and
 * TestOriginatorPodAfterRestart for the originator, with corral's placeholder trust rule).
 */
import { describe, expect, it } from "vitest";
import { allowPreemptOther, allowPreemptSelf, isOriginator, podPreemptionPolicy } from "../../../src/scheduler/shim/preemption.js";

const classes: Record<string, Record<string, string>> = {
  "opt-out": { "yunikorn.apache.org/allow-preemption": "false" },
  "opt-in": { "yunikorn.apache.org/allow-preemption": "true" },
  odd: { "yunikorn.apache.org/allow-preemption": "FALSE" },
  plain: {},
};
const lookup = (name: string) => classes[name];
const pod = (annotations?: Record<string, string>, spec?: { priorityClassName?: string; preemptionPolicy?: string }, uid = "uid-1") => ({
  metadata: { uid, annotations },
  spec,
});

describe("allowPreemptSelf", () => {
  it.each([
    ["no annotation, no class", pod(), true],
    ["pod says false", pod({ "yunikorn.apache.org/allow-preemption": "false" }, { priorityClassName: "opt-in" }), false],
    [
      "pod says true over an opted-out class",
      pod({ "yunikorn.apache.org/allow-preemption": "true" }, { priorityClassName: "opt-out" }),
      true,
    ],
    ["class opts out", pod({}, { priorityClassName: "opt-out" }), false],
    ["class opts in", pod({}, { priorityClassName: "opt-in" }), true],
    ["class value is case-sensitive", pod({}, { priorityClassName: "odd" }), true],
    ["class without the annotation", pod({}, { priorityClassName: "plain" }), true],
    ["unknown class allows", pod({}, { priorityClassName: "missing" }), true],
    [
      "pod value other than true/false falls through to the class",
      pod({ "yunikorn.apache.org/allow-preemption": "no" }, { priorityClassName: "opt-out" }),
      false,
    ],
    ["pod value other than true/false, no class: allowed", pod({ "yunikorn.apache.org/allow-preemption": "False" }), true],
  ])("%s", (_name, p, expected) => {
    expect(allowPreemptSelf(p, lookup)).toBe(expected);
  });
});

describe("allowPreemptOther", () => {
  it("only preemptionPolicy Never forbids preempting", () => {
    expect(allowPreemptOther(pod(undefined, { preemptionPolicy: "Never" }))).toBe(false);
    expect(allowPreemptOther(pod(undefined, { preemptionPolicy: "PreemptLowerPriority" }))).toBe(true);
    expect(allowPreemptOther(pod())).toBe(true);
  });

  it("podPreemptionPolicy gives both flags", () => {
    expect(podPreemptionPolicy(pod({}, { priorityClassName: "opt-out", preemptionPolicy: "Never" }), lookup)).toEqual({
      allowPreemptSelf: false,
      allowPreemptOther: false,
    });
  });
});

describe("originator", () => {
  const SCHEDULER = "system:serviceaccount:corral:corral-scheduler";
  const info = (user: string) => ({ "yunikorn.apache.org/user.info": JSON.stringify({ user, groups: [] }) });
  const app = (hasOriginator = false) => ({ hasOriginator, ownerUids: ["driver"] });
  const o = { schedulerUser: SCHEDULER };

  it("the pod named by the application's owner reference is the originator, once", () => {
    expect(isOriginator(pod(info("alice"), {}, "driver"), app(), o)).toBe(true);
    expect(isOriginator(pod(info("alice"), {}, "executor"), app(), o)).toBe(false);
    expect(isOriginator(pod(info("alice"), {}, "driver"), app(true), o)).toBe(false);
  });

  it("a placeholder the scheduler created never is; a pod that only carries the flag is an ordinary pod of its user", () => {
    const flag = { "internal.yunikorn.apache.org/placeholder": "true" };
    expect(isOriginator(pod({ ...flag, ...info(SCHEDULER) }, {}, "driver"), app(), o)).toBe(false);
    // alice's own pod flagged as a placeholder (the admission webhook was down): still her application's originator
    expect(isOriginator(pod({ ...flag, ...info("alice") }, {}, "driver"), app(), o)).toBe(true);
    expect(isOriginator(pod(flag, {}, "driver"), app(), o)).toBe(true);
  });
});
