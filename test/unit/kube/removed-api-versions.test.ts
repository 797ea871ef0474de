/**
 * Every Kubernetes API corral calls or ships, listed from the source and deploy/ (client-node API classes, raw
 * `/api(s)` paths, `apiVersion` literals and manifest headers), is served by the newest supported release (1.35
 * discovery fixture); nothing names a removed version (policy/v1beta1, batch/v1beta1, kube-scheduler config betas…)
 * except the places that choose or document the 1.20 fallback, each listed below with its reason.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const SCANNED = ["src", "scripts", "bench", "bin", "deploy"];

/** Files allowed to name a removed version, and why. */
const FALLBACK: Record<string, string> = {
  "src/kube/discovery.ts": "the discovery choice and its fallback for servers that lack the v1 APIs",
  "src/kube/scheduler-config.ts": "KubeSchedulerConfiguration version per release (kube-scheduler reads a file, no discovery)",
  "deploy/scheduler/plugin-mode-v1beta1.yaml": "plugin mode for 1.20-1.21 (`corral scheduler-config --kube-version 1.20`)",
  "deploy/components/kubernetes-1.20/kustomization.yaml": "the documented 1.20 patch: PodDisruptionBudget as policy/v1beta1",
  "src/testbed/testbed.ts": "configuration of the test bed's own kube-scheduler v1.20.2 binary",
};

/** API versions removed by 1.35 (or never served by any release in the supported range). */
const REMOVED = new RegExp(
  String.raw`(?<![\w./-])(` +
    [
      String.raw`policy/v1beta1`,
      String.raw`batch/v(?:1beta1|2alpha1)`,
      String.raw`extensions/v1beta1`,
      String.raw`apps/v1beta[12]`,
      String.raw`autoscaling/v2beta[12]`,
      String.raw`kubescheduler\.config\.k8s\.io/v1beta[123]`,
      String.raw`(?:admissionregistration|apiextensions|rbac\.authorization|scheduling|coordination|storage|certificates|` +
        String.raw`authentication|authorization|node|discovery|events|networking|flowcontrol\.apiserver)\.k8s\.io/v1(?:alpha|beta)\d`,
    ].join("|") +
    String.raw`)(?![\w.])`,
  "g",
);
/** client-node API classes of beta or alpha versions (`PolicyV1beta1Api`…). */
const BETA_CLASS = /\b[A-Z][A-Za-z]*V\d+(?:alpha|beta)\d+Api\b/g;

/** client-node class prefix → API group. */
const CLASS_GROUPS: Record<string, string> = {
  Core: "",
  Apps: "apps",
  Batch: "batch",
  Policy: "policy",
  Scheduling: "scheduling.k8s.io",
  Coordination: "coordination.k8s.io",
  Admissionregistration: "admissionregistration.k8s.io",
  RbacAuthorization: "rbac.authorization.k8s.io",
  Events: "events.k8s.io",
};
/** Not served by the API server: read by kustomize and kube-scheduler (chosen by scheduler-config.ts). */
const NOT_SERVED_GROUPS = ["kustomize.config.k8s.io", "kubescheduler.config.k8s.io", "admission.k8s.io", "audit.k8s.io"];

function files(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const p = join(dir, name);
    return statSync(join(ROOT, p)).isDirectory() ? files(p) : /\.(ts|js|mjs|ya?ml|json|sh)$/.test(name) ? [p] : [];
  });
}

/** The code of a file without its comments (`//`, `/* *\/` in scripts; `#` in YAML and shell): comments may explain. */
function code(path: string, text: string): string {
  if (/\.(ya?ml|sh)$/.test(path)) return text.replace(/(^|\s)#.*$/gm, "$1");
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|\s)\/\/.*$/gm, "$1");
}

const sources = SCANNED.flatMap(files).map((p) => ({ path: p, text: code(p, readFileSync(join(ROOT, p), "utf8")) }));

