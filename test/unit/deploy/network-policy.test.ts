/**
 * The NetworkPolicies of deploy/ as kustomize renders them: every Deployment's pods are selected by one, every
 * container port is admitted only from named sources (never "from anywhere"), the pod network is carved out of
 * address rules, and the controller's namespace is kept out of the webhooks by a label tenants cannot set.
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../../src/testbed/testbed.js";

interface Obj {
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  spec?: Record<string, unknown>;
}
interface Peer {
  ipBlock?: { cidr: string; except?: string[] };
  namespaceSelector?: unknown;
  podSelector?: unknown;
}
interface Rule {
  from?: Peer[];
  ports?: { port: number | string; protocol?: string }[];
}

const render = (dir: string): Obj[] =>
  parseAllDocuments(execFileSync("kubectl", ["kustomize", join(PROJECT_ROOT, "deploy", dir)], { encoding: "utf8" })).map(
    (d) => d.toJS() as Obj,
  );

const matches = (selector: { matchLabels?: Record<string, string> }, labels: Record<string, string>) =>
  Object.entries(selector.matchLabels ?? {}).every(([k, v]) => labels[k] === v);

describe.each(["base", "bootstrapper", "scheduler"])("deploy/%s NetworkPolicy", (dir) => {
  const objects = render(dir);
  const deployment = objects.find((o) => o.kind === "Deployment")!;
  const template = (
    deployment.spec as {
      template: { metadata: { labels: Record<string, string> }; spec: { containers: { ports?: { containerPort: number }[] }[] } };
    }
  ).template;
  const policies = objects
    .filter((o) => o.kind === "NetworkPolicy")
    .map((o) => o.spec as { podSelector: { matchLabels?: Record<string, string> }; policyTypes: string[]; ingress: Rule[] });
  const mine = policies.filter((p) => matches(p.podSelector, template.metadata.labels));

  it("selects the Deployment's pods for Ingress", () => {
    expect(mine.length).toBe(1);
    expect(mine[0]!.policyTypes).toEqual(["Ingress"]);
  });

  it("admits each container port from named sources only", () => {
    const ports = template.spec.containers.flatMap((c) => (c.ports ?? []).map((p) => p.containerPort));
    expect(ports.length).toBeGreaterThan(0);
    const rules = mine[0]!.ingress;
    for (const port of ports) expect(rules.some((r) => r.ports?.some((p) => p.port === port))).toBe(true);
    for (const r of rules) {
      // a rule without `from` (or with an empty peer) admits everyone
      expect(r.from?.length).toBeGreaterThan(0);
      for (const peer of r.from!) expect(Object.keys(peer).length).toBeGreaterThan(0);
      // a rule without ports opens every port
      expect(r.ports?.length).toBeGreaterThan(0);
      for (const peer of r.from!) {
        if (peer.ipBlock?.cidr === "0.0.0.0/0") expect(peer.ipBlock.except?.length).toBeGreaterThan(0);
      }
    }
  });
});

describe("deploy/base namespace", () => {
  it("carries the admin-only label that keeps it out of the webhooks on every Kubernetes version", () => {
    const ns = render("base").find((o) => o.kind === "Namespace")!;
    expect(ns.metadata.labels?.["admission.corral.dev/exclude"]).toBe("true");
  });

  it("the heap settings that keep a flood inside the 256Mi limit are set next to the limit", () => {
    for (const dir of ["base", "bootstrapper"]) {
      const dep = render(dir).find((o) => o.kind === "Deployment")!;
      const c = (
        dep.spec as {
          template: { spec: { containers: { env?: { name: string; value?: string }[]; resources: { limits: { memory: string } } }[] } };
        }
      ).template.spec.containers[0]!;
      expect(c.resources.limits.memory).toBe("256Mi");
      expect(c.env?.find((e) => e.name === "NODE_OPTIONS")?.value).toBe("--max-old-space-size=96 --max-semi-space-size=4");
    }
  });
});
