import { describe, expect, it } from "vitest";
import { defaultAdmissionConfig, parseAdmissionConfig } from "../../../src/admission/config.js";
import { EMPTY_LOOKUPS } from "../../../src/admission/lookups.js";
import { review } from "../../../src/admission/review.js";
import { WORKLOAD_TEMPLATE_PATHS, templateChanged } from "../../../src/admission/workloads.js";
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

  it("accepts a template that already carries the submitter's own identity (kubectl create job --from=cronjob/…)", () => {
    const obj = workload("Job", { labels: { app: "web" }, annotations: { [UI]: ALICE_UI } });
    const res = review(workloadRequest("Job", obj, ALICE), cfg, EMPTY_LOOKUPS);
    expect(res).toEqual({ uid: res.uid, allowed: true });
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
    const upd = review(
      { ...workloadRequest("Deployment", obj, ALICE, "UPDATE", workload("Deployment")), namespace: "kube-system" },
      cfg,
      EMPTY_LOOKUPS,
    );
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

  it("allows updates outside the template that keep user.info (scaling)", () => {
    const next = stamped(ALICE_UI);
    (next.spec as { replicas: number }).replicas = 10;
    const res = review(workloadRequest("Deployment", next, BOB, "UPDATE", stamped(ALICE_UI)), cfg, EMPTY_LOOKUPS);
    expect(res).toEqual({ uid: res.uid, allowed: true });
  });

  it("denies an ordinary user changing it (the hole upstream leaves open)", () => {
    const res = review(workloadRequest("Deployment", stamped('{"user":"bob"}'), ALICE, "UPDATE", stamped(ALICE_UI)), cfg, EMPTY_LOOKUPS);
    expect(res.allowed).toBe(false);
    expect(res.status?.message).toMatch(/^user alice with groups .* is not allowed to set user annotation: changing/);
  });

  it("kubectl rollout undo by the owner: setting the template back to the requester's own identity is allowed, unpatched", () => {
    const res = review(
      workloadRequest("Deployment", stamped(ALICE_UI, { rev: "1" }), ALICE, "UPDATE", stamped('{"user":"bob"}', { rev: "2" })),
      cfg,
      EMPTY_LOOKUPS,
    );
    expect(res).toEqual({ uid: res.uid, allowed: true });
  });

  it("kubectl rollout undo to another user's revision is refused; own identity with other groups is not own", () => {
    const undo = review(
      workloadRequest("Deployment", stamped('{"user":"bob"}', { rev: "1" }), ALICE, "UPDATE", stamped(ALICE_UI, { rev: "2" })),
      cfg,
      EMPTY_LOOKUPS,
    );
    expect(undo.allowed).toBe(false);
    const regroup = review(
      workloadRequest("Deployment", stamped('{"user":"alice","groups":["admins"]}'), ALICE, "UPDATE", stamped(ALICE_UI)),
      cfg,
      EMPTY_LOOKUPS,
    );
    expect(regroup.allowed).toBe(false);
  });

  it("denies an ordinary user adding it to a template that had none", () => {
    const res = review(workloadRequest("Deployment", stamped('{"user":"bob"}'), ALICE, "UPDATE", stamped(undefined)), cfg, EMPTY_LOOKUPS);
    expect(res.allowed).toBe(false);
  });

  it("allows an external user listed in externalUsers to change it", () => {
    const r = parseAdmissionConfig({}, [{ name: "t", data: { "admissionController.accessControl.externalUsers": "^airflow$" } }]);
    if (!r.ok) throw new Error();
    const res = review(
      workloadRequest("Deployment", stamped('{"user":"bob"}'), { username: "airflow" }, "UPDATE", stamped(ALICE_UI)),
      r.config,
      EMPTY_LOOKUPS,
    );
    expect(res.allowed).toBe(true);
  });

  it("re-stamps with the requester when an update removes it", () => {
    const next = stamped(undefined);
    const res = review(workloadRequest("Deployment", next, BOB, "UPDATE", stamped(ALICE_UI)), cfg, EMPTY_LOOKUPS);
    expect(res.allowed).toBe(true);
    expect(JSON.parse(templateOf("Deployment", applyResponse(next, res)).metadata!.annotations![UI]!).user).toBe("bob");
  });

  it("leaves alone a template that never had it when only the workload is scaled", () => {
    const next = stamped(undefined);
    (next.spec as { replicas: number }).replicas = 5;
    const res = review(workloadRequest("Deployment", next, BOB, "UPDATE", stamped(undefined)), cfg, EMPTY_LOOKUPS);
    expect(res).toEqual({ uid: res.uid, allowed: true });
  });

  it("stamps a template that never had it when its template is changed", () => {
    const next = stamped(undefined, { x: "y" });
    const res = review(workloadRequest("Deployment", next, BOB, "UPDATE", stamped(undefined)), cfg, EMPTY_LOOKUPS);
    expect(JSON.parse(templateOf("Deployment", applyResponse(next, res)).metadata!.annotations![UI]!).user).toBe("bob");
  });
});

