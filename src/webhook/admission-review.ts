/**
 * admission.k8s.io/v1 AdmissionReview types and codec (Kubernetes API reference,
 * k8s.io/api/admission/v1/types.go). Pure: decoding never throws on user input; it returns a typed error.
 */
import { isObject } from "../util/objects.js";

/** `request.userInfo` of an AdmissionReview (authentication.k8s.io/v1 UserInfo). */
export interface UserInfo {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/** A kind with its API group and version (`group` is "" for the core group). */
export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

/** `request.operation`; other strings pass decoding and are allowed untouched by the decisions. */
export type Operation = "CREATE" | "UPDATE" | "DELETE" | "CONNECT";

/** The `request` of an AdmissionReview. `object` and `oldObject` are raw (not yet validated). */
export interface AdmissionRequest {
  uid: string;
  kind: GroupVersionKind;
  resource?: { group: string; version: string; resource: string };
  subResource?: string;
  requestKind?: GroupVersionKind;
  name?: string;
  namespace?: string;
  operation: Operation | string;
  userInfo?: UserInfo;
  object?: unknown;
  oldObject?: unknown;
  dryRun?: boolean;
  options?: unknown;
}

/** `response.status` of a denial (metav1.Status subset): HTTP-like code, machine reason, message shown to the user. */
export interface AdmissionStatus {
  code?: number;
  reason?: string;
  message: string;
}

/** The `response` of an AdmissionReview; `uid` echoes the request's. */
export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  status?: AdmissionStatus;
  /** base64 of a JSON Patch (RFC 6902) array. */
  patch?: string;
  patchType?: "JSONPatch";
  warnings?: string[];
}

/** The admission.k8s.io/v1 (or v1beta1) AdmissionReview envelope: a request in, the same object with a response out. */
export interface AdmissionReview {
  apiVersion: string;
  kind: "AdmissionReview";
  request?: AdmissionRequest;
  response?: AdmissionResponse;
}

/** Accepted AdmissionReview API versions; the response echoes the request's. */
export const ADMISSION_API_VERSIONS = ["admission.k8s.io/v1", "admission.k8s.io/v1beta1"] as const;

/** Outcome of {@link decodeAdmissionReview}. */
export type DecodeResult =
  | { ok: true; apiVersion: string; request: AdmissionRequest }
  /** The body is an AdmissionReview we cannot act on: answer with allowed:false and this message. */
  | { ok: false; apiVersion: string; uid: string; message: string };

/**
 * Validates a parsed JSON body as an AdmissionReview carrying a request.
 * @param body the JSON value of the HTTP body
 * @returns the request, or why it cannot be reviewed (the caller answers allowed:false with that message)
 */
export function decodeAdmissionReview(body: unknown): DecodeResult {
  const v1 = ADMISSION_API_VERSIONS[0];
  if (!isObject(body)) return { ok: false, apiVersion: v1, uid: "", message: "body is not an AdmissionReview object" };
  const apiVersion = body.apiVersion === undefined ? v1 : body.apiVersion;
  if (typeof apiVersion !== "string" || !(ADMISSION_API_VERSIONS as readonly string[]).includes(apiVersion)) {
    return {
      ok: false,
      apiVersion: v1,
      uid: "",
      message: `unsupported AdmissionReview apiVersion ${JSON.stringify(apiVersion)}; expected admission.k8s.io/v1`,
    };
  }
  if (body.kind !== undefined && body.kind !== "AdmissionReview") {
    return { ok: false, apiVersion, uid: "", message: `unexpected kind ${JSON.stringify(body.kind)}; expected AdmissionReview` };
  }
  const req = body.request;
  if (req === undefined || req === null) return { ok: false, apiVersion, uid: "", message: "AdmissionReview has no request" };
  if (!isObject(req)) return { ok: false, apiVersion, uid: "", message: "invalid AdmissionReview: request: must be an object" };
  const uid = typeof req.uid === "string" ? req.uid : "";
  const err = requestError(req);
  if (err) return { ok: false, apiVersion, uid, message: `invalid AdmissionReview: ${err}` };
  const request = req as unknown as AdmissionRequest;
  if (request.userInfo && request.userInfo.groups === null) request.userInfo.groups = undefined;
  return { ok: true, apiVersion, request };
}

/**
 * Why `req` is not a usable AdmissionRequest (the fields every decision relies on), or undefined.
 * Hand-written rather than a schema library: it runs on every admission and must not copy the object.
 */
function requestError(req: Record<string, unknown>): string | undefined {
  if (typeof req.uid !== "string" || req.uid === "") return "request.uid: must be a non-empty string";
  const kind = req.kind;
  if (!isObject(kind) || typeof kind.group !== "string" || typeof kind.version !== "string" || typeof kind.kind !== "string") {
    return "request.kind: must be {group, version, kind} strings";
  }
  if (typeof req.operation !== "string") return "request.operation: must be a string";
  if (req.namespace !== undefined && typeof req.namespace !== "string") return "request.namespace: must be a string";
  if (req.name !== undefined && typeof req.name !== "string") return "request.name: must be a string";
  if (req.subResource !== undefined && typeof req.subResource !== "string") return "request.subResource: must be a string";
  const ui = req.userInfo;
  if (ui !== undefined) {
    if (!isObject(ui)) return "request.userInfo: must be an object";
    if (ui.username !== undefined && typeof ui.username !== "string") return "request.userInfo.username: must be a string";
    if (ui.groups !== undefined && ui.groups !== null && (!Array.isArray(ui.groups) || ui.groups.some((g) => typeof g !== "string"))) {
      return "request.userInfo.groups: must be an array of strings";
    }
  }
  return undefined;
}

/** Serialises the response envelope. */
export function encodeAdmissionReview(apiVersion: string, response: AdmissionResponse): string {
  if (response.patch !== undefined && response.allowed && !response.status && !response.warnings) {
    // Hot path: the base64 patch needs no escaping, so it is not run through JSON.stringify a second time.
    return (
      `{"apiVersion":${JSON.stringify(apiVersion)},"kind":"AdmissionReview",` +
      `"response":{"uid":${JSON.stringify(response.uid)},"allowed":true,"patch":"${response.patch}","patchType":"JSONPatch"}}`
    );
  }
  return JSON.stringify({ apiVersion, kind: "AdmissionReview", response });
}

/** An allowed:false response with a message and HTTP-like status code. */
export function deny(uid: string, message: string, code = 403, reason?: string): AdmissionResponse {
  const status: AdmissionStatus = { code, message };
  if (reason) status.reason = reason;
  return { uid, allowed: false, status };
}
