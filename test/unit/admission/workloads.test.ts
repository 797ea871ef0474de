import { describe, expect, it } from "vitest";
import { defaultAdmissionConfig, parseAdmissionConfig } from "../../../src/admission/config.js";
import { EMPTY_LOOKUPS } from "../../../src/admission/decision.js";
import { review } from "../../../src/admission/review.js";
import { WORKLOAD_TEMPLATE_PATHS } from "../../../src/admission/workloads.js";
import { ALICE, BOB, DEPLOYMENT_CONTROLLER, workload, workloadRequest } from "../../fixtures/reviews.js";
import { applyResponse, patchOps } from "../../helpers/patch.js";

const cfg = defaultAdmissionConfig("corral");
const UI = "yunikorn.apache.org/user.info";
const ALICE_UI = '{"user":"alice","groups":["users","devops","system:authenticated"]}';

function templateOf(kind: string, obj: unknown): { metadata?: { annotations?: Record<string, string>; labels?: Record<string, string> } } {
  let node = obj as Record<string, unknown>;
  for (const seg of WORKLOAD_TEMPLATE_PATHS[kind]!) node = node[seg] as Record<string, unknown>;
  return node as never;
}

const KINDS = Object.keys(WORKLOAD_TEMPLATE_PATHS);

describe("workload CREATE stamps the pod template", () => {
  it.each(KINDS)("%s", (kind) => {
    const obj = workload(kind);
    const res = review(workloadRequest(kind, obj), cfg, EMPTY_LOOKUPS);
    expect(res.allowed).toBe(true);
    const out = applyResponse(obj, res);
    expect(templateOf(kind, out).metadata?.annotations?.[UI]).toBe(ALICE_UI);
    // nothing else is written on templates
    expect(templateOf(kind, out).metadata?.labels).toEqual({ app: "web" });
    expect(patchOps(res)).toHaveLength(1);
  });

  it("CronJob patch targets spec.jobTemplate.spec.template", () => {
    const ops = patchOps(review(workloadRequest("CronJob", workload("CronJob")), cfg, EMPTY_LOOKUPS));
    expect(ops[0]!.path).toBe("/spec/jobTemplate/spec/template/metadata/annotations");
  });

  it("a template without metadata gets metadata with the annotation", () => {
    const obj = workload("Job", null);
    const res = review(workloadRequest("Job", obj), cfg, EMPTY_LOOKUPS);
    expect(templateOf("Job", applyResponse(obj, res)).metadata).toEqual({ annotations: { [UI]: ALICE_UI } });
  });

  it("keeps existing template annotations", () => {
    const obj = workload("Deployment", { labels: { app: "web" }, annotations: { "prometheus.io/scrape": "true" } });
    const out = applyResponse(obj, review(workloadRequest("Deployment", obj), cfg, EMPTY_LOOKUPS));
    expect(templateOf("Deployment", out).metadata?.annotations).toEqual({ "prometheus.io/scrape": "true", [UI]: ALICE_UI });
  });

  it("denies an untrusted user who sets user.info on a template", () => {
    const obj = workload("Deployment", { labels: { app: "web" }, annotations: { [UI]: '{"user":"bob"}' } });
    const res = review(workloadRequest("Deployment", obj, ALICE), cfg, EMPTY_LOOKUPS);
    expect(res.allowed).toBe(false);
    expect(res.status?.message).toMatch(/user alice with groups \[users,devops,system:authenticated\] is not allowed/);
  });

  it("passes ReplicaSets from the deployment controller through untouched", () => {
    const obj = workload("ReplicaSet", { labels: { app: "web" }, annotations: { [UI]: ALICE_UI } });
    const res = review(workloadRequest("ReplicaSet", obj, DEPLOYMENT_CONTROLLER), cfg, EMPTY_LOOKUPS);
    expect(res).toEqual({ uid: res.uid, allowed: true });
  });

  it("bypassed namespaces are left alone", () => {
    const req = { ...workloadRequest("Deployment", workload("Deployment")), namespace: "kube-system" };
    expect(review(req, cfg, EMPTY_LOOKUPS).patch).toBeUndefined();
  });

  it("a forged template identity is refused in a bypassed namespace too (its controller would carry it into pods)", () => {
    const obj = workload("Deployment", { labels: { app: "web" }, annotations: { [UI]: '{"user":"bob"}' } });
    const res = review({ ...workloadRequest("Deployment", obj, ALICE), namespace: "kube-system" }, cfg, EMPTY_LOOKUPS);
    expect(res.allowed).toBe(false);
    expect(res.status?.message).toMatch(/user alice with groups .* is not allowed/);
    const upd = review({ ...workloadRequest("Deployment", obj, ALICE, "UPDATE", workload("Deployment")), namespace: "kube-system" }, cfg, EMPTY_LOOKUPS);
    expect(upd.allowed).toBe(false);
  });

  it("a workload without a template is denied naming the path", () => {
    const res = review(workloadRequest("Deployment", { kind: "Deployment", metadata: { name: "x" }, spec: {} }), cfg, EMPTY_LOOKUPS);
    expect(res.allowed).toBe(false);
    expect(res.status?.message).toBe("Deployment has no spec.template");
  });
});