describe("template changes re-stamp the identity (who changes what the pods run submits them)", () => {
  const dep = (image: string, ui: string | undefined = ALICE_UI) =>
    workload("Deployment", { labels: { app: "web" }, annotations: ui === undefined ? {} : { [UI]: ui } }) as {
      spec: { template: { spec: { containers: { image: string; resources?: unknown }[] } } };
    };
  const withImage = (image: string, ui?: string) => {
    const d = dep(image, ui);
    d.spec.template.spec.containers[0]!.image = image;
    return d;
  };

  it.each(KINDS)("%s: bob changing the image of alice's workload re-stamps it with bob", (kind) => {
    const old = workload(kind, { labels: { app: "web" }, annotations: { [UI]: ALICE_UI } });
    const next = structuredClone(old);
    (templateOf(kind, next) as { spec?: { containers: { image: string }[] } }).spec!.containers[0]!.image = "evil:1";
    const res = review(workloadRequest(kind, next, BOB, "UPDATE", old), cfg, EMPTY_LOOKUPS);
    expect(res.allowed).toBe(true);
    expect(JSON.parse(templateOf(kind, applyResponse(next, res)).metadata!.annotations![UI]!)).toEqual({
      user: "bob",
      groups: ["users", "system:authenticated"],
    });
  });

  it("a resources change alone counts as a template change", () => {
    const next = dep("nginx:1.25");
    next.spec.template.spec.containers[0]!.resources = { requests: { cpu: "4" } };
    const res = review(workloadRequest("Deployment", next, BOB, "UPDATE", dep("nginx:1.25")), cfg, EMPTY_LOOKUPS);
    expect(JSON.parse(templateOf("Deployment", applyResponse(next, res)).metadata!.annotations![UI]!).user).toBe("bob");
  });

  it("alice changing her own template emits no patch", () => {
    const res = review(workloadRequest("Deployment", withImage("nginx:1.26"), ALICE, "UPDATE", dep("nginx:1.25")), cfg, EMPTY_LOOKUPS);
    expect(res).toEqual({ uid: res.uid, allowed: true });
  });

  it("a trusted controller changing a template keeps the identity", () => {
    const res = review(
      workloadRequest("Deployment", withImage("nginx:1.26"), DEPLOYMENT_CONTROLLER, "UPDATE", dep("nginx:1.25")),
      cfg,
      EMPTY_LOOKUPS,
    );
    expect(res).toEqual({ uid: res.uid, allowed: true });
  });

  it("an external user setting user.info explicitly keeps the value it set", () => {
    const r = parseAdmissionConfig({}, [{ name: "t", data: { "admissionController.accessControl.externalUsers": "^airflow$" } }]);
    if (!r.ok) throw new Error();
    const res = review(
      workloadRequest("Deployment", withImage("nginx:1.26", '{"user":"carol"}'), { username: "airflow" }, "UPDATE", dep("nginx:1.25")),
      r.config,
      EMPTY_LOOKUPS,
    );
    expect(res).toEqual({ uid: res.uid, allowed: true });
  });

  it("bypassed namespaces are not re-stamped", () => {
    const res = review(
      { ...workloadRequest("Deployment", withImage("nginx:1.26"), BOB, "UPDATE", dep("nginx:1.25")), namespace: "kube-system" },
      cfg,
      EMPTY_LOOKUPS,
    );
    expect(res).toEqual({ uid: res.uid, allowed: true });
  });

  it("templateChanged ignores key order and sees nested changes", () => {
    expect(templateChanged({ a: 1, b: { c: [1, 2] } }, { b: { c: [1, 2] }, a: 1 })).toBe(false);
    expect(templateChanged({ a: 1, b: { c: [1, 2] } }, { a: 1, b: { c: [2, 1] } })).toBe(true);
  });
});

describe("app: yunikorn on a workload is no trust bypass", () => {
  it.each(KINDS)("%s labelled app=yunikorn: template stamped with the submitter; a template claiming bob is refused", (kind) => {
    const obj = workload(kind, { labels: { app: "yunikorn" } });
    (obj.metadata as Record<string, unknown>).labels = { app: "yunikorn" };
    const res = review(workloadRequest(kind, obj), cfg, EMPTY_LOOKUPS);
    expect(templateOf(kind, applyResponse(obj, res)).metadata?.annotations?.[UI]).toBe(ALICE_UI);
    const forged = workload(kind, { labels: { app: "yunikorn" }, annotations: { [UI]: '{"user":"bob"}' } });
    (forged.metadata as Record<string, unknown>).labels = { app: "yunikorn" };
    expect(review(workloadRequest(kind, forged), cfg, EMPTY_LOOKUPS).allowed).toBe(false);
  });

  it("the three-step UPDATE (add the label, change user.info, remove the label) is refused at step 2", () => {
    const v0 = workload("Deployment", { labels: { app: "web" }, annotations: { [UI]: ALICE_UI } });
    const v1 = structuredClone(v0);
    (v1.metadata as Record<string, unknown>).labels = { app: "yunikorn" };
    expect(review(workloadRequest("Deployment", v1, ALICE, "UPDATE", v0), cfg, EMPTY_LOOKUPS)).toMatchObject({ allowed: true });
    const v2 = structuredClone(v1);
    templateOf("Deployment", v2).metadata!.annotations![UI] = '{"user":"bob"}';
    const res = review(workloadRequest("Deployment", v2, ALICE, "UPDATE", v1), cfg, EMPTY_LOOKUPS);
    expect(res.allowed).toBe(false);
    expect(res.status?.message).toMatch(/^user alice with groups .* is not allowed to set user annotation: changing/);
  });
});

