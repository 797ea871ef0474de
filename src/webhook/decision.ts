/**
 * The result of one webhook decision, before it is encoded as an AdmissionResponse, and its encoding
 * (controller-runtime's admission.Response helpers: Allowed / Denied / Patched, as data).
 */
import type { AdmissionResponse } from "./admission-review.js";
import { type PatchOp, encodePatch } from "./json-patch.js";

/** Something worth a log line (the edge logs it; decisions do no I/O). */
export interface Note {
  level: "debug" | "info" | "warn";
  msg: string;
}

/** What a webhook decided about one request: allowed (with JSON Patch ops, possibly none) or refused. */
export interface Decision {
  allowed: boolean;
  ops: PatchOp[];
  /** Denial message (allowed === false). */
  message?: string;
  /** HTTP-like status code of a denial: 400 malformed input, 403 not allowed. */
  code?: number;
  /** AdmissionResponse.warnings: shown to the requesting user by kubectl. */
  warnings: string[];
  notes: Note[];
}

/** An allowing decision, with the JSON Patch ops to apply (none by default), user warnings and log notes. */
export function allow(ops: PatchOp[] = [], warnings: string[] = [], notes: Note[] = []): Decision {
  return { allowed: true, ops, warnings, notes };
}

/** A refusing decision; `code` is the HTTP-like status of the denial (400 malformed input, 403 not allowed). */
export function refuse(message: string, code: number, notes: Note[] = []): Decision {
  return { allowed: false, ops: [], message, code, warnings: [], notes };
}

/** Encodes a decision as the AdmissionResponse for `uid` (patch as base64 JSON Patch; denial as status code + message). */
export function toResponse(uid: string, d: Decision): AdmissionResponse {
  const res: AdmissionResponse = { uid, allowed: d.allowed };
  if (!d.allowed) res.status = { code: d.code ?? 403, message: d.message ?? "denied" };
  if (d.allowed && d.ops.length > 0) {
    res.patch = encodePatch(d.ops);
    res.patchType = "JSONPatch";
  }
  if (d.warnings.length > 0) res.warnings = d.warnings;
  return res;
}
