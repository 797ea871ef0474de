/**
 * admission.k8s.io/v1 AdmissionReview types and codec (Kubernetes API reference,
 * k8s.io/api/admission/v1/types.go). Pure: decoding never throws on user input; it returns a typed error.
 */
import { z } from "zod";
import type { UserInfo } from "../admission/identity.js";

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

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

export interface AdmissionStatus {
  code?: number;
  reason?: string;
  message: string;
}

export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  status?: AdmissionStatus;
  /** base64 of a JSON Patch (RFC 6902) array. */
  patch?: string;
  patchType?: "JSONPatch";
  warnings?: string[];
}

export interface AdmissionReview {
  apiVersion: string;
  kind: "AdmissionReview";
  request?: AdmissionRequest;
  response?: AdmissionResponse;
}

/** Envelope schema: checks what every decision relies on, leaves `object`/`oldObject` to the decision. */
const gvk = z.object({ group: z.string(), version: z.string(), kind: z.string() });
const requestSchema = z.looseObject({
  uid: z.string().min(1, "must be a non-empty string"),
  kind: gvk,
  namespace: z.string().optional(),
  name: z.string().optional(),
  operation: z.string(),
  userInfo: z.looseObject({
    username: z.string().optional(),
    uid: z.string().optional(),
    groups: z.array(z.string()).nullish(),
  }).optional(),
  object: z.unknown().optional(),
  oldObject: z.unknown().optional(),
  dryRun: z.boolean().nullish(),
});
const reviewSchema = z.looseObject({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  request: z.unknown().optional(),
});

/** Accepted AdmissionReview API versions; the response echoes the request's. */
export const ADMISSION_API_VERSIONS = ["admission.k8s.io/v1", "admission.k8s.io/v1beta1"] as const;

export type DecodeResult =
  | { ok: true; apiVersion: string; request: AdmissionRequest }
  /** The body is an AdmissionReview we cannot act on: answer with allowed:false and this message. */
  | { ok: false; apiVersion: string; uid: string; message: string };

/** Formats a zod error as `path: message; path: message`. */
export function formatZodError(prefix: string, err: z.ZodError): string {
  return err.issues
    .slice(0, 5)
    .map((i) => `${[prefix, ...i.path.map(String)].filter(Boolean).join(".")}: ${i.message}`)
    .join("; ");
}

/**
 * Validates a parsed JSON body as an AdmissionReview carrying a request.
 * @param body the JSON value of the HTTP body
 * @returns the request, or why it cannot be reviewed (the caller answers allowed:false with that message)
 */
export function decodeAdmissionReview(body: unknown): DecodeResult {
  const env = reviewSchema.safeParse(body);
  if (!env.success) {
    return { ok: false, apiVersion: ADMISSION_API_VERSIONS[0], uid: "", message: "body is not an AdmissionReview object" };
  }
  const apiVersion = env.data.apiVersion ?? ADMISSION_API_VERSIONS[0];
  if (!(ADMISSION_API_VERSIONS as readonly string[]).includes(apiVersion)) {
    return { ok: false, apiVersion: ADMISSION_API_VERSIONS[0], uid: "", message: `unsupported AdmissionReview apiVersion ${JSON.stringify(apiVersion)}; expected admission.k8s.io/v1` };
  }
  if (env.data.kind !== undefined && env.data.kind !== "AdmissionReview") {
    return { ok: false, apiVersion, uid: "", message: `unexpected kind ${JSON.stringify(env.data.kind)}; expected AdmissionReview` };
  }
  if (env.data.request === undefined || env.data.request === null) {
    return { ok: false, apiVersion, uid: "", message: "AdmissionReview has no request" };
  }
  const req = requestSchema.safeParse(env.data.request);
  if (!req.success) {
    const raw = env.data.request as { uid?: unknown };
    const uid = typeof raw === "object" && typeof raw.uid === "string" ? raw.uid : "";
    return { ok: false, apiVersion, uid, message: `invalid AdmissionReview: ${formatZodError("request", req.error)}` };
  }
  const request = req.data as unknown as AdmissionRequest;
  if (request.userInfo && request.userInfo.groups === null) request.userInfo.groups = undefined;
  return { ok: true, apiVersion, request };
}

/** Serialises the response envelope. */
export function encodeAdmissionReview(apiVersion: string, response: AdmissionResponse): string {
  return JSON.stringify({ apiVersion, kind: "AdmissionReview", response });
}

/** An allowed:false response with a message and HTTP-like status code. */
export function deny(uid: string, message: string, code = 403, reason?: string): AdmissionResponse {
  const status: AdmissionStatus = { code, message };
  if (reason) status.reason = reason;
  return { uid, allowed: false, status };
}
