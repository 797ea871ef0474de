/**
 * `corral mutate`: offline dry run of the admission decision over a multi-document manifest.
 */
import { readFile } from "node:fs/promises";
import { text as streamText } from "node:stream/consumers";
import fjp from "fast-json-patch";
import { parseAllDocuments, stringify } from "yaml";
import { AdmissionConfigStore } from "../admission/config.js";
import type { AdmissionLookups } from "../admission/lookups.js";
import { decide } from "../admission/review.js";
import { toResponse } from "../webhook/decision.js";
import { readConfigFile } from "../processes/admission.js";
import type { AdmissionRequest } from "../webhook/admission-review.js";

/** Options of `corral mutate`: the pod file, and the requester it is reviewed as. */
export interface MutateOptions {
  file: string;
  user: string;
  group: string[];
  exactGroups?: boolean;
  operation: string;
  old?: string;
  namespace?: string;
  config?: string;
  patch?: boolean;
}

interface K8sObject {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; generateName?: string; namespace?: string };
}

async function readManifests(path: string): Promise<K8sObject[]> {
  const text = path === "-" ? await streamText(process.stdin) : await readFile(path, "utf8");
  const docs = parseAllDocuments(text);
  const out: K8sObject[] = [];
  for (const [i, d] of docs.entries()) {
    if (d.errors.length > 0) throw new Error(`${path}: document ${i + 1}: ${d.errors[0]!.message}`);
    const v = d.toJS() as unknown;
    if (v === null || v === undefined) continue;
    if (typeof v !== "object" || Array.isArray(v)) throw new Error(`${path}: document ${i + 1} is not a Kubernetes object`);
    if ((v as K8sObject).kind === "List" && Array.isArray((v as { items?: unknown[] }).items))
      out.push(...(v as { items: K8sObject[] }).items);
    else out.push(v as K8sObject);
  }
  return out;
}

const idOf = (o: K8sObject) => `${o.kind ?? "?"}/${o.metadata?.namespace ?? ""}/${o.metadata?.name ?? o.metadata?.generateName ?? ""}`;

/**
 * Runs the dry run and writes the results.
 * @returns the process exit code: 0 all allowed, 1 anything denied
 */
export async function runMutate(opts: MutateOptions, out: (s: string) => void, err: (s: string) => void): Promise<number> {
  const op = opts.operation.toUpperCase();
  if (op !== "CREATE" && op !== "UPDATE") throw new Error(`--operation must be CREATE or UPDATE, not ${opts.operation}`);
  if (op === "UPDATE" && !opts.old) throw new Error("--operation UPDATE needs --old FILE with the objects as they are stored now");
  const file = opts.config ? await readConfigFile(opts.config) : undefined;
  const store = new AdmissionConfigStore(process.env, file ? [file.layer] : []);
  const lookups: AdmissionLookups = {
    namespace: (n) => file?.namespaces[n],
    priorityClass: (n) => file?.priorityClasses[n],
  };
  const objects = await readManifests(opts.file);
  const olds = opts.old ? new Map((await readManifests(opts.old)).map((o) => [idOf(o), o])) : new Map<string, K8sObject>();
  const groups = [...opts.group];
  if (!opts.exactGroups && !groups.includes("system:authenticated")) groups.push("system:authenticated");
  let denied = 0;
  const docs: string[] = [];
  for (const [i, obj] of objects.entries()) {
    const [group, version] = (obj.apiVersion ?? "v1").includes("/")
      ? (obj.apiVersion!.split("/") as [string, string])
      : ["", obj.apiVersion ?? "v1"];
    const namespace = obj.metadata?.namespace ?? opts.namespace ?? "default";
    const request: AdmissionRequest = {
      uid: `corral-mutate-${i + 1}`,
      kind: { group, version, kind: obj.kind ?? "" },
      namespace,
      name: obj.metadata?.name,
      operation: op,
      userInfo: { username: opts.user, groups },
      object: obj,
      oldObject:
        op === "UPDATE" ? (olds.get(idOf({ ...obj, metadata: { ...obj.metadata, namespace } })) ?? olds.get(idOf(obj)) ?? null) : null,
    };
    const decision = decide(request, store.current, lookups);
    const res = toResponse(request.uid, decision);
    const label = `${obj.kind ?? "object"} ${namespace}/${obj.metadata?.name ?? obj.metadata?.generateName ?? `#${i + 1}`}`;
    for (const w of res.warnings ?? []) err(`Warning: ${label}: ${w}\n`);
    if (!res.allowed) {
      denied++;
      err(`DENIED ${label}: ${res.status?.message}\n`);
      docs.push(`# DENIED ${label}: ${res.status?.message}\n`);
      continue;
    }
    if (opts.patch) {
      docs.push(`# ${label}\n${JSON.stringify(decision.ops, null, 2)}\n`);
    } else {
      const stored =
        decision.ops.length > 0 ? fjp.applyPatch(structuredClone(obj), decision.ops as fjp.Operation[], true, false).newDocument : obj;
      docs.push(stringify(stored));
    }
  }
  out(docs.join("---\n"));
  if (denied > 0) err(`${denied} of ${objects.length} object(s) denied\n`);
  return denied > 0 ? 1 : 0;
}
