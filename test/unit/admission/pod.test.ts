import { describe, expect, it } from "vitest";
import { defaultAdmissionConfig, parseAdmissionConfig } from "../../../src/admission/config.js";
import { EMPTY_LOOKUPS, type AdmissionLookups } from "../../../src/admission/lookups.js";
import { generateApplicationId } from "../../../src/yunikorn/application-id.js";
import { review, validatePodStatus } from "../../../src/admission/review.js";
import { ALICE, BOB, RS_CONTROLLER, pod, podCreate, podUpdate } from "../../fixtures/reviews.js";
import { applyResponse, patchOps } from "../../helpers/patch.js";
import { type PodObject, applicationRequest, identityOf } from "../../../src/scheduler/shim/translate.js";

const cfg = defaultAdmissionConfig("corral");
const cfgWith = (data: Record<string, string>) => {
  const r = parseAdmissionConfig({ NAMESPACE: "corral" }, [{ name: "test", data }]);
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.config;
};
const meta = (o: unknown) => (o as { metadata: { labels?: Record<string, string>; annotations?: Record<string, string> } }).metadata;
const spec = (o: unknown) => (o as { spec: { schedulerName?: string } }).spec;

describe("pod CREATE mutation (design 000)", () => {
  it("a pod with 20,000 labels and annotations gets a patch of the entries corral adds, not its maps echoed back", () => {
    const labels: Record<string, string> = {};
    const annotations: Record<string, string> = {};
    for (let i = 0; i < 20_000; i++) {
      labels[`k${i}.example.com/label-${i}`] = `value-${i}`;
      annotations[`k${i}.example.com/note-${i}`] = `note-${i}`;
    }
    const obj = pod({ labels, annotations });
    const res = review(podCreate(obj), cfg, EMPTY_LOOKUPS);
    expect(patchOps(res).map((o) => o.path)).toEqual([
      "/metadata/annotations/yunikorn.apache.org~1user.info",
      "/metadata/annotations/yunikorn.apache.org~1allow-preemption",
      "/spec/schedulerName",
      "/metadata/labels/applicationId",
      "/metadata/labels/yunikorn.apache.org~1app-id",
      "/metadata/labels/queue",
      "/metadata/labels/yunikorn.apache.org~1queue",
      "/metadata/labels/disableStateAware",
    ]);
    expect(res.patch!.length).toBeLessThan(2000);
    const out = applyResponse(obj, res);
    expect(Object.keys(meta(out).labels!)).toHaveLength(20_005);
    expect(meta(out).labels!["k19999.example.com/label-19999"]).toBe("value-19999");
    expect(meta(out).annotations!["yunikorn.apache.org/user.info"]).toBe(
      '{"user":"alice","groups":["users","devops","system:authenticated"]}',
    );
  });

  it("routes a plain pod: schedulerName, both application id labels, queue, disableStateAware, user.info", () => {
    const obj = pod({ labels: { app: "sleep" } });
    const res = review(podCreate(obj), cfg, EMPTY_LOOKUPS);
    expect(res.allowed).toBe(true);
    expect(res.patchType).toBe("JSONPatch");
    const out = applyResponse(obj, res);
    expect(spec(out).schedulerName).toBe("yunikorn");
    expect(meta(out).labels).toEqual({
      app: "sleep",
      applicationId: "yunikorn-team-a-autogen",
      "yunikorn.apache.org/app-id": "yunikorn-team-a-autogen",
      queue: "root.default",
      "yunikorn.apache.org/queue": "root.default",
      disableStateAware: "true",
    });
    expect(meta(out).annotations).toEqual({
      "yunikorn.apache.org/user.info": '{"user":"alice","groups":["users","devops","system:authenticated"]}',
      "yunikorn.apache.org/allow-preemption": "true",
    });
  });

  it("echoes the request uid", () => {
    const req = podCreate(pod());
    expect(review(req, cfg, EMPTY_LOOKUPS).uid).toBe(req.uid);
  });

  it("reuses applicationId and queue labels and does not add disableStateAware", () => {
    const obj = pod({ labels: { applicationId: "spark-42", queue: "root.sandbox" } });
    const out = applyResponse(obj, review(podCreate(obj), cfg, EMPTY_LOOKUPS));
    expect(meta(out).labels).toEqual({
      applicationId: "spark-42",
      "yunikorn.apache.org/app-id": "spark-42",
      queue: "root.sandbox",
      "yunikorn.apache.org/queue": "root.sandbox",
    });
  });

  // k8shim admission util_test.go TestUpdatePodLabelForAdmissionController "applicationId and queue is given in the
  // annotations": the pod runs in the annotation's queue (the scheduler reads it, utils.GetQueueNameFromPod)
  it("takes the queue from the yunikorn.apache.org/queue annotation before the default; a label still comes first", () => {
    const annotated = pod({ annotations: { "yunikorn.apache.org/app-id": "app-0001", "yunikorn.apache.org/queue": "root.abc" } });
    const labels = meta(applyResponse(annotated, review(podCreate(annotated), cfg, EMPTY_LOOKUPS))).labels!;
    expect([labels.queue, labels["yunikorn.apache.org/queue"]]).toEqual(["root.abc", "root.abc"]);
    const admitted = applyResponse(annotated, review(podCreate(annotated), cfg, EMPTY_LOOKUPS)) as PodObject;
    expect(applicationRequest(admitted, "app-0001").queueName).toBe("root.abc");
    const both = pod({ labels: { queue: "root.label" }, annotations: { "yunikorn.apache.org/queue": "root.abc" } });
    expect(meta(applyResponse(both, review(podCreate(both), cfg, EMPTY_LOOKUPS))).labels!.queue).toBe("root.label");
  });

  it.each([
    [{ labels: { "yunikorn.apache.org/app-id": "canon" } }, "canon"],
    [{ annotations: { "yunikorn.apache.org/app-id": "from-annotation" } }, "from-annotation"],
    [{ labels: { "spark-app-selector": "spark-0001" } }, "spark-0001"],
    [{ labels: { applicationId: "legacy", "spark-app-selector": "spark-0001" } }, "legacy"],
    [{ labels: { applicationId: "", "spark-app-selector": "spark-0001" } }, "spark-0001"],
  ])("application id from %j → %s", (o, id) => {
    const obj = pod(o);
    const res = review(podCreate(obj), cfg, EMPTY_LOOKUPS);
    const labels = meta(applyResponse(obj, res)).labels!;
    expect(labels.applicationId).toBe(id);
    expect(labels["yunikorn.apache.org/app-id"]).toBe(id);
    expect(labels.disableStateAware).toBeUndefined();
  });

  it("replaces a conflicting canonical label and warns the user", () => {
    const obj = pod({ labels: { applicationId: "a", "yunikorn.apache.org/app-id": "b" } });
    const res = review(podCreate(obj), cfg, EMPTY_LOOKUPS);
    expect(meta(applyResponse(obj, res)).labels!["yunikorn.apache.org/app-id"]).toBe("a");
    expect(res.warnings?.join()).toMatch(/conflicts/);
  });

  it("does not copy an annotation app id that is not a valid label value", () => {
    const obj = pod({ annotations: { "yunikorn.apache.org/app-id": "spark app #1" } });
    const res = review(podCreate(obj), cfg, EMPTY_LOOKUPS);
    const labels = meta(applyResponse(obj, res)).labels!;
    expect(labels.applicationId).toBeUndefined();
    expect(res.warnings?.join()).toMatch(/not a valid label value/);
  });

  it("keeps every existing label and annotation", () => {
    const obj = pod({ labels: { a: "1", b: "2" }, annotations: { "x.io/y": "z", "yunikorn.apache.org/allow-preemption": "false" } });
    const out = applyResponse(obj, review(podCreate(obj), cfg, EMPTY_LOOKUPS));
    expect(meta(out).labels).toMatchObject({ a: "1", b: "2" });
    expect(meta(out).annotations).toMatchObject({ "x.io/y": "z", "yunikorn.apache.org/allow-preemption": "false" });
  });

  it("works on a pod with no labels and no annotations maps at all", () => {
    const obj = pod();
    expect(meta(obj).labels).toBeUndefined();
    const out = applyResponse(obj, review(podCreate(obj), cfg, EMPTY_LOOKUPS));
    expect(meta(out).labels!.applicationId).toBe("yunikorn-team-a-autogen");
  });

  it("default queue is configurable and can be disabled", () => {
    const obj = pod();
    const other = meta(
      applyResponse(obj, review(podCreate(obj), cfgWith({ "admissionController.filtering.defaultQueue": "root.batch" }), EMPTY_LOOKUPS)),
    ).labels!;
    expect(other.queue).toBe("root.batch");
    const none = meta(
      applyResponse(obj, review(podCreate(obj), cfgWith({ "admissionController.filtering.defaultQueue": "" }), EMPTY_LOOKUPS)),
    ).labels!;
    expect(none.queue).toBeUndefined();
    expect(none["yunikorn.apache.org/queue"]).toBeUndefined();
  });

  it("scheduler name is configurable", () => {
    const obj = pod();
    const out = applyResponse(obj, review(podCreate(obj), cfgWith({ "admissionController.schedulerName": "corral" }), EMPTY_LOOKUPS));
    expect(spec(out).schedulerName).toBe("corral");
  });

  it("a pod labelled app=yunikorn is routed and stamped like any other (the label is no trust bypass)", () => {
    const obj = pod({ labels: { app: "yunikorn" } });
    const res = review(podCreate(obj), cfg, EMPTY_LOOKUPS);
    const out = applyResponse(obj, res);
    expect(spec(out).schedulerName).toBe("yunikorn");
    expect(JSON.parse(meta(out).annotations!["yunikorn.apache.org/user.info"]!).user).toBe("alice");
    expect(meta(out).labels!.applicationId).toBe("yunikorn-team-a-autogen");
  });

  it("a pod labelled app=yunikorn that claims bob and bob's queue is refused", () => {
    const obj = pod({
      labels: { app: "yunikorn", "yunikorn.apache.org/queue": "root.teamb" },
      annotations: { "yunikorn.apache.org/user.info": '{"user":"bob","groups":["users"]}' },
    });
    const res = review(podCreate(obj, ALICE), cfg, EMPTY_LOOKUPS);
    expect(res.allowed).toBe(false);
    expect(res.status).toEqual({
      code: 403,
      message: "user alice with groups [users,devops,system:authenticated] is not allowed to set user annotation",
    });
  });

  it("attack: a user.info key spelled in another case is just another annotation; the scheduler reads alice's stamp", () => {
    const forged = '{"user":"bob","groups":["users"]}';
    const obj = pod({ annotations: { "yunikorn.apache.org/User.Info": forged, "yunikorn.apache.org/user.INFO": forged } });
    const res = review(podCreate(obj, ALICE), cfg, EMPTY_LOOKUPS);
    expect(res.allowed).toBe(true);
    const out = applyResponse(obj, res) as PodObject;
    expect(identityOf(out)).toEqual({ user: "alice", groups: ["users", "devops", "system:authenticated"] });
    expect(out.metadata!.annotations!["yunikorn.apache.org/User.Info"]).toBe(forged);
  });

  it("a pod carrying exactly its submitter's own identity is accepted; the same user with other groups is refused", () => {
    const own = '{"user":"alice","groups":["users","devops","system:authenticated"]}';
    const obj = pod({ annotations: { "yunikorn.apache.org/user.info": own } });
    const ok = review(podCreate(obj, ALICE), cfg, EMPTY_LOOKUPS);
    expect(ok.allowed).toBe(true);
    expect(
      (applyResponse(obj, ok) as { metadata: { annotations: Record<string, string> } }).metadata.annotations[
        "yunikorn.apache.org/user.info"
      ],
    ).toBe(own);
    const other = review(
      podCreate(pod({ annotations: { "yunikorn.apache.org/user.info": '{"user":"alice","groups":["admins"]}' } }), ALICE),
      cfg,
      EMPTY_LOOKUPS,
    );
    expect(other.allowed).toBe(false);
  });

  it("a pod in a bypassed namespace that names the scheduler itself is stamped with its submitter", () => {
    const obj = pod({ schedulerName: "yunikorn" });
    const res = review(podCreate(obj, ALICE, "kube-system"), cfg, EMPTY_LOOKUPS);
    const out = applyResponse(obj, res);
    expect(JSON.parse(meta(out).annotations!["yunikorn.apache.org/user.info"]!).user).toBe("alice");
    expect(meta(out).labels).toBeUndefined();
  });

  it("bypasses kube-system by default and honours process/bypass lists", () => {
    expect(review(podCreate(pod(), ALICE, "kube-system"), cfg, EMPTY_LOOKUPS).patch).toBeUndefined();
    const only = cfgWith({ "admissionController.filtering.processNamespaces": "^team-" });
    expect(review(podCreate(pod(), ALICE, "team-a"), only, EMPTY_LOOKUPS).patch).toBeDefined();
    expect(review(podCreate(pod(), ALICE, "other"), only, EMPTY_LOOKUPS).patch).toBeUndefined();
  });

  it("no-label namespaces get schedulerName and user.info only (the identity does not depend on labelling)", () => {
    const c = cfgWith({ "admissionController.filtering.noLabelNamespaces": "^team-a$" });
    const obj = pod({ labels: { app: "x" } });
    const out = applyResponse(obj, review(podCreate(obj), c, EMPTY_LOOKUPS));
    expect(meta(out).labels).toEqual({ app: "x" });
    expect(spec(out).schedulerName).toBe("yunikorn");
    expect(Object.keys(meta(out).annotations!)).toEqual(["yunikorn.apache.org/user.info"]);
  });

  it("namespace annotations override the regex lists in both directions", () => {
    const lookups = (ann: Record<string, string>): AdmissionLookups => ({ ...EMPTY_LOOKUPS, namespace: () => ({ annotations: ann }) });
    expect(
      review(podCreate(pod(), ALICE, "kube-system"), cfg, lookups({ "yunikorn.apache.org/namespace.enableYuniKorn": "true" })).patch,
    ).toBeDefined();
    expect(review(podCreate(pod()), cfg, lookups({ "yunikorn.apache.org/namespace.enableYuniKorn": "false" })).patch).toBeUndefined();
    const obj = pod();
    const out = applyResponse(obj, review(podCreate(obj), cfg, lookups({ "yunikorn.apache.org/namespace.generateAppId": "no" })));
    expect(meta(out).labels).toBeUndefined();
  });

  it("allow-preemption follows the PriorityClass annotation", () => {
    const lookups: AdmissionLookups = {
      ...EMPTY_LOOKUPS,
      priorityClass: (n) => (n === "batch-low" ? { annotations: { "yunikorn.apache.org/allow-preemption": "false" } } : undefined),
    };
    const obj = pod({ priorityClassName: "batch-low" });
    expect(meta(applyResponse(obj, review(podCreate(obj), cfg, lookups))).annotations!["yunikorn.apache.org/allow-preemption"]).toBe(
      "false",
    );
  });

  it("emits no redundant ops when the pod already carries everything", () => {
    const obj = pod({ labels: { app: "sleep" } });
    const once = applyResponse(obj, review(podCreate(obj), cfg, EMPTY_LOOKUPS));
    const again = review(podCreate(once, RS_CONTROLLER), cfg, EMPTY_LOOKUPS);
    expect(again.allowed).toBe(true);
    expect(patchOps(again)).toEqual([]);
  });
});

