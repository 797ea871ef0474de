import { describe, expect, it } from "vitest";
import { parseBootstrapperConfig, type BootstrapperConfig } from "../../../src/bootstrapper/config.js";
import { rewriteImage } from "../../../src/bootstrapper/features/registry.js";
import { enabledFeatures } from "../../../src/bootstrapper/opt-in.js";
import { appliedFeatures, reviewBootstrap } from "../../../src/bootstrapper/review.js";
import { toResponse } from "../../../src/webhook/decision.js";
import type { AdmissionRequest } from "../../../src/webhook/admission-review.js";
import { applyResponse } from "../../helpers/patch.js";

const cfgOf = (o: object): BootstrapperConfig => {
  const r = parseBootstrapperConfig(JSON.stringify(o));
  if (!r.ok) throw new Error(r.error);
  return r.config;
};
const CFG = cfgOf({
  overrides: { "registry.example.com": "mirror.internal:5000/cache", "docker.io": "mirror.internal:5000/hub" },
  trustBundleConfigMap: { name: "ca-bundle", key: "ca.crt", volumeMountPath: "/etc/ssl/corp", volumeName: "corp-ca" },
  landscape: { variable: "KYMA_LANDSCAPE", value: "staging" },
});
const F = (f: string) => `rt-cfg.kyma-project.io/${f}`;

describe("registry rewrite", () => {
  it.each([
    ["custom.registry.com/myapp/image:v1.0", { "custom.registry.com": "myregistry.com" }, "myregistry.com/myapp/image:v1.0"],
    ["registry:5000/myapp/image:v2.0", { "registry:5000": "myregistry.com" }, "myregistry.com/myapp/image:v2.0"],
    ["192.168.0.1/myapp/image:v4.0", { "192.168.0.1": "myregistry.com" }, "myregistry.com/myapp/image:v4.0"],
    ["localhost/myapp/image:v3.0", { localhost: "myregistry.com" }, "myregistry.com/myapp/image:v3.0"],
    ["registry.example.com/a/b@sha256:abcd", { "registry.example.com": "m.io/p" }, "m.io/p/a/b@sha256:abcd"],
    ["myapp/image", { myapp: "x.io" }, "myapp/image"],
    ["nginx:latest", { "docker.io": "m.io/hub" }, "nginx:latest"],
    ["other.io/x:1", { "registry.example.com": "m.io" }, "other.io/x:1"],
  ])("%s with %j → %s", (image, overrides, expected) => {
    expect(rewriteImage(image, overrides, false)).toBe(expected);
  });
  it("Docker Hub short names only with matchDockerHub", () => {
    expect(rewriteImage("nginx:1.25", { "docker.io": "m.io/hub" }, true)).toBe("m.io/hub/library/nginx:1.25");
    expect(rewriteImage("team/app:1", { "docker.io": "m.io/hub" }, true)).toBe("m.io/hub/team/app:1");
    expect(rewriteImage("docker.io/team/app:1", { "docker.io": "m.io/hub" }, false)).toBe("m.io/hub/team/app:1");
  });
});

describe("configuration", () => {
  it("names unknown features, missing fields and features outside availableFeatures", () => {
    expect(parseBootstrapperConfig("{").ok).toBe(false);
    expect(parseBootstrapperConfig("{}")).toMatchObject({ ok: false, error: expect.stringMatching(/overrides/) });
    expect(parseBootstrapperConfig(JSON.stringify({ overrides: {}, availableFeatures: [F("teleport")] }))).toMatchObject({
      ok: false,
      error: expect.stringMatching(/unknown feature "rt-cfg.kyma-project.io\/teleport"/),
    });
    expect(
      parseBootstrapperConfig(
        JSON.stringify({ overrides: {}, availableFeatures: [F("set-fips-mode")], namespaceFeatures: { a: [F("set-landscape")] } }),
      ),
    ).toMatchObject({
      ok: false,
      error: expect.stringMatching(/namespaceFeatures.a: feature "rt-cfg.kyma-project.io\/set-landscape" is not in availableFeatures/),
    });
    expect(parseBootstrapperConfig(JSON.stringify({ overrides: {}, clusterTrustBundle: { name: "x" } }))).toMatchObject({
      ok: false,
      error: expect.stringMatching(/clusterTrustBundle.certWritePath/),
    });
    expect(parseBootstrapperConfig(JSON.stringify({ overrides: {}, surprise: 1 }))).toMatchObject({
      ok: false,
      error: expect.stringMatching(/surprise|Unrecognized/),
    });
  });
  it("the revision changes with the text", () => {
    expect(cfgOf({ overrides: {} }).revision).not.toBe(cfgOf({ overrides: { "a.io": "b.io" } }).revision);
  });
});

describe("opt-in precedence", () => {
  const all = ["alter-img-registry", "add-img-pull-secret", "add-cluster-trust-bundle", "set-fips-mode", "set-landscape"];
  it("mandatory namespaces get everything, whatever the pod says", () => {
    expect(enabledFeatures(CFG, "kyma-system", undefined, { [F("set-fips-mode")]: "false" })).toEqual(all);
  });
  it("elsewhere nothing by default; namespace or pod annotation opts in; pod 'false' beats the namespace", () => {
    expect(enabledFeatures(CFG, "team-a", undefined, undefined)).toEqual([]);
    expect(enabledFeatures(CFG, "team-a", { [F("add-img-pull-secret")]: "true" }, undefined)).toEqual(["add-img-pull-secret"]);
    expect(enabledFeatures(CFG, "team-a", { [F("all")]: "true" }, { [F("set-landscape")]: "false" })).toEqual(
      all.filter((f) => f !== "set-landscape"),
    );
    expect(enabledFeatures(CFG, "team-a", undefined, { [F("set-fips-mode")]: "yes" })).toEqual([]);
  });
  it("features outside availableFeatures cannot be opted into", () => {
    const limited = cfgOf({ overrides: {}, availableFeatures: [F("set-fips-mode")], namespaceFeatures: {} });
    expect(enabledFeatures(limited, "team-a", { [F("all")]: "true" }, { [F("add-img-pull-secret")]: "true" })).toEqual(["set-fips-mode"]);
  });
});