describe("noLabelNamespaces keep the identity (only labels are skipped)", () => {
  const noLabel = (() => {
    const r = parseAdmissionConfig({ NAMESPACE: "corral" }, [
      { name: "t", data: { "admissionController.filtering.noLabelNamespaces": "^team-a$" } },
    ]);
    if (!r.ok) throw new Error();
    return r.config;
  })();
  it.each(KINDS)("%s template is stamped and guarded", (kind) => {
    const obj = workload(kind);
    const res = review(workloadRequest(kind, obj), noLabel, EMPTY_LOOKUPS);
    expect(templateOf(kind, applyResponse(obj, res)).metadata?.annotations?.[UI]).toBe(ALICE_UI);
    const forged = workload(kind, { annotations: { [UI]: '{"user":"bob"}' } });
    expect(review(workloadRequest(kind, forged), noLabel, EMPTY_LOOKUPS).allowed).toBe(false);
  });
});

describe("preset spec.nodeName in templates", () => {
  const pinned = (node: string | undefined) => {
    const d = workload("Deployment", { labels: { app: "web" }, annotations: { [UI]: ALICE_UI } }) as {
      spec: { template: { spec: Record<string, unknown> } };
    };
    if (node !== undefined) d.spec.template.spec.nodeName = node;
    return d;
  };
  it("CREATE of a template naming a node is refused (its controller, trusted, would create the pods)", () => {
    const obj = workload("Job") as { spec: { template: { spec: Record<string, unknown> } } };
    obj.spec.template.spec.nodeName = "node-1";
    const res = review(workloadRequest("Job", obj), cfg, EMPTY_LOOKUPS);
    expect(res.allowed).toBe(false);
    expect(res.status?.message).toMatch(/^pod template of Job team-a\/web sets spec.nodeName "node-1"/);
  });
  it("UPDATE adding or changing it is refused; keeping one set before corral is allowed", () => {
    expect(review(workloadRequest("Deployment", pinned("node-1"), ALICE, "UPDATE", pinned(undefined)), cfg, EMPTY_LOOKUPS).allowed).toBe(
      false,
    );
    expect(review(workloadRequest("Deployment", pinned("node-2"), ALICE, "UPDATE", pinned("node-1")), cfg, EMPTY_LOOKUPS).allowed).toBe(
      false,
    );
    expect(review(workloadRequest("Deployment", pinned("node-1"), ALICE, "UPDATE", pinned("node-1")), cfg, EMPTY_LOOKUPS).allowed).toBe(
      true,
    );
  });
  it("UPDATE that only re-points a template naming a node at the scheduler is refused (bypassed namespace, node kept)", () => {
    const r = parseAdmissionConfig({ NAMESPACE: "corral" }, [
      { name: "t", data: { "admissionController.filtering.bypassNamespaces": "^kube-system$,^team-a$" } },
    ]);
    if (!r.ok) throw new Error("config");
    const bypassing = r.config;
    const scheduledBy = (schedulerName: string) => {
      const d = pinned("node-1");
      d.spec.template.spec.schedulerName = schedulerName;
      return d;
    };
    // created for the default scheduler in a namespace corral does not process: not routed, nothing to check
    expect(review(workloadRequest("Deployment", scheduledBy("default-scheduler")), bypassing, EMPTY_LOOKUPS).allowed).toBe(true);
    const flip = review(
      workloadRequest("Deployment", scheduledBy(bypassing.schedulerName), ALICE, "UPDATE", scheduledBy("default-scheduler")),
      bypassing,
      EMPTY_LOOKUPS,
    );
    expect(flip.allowed).toBe(false);
    expect(flip.status?.message).toMatch(/^pod template of Deployment team-a\/web sets spec.nodeName "node-1"/);
    // pointing it away from the scheduler is not refused
    expect(
      review(
        workloadRequest("Deployment", scheduledBy("default-scheduler"), ALICE, "UPDATE", scheduledBy(bypassing.schedulerName)),
        bypassing,
        EMPTY_LOOKUPS,
      ).allowed,
    ).toBe(true);
  });
});