/** Every group/version named by an API call or a manifest, with where. */
function usedGroupVersions(): Map<string, Set<string>> {
  const used = new Map<string, Set<string>>();
  const add = (gv: string, where: string) => used.set(gv, (used.get(gv) ?? new Set()).add(where));
  for (const { path, text } of sources) {
    for (const m of text.matchAll(/\bk8s\.([A-Z][A-Za-z]*?)V(\d+)Api\b/g)) {
      const group = CLASS_GROUPS[m[1]!];
      if (group === undefined) throw new Error(`${path}: client-node class ${m[0]} — add its group to CLASS_GROUPS`);
      add(group ? `${group}/v${m[2]}` : `v${m[2]}`, path);
    }
    for (const m of text.matchAll(/["'`]\/apis\/([a-z0-9.-]+)\/(v\d+(?:alpha\d+|beta\d+)?)\b/g)) add(`${m[1]}/${m[2]}`, path);
    for (const m of text.matchAll(/["'`]\/api\/(v1)\b/g)) add(m[1]!, path);
    for (const m of text.matchAll(/apiVersion: ["']?([a-z0-9.-]+\/)?(v\d+(?:alpha\d+|beta\d+)?)["']?/g)) add(`${m[1] ?? ""}${m[2]}`, path);
  }
  for (const g of NOT_SERVED_GROUPS) for (const gv of [...used.keys()]) if (gv.startsWith(`${g}/`)) used.delete(gv);
  return used;
}

const served = (release: string) =>
  new Set<string>([
    "v1",
    ...JSON.parse(readFileSync(join(ROOT, "test/fixtures/discovery", release, "apis.json"), "utf8")).groups.flatMap(
      (g: { versions: { groupVersion: string }[] }) => g.versions.map((v) => v.groupVersion),
    ),
  ]);

describe("API versions corral uses", () => {
  it("no removed version is named outside the discovery fallback and the documented 1.20 files", () => {
    const found = sources
      .filter((s) => !(s.path in FALLBACK))
      .flatMap(({ path, text }) => [...text.matchAll(REMOVED), ...text.matchAll(BETA_CLASS)].map((m) => `${path}: ${m[0]}`));
    expect(found).toEqual([]);
  });

  it("the scan sees the calls: the core, scheduling, coordination, admissionregistration and policy APIs are among them", () => {
    const used = usedGroupVersions();
    for (const gv of [
      "v1",
      "scheduling.k8s.io/v1",
      "coordination.k8s.io/v1",
      "admissionregistration.k8s.io/v1",
      "policy/v1",
      "apps/v1",
      "rbac.authorization.k8s.io/v1",
    ]) {
      expect(used.has(gv), gv).toBe(true);
    }
  });

  it("every group/version used is served by Kubernetes 1.35", () => {
    const v135 = served("v1.35");
    const missing = [...usedGroupVersions()].filter(([gv]) => !v135.has(gv)).map(([gv, where]) => `${gv} (${[...where].join(", ")})`);
    expect(missing).toEqual([]);
  });

  it("on Kubernetes 1.20 only policy/v1 is missing, and deploy/components/kubernetes-1.20 patches it", () => {
    const v120 = served("v1.20");
    const missing = [...usedGroupVersions().keys()].filter((gv) => !v120.has(gv));
    expect(missing).toEqual(["policy/v1"]);
    expect(readFileSync(join(ROOT, "deploy/components/kubernetes-1.20/kustomization.yaml"), "utf8")).toMatch(
      /kind: PodDisruptionBudget[\s\S]*value: policy\/v1beta1/,
    );
  });

  it("the fallback list names files that exist and still need the exception", () => {
    for (const path of Object.keys(FALLBACK)) {
      const s = sources.find((x) => x.path === path);
      expect(s, path).toBeDefined();
      expect([...s!.text.matchAll(REMOVED)].length, path).toBeGreaterThan(0);
    }
  });
});
