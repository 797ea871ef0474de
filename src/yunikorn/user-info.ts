/**
 * The `yunikorn.apache.org/user.info` annotation codec (design 002; scheduler-interface UserGroupInformation):
 * JSON `{"user": string, "groups": [string]}`, written by the admission controller from the AdmissionReview's
 * `request.userInfo` and read by the scheduler as the identity charged for a pod.
 */
import { ANNOTATION_USER_INFO } from "./constants.js";

/** Decoded annotation value (scheduler-interface UserGroupInformation). */
export interface UserGroupInformation {
  user?: string;
  groups?: string[];
}

/** What is wrong with an annotation value: not JSON, not an object, or a field of the wrong type. */
export interface UserInfoError {
  kind: "syntax" | "not-object" | "user" | "groups";
  /** Text naming the annotation and what is wrong, e.g. `invalid yunikorn.apache.org/user.info annotation: "user" must be a string`. */
  message: string;
}

/** Outcome of {@link parseUserInfoAnnotation}. */
export type UserInfoParse = { ok: true; value: UserGroupInformation } | { ok: false; error: UserInfoError };

/**
 * Serialises a requester (authentication.k8s.io/v1 UserInfo: `username`, `groups`) as the annotation value: `user`
 * then `groups`, each omitted when empty (Go `omitempty` in the scheduler interface), so the text is byte-identical
 * to YuniKorn's.
 */
export function userInfoAnnotationValue(userInfo: { username?: string; groups?: string[] } | undefined): string {
  const user = userInfo?.username ? `"user":${JSON.stringify(userInfo.username)}` : "";
  const groups = userInfo?.groups && userInfo.groups.length > 0 ? `"groups":${JSON.stringify(userInfo.groups)}` : "";
  return `{${user}${user && groups ? "," : ""}${groups}}`;
}

const invalid = (kind: UserInfoError["kind"], what: string): UserInfoParse => ({
  ok: false,
  error: { kind, message: `invalid ${ANNOTATION_USER_INFO} annotation: ${what}` },
});

/**
 * A JSON syntax error worded as Go's encoding/json words the common ones (YuniKorn's admission controller refuses
 * with that text): nothing there, `unexpected end of JSON input`; a value that cannot start with its first character,
 * `invalid character 'x' looking for beginning of value`. Other errors keep JavaScript's text (it names the position).
 */
function goJsonSyntaxError(value: string, jsMessage: string): string {
  const t = value.trimStart();
  const at = /at position (\d+)/.exec(jsMessage);
  const atEnd = at !== null && Number(at[1]) >= value.trimEnd().length;
  if (t === "" || atEnd || /end of JSON input/i.test(jsMessage)) return "unexpected end of JSON input";
  const c = t[0]!;
  if (!/[{["\-0-9tfn]/.test(c)) return `invalid character '${c === "'" ? "\\'" : c}' looking for beginning of value`;
  return jsMessage;
}

/**
 * Parses an annotation value as the scheduler interface's Go struct is decoded: keys `user` and `groups` in any case
 * (the last of a spelling wins), others ignored. `groups: null` reads as no groups; every other field of the wrong type
 * is an error (a group that is not a string is never dropped silently).
 * @returns the decoded value, or a {@link UserInfoError} naming what is wrong
 */
export function parseUserInfoAnnotation(value: string): UserInfoParse {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (err) {
    return invalid("syntax", goJsonSyntaxError(value, (err as Error).message));
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    return invalid("not-object", 'must be a JSON object {"user": string, "groups": [string]}');
  }
  // keys as Go's encoding/json matches them to the struct's fields: case-insensitively, a later key overriding an earlier
  let user: unknown;
  let groups: unknown;
  for (const [k, v] of Object.entries(parsed)) {
    const key = k.toLowerCase();
    if (key === "user") user = v;
    else if (key === "groups") groups = v;
  }
  if (user !== undefined && typeof user !== "string") return invalid("user", '"user" must be a string');
  if (groups !== undefined && groups !== null && (!Array.isArray(groups) || groups.some((g) => typeof g !== "string"))) {
    return invalid("groups", '"groups" must be an array of strings');
  }
  return { ok: true, value: { user: user as string | undefined, groups: (groups ?? undefined) as string[] | undefined } };
}
