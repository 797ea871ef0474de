/**
 * The API version choice over discovery documents of Kubernetes 1.20 (the test bed, recorded) and 1.35 (the newest
 * release in the supported range, written from the Kubernetes API reference): test/fixtures/discovery/README.md.
 */
import { describe, expect, it } from "vitest";
import { chooseApiVersions, fetchDiscoveryDocuments, parseKubeVersion } from "../../../src/kube/discovery.js";
import { VERSIONS_1_20, discoveryDocument as json, discoveryDocuments as documents } from "../../fixtures/discovery/documents.js";

describe("chooseApiVersions", () => {
  it("Kubernetes 1.20: the beta versions (policy/v1beta1, batch/v1beta1, scheduler config v1beta1), no name label", () => {
    expect(chooseApiVersions(documents("v1.20"))).toEqual({ ok: true, versions: VERSIONS_1_20 });
  });

  it("Kubernetes 1.35: every API on v1", () => {
    const r = chooseApiVersions(documents("v1.35"));
    expect(r).toEqual({
      ok: true,
      versions: {
        kubernetes: { major: 1, minor: 35 },
        eviction: "policy/v1",
        cronJob: "batch/v1",
        podDisruptionBudget: "policy/v1",
        kubeSchedulerConfiguration: "kubescheduler.config.k8s.io/v1",
        namespaceNameLabel: true,
      },
    });
  });

  it("Eviction follows /api/v1's pods/eviction entry, not the policy group list (1.21 serves policy/v1 PDBs but v1beta1 Evictions)", () => {
    const d = documents("v1.35");
    d.gitVersion = "v1.21.14";
    d.core = { ...d.core, resources: d.core.resources.map((x) => (x.name === "pods/eviction" ? { ...x, version: "v1beta1" } : x)) };
    const r = chooseApiVersions(d);
    expect(r.ok && r.versions.eviction).toBe("policy/v1beta1");
    expect(r.ok && r.versions.podDisruptionBudget).toBe("policy/v1");
  });

  it("APIs a cluster does not serve come back undefined", () => {
    const d = documents("v1.35");
    d.core = { ...d.core, resources: d.core.resources.filter((x) => x.name !== "pods/eviction") };
    d.groups = { groups: d.groups.groups.filter((g) => g.name !== "policy") };
    delete d.batchV1;
    const r = chooseApiVersions(d);
    expect(r.ok && [r.versions.eviction, r.versions.podDisruptionBudget, r.versions.cronJob]).toEqual([undefined, undefined, undefined]);
  });

  it("an unreadable version is an error naming it", () => {
    expect(chooseApiVersions({ ...documents("v1.35"), gitVersion: "devel" })).toEqual({
      ok: false,
      error: 'cannot read the Kubernetes version from /version gitVersion "devel"',
    });
  });
});

describe("parseKubeVersion", () => {
  it.each([
    ["v1.20.2", { major: 1, minor: 20 }],
    ["v1.30.4-eks-a737599", { major: 1, minor: 30 }],
    ["1.35", { major: 1, minor: 35 }],
    ["v1.29.1+k3s1", { major: 1, minor: 29 }],
    ["1.2x", undefined],
    ["", undefined],
  ])("%s", (text, want) => expect(parseKubeVersion(text)).toEqual(want));
});

describe("fetchDiscoveryDocuments", () => {
  const clients = (release: string, calls: string[]) => ({
    version: {
      getCode: async () => {
        calls.push("/version");
        return json(release, "version.json");
      },
    },
    core: {
      getAPIResources: async () => {
        calls.push("/api/v1");
        return json(release, "api-v1.json");
      },
    },
    apis: {
      getAPIVersions: async () => {
        calls.push("/apis");
        return json(release, "apis.json");
      },
    },
    batch: {
      getAPIResources: async () => {
        calls.push("/apis/batch/v1");
        return json(release, "apis-batch-v1.json");
      },
    },
  });

  it("reads /version, /api/v1, /apis and /apis/batch/v1, and the choice over them is the fixtures' choice", async () => {
    const calls: string[] = [];
    const d = await fetchDiscoveryDocuments(clients("v1.20", calls) as unknown as Parameters<typeof fetchDiscoveryDocuments>[0]);
    expect(calls.sort()).toEqual(["/api/v1", "/apis", "/apis/batch/v1", "/version"]);
    expect(chooseApiVersions(d)).toEqual(chooseApiVersions(documents("v1.20")));
  });

  it("skips /apis/batch/v1 when /apis does not list it", async () => {
    const calls: string[] = [];
    const c = clients("v1.35", calls);
    const groups = json("v1.35", "apis.json");
    groups.groups = groups.groups.filter((g: { name: string }) => g.name !== "batch");
    c.apis.getAPIVersions = async () => groups;
    const d = await fetchDiscoveryDocuments(c as unknown as Parameters<typeof fetchDiscoveryDocuments>[0]);
    expect(calls).not.toContain("/apis/batch/v1");
    expect(d.batchV1).toBeUndefined();
  });
});