describe("generated application ids", () => {
  it("per namespace and unique per pod", () => {
    expect(generateApplicationId("short", false)).toBe("yunikorn-short-autogen");
    expect(generateApplicationId("namespace", true)).toBe("namespace-uniqueautogen");
    expect(generateApplicationId("short", true, "pod-uid")).toBe("short-pod-uid");
  });
  it("truncates to a valid 63-character label value", () => {
    const id = generateApplicationId("team-analytics-production-eu-west-1-batch-processing-namespace", false);
    expect(id).toBe("yunikorn-team-analytics-production-eu-west-1-batch-processing-n");
    const dash = generateApplicationId("a".repeat(45) + "-bcdefghij", false);
    expect(dash.length).toBeLessThanOrEqual(63);
    expect(dash).toMatch(/[a-z0-9]$/);
  });
});

describe("user identity (design 002)", () => {
  it("stamps the requester, groups in request order", () => {
    const obj = pod();
    const ann = meta(applyResponse(obj, review(podCreate(obj, BOB), cfg, EMPTY_LOOKUPS))).annotations!;
    expect(JSON.parse(ann["yunikorn.apache.org/user.info"]!)).toEqual({ user: "bob", groups: ["users", "system:authenticated"] });
  });

  it("denies a pod that claims another identity, naming the user and groups", () => {
    const obj = pod({ annotations: { "yunikorn.apache.org/user.info": '{"user":"bob","groups":["admins"]}' } });
    const res = review(podCreate(obj, ALICE), cfg, EMPTY_LOOKUPS);
    expect(res.allowed).toBe(false);
    expect(res.status?.message).toBe("user alice with groups [users,devops,system:authenticated] is not allowed to set user annotation");
  });

  it("denies a forged identity even in a bypassed namespace", () => {
    const obj = pod({ annotations: { "yunikorn.apache.org/user.info": '{"user":"bob"}' }, schedulerName: "yunikorn" });
    expect(review(podCreate(obj, ALICE, "kube-system"), cfg, EMPTY_LOOKUPS).allowed).toBe(false);
  });

  it("accepts the annotation from trusted controllers, external users and external groups", () => {
    const obj = pod({ annotations: { "yunikorn.apache.org/user.info": '{"user":"carol","groups":["data"]}' } });
    expect(review(podCreate(obj, RS_CONTROLLER), cfg, EMPTY_LOOKUPS).allowed).toBe(true);
    expect(
      review(podCreate(obj, { username: "system:kube-controller-manager", groups: ["system:authenticated"] }), cfg, EMPTY_LOOKUPS).allowed,
    ).toBe(true);
    const ext = cfgWith({
      "admissionController.accessControl.externalUsers": "^airflow$",
      "admissionController.accessControl.externalGroups": "^frontends$",
    });
    expect(review(podCreate(obj, { username: "airflow", groups: [] }), ext, EMPTY_LOOKUPS).allowed).toBe(true);
    expect(review(podCreate(obj, { username: "livy", groups: ["frontends"] }), ext, EMPTY_LOOKUPS).allowed).toBe(true);
    expect(review(podCreate(obj, { username: "airflow2", groups: ["x"] }), ext, EMPTY_LOOKUPS).allowed).toBe(false);
    const untrusted = cfgWith({ "admissionController.accessControl.trustControllers": "false" });
    expect(review(podCreate(obj, RS_CONTROLLER), untrusted, EMPTY_LOOKUPS).allowed).toBe(false);
  });

  it("keeps the trusted annotation untouched", () => {
    const value = '{"user":"carol","groups":["data"]}';
    const obj = pod({ annotations: { "yunikorn.apache.org/user.info": value } });
    const out = applyResponse(obj, review(podCreate(obj, RS_CONTROLLER), cfg, EMPTY_LOOKUPS));
    expect(meta(out).annotations!["yunikorn.apache.org/user.info"]).toBe(value);
  });

  // apache/yunikorn-k8shim admission_controller_test.go TestExternalAuthentication: Go's "invalid character 'x'"
  it("denies malformed annotation JSON with the parse error, worded as Go's", () => {
    const obj = pod({ annotations: { "yunikorn.apache.org/user.info": "xyzxyz" } });
    const res = review(podCreate(obj, RS_CONTROLLER), cfg, EMPTY_LOOKUPS);
    expect(res.allowed).toBe(false);
    expect(res.status?.message).toBe(
      "invalid yunikorn.apache.org/user.info annotation: invalid character 'x' looking for beginning of value",
    );
    const cut = pod({ annotations: { "yunikorn.apache.org/user.info": '{"user":"carol"' } });
    expect(review(podCreate(cut, RS_CONTROLLER), cfg, EMPTY_LOOKUPS).status?.message).toBe(
      "invalid yunikorn.apache.org/user.info annotation: unexpected end of JSON input",
    );
    const wrongType = pod({ annotations: { "yunikorn.apache.org/user.info": '{"user":1}' } });
    expect(review(podCreate(wrongType, RS_CONTROLLER), cfg, EMPTY_LOOKUPS).status?.message).toMatch(/"user" must be a string/);
  });

  it("bypassAuth accepts any annotation but still rejects malformed JSON", () => {
    const c = cfgWith({ "admissionController.accessControl.bypassAuth": "true" });
    expect(review(podCreate(pod({ annotations: { "yunikorn.apache.org/user.info": '{"user":"bob"}' } })), c, EMPTY_LOOKUPS).allowed).toBe(
      true,
    );
    expect(review(podCreate(pod({ annotations: { "yunikorn.apache.org/user.info": "{" } })), c, EMPTY_LOOKUPS).allowed).toBe(false);
  });

  it("legacy user label: honoured only with bypassAuth, with a warning", () => {
    const obj = pod({ labels: { "yunikorn.apache.org/username": "legacy-joe" } });
    const strict = review(podCreate(obj), cfg, EMPTY_LOOKUPS);
    expect(JSON.parse(meta(applyResponse(obj, strict)).annotations!["yunikorn.apache.org/user.info"]!).user).toBe("alice");
    expect(strict.warnings?.join()).toMatch(/deprecated/);
    const bypass = review(podCreate(obj), cfgWith({ "admissionController.accessControl.bypassAuth": "true" }), EMPTY_LOOKUPS);
    expect(meta(applyResponse(obj, bypass)).annotations?.["yunikorn.apache.org/user.info"]).toBeUndefined();
    expect(bypass.warnings?.join()).toMatch(/deprecated/);
    const custom = cfgWith({ "admissionController.accessControl.bypassAuth": "true", "service.userLabelKey": "example.com/owner" });
    const obj2 = pod({ labels: { "example.com/owner": "joe" } });
    expect(
      meta(applyResponse(obj2, review(podCreate(obj2), custom, EMPTY_LOOKUPS))).annotations?.["yunikorn.apache.org/user.info"],
    ).toBeUndefined();
  });
});

