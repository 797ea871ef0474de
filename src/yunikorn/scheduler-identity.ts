/**
 * The scheduler's own identity, shared by the scheduler and the admission controller (corral's addition; YuniKorn
 * trusts the placeholder annotation from anyone). The admission controller stamps the creator of a pod as its
 * user.info, so the placeholders the scheduler creates carry this user; only the scheduler (or a trusted controller)
 * may set `internal.yunikorn.apache.org/placeholder`, and the scheduler treats a pod as a placeholder only when its
 * user.info user is this one. See README § Security and docs/gang-scheduling.md.
 */

/**
 * The user the admission controller stamps on the scheduler's own pods (corral's key, shared with the admission
 * controller): only a placeholder whose user.info user is this one is treated as a placeholder. Empty or unset:
 * `system:serviceaccount:<namespace>:corral-scheduler` (deploy/scheduler).
 */
export const CONF_SCHEDULER_USER = "service.schedulerUser";
/** ServiceAccount name the scheduler runs as in deploy/scheduler. */
export const SCHEDULER_SERVICE_ACCOUNT = "corral-scheduler";
/** Namespace of deploy/scheduler (its kustomization), used when the scheduler's namespace is not known. */
export const DEFAULT_SCHEDULER_NAMESPACE = "corral";

/** The scheduler's own user when `service.schedulerUser` is not set: its ServiceAccount in `namespace`. */
export function defaultSchedulerUser(namespace: string = DEFAULT_SCHEDULER_NAMESPACE): string {
  return `system:serviceaccount:${namespace}:${SCHEDULER_SERVICE_ACCOUNT}`;
}
