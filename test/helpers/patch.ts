import fjp from "fast-json-patch";
import type { AdmissionResponse } from "../../src/webhook/admission-review.js";

/** Decodes response.patch (base64 JSON Patch). */
export function patchOps(res: AdmissionResponse): { op: string; path: string; value?: unknown }[] {
  return res.patch ? JSON.parse(Buffer.from(res.patch, "base64").toString("utf8")) : [];
}

/** Applies the response's patch to a deep copy of `object`, validating every op like the API server does. */
export function applyResponse<T>(object: T, res: AdmissionResponse): T {
  const copy = structuredClone(object);
  const ops = patchOps(res);
  if (ops.length === 0) return copy;
  return fjp.applyPatch(copy, ops as fjp.Operation[], true, true).newDocument as T;
}