describe("pod UPDATE validation", () => {
  const ui = '{"user":"alice","groups":["users"]}';
  it("allows updates that keep the annotation", () => {
    const old = pod({ annotations: { "yunikorn.apache.org/user.info": ui } });
    const next = pod({ annotations: { "yunikorn.apache.org/user.info": ui, other: "x" }, labels: { new: "label" } });
    const res = review(podUpdate(next, old), cfg, EMPTY_LOOKUPS);
    expect(res.allowed).toBe(true);
    expect(res.patch).toBeUndefined();
  });
  it.each([
    ["changing", { "yunikorn.apache.org/user.info": ui }, { "yunikorn.apache.org/user.info": '{"user":"bob"}' }],
    ["adding", {}, { "yunikorn.apache.org/user.info": ui }],
    ["removing", { "yunikorn.apache.org/user.info": ui }, {}],
  ])("denies %s the annotation, whoever asks", (_what, before, after) => {
    for (const who of [ALICE, RS_CONTROLLER, { username: "admin", groups: ["system:masters"] }]) {
      const res = review(podUpdate(pod({ annotations: after }), pod({ annotations: before }), who), cfg, EMPTY_LOOKUPS);
      expect(res.allowed).toBe(false);
      expect(res.status?.message).toMatch(/^user info annotation change is not allowed/);
    }
  });
  it("denies an UPDATE without oldObject with a clear message", () => {
    const res = review({ ...podUpdate(pod(), null) }, cfg, EMPTY_LOOKUPS);
    expect(res.allowed).toBe(false);
    expect(res.status?.message).toMatch(/no oldObject/);
  });
});

