/**
 * The placeholder flag at admission: only the scheduler's own user (`service.schedulerUser`) and trusted controllers
 * may add, change or remove `internal.yunikorn.apache.org/placeholder` on pods and pod templates.
 */
import { describe, expect, it } from "vitest";
import { defaultAdmissionConfig, describeConfig, parseAdmissionConfig } from "../../../src/admission/config.js";
import { EMPTY_LOOKUPS } from "../../../src/admission/lookups.js";
import { placeholderFlagRefusal } from "../../../src/admission/placeholder.js";
import { review, validatePodStatus } from "../../../src/admission/review.js";
import { ALICE, RS_CONTROLLER, pod, podCreate, podUpdate, workload, workloadRequest } from "../../fixtures/reviews.js";

const PH = "internal.yunikorn.apache.org/placeholder";
const cfg = defaultAdmissionConfig("corral");
const SCHEDULER = {
  username: "system:serviceaccount:corral:corral-scheduler",
  groups: ["system:serviceaccounts", "system:serviceaccounts:corral", "system:authenticated"],
};
/** bob's driver pod, which alice's forged placeholder claims as its owner */
const forged = () => {
  const p = pod({
    name: "tg-spark-1-executor-x",
    labels: { applicationId: "spark-1" },
    annotations: { [PH]: "true", "yunikorn.apache.org/task-group-name": "executor" },
  });
  (p.metadata as Record<string, unknown>).ownerReferences = [{ apiVersion: "v1", kind: "Pod", name: "bob-driver", uid: "uid-bob-driver" }];
  return p;
};

describe("service.schedulerUser (admission)", () => {
  it("defaults to the scheduler's ServiceAccount in the controller's namespace; a set value wins", () => {
    expect(cfg.schedulerUser).toBe("system:serviceaccount:corral:corral-scheduler");
    expect(defaultAdmissionConfig("batch").schedulerUser).toBe("system:serviceaccount:batch:corral-scheduler");
    const r = parseAdmissionConfig({ NAMESPACE: "corral", ADMISSION_CONTROLLER_SCHEDULER_USER: "sched-env" }, [
      { name: "cm", data: { "service.schedulerUser": " system:serviceaccount:ops:sched " } },
    ]);
    expect(r.ok && r.config.schedulerUser).toBe("system:serviceaccount:ops:sched");
    expect(r.ok && describeConfig(r.config)["service.schedulerUser"]).toBe("system:serviceaccount:ops:sched");
  });
});

describe("placeholderFlagRefusal", () => {
  it.each([
    [
      "alice sets it",
      ALICE,
      undefined,
      { [PH]: "true" },
      /setting internal.yunikorn.apache.org\/placeholder is refused.*requested by alice/,
    ],
    ["alice sets it to false", ALICE, undefined, { [PH]: "false" }, /setting/],
    ["alice adds it", ALICE, {}, { [PH]: "true" }, /adding/],
    ["alice removes it", ALICE, { [PH]: "true" }, {}, /removing/],
    ["alice changes it", ALICE, { [PH]: "true" }, { [PH]: "1" }, /changing/],
    ["alice, flag absent", ALICE, undefined, { other: "x" }, undefined],
    ["alice, flag unchanged", ALICE, { [PH]: "true" }, { [PH]: "true" }, undefined],
    ["the scheduler", SCHEDULER, undefined, { [PH]: "true" }, undefined],
    ["a trusted controller", RS_CONTROLLER, {}, { [PH]: "true" }, undefined],
    [
      "a scheduler of another namespace",
      { ...SCHEDULER, username: "system:serviceaccount:team-a:corral-scheduler" },
      undefined,
      { [PH]: "true" },
      /refused/,
    ],
  ])("%s", (_, who, before, after, want) => {
    const m = placeholderFlagRefusal(cfg, who, { before, after }, "pod team-a/p");
    if (want === undefined) expect(m).toBeUndefined();
    else expect(m).toMatch(want);
  });
  it("a trusted controller is no longer trusted once trustControllers is off", () => {
    const r = parseAdmissionConfig({ NAMESPACE: "corral" }, [
      { name: "cm", data: { "admissionController.accessControl.trustControllers": "false" } },
    ]);
    if (!r.ok) throw new Error("config");
    expect(placeholderFlagRefusal(r.config, RS_CONTROLLER, { after: { [PH]: "true" } }, "pod team-a/p")).toMatch(/refused/);
  });
});

