/**
 * Decoding of the parts of Kubernetes objects the admission decisions read, with errors that name the field.
 * Only the fields a decision touches are checked; everything else passes through untouched.
 */
import { z } from "zod";
import { formatZodError } from "../server/admission-review.js";

const stringMap = z.record(z.string(), z.string(), { error: "must be a map of string to string" });

export const objectMetaSchema = z.looseObject({
  name: z.string().optional(),
  generateName: z.string().optional(),
  namespace: z.string().optional(),
  uid: z.string().optional(),
  labels: stringMap.nullish(),
  annotations: stringMap.nullish(),
});

export type ObjectMeta = z.infer<typeof objectMetaSchema>;

export const podSchema = z.looseObject({
  metadata: objectMetaSchema,
  spec: z.looseObject({
    schedulerName: z.string().optional(),
    priorityClassName: z.string().optional(),
  }).nullish(),
});

export type PodSlice = z.infer<typeof podSchema>;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Decodes a Pod (or pod template) from `request.object`.
 * @param what how to name the object in errors, e.g. `pod` or `Deployment spec.template`
 * @returns the decoded slice, or an error message naming the bad field
 */
export function decodePod(raw: unknown, what = "pod"): { ok: true; pod: PodSlice } | { ok: false; error: string } {
  if (!isObject(raw)) return { ok: false, error: `${what} is missing or not a JSON object` };
  const r = podSchema.safeParse(raw);
  if (!r.success) return { ok: false, error: `cannot decode ${what}: ${formatZodError("", r.error)}` };
  return { ok: true, pod: r.data };
}

/** Decodes object metadata only (for a pod template, `metadata` may be absent). */
export function decodeMeta(raw: unknown, what: string): { ok: true; meta: ObjectMeta } | { ok: false; error: string } {
  if (raw === undefined || raw === null) return { ok: true, meta: {} };
  const r = objectMetaSchema.safeParse(raw);
  if (!r.success) return { ok: false, error: `cannot decode ${what}: ${formatZodError("", r.error)}` };
  return { ok: true, meta: r.data };
}

/** Label value syntax (Kubernetes validation: at most 63 characters, alphanumeric ends, `-_.` inside). */
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
export function isValidLabelValue(v: string): boolean {
  return v.length <= 63 && LABEL_VALUE.test(v);
}