describe("undecodable pods are denied, naming the problem", () => {
  it.each([
    [{ metadata: { labels: { a: 1 } } }, /metadata\.labels\.a/],
    [{ metadata: { annotations: "x" } }, /metadata\.annotations/],
    [{ spec: {} }, /metadata/],
    ["a string", /not a JSON object/],
    [null, /missing/],
    [{ metadata: {}, spec: { schedulerName: 5 } }, /spec\.schedulerName/],
  ])("%j", (obj, msg) => {
    const res = review(podCreate(obj), cfg, EMPTY_LOOKUPS);
    expect(res.allowed).toBe(false);
    expect(res.status?.code).toBe(400);
    expect(res.status?.message).toMatch(msg);
  });
});

describe("user.info serialisation", () => {
  it("is byte-identical to YuniKorn's (fields omitted when empty)", async () => {
    const { userInfoAnnotationValue } = await import("../../../src/yunikorn/user-info.js");
    expect(userInfoAnnotationValue({ username: "alice", groups: ["dev", "system:authenticated"] })).toBe(
      '{"user":"alice","groups":["dev","system:authenticated"]}',
    );
    expect(userInfoAnnotationValue({ username: "testExtUser", groups: [] })).toBe('{"user":"testExtUser"}');
    expect(userInfoAnnotationValue({ username: "", groups: ["g"] })).toBe('{"groups":["g"]}');
    expect(userInfoAnnotationValue(undefined)).toBe("{}");
    expect(userInfoAnnotationValue({ username: 'we"ird\\u2028' })).toBe(JSON.stringify({ user: 'we"ird\\u2028' }));
  });
});