describe("the placeholder flag through review()", () => {
  it("alice's forged placeholder of bob's driver is refused on CREATE (403), the scheduler's own is admitted", () => {
    const res = review(podCreate(forged()), cfg, EMPTY_LOOKUPS);
    expect(res.allowed).toBe(false);
    expect(res.status).toEqual({
      code: 403,
      message: expect.stringMatching(
        /^pod team-a\/tg-spark-1-executor-x: setting internal.yunikorn.apache.org\/placeholder is refused: placeholders are created by the scheduler \(system:serviceaccount:corral:corral-scheduler\) only \(requested by alice\)$/,
      ),
    });
    expect(review(podCreate(forged(), SCHEDULER), cfg, EMPTY_LOOKUPS).allowed).toBe(true);
  });
  it("refused in a namespace corral does not process too", () => {
    const off = parseAdmissionConfig({ NAMESPACE: "corral" }, [
      { name: "cm", data: { "admissionController.filtering.bypassNamespaces": "^team-a$" } },
    ]);
    if (!off.ok) throw new Error("config");
    expect(review(podCreate(forged()), off.config, EMPTY_LOOKUPS).allowed).toBe(false);
    expect(review(podCreate(pod()), off.config, EMPTY_LOOKUPS).allowed).toBe(true);
  });
  it("adding the flag to an existing pod (UPDATE, and pods/status) is refused; other updates pass", () => {
    const UI = { "yunikorn.apache.org/user.info": '{"user":"alice"}' };
    const stored = pod({ annotations: UI });
    const flagged = pod({ annotations: { ...UI, [PH]: "true" } });
    expect(review(podUpdate(flagged, stored), cfg, EMPTY_LOOKUPS).status?.message).toMatch(
      /adding internal.yunikorn.apache.org\/placeholder is refused/,
    );
    expect(validatePodStatus({ ...podUpdate(flagged, stored), subResource: "status" }, cfg).allowed).toBe(false);
    expect(review(podUpdate(pod({ annotations: { ...UI, note: "x" } }), stored), cfg, EMPTY_LOOKUPS).allowed).toBe(true);
    // the scheduler's placeholder: alice may not strip the flag, the scheduler may update it
    const ph = pod({ annotations: { ...UI, [PH]: "true" } });
    expect(review(podUpdate(stored, ph), cfg, EMPTY_LOOKUPS).status?.message).toMatch(/removing/);
    expect(review(podUpdate(stored, ph, SCHEDULER), cfg, EMPTY_LOOKUPS).allowed).toBe(true);
  });
  it.each(["Job", "Deployment", "CronJob"])("a %s whose pod template carries the flag is refused on CREATE and UPDATE", (kind) => {
    const flaggedTemplate = workload(kind, { labels: { app: "web" }, annotations: { [PH]: "true" } });
    expect(review(workloadRequest(kind, flaggedTemplate), cfg, EMPTY_LOOKUPS).status?.message).toMatch(
      new RegExp(`^pod template of ${kind} .*: setting internal.yunikorn.apache.org/placeholder is refused`),
    );
    const plain = workload(kind);
    const upd = review(workloadRequest(kind, flaggedTemplate, ALICE, "UPDATE", plain), cfg, EMPTY_LOOKUPS);
    expect(upd.allowed).toBe(false);
    expect(upd.status?.message).toMatch(/adding/);
    expect(review(workloadRequest(kind, plain), cfg, EMPTY_LOOKUPS).allowed).toBe(true);
  });
});
