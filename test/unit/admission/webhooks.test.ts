import { describe, expect, it } from "vitest";
import { excludedNamespaceNames, mutatingWebhookConfiguration, validatingWebhookConfiguration } from "../../../src/admission/webhooks.js";
import { namespaceSelector } from "../../../src/webhook/registration.js";
import { bootstrapperWebhookConfiguration } from "../../../src/processes/bootstrapper.js";

type Expr = { key: string; operator: string; values?: string[] };
type Hook = {
  namespaceSelector?: { matchExpressions: Expr[] };
  objectSelector?: unknown;
  rules: { resources: string[]; operations: string[] }[];
};
const hooks = (o: Record<string, unknown>) => o.webhooks as Hook[];

/** Label selector semantics for matchExpressions with In/NotIn (k8s.io/apimachinery labels.Selector). */
function selects(sel: { matchExpressions: Expr[] }, labels: Record<string, string>): boolean {
  return sel.matchExpressions.every((e) => {
    const v = labels[e.key];
    if (e.operator === "NotIn") return v === undefined || !e.values!.includes(v);
    if (e.operator === "In") return v !== undefined && e.values!.includes(v);
    throw new Error(`operator ${e.operator} not modelled`);
  });
}

const CA = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
const service = { mode: "service" as const, name: "yunikorn-admission-controller-service", namespace: "corral" };

describe("webhook configurations: nothing a tenant can set keeps her objects out", () => {
  it("the mutating webhook has no objectSelector (app: yunikorn on an object does not skip it)", () => {
    const m = mutatingWebhookConfiguration({ target: service, caBundle: CA });
    expect(hooks(m)[0]!.objectSelector).toBeUndefined();
    expect(hooks(validatingWebhookConfiguration({ target: service, caBundle: CA }))[0]!.objectSelector).toBeUndefined();
  });

  it("excludes kube-system and the controller's namespace by name, and namespaces an administrator labelled", () => {
    const sel = hooks(mutatingWebhookConfiguration({ target: service, caBundle: CA }))[0]!.namespaceSelector!;
    const ns = (name: string, extra: Record<string, string> = {}) => ({ "kubernetes.io/metadata.name": name, ...extra });
    expect(selects(sel, ns("team-a"))).toBe(true);
    expect(selects(sel, ns("team-a", { app: "yunikorn" }))).toBe(true);
    expect(selects(sel, ns("kube-system"))).toBe(false);
    expect(selects(sel, ns("corral"))).toBe(false);
    expect(selects(sel, ns("team-a", { "admission.corral.dev/exclude": "true" }))).toBe(false);
    expect(selects(sel, ns("team-a", { "admission.corral.dev/exclude": "false" }))).toBe(true);
    // Kubernetes 1.20: no name label; only the administrator's label keeps a namespace out
    expect(selects(sel, {})).toBe(true);
    expect(selects(sel, { "admission.corral.dev/exclude": "true" })).toBe(false);
  });

  it("url mode excludes the controller namespace it is given; service mode the Service's", () => {
    expect(excludedNamespaceNames({ target: { mode: "url", url: "https://127.0.0.1:9089" } })).toEqual(["kube-system"]);
    expect(excludedNamespaceNames({ target: { mode: "url", url: "https://127.0.0.1:9089" }, controllerNamespace: "corral" })).toEqual([
      "kube-system",
      "corral",
    ]);
    expect(excludedNamespaceNames({ target: service })).toEqual(["kube-system", "corral"]);
    expect(excludedNamespaceNames({ target: service, excludedNamespaces: ["corral"] })).toEqual(["corral"]);
  });

  it("namespaceSelector is two NotIn expressions", () => {
    expect(namespaceSelector(["kube-system"])).toEqual({
      matchExpressions: [
        { key: "kubernetes.io/metadata.name", operator: "NotIn", values: ["kube-system"] },
        { key: "admission.corral.dev/exclude", operator: "NotIn", values: ["true"] },
      ],
    });
  });

  it("the mutating rule covers pods and every workload kind, CREATE and UPDATE", () => {
    const rule = hooks(mutatingWebhookConfiguration({ target: service, caBundle: CA }))[0]!.rules[0]!;
    expect(rule.operations).toEqual(["CREATE", "UPDATE"]);
    expect(rule.resources).toEqual([
      "pods",
      "deployments",
      "replicasets",
      "statefulsets",
      "daemonsets",
      "jobs",
      "cronjobs",
      "replicationcontrollers",
    ]);
  });

  it("the bootstrapper shares the namespace selector (its own pods opt out of image rewriting only, no identity involved)", () => {
    const b = bootstrapperWebhookConfiguration(service, CA) as unknown as Record<string, unknown>;
    expect(hooks(b)[0]!.namespaceSelector).toEqual(namespaceSelector(["kube-system"]));
  });

  it("the validating configuration checks pods/status UPDATE (Ignore by default; Fail; Off registers none)", () => {
    const entries = (policy?: "Fail" | "Ignore" | "Off") =>
      hooks(validatingWebhookConfiguration({ target: service, caBundle: CA, podStatusPolicy: policy })) as (Hook & {
        name: string;
        failurePolicy: string;
        clientConfig: { service: { path: string } };
      })[];
    const status = entries().find((h) => h.name === "admission-webhook.yunikorn.validate-pod-status")!;
    expect(status.rules).toEqual([
      { operations: ["UPDATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods/status"], scope: "Namespaced" },
    ]);
    expect(status.failurePolicy).toBe("Ignore");
    expect(status.clientConfig.service.path).toBe("/validate-pods");
    expect(status.namespaceSelector).toEqual(namespaceSelector(["kube-system", "corral"]));
    expect(entries("Fail").find((h) => h.name === status.name)!.failurePolicy).toBe("Fail");
    expect(entries("Off").map((h) => h.name)).toEqual(["admission-webhook.yunikorn.validate-conf"]);
  });
});