describe("preset spec.nodeName (placement.ts)", () => {
  const onNode = (o: Parameters<typeof pod>[0] = {}, node = "node-1") => {
    const p = pod(o);
    (p.spec as Record<string, unknown>).nodeName = node;
    return p;
  };
  const KUBELET = { username: "system:node:node-1", groups: ["system:nodes", "system:authenticated"] };

  it("refuses a routed pod that names its node, naming the node and the requester", () => {
    const res = review(podCreate(onNode()), cfg, EMPTY_LOOKUPS);
    expect(res.allowed).toBe(false);
    expect(res.status?.code).toBe(403);
    expect(res.status?.message).toBe(
      'pod team-a/sleep sets spec.nodeName "node-1", but it is scheduled by yunikorn, which places pods itself ' +
        "after checking queue and user limits; only trusted controllers may preset spec.nodeName (requested by alice)",
    );
  });

  it("refuses it in a bypassed namespace too when the pod names the scheduler", () => {
    expect(review(podCreate(onNode({ schedulerName: "yunikorn" }), ALICE, "kube-system"), cfg, EMPTY_LOOKUPS).allowed).toBe(false);
    // a pod of another scheduler there is none of corral's business
    const other = review(podCreate(onNode(), ALICE, "kube-system"), cfg, EMPTY_LOOKUPS);
    expect(other).toEqual({ uid: other.uid, allowed: true });
  });

  it("allows trusted controllers", () => {
    const res = review(podCreate(onNode(), RS_CONTROLLER), cfg, EMPTY_LOOKUPS);
    expect(res.allowed).toBe(true);
    expect(patchOps(res).map((o) => o.path)).toContain("/spec/schedulerName");
  });

  it("leaves a kubelet's mirror pod alone (not routed, node kept)", () => {
    const obj = onNode({ annotations: { "kubernetes.io/config.mirror": "3f2a" } });
    const res = review(podCreate(obj, KUBELET), cfg, EMPTY_LOOKUPS);
    expect(res).toEqual({ uid: res.uid, allowed: true });
    // a static pod that names the scheduler: allowed on its node, stamped with the node user
    const named = onNode({ annotations: { "kubernetes.io/config.mirror": "3f2a" }, schedulerName: "yunikorn" });
    const r2 = review(podCreate(named, KUBELET), cfg, EMPTY_LOOKUPS);
    expect(r2.allowed).toBe(true);
    expect(JSON.parse(meta(applyResponse(named, r2)).annotations!["yunikorn.apache.org/user.info"]!).user).toBe("system:node:node-1");
  });

  it("the mirror annotation from a tenant is no exception", () => {
    expect(review(podCreate(onNode({ annotations: { "kubernetes.io/config.mirror": "3f2a" } })), cfg, EMPTY_LOOKUPS).allowed).toBe(false);
  });

  it("external users are not controllers; the key turns the check off", () => {
    const ext = cfgWith({ "admissionController.accessControl.externalUsers": "^airflow$" });
    expect(review(podCreate(onNode(), { username: "airflow", groups: [] }), ext, EMPTY_LOOKUPS).allowed).toBe(false);
    const off = cfgWith({ "admissionController.accessControl.refusePresetNodeName": "false" });
    expect(review(podCreate(onNode()), off, EMPTY_LOOKUPS).allowed).toBe(true);
  });

  it("a nodeName of the wrong type is refused naming the field", () => {
    const res = review(podCreate(onNode({}, 7 as unknown as string)), cfg, EMPTY_LOOKUPS);
    expect(res.status).toEqual({ code: 400, message: "cannot decode pod: spec.nodeName: must be a string, got number" });
  });
});

