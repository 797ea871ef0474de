/**
 * Decoding of the parts of Kubernetes objects the webhook decisions (admission, bootstrapper) read, with errors that name the field.
 * Only the fields a decision touches are checked; everything else passes through untouched and is not copied.
 *
 * These checks are hand-written rather than zod schemas because they run on every admission: with zod, schema
 * parsing was 16 % of the webhook's CPU under load (`npm run bench:admission`, CPU profile), more than the decision.
 */

/** The metadata fields the decisions read (checked by {@link metaError}); other fields pass through. */
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  labels?: Record<string, string> | null;
  annotations?: Record<string, string> | null;
  [key: string]: unknown;
}

/** A Pod as the decisions see it: checked metadata and the `spec` fields they read; the rest untouched. */
export interface PodSlice {
  metadata: ObjectMeta;
  spec?: { schedulerName?: string; priorityClassName?: string; nodeName?: string; [key: string]: unknown } | null;
  [key: string]: unknown;
}

import { isObject } from "../util/objects.js";

const typeName = (v: unknown): string => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);

/** Why `v` is not a map of string to string, or undefined when it is one (or absent). */
function stringMapError(v: unknown, path: string): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isObject(v)) return `${path}: must be a map of string to string, got ${typeName(v)}`;
  for (const k in v) {
    if (typeof v[k] !== "string") return `${path}.${k}: must be a string, got ${typeName(v[k])}`;
  }
  return undefined;
}

function optionalString(v: unknown, path: string): string | undefined {
  return v === undefined || typeof v === "string" ? undefined : `${path}: must be a string, got ${typeName(v)}`;
}

/** Why `raw` is not valid object metadata (or undefined when it is). */
export function metaError(raw: unknown, path: string): string | undefined {
  if (!isObject(raw)) return `${path}: must be an object, got ${typeName(raw)}`;
  return (
    optionalString(raw.name, `${path}.name`) ??
    optionalString(raw.generateName, `${path}.generateName`) ??
    optionalString(raw.namespace, `${path}.namespace`) ??
    optionalString(raw.uid, `${path}.uid`) ??
    stringMapError(raw.labels, `${path}.labels`) ??
    stringMapError(raw.annotations, `${path}.annotations`)
  );
}

/**
 * Decodes a Pod from `request.object`.
 * @param what how to name the object in errors, e.g. `pod` or `old pod`
 * @returns the pod (the same object, typed), or an error message naming the bad field
 */
export function decodePod(raw: unknown, what = "pod"): { ok: true; pod: PodSlice } | { ok: false; error: string } {
  if (!isObject(raw)) return { ok: false, error: `${what} is missing or not a JSON object` };
  const err =
    metaError(raw.metadata, "metadata") ??
    (raw.spec === undefined || raw.spec === null
      ? undefined
      : !isObject(raw.spec)
        ? `spec: must be an object, got ${typeName(raw.spec)}`
        : (optionalString(raw.spec.schedulerName, "spec.schedulerName") ??
          optionalString(raw.spec.priorityClassName, "spec.priorityClassName") ??
          optionalString(raw.spec.nodeName, "spec.nodeName")));
  if (err) return { ok: false, error: `cannot decode ${what}: ${err}` };
  return { ok: true, pod: raw as PodSlice };
}

/**
 * Reads `spec.schedulerName` and `spec.nodeName` of a pod template (`template.spec` may be absent).
 * @returns the two values, or an error naming the field of the wrong type
 */
export function decodeTemplateSpec(
  template: Record<string, unknown>,
  path: string,
): { ok: true; schedulerName?: string; nodeName?: string } | { ok: false; error: string } {
  const spec = template.spec;
  if (spec === undefined || spec === null) return { ok: true };
  if (!isObject(spec)) return { ok: false, error: `${path}.spec: must be an object, got ${typeName(spec)}` };
  const err = optionalString(spec.schedulerName, `${path}.spec.schedulerName`) ?? optionalString(spec.nodeName, `${path}.spec.nodeName`);
  if (err) return { ok: false, error: err };
  return { ok: true, schedulerName: spec.schedulerName as string | undefined, nodeName: spec.nodeName as string | undefined };
}

/** Decodes object metadata (for a pod template, `metadata` may be absent). */
export function decodeMeta(raw: unknown, what: string): { ok: true; meta: ObjectMeta } | { ok: false; error: string } {
  if (raw === undefined || raw === null) return { ok: true, meta: {} };
  const err = metaError(raw, "metadata");
  if (err) return { ok: false, error: `cannot decode ${what}: ${err}` };
  return { ok: true, meta: raw as ObjectMeta };
}

/**
 * How one label or annotation changes from the stored map `before` (undefined: CREATE) to `after`: `setting` (CREATE
 * with the key), `adding`, `changing` or `removing`; undefined when its value is the same (absent on both sides too).
 */
export function entryChange(
  maps: { before?: Readonly<Record<string, string>>; after: Readonly<Record<string, string>> },
  key: string,
): "setting" | "adding" | "changing" | "removing" | undefined {
  const before = maps.before?.[key];
  const after = maps.after[key];
  if (before === after) return undefined;
  return maps.before === undefined ? "setting" : before === undefined ? "adding" : after === undefined ? "removing" : "changing";
}

/** Label value syntax (Kubernetes validation): at most 63 characters of [A-Za-z0-9-_.], alphanumeric at both ends. */
export function isValidLabelValue(v: string): boolean {
  const n = v.length;
  if (n === 0) return true;
  if (n > 63) return false;
  for (let i = 0; i < n; i++) {
    const c = v.charCodeAt(i);
    const alnum = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
    if (alnum) continue;
    if ((c === 45 || c === 95 || c === 46) && i > 0 && i < n - 1) continue;
    return false;
  }
  return true;
}
