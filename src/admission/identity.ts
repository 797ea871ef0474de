/**
 * The submitting user's identity on pods and pod templates (design 002; yunikorn-admission reference §7).
 *
 * Annotation `yunikorn.apache.org/user.info` = JSON `{"user": string, "groups": string[]}` built from the
 * AdmissionReview's `request.userInfo`, groups in request order. Objects that already carry it are accepted only from
 * a trusted controller, an allowed external user, or a member of an allowed external group.
 */
import { type AdmissionConfig, matchesAny } from "./config.js";
import { ANNOTATION_USER_INFO as ANNOTATION_USER_INFO_KEY } from "../yunikorn/constants.js";
import type { UserInfo } from "../webhook/admission-review.js";
import { withEntries } from "../webhook/json-patch.js";
import { parseUserInfoAnnotation, userInfoAnnotationValue } from "../yunikorn/user-info.js";

/**
 * True when `value` is exactly what corral would stamp for the requester (same user, same groups in the same order):
 * carrying it claims nothing the requester is not. This is what `kubectl create job --from=cronjob/…` and
 * `kubectl rollout undo` to one's own revision send. Any other spelling (other groups, extra fields) is not "own".
 */
export function isOwnIdentity(userInfo: UserInfo | undefined, value: string): boolean {
  return value === userInfoAnnotationValue(userInfo);
}

/** Why a requester may set user.info, or undefined when it may not (first match wins, as upstream usergroup.go). */
export type TrustReason = "trusted-controller" | "external-user" | "external-group";

/** Why the requester may set user.info itself (see {@link TrustReason}); undefined when it may not. */
export function trustReason(cfg: AdmissionConfig, userInfo: UserInfo | undefined): TrustReason | undefined {
  const username = userInfo?.username ?? "";
  if (cfg.trustControllers && matchesAny(cfg.systemUsers, username)) return "trusted-controller";
  if (matchesAny(cfg.externalUsers, username)) return "external-user";
  for (const g of userInfo?.groups ?? []) if (matchesAny(cfg.externalGroups, g)) return "external-group";
  return undefined;
}

/**
 * True when the requester acts for the scheduler: the scheduler's own user (`service.schedulerUser`) or a trusted
 * controller (`systemUsers` with `trustControllers`). They alone may set the keys the scheduler decides by on an
 * existing object (the placeholder flag, placeholder.ts; a routed pod's application id, scheduling-keys.ts).
 */
export function actsForScheduler(cfg: AdmissionConfig, userInfo: UserInfo | undefined): boolean {
  return (userInfo?.username ?? "") === cfg.schedulerUser || trustReason(cfg, userInfo) === "trusted-controller";
}

/** True when `username` is one of the configured controller (system) users. */
export function isSystemUser(cfg: AdmissionConfig, userInfo: UserInfo | undefined): boolean {
  return matchesAny(cfg.systemUsers, userInfo?.username ?? "");
}

/** Denial text naming the user and groups (upstream wording). */
export function notAllowedMessage(userInfo: UserInfo | undefined): string {
  return `user ${userInfo?.username ?? ""} with groups [${(userInfo?.groups ?? []).join(",")}] is not allowed to set user annotation`;
}

/** Outcome of the user.info step on CREATE of a pod or a workload's pod template. */
export type UserInfoStep =
  | { ok: true; annotations?: Record<string, string>; notes: { level: "warn" | "info"; msg: string }[]; warnings: string[] }
  | { ok: false; message: string; code: number };

/**
 * The identity rule for a newly submitted pod or pod template (design 002):
 *  - annotation present: accepted only from a trusted requester (unless bypassAuth); malformed JSON is always denied;
 *  - annotation absent: stamped with the requester. With bypassAuth and the legacy user label present, the label is
 *    honoured instead (design 002 "Backwards compatibility"), logged at WARN.
 * @param annotations the object's (or template's) current annotations
 * @param labels the object's (or template's) labels, for the legacy user label
 * @param what how to name the object in messages, e.g. `pod default/web-1`
 * @returns the new annotations map when it must change, or a denial
 */
export function userInfoStep(
  cfg: AdmissionConfig,
  userInfo: UserInfo | undefined,
  annotations: Readonly<Record<string, string>>,
  labels: Readonly<Record<string, string>>,
  what: string,
): UserInfoStep {
  const current = annotations[ANNOTATION_USER_INFO_KEY];
  if (current !== undefined) {
    if (!cfg.bypassAuth && trustReason(cfg, userInfo) === undefined && !isOwnIdentity(userInfo, current)) {
      return { ok: false, message: notAllowedMessage(userInfo), code: 403 };
    }
    const parsed = parseUserInfoAnnotation(current);
    if (!parsed.ok) return { ok: false, message: parsed.error.message, code: 400 };
    return { ok: true, notes: [], warnings: [] };
  }
  const legacy = labels[cfg.userLabelKey];
  if (legacy !== undefined && legacy !== "") {
    if (cfg.bypassAuth) {
      return {
        ok: true,
        notes: [
          {
            level: "warn",
            msg:
              `${what}: deprecated user label ${cfg.userLabelKey}=${legacy} used as the user (bypassAuth); set ` +
              `${ANNOTATION_USER_INFO_KEY} instead`,
          },
        ],
        warnings: [`label ${cfg.userLabelKey} is deprecated; use annotation ${ANNOTATION_USER_INFO_KEY}`],
      };
    }
    return {
      ok: true,
      annotations: withEntries(annotations, { [ANNOTATION_USER_INFO_KEY]: userInfoAnnotationValue(userInfo) }),
      notes: [
        {
          level: "warn",
          msg:
            `${what}: deprecated user label ${cfg.userLabelKey}=${legacy} ignored; identity taken from the request ` +
            `(${userInfo?.username ?? ""})`,
        },
      ],
      warnings: [`label ${cfg.userLabelKey} is deprecated and ignored; the submitting user is recorded in ${ANNOTATION_USER_INFO_KEY}`],
    };
  }
  return {
    ok: true,
    annotations: withEntries(annotations, { [ANNOTATION_USER_INFO_KEY]: userInfoAnnotationValue(userInfo) }),
    notes: [],
    warnings: [],
  };
}