// scheduling-keys.ts: a held pod whose application id went would be placed past its limits in plugin mode
describe("the application id of routed pods (scheduling-keys.ts)", () => {
  it("yunikorn.apache.org/ignore-application is an ordinary annotation (YuniKorn 1.9 removed it; corral ignores it)", () => {
    const obj = pod({ annotations: { "yunikorn.apache.org/ignore-application": "true" } });
    const res = review(podCreate(obj), cfg, EMPTY_LOOKUPS);
    expect(res.allowed).toBe(true);
    expect(meta(applyResponse(obj, res)).labels).toMatchObject({ applicationId: "yunikorn-team-a-autogen" });
  });

  const UI_KEY = "yunikorn.apache.org/user.info";
  const routed = (labels: Record<string, string>, annotations: Record<string, string> = {}) =>
    pod({ schedulerName: "yunikorn", labels, annotations: { [UI_KEY]: '{"user":"alice"}', ...annotations } });

  it("UPDATE of a routed pod changing or removing any application id key is refused (a held pod would leave its limits)", () => {
    const before = routed({ applicationId: "app-1", "yunikorn.apache.org/app-id": "app-1", queue: "root.a" });
    const dropped = routed({ queue: "root.a" });
    const res = review(podUpdate(dropped, before), cfg, EMPTY_LOOKUPS);
    expect(res.allowed).toBe(false);
    expect(res.status).toEqual({
      code: 403,
      message:
        "pod team-a/sleep: removing the application id label applicationId of an existing pod is refused: the pod would " +
        "leave its application and its limits (requested by alice)",
    });
    const moved = routed({ applicationId: "app-1", "yunikorn.apache.org/app-id": "app-2", queue: "root.a" });
    expect(review(podUpdate(moved, before), cfg, EMPTY_LOOKUPS).status?.message).toMatch(
      /changing the application id label yunikorn.apache.org\/app-id/,
    );
    const annotated = routed(
      { applicationId: "app-1", "yunikorn.apache.org/app-id": "app-1", queue: "root.a" },
      { "yunikorn.apache.org/app-id": "x" },
    );
    expect(review(podUpdate(annotated, before), cfg, EMPTY_LOOKUPS).status?.message).toMatch(/adding the application id annotation/);
    const spark = routed({ applicationId: "app-1", "yunikorn.apache.org/app-id": "app-1", queue: "root.a", "spark-app-selector": "s" });
    expect(review(podUpdate(spark, before), cfg, EMPTY_LOOKUPS).allowed).toBe(false);
    // other labels change freely; a trusted controller may change the id; another scheduler's pod is not checked
    const relabelled = routed({ applicationId: "app-1", "yunikorn.apache.org/app-id": "app-1", queue: "root.a", tier: "web" });
    expect(review(podUpdate(relabelled, before), cfg, EMPTY_LOOKUPS).allowed).toBe(true);
    expect(review(podUpdate(dropped, before, RS_CONTROLLER), cfg, EMPTY_LOOKUPS).allowed).toBe(true);
    const foreign = (labels: Record<string, string>) => pod({ labels, annotations: { [UI_KEY]: '{"user":"alice"}' } });
    expect(review(podUpdate(foreign({}), foreign({ applicationId: "app-1" })), cfg, EMPTY_LOOKUPS).allowed).toBe(true);
  });
});

