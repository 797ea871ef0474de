/**
 * The `/mutate` decision: `review(request, config, lookups) → AdmissionResponse`, transport-free
 * (yunikorn-admission reference §3, with the workload UPDATE check of design 002 added).
 *
 *   Pod CREATE        → mutatePodCreate
 *   Pod UPDATE        → validatePodUpdate (never patches); also pods/status UPDATE (`/validate-pods`)
 *   workload CREATE   → mutateWorkloadCreate (Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, CronJob, ReplicationController)
 *   workload UPDATE   → mutateWorkloadUpdate
 *   anything else     → allowed, no patch
 */
import type { AdmissionRequest, AdmissionResponse } from "../webhook/admission-review.js";
import type { AdmissionConfig } from "./config.js";
import type { AdmissionLookups } from "./lookups.js";
import { type Decision, allow, toResponse } from "../webhook/decision.js";
import { mutatePodCreate, validatePodUpdate } from "./pod.js";
import { isWorkloadKind, mutateWorkloadCreate, mutateWorkloadUpdate } from "./workloads.js";

/** Chooses and runs the decision for one request. Never throws on malformed objects: it denies instead. */
export function decide(request: AdmissionRequest, cfg: AdmissionConfig, lookups: AdmissionLookups): Decision {
  const ctx = { cfg, lookups };
  const kind = request.kind.kind;
  const op = request.operation;
  if (kind === "Pod" && request.subResource === undefined) {
    if (op === "CREATE") return mutatePodCreate(request, ctx);
    if (op === "UPDATE") return validatePodUpdate(request, cfg);
    return allow();
  }
  if (kind === "Pod" && request.subResource === "status" && op === "UPDATE") return validatePodUpdate(request, cfg);
  if (isWorkloadKind(kind) && request.subResource === undefined) {
    if (op === "CREATE") return mutateWorkloadCreate(request, ctx);
    if (op === "UPDATE") return mutateWorkloadUpdate(request, ctx);
  }
  return allow();
}

/**
 * The `/validate-pods` decision (validating webhook on pods/status UPDATE): the status subresource can change
 * metadata — user.info included — since the API server only restores spec and ownerReferences from the stored pod.
 * Anything else sent here is allowed untouched (a validating webhook never patches).
 */
export function validatePodStatus(request: AdmissionRequest, cfg: AdmissionConfig): Decision {
  if (request.kind.kind === "Pod" && request.subResource === "status" && request.operation === "UPDATE")
    return validatePodUpdate(request, cfg);
  return allow();
}

/**
 * The whole `/mutate` decision.
 * @param request decoded AdmissionReview request (see server/admission-review.ts decodeAdmissionReview)
 * @returns the AdmissionResponse with uid echoed, base64 JSON Patch, or a denial with status.message
 */
export function review(request: AdmissionRequest, cfg: AdmissionConfig, lookups: AdmissionLookups): AdmissionResponse {
  return toResponse(request.uid, decide(request, cfg, lookups));
}
