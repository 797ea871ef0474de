/**
 * The `yunikorn.apache.org/schedulingPolicyParameters` annotation (apache/yunikorn-k8shim pkg/cache/gang_utils.go
 * GetSchedulingPolicyParam; apache/yunikorn-core pkg/common/utils.go ConvertSITimeoutWithAdjustment; yunikorn-site
 * docs/user_guide/gang_scheduling.md "Scheduling Policy Parameters"). Pure.
 *
 * The value is `key=value` pairs separated by single spaces. A pair that does not split into exactly two parts at
 * `=` is skipped (`gangSchedulingStyle=Hard=Soft` leaves the style Soft); a later pair overrides an earlier one.
 *  - `placeholderTimeoutInSeconds`: a base-10 integer; anything else counts as 0 (as upstream's ParseInt result).
 *    0 or less means the core's default of 15 minutes. Corral also counts a value whose milliseconds are not an
 *    exact integer below 2^53 as 0 (upstream's int64 arithmetic wraps around instead).
 *  - `gangSchedulingStyle`: exactly `Hard` or `Soft`; anything else is Soft.
 *  - any other key is ignored.
 * Nothing here is ever an error: the ignored pairs are returned so the caller can log them.
 */
import {
  DEFAULT_GANG_SCHEDULING_STYLE,
  DEFAULT_PLACEHOLDER_TIMEOUT_MS,
  type GangSchedulingStyle,
  PARAM_GANG_SCHEDULING_STYLE,
  PARAM_PLACEHOLDER_TIMEOUT,
  SCHEDULING_POLICY_PARAM_DELIMITER,
} from "./constants.js";

/** The parsed `yunikorn.apache.org/schedulingPolicyParameters` annotation (upstream k8shim pkg/cache/gang_utils.go). */
export interface SchedulingPolicyParameters {
  /** As the annotation gives it, in seconds; 0 when absent or unreadable; ≤ 0 means the default (15 minutes). */
  placeholderTimeoutSeconds: number;
  gangSchedulingStyle: GangSchedulingStyle;
}

/** A pair that was skipped or only partly used, and why (for a log line; upstream logs a warning for each). */
export interface IgnoredParameter {
  pair: string;
  reason: "malformed" | "unknown parameter" | "timeout not an integer" | "unknown style";
}

/** The parameters of a pod without the annotation: default timeout (0 = 15 minutes) and the default style (Soft). */
export const DEFAULT_SCHEDULING_POLICY_PARAMETERS: Readonly<SchedulingPolicyParameters> = Object.freeze({
  placeholderTimeoutSeconds: 0,
  gangSchedulingStyle: DEFAULT_GANG_SCHEDULING_STYLE,
});

/**
 * Parses the annotation value (undefined or "" = the defaults).
 * @returns the parameters and the pairs that were not (fully) used
 */
export function parseSchedulingPolicyParameters(raw: string | undefined): {
  parameters: SchedulingPolicyParameters;
  ignored: IgnoredParameter[];
} {
  const parameters: SchedulingPolicyParameters = { ...DEFAULT_SCHEDULING_POLICY_PARAMETERS };
  const ignored: IgnoredParameter[] = [];
  for (const pair of (raw ?? "").split(SCHEDULING_POLICY_PARAM_DELIMITER)) {
    if (pair === "") continue; // two spaces in a row: nothing to report
    const kv = pair.split("=");
    if (kv.length !== 2) {
      ignored.push({ pair, reason: "malformed" });
      continue;
    }
    const [key, value] = kv as [string, string];
    if (key === PARAM_PLACEHOLDER_TIMEOUT) {
      const ok = /^[+-]?\d+$/.test(value) && Number.isSafeInteger(Number(value) * 1000);
      parameters.placeholderTimeoutSeconds = ok ? Number(value) : 0;
      if (!ok) ignored.push({ pair, reason: "timeout not an integer" });
    } else if (key === PARAM_GANG_SCHEDULING_STYLE) {
      const known = value === "Hard" || value === "Soft";
      parameters.gangSchedulingStyle = known ? value : DEFAULT_GANG_SCHEDULING_STYLE;
      if (!known) ignored.push({ pair, reason: "unknown style" });
    } else {
      ignored.push({ pair, reason: "unknown parameter" });
    }
  }
  return { parameters, ignored };
}

/** The timeout the core applies, in milliseconds: the annotation's when positive, else 15 minutes. */
export function placeholderTimeoutMs(p: Pick<SchedulingPolicyParameters, "placeholderTimeoutSeconds">): number {
  return p.placeholderTimeoutSeconds > 0 ? p.placeholderTimeoutSeconds * 1000 : DEFAULT_PLACEHOLDER_TIMEOUT_MS;
}