describe("pods/status UPDATE (validate-pods)", () => {
  const UI = "yunikorn.apache.org/user.info";
  const stored = pod({ annotations: { [UI]: '{"user":"alice"}' } });
  const status = (next: unknown, user: object) => ({ ...podUpdate(next, stored, user), subResource: "status" });
  const NODE = { username: "system:node:node-1", groups: ["system:nodes"] };

  it("a status write that changes user.info is refused, whoever asks", () => {
    const forged = pod({ annotations: { [UI]: '{"user":"bob"}' } });
    for (const who of [NODE, RS_CONTROLLER, { username: "admin", groups: ["system:masters"] }]) {
      const d = validatePodStatus(status(forged, who), cfg);
      expect(d.allowed).toBe(false);
      expect(d.message).toMatch(/^user info annotation change is not allowed: changing yunikorn.apache.org\/user.info/);
    }
    expect(validatePodStatus(status(pod(), NODE), cfg).message).toMatch(/removing/);
  });

  it("a kubelet-style status write (metadata unchanged) is allowed without a patch", () => {
    const next = structuredClone(stored);
    (next as { status: Record<string, unknown> }).status = { phase: "Running", conditions: [{ type: "Ready", status: "True" }] };
    expect(validatePodStatus(status(next, NODE), cfg)).toMatchObject({ allowed: true, ops: [] });
  });

  it("anything else sent to validate-pods is allowed untouched", () => {
    expect(validatePodStatus(podCreate(pod()), cfg)).toMatchObject({ allowed: true, ops: [] });
    // the mutate path routes a status update the same way
    expect(review(status(pod({ annotations: { [UI]: '{"user":"bob"}' } }), NODE), cfg, EMPTY_LOOKUPS).allowed).toBe(false);
  });
});
