/**
 * deploy/ and the webhook configurations corral registers, checked offline against the current Kubernetes API
 * schema, so that a kind, version or field a current cluster no longer serves is caught without a cluster:
 * - kubernetes-models validates each object against the JSON schema of its kind (types, enums, formats, required
 *   fields), generated from the Kubernetes OpenAPI document;
 * - @kubernetes/client-node's models (generated from the Kubernetes release-1.36 OpenAPI document: the header of
 *   its generated files) list every field each kind has: a field they do not know is reported, as
 *   `kubectl apply --validate=strict` would on a current cluster.
 * The e2e tests add `kubectl apply --dry-run=server` on the 1.20 test bed.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import * as k8s from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { mutatingWebhookConfiguration, validatingWebhookConfiguration } from "../../../src/admission/webhooks.js";
import { bootstrapperWebhookConfiguration } from "../../../src/processes/bootstrapper.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
/** Files under deploy/ that are not Kubernetes API objects (kustomize and kube-scheduler read them). */
const NOT_API_OBJECTS = /(^|\/)(kustomization\.yaml|plugin-mode(-v1beta1)?\.yaml)$/;

type Obj = { apiVersion?: string; kind?: string; [k: string]: unknown };

function deployDocuments(): { where: string; object: Obj }[] {
  const out: { where: string; object: Obj }[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const p = `${dir}/${e.name}`;
      if (e.isDirectory()) walk(p);
      else if (/\.ya?ml$/.test(e.name) && !NOT_API_OBJECTS.test(p)) {
        parseAllDocuments(readFileSync(join(ROOT, p), "utf8")).forEach((d, i) => out.push({ where: `${p}#${i}`, object: d.toJS() as Obj }));
      }
    }
  };
  walk("deploy");
  return out;
}

/** kubernetes-models class for apiVersion/kind, or undefined when the package has no such kind. */
async function model(apiVersion: string, kind: string): Promise<(new (o: unknown) => { validate(): void }) | undefined> {
  const mod = (await import(`kubernetes-models/${apiVersion}`).catch(() => undefined)) as Record<string, unknown> | undefined;
  return mod?.[kind] as (new (o: unknown) => { validate(): void }) | undefined;
}

type ModelClass = { getAttributeTypeMap(): { baseName: string; type: string }[] };
const models = k8s as unknown as Record<string, ModelClass | undefined>;
/** Name of client-node's model of a top-level kind: `V1Deployment`, `V1PodDisruptionBudget`; core Event is `CoreV1Event`. */
function clientModel(apiVersion: string, kind: string): string | undefined {
  const version = apiVersion.split("/").pop()!;
  const v = version[0]!.toUpperCase() + version.slice(1);
  return [`${v}${kind}`, `Core${v}${kind}`].find((n) => typeof models[n]?.getAttributeTypeMap === "function");
}

/** Paths of fields the client's model of `type` does not have, below `path`. */
function unknownFields(value: unknown, type: string, path: string): string[] {
  if (value === null || value === undefined) return [];
  const array = /^Array<(.+)>$/.exec(type);
  if (array) return Array.isArray(value) ? value.flatMap((v, i) => unknownFields(v, array[1]!, `${path}[${i}]`)) : [];
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (map)
    return typeof value === "object" ? Object.entries(value as object).flatMap(([k, v]) => unknownFields(v, map[1]!, `${path}.${k}`)) : [];
  const m = models[type];
  if (typeof m?.getAttributeTypeMap !== "function" || typeof value !== "object") return [];
  const fields = new Map(m.getAttributeTypeMap().map((a) => [a.baseName, a.type]));
  return Object.entries(value as object).flatMap(([k, v]) =>
    fields.has(k) ? unknownFields(v, fields.get(k)!, `${path}.${k}`) : [`${path}.${k}`],
  );
}

async function problems(o: Obj): Promise<string[]> {
  if (!o.apiVersion || !o.kind) return ["no apiVersion/kind"];
  const M = await model(o.apiVersion, o.kind);
  const C = clientModel(o.apiVersion, o.kind);
  if (!M || !C) return [`${o.apiVersion} ${o.kind} is not in the current Kubernetes API`];
  const out: string[] = [];
  try {
    new M(o).validate();
  } catch (err) {
    out.push((err as Error).message);
  }
  return [...out, ...unknownFields(o, C, "").map((p) => `unknown field ${p.slice(1)}`)];
}

describe("deploy/ against the current Kubernetes API schema (offline)", () => {
  const docs = deployDocuments();

  it("finds the manifests", () => {
    expect(docs.map((d) => d.object.kind)).toEqual(
      expect.arrayContaining(["Deployment", "PodDisruptionBudget", "ClusterRole", "Service", "ConfigMap", "Namespace"]),
    );
  });

  it.each(docs.map((d) => [d.where, d.object] as const))("%s", async (_where, object) => {
    expect(await problems(object)).toEqual([]);
  });

  it("the webhook configurations corral registers", async () => {
    const settings = {
      target: { mode: "service" as const, name: "svc", namespace: "corral" },
      caBundle: "ca",
      cronJobApiVersion: "batch/v1",
    };
    for (const o of [
      mutatingWebhookConfiguration(settings),
      validatingWebhookConfiguration(settings),
      bootstrapperWebhookConfiguration({ mode: "url", url: "https://127.0.0.1:9443" }, "ca"),
    ]) {
      expect(await problems(o as Obj)).toEqual([]);
    }
  });
});

describe("the check catches what a current cluster refuses", () => {
  const pdb = {
    apiVersion: "policy/v1",
    kind: "PodDisruptionBudget",
    metadata: { name: "x" },
    spec: { minAvailable: 1, selector: { matchLabels: { a: "b" } } },
  };

  it("a removed version (PodDisruptionBudget policy/v1beta1 on 1.25+)", async () => {
    expect(await problems({ ...pdb, apiVersion: "policy/v1beta1" })).toEqual([
      "policy/v1beta1 PodDisruptionBudget is not in the current Kubernetes API",
    ]);
  });

  it("a removed kind (PodSecurityPolicy)", async () => {
    expect(await problems({ apiVersion: "policy/v1", kind: "PodSecurityPolicy", metadata: { name: "x" } })).toHaveLength(1);
  });

  it("a field the current API does not have, at any depth", async () => {
    const dep = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "x" },
      spec: {
        selector: { matchLabels: { a: "b" } },
        templateGeneration: 1,
        template: {
          metadata: { labels: { a: "b" } },
          spec: { containers: [{ name: "c", image: "i", securityContext: { seccompProfileName: "x" } }] },
        },
      },
    };
    expect(await problems(dep)).toEqual([
      "unknown field spec.templateGeneration",
      "unknown field spec.template.spec.containers[0].securityContext.seccompProfileName",
    ]);
  });

  it("a value of the wrong type or outside an enum", async () => {
    expect((await problems({ ...pdb, spec: { ...pdb.spec, unhealthyPodEvictionPolicy: "Never" } }))[0]).toMatch(
      /unhealthyPodEvictionPolicy must be equal to one of the allowed values/,
    );
  });
});
