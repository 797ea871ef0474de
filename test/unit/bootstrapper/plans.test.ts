import { describe, expect, it } from "vitest";
import { parseBootstrapperConfig, type BootstrapperConfig } from "../../../src/bootstrapper/config.js";
import { planHousekeeping } from "../../../src/bootstrapper/housekeeping.js";
import { copyOf, planSync, type SyncObject } from "../../../src/bootstrapper/sync.js";

const cfgOf = (o: object): BootstrapperConfig => {
  const r = parseBootstrapperConfig(JSON.stringify({ overrides: { "registry.example.com": "mirror.io" }, ...o }));
  if (!r.ok) throw new Error(r.error);
  return r.config;
};

describe("housekeeping plan", () => {
  const cfg = cfgOf({ namespaceFeatures: { apps: ["rt-cfg.kyma-project.io/alter-img-registry"] } });
  const pod = (name: string, image: string, owner?: string) => ({
    metadata: {
      name,
      namespace: "apps",
      ...(owner
        ? { ownerReferences: [{ apiVersion: "apps/v1", kind: "ReplicaSet", name: owner, uid: `uid-${owner}`, controller: true }] }
        : {}),
    },
    spec: { containers: [{ name: "c", image }] },
  });
  it("finds pods missing a manipulation; evicts one pod per owner; reports bare pods", () => {
    const plan = planHousekeeping(
      [
        pod("web-1", "registry.example.com/web:1", "web"),
        pod("web-2", "registry.example.com/web:1", "web"),
        pod("api-1", "registry.example.com/api:1", "api"),
        pod("done", "mirror.io/x:1", "x"),
        pod("lone", "registry.example.com/l:1"),
        { metadata: { name: "other", namespace: "elsewhere" }, spec: { containers: [{ name: "c", image: "registry.example.com/o:1" }] } },
      ],
      cfg,
      () => undefined,
    );
    expect(plan.scanned).toBe(5);
    expect(plan.missing.map((p) => p.name)).toEqual(["api-1", "lone", "web-1", "web-2"]);
    expect(plan.evict.map((p) => p.name)).toEqual(["api-1", "web-1"]);
    expect(plan.bare.map((p) => p.name)).toEqual(["lone"]);
    expect(plan.missing[0]!.missing).toEqual(["alter-img-registry"]);
  });
});

describe("sync plan", () => {
  const cfg = cfgOf({
    sync: { sourceNamespace: "kyma-system", resources: [{ kind: "Secret", name: "registry-credentials" }], namespaceLabels: {} },
  });
  const src: SyncObject = {
    kind: "Secret",
    metadata: { name: "registry-credentials", namespace: "kyma-system" },
    data: { ".dockerconfigjson": "e30=" },
    type: "kubernetes.io/dockerconfigjson",
  };
  const nss = [{ name: "kyma-system" }, { name: "a" }, { name: "b" }];
  it("copies into every other namespace, leaves good copies, restores edited ones", () => {
    expect(planSync(cfg, [src], nss, []).apply.map((o) => o.metadata.namespace)).toEqual(["a", "b"]);
    const good = copyOf(src, "a");
    const edited = { ...copyOf(src, "b"), data: { ".dockerconfigjson": "bad" } };
    const plan = planSync(cfg, [src], nss, [good, edited]);
    expect(plan.apply.map((o) => o.metadata.namespace)).toEqual(["b"]);
    expect(plan.apply[0]!.data).toEqual(src.data);
  });
  it("removes copies when the source is deleted (configurable)", () => {
    const copies = [copyOf(src, "a"), copyOf(src, "b")];
    expect(planSync(cfg, [], nss, copies).delete.map((d) => d.namespace)).toEqual(["a", "b"]);
    const keep = cfgOf({ sync: { resources: [{ kind: "Secret", name: "registry-credentials" }], deleteCopiesWithSource: false } });
    expect(planSync(keep, [], nss, copies).delete).toEqual([]);
  });
  it("honours the namespace label selector", () => {
    const sel = cfgOf({ sync: { resources: [{ kind: "Secret", name: "registry-credentials" }], namespaceLabels: { team: "x" } } });
    expect(
      planSync(sel, [src], [{ name: "kyma-system" }, { name: "a", labels: { team: "x" } }, { name: "b" }], []).apply.map(
        (o) => o.metadata.namespace,
      ),
    ).toEqual(["a"]);
  });
});