describe("workload UPDATE guards the template identity", () => {
  const stamped = (ui: string | undefined, extra: Record<string, string> = {}) =>
    workload("Deployment", { labels: { app: "web" }, annotations: { ...(ui === undefined ? {} : { [UI]: ui }), ...extra } });

  it("allows updates that keep user.info", () => {
    const res = review(workloadRequest("Deployment", stamped(ALICE_UI, { a: "b" }), BOB, "UPDATE", stamped(ALICE_UI)), cfg, EMPTY_LOOKUPS);
    expect(res.allowed).toBe(true);
    expect(res.patch).toBeUndefined();
  });

  it("denies an ordinary user changing it (the hole upstream leaves open)", () => {
    const res = review(workloadRequest("Deployment", stamped('{"user":"bob"}'), ALICE, "UPDATE", stamped(ALICE_UI)), cfg, EMPTY_LOOKUPS);
    expect(res.allowed).toBe(false);
    expect(res.status?.message).toMatch(/^user alice with groups .* is not allowed to set user annotation: changing/);
  });

  it("denies an ordinary user adding it to a template that had none", () => {
    const res = review(workloadRequest("Deployment", stamped('{"user":"bob"}'), ALICE, "UPDATE", stamped(undefined)), cfg, EMPTY_LOOKUPS);
    expect(res.allowed).toBe(false);
  });

  it("allows an external user listed in externalUsers to change it", () => {
    const r = parseAdmissionConfig({}, [{ name: "t", data: { "admissionController.accessControl.externalUsers": "^airflow$" } }]);
    if (!r.ok) throw new Error();
    const res = review(workloadRequest("Deployment", stamped('{"user":"bob"}'), { username: "airflow" }, "UPDATE", stamped(ALICE_UI)), r.config, EMPTY_LOOKUPS);
    expect(res.allowed).toBe(true);
  });

  it("re-stamps with the requester when an update removes it", () => {
    const next = stamped(undefined);
    const res = review(workloadRequest("Deployment", next, BOB, "UPDATE", stamped(ALICE_UI)), cfg, EMPTY_LOOKUPS);
    expect(res.allowed).toBe(true);
    expect(JSON.parse(templateOf("Deployment", applyResponse(next, res)).metadata!.annotations![UI]!).user).toBe("bob");
  });

  it("leaves alone a template that never had it", () => {
    const res = review(workloadRequest("Deployment", stamped(undefined, { x: "y" }), BOB, "UPDATE", stamped(undefined)), cfg, EMPTY_LOOKUPS);
    expect(res).toEqual({ uid: res.uid, allowed: true });
  });
});