function podReview(pod: object, namespace = "team-a"): AdmissionRequest {
  return {
    uid: "u",
    kind: { group: "", version: "v1", kind: "Pod" },
    namespace,
    operation: "CREATE",
    userInfo: { username: "alice" },
    object: pod,
  };
}
const nsAll = { namespaceAnnotations: (n: string) => (n === "opted" ? { [F("all")]: "true" } : undefined) };

describe("bootstrapper review", () => {
  const pod = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "web", annotations: { keep: "me" } },
    spec: {
      initContainers: [{ name: "init", image: "registry.example.com/tools/init:1" }],
      containers: [
        { name: "app", image: "registry.example.com/team/app:2", env: [{ name: "KYMA_FIPS_MODE_ENABLED", value: "false" }] },
        { name: "side", image: "nginx:1.25", volumeMounts: [{ name: "data", mountPath: "/data" }] },
      ],
      volumes: [{ name: "data", emptyDir: {} }],
    },
  };

  it("applies every manipulation in an opted-in namespace and records them", () => {
    const res = toResponse("u", reviewBootstrap(podReview(pod, "opted"), CFG, nsAll));
    const out = applyResponse(pod, res) as typeof pod & {
      spec: Record<string, unknown>;
      metadata: { annotations: Record<string, string> };
    };
    const c = out.spec.containers as { image: string; env?: { name: string; value: string }[]; volumeMounts?: object[] }[];
    const init = (out.spec.initContainers as typeof c)[0]!;
    expect(init.image).toBe("mirror.internal:5000/cache/tools/init:1");
    expect(c[0]!.image).toBe("mirror.internal:5000/cache/team/app:2");
    expect(c[1]!.image).toBe("nginx:1.25"); // Docker Hub short name, matchDockerHub off
    expect(out.spec.imagePullSecrets).toEqual([{ name: "registry-credentials" }]);
    expect(out.spec.volumes).toContainEqual({
      name: "corp-ca",
      configMap: { name: "ca-bundle", items: [{ key: "ca.crt", path: "ca.crt" }] },
    });
    for (const x of [init, ...c]) expect(x.volumeMounts).toContainEqual({ name: "corp-ca", mountPath: "/etc/ssl/corp", readOnly: true });
    expect(c[0]!.env).toEqual([
      { name: "KYMA_FIPS_MODE_ENABLED", value: "false" },
      { name: "FIPS_MODE_ENABLED", value: "true" },
      { name: "KYMA_LANDSCAPE", value: "staging" },
    ]);
    expect(out.metadata.annotations).toMatchObject({ keep: "me", "rt-bootstrapper.kyma-project.io/modified": "true" });
    expect(appliedFeatures(out.metadata.annotations)).toEqual([
      "alter-img-registry",
      "add-img-pull-secret",
      "add-cluster-trust-bundle",
      "set-fips-mode",
      "set-landscape",
    ]);
    expect(out.metadata.annotations["rt-bootstrapper.kyma-project.io/manipulations"]).toMatch(new RegExp(`@${CFG.revision}$`));
    // idempotent: the stored pod needs nothing more
    expect(reviewBootstrap(podReview(out, "opted"), CFG, nsAll).ops.map((o) => `${o.op} ${o.path}`)).toEqual([]);
  });

  it("a pod outside the scope is untouched; other kinds and operations pass", () => {
    expect(reviewBootstrap(podReview(pod, "team-a"), CFG, nsAll)).toMatchObject({ allowed: true, ops: [] });
    expect(reviewBootstrap({ ...podReview(pod, "opted"), operation: "UPDATE" }, CFG, nsAll).ops).toEqual([]);
    expect(
      reviewBootstrap({ ...podReview(pod, "opted"), kind: { group: "apps", version: "v1", kind: "Deployment" } }, CFG, nsAll).ops,
    ).toEqual([]);
  });

  it("fail-open: an unreadable pod is admitted with a warning, never denied", () => {
    const d = reviewBootstrap(podReview({ metadata: "nope" }, "opted"), CFG, nsAll);
    expect(d.allowed).toBe(true);
    expect(d.warnings[0]).toMatch(/admitted without runtime manipulations/);
  });

  it("a ClusterTrustBundle source becomes a projected volume", () => {
    const ctb = cfgOf({
      overrides: {},
      clusterTrustBundle: {
        name: "corp:ca:1",
        certWritePath: "ca.pem",
        volumeMountPath: "/etc/ssl/certs",
        volumeName: "rt-bootstrapper-certs",
      },
      namespaceFeatures: { x: [F("add-cluster-trust-bundle")] },
    });
    const out = applyResponse(
      pod,
      toResponse("u", reviewBootstrap(podReview(pod, "x"), ctb, { namespaceAnnotations: () => undefined })),
    ) as { spec: { volumes: object[] } };
    expect(out.spec.volumes).toContainEqual({
      name: "rt-bootstrapper-certs",
      projected: { sources: [{ clusterTrustBundle: { name: "corp:ca:1", path: "ca.pem" } }] },
    });
  });
});
