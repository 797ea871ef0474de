/**
 * The placeholder flag `internal.yunikorn.apache.org/placeholder` on pods and pod templates (corral's addition;
 * YuniKorn accepts it from anyone). The scheduler treats a placeholder as part of the application of the pod that
 * owns it, charged to that pod's user, and replaces or deletes it at will; a tenant who could set the flag could make
 * her own pod occupy another user's gang slots, be charged to that user, or have it handled as a placeholder. So the
 * flag may be added, changed or removed only by the scheduler itself (`service.schedulerUser`) or a trusted
 * controller (`systemUsers` with `trustControllers`). The scheduler checks the creator too (isTrustedPlaceholder:
 * user.info user = `service.schedulerUser`), for pods that got in while the webhook was not called.
 */
import type { AdmissionConfig } from "./config.js";
import { type UserInfo } from "../webhook/admission-review.js";
import { actsForScheduler } from "./identity.js";
import { entryChange } from "../webhook/objects.js";
import { ANNOTATION_PLACEHOLDER_FLAG } from "../yunikorn/constants.js";

/**
 * The placeholder-flag rule for a new object, or for an update from `before` to `after` annotations.
 * @param before the stored object's annotations (undefined on CREATE)
 * @param after the new object's annotations
 * @param what how to name the object, e.g. `pod team-a/web-1` or `pod template of Job team-a/etl`
 * @returns the denial message (HTTP-like code 403), or undefined when allowed (flag absent or unchanged, or the
 *   requester may set it)
 */
export function placeholderFlagRefusal(
  cfg: AdmissionConfig,
  userInfo: UserInfo | undefined,
  annotations: { before?: Readonly<Record<string, string>>; after: Readonly<Record<string, string>> },
  what: string,
): string | undefined {
  const change = entryChange(annotations, ANNOTATION_PLACEHOLDER_FLAG);
  if (change === undefined || actsForScheduler(cfg, userInfo)) return undefined;
  return (
    `${what}: ${change} ${ANNOTATION_PLACEHOLDER_FLAG} is refused: placeholders are created by the scheduler ` +
    `(${cfg.schedulerUser}) only (requested by ${userInfo?.username ?? "unknown user"})`
  );
}
