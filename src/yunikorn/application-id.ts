/** Application-id rules shared by the admission controller (which writes the id) and the scheduler (which reads it). */
import { AUTOGEN_APP_PREFIX, AUTOGEN_APP_SUFFIX, LABEL_VALUE_MAX_LENGTH, UNIQUE_AUTOGEN_SUFFIX } from "./constants.js";

/**
 * Generated application id (apache/yunikorn-k8shim pkg/common/utils/utils.go GenerateApplicationID):
 * `yunikorn-<namespace>-autogen`, or with `unique` `<namespace[:26]>-<podUID>` / `<namespace[:26]>-uniqueautogen`.
 * Truncated to 63 characters; unlike upstream, trailing characters that would make an invalid label value
 * (`-`, `_`, `.`) are trimmed after truncation.
 */
export function generateApplicationId(namespace: string, unique: boolean, podUid = ""): string {
  let id: string;
  if (unique) {
    id = namespace.slice(0, 26) + (podUid ? `-${podUid}` : UNIQUE_AUTOGEN_SUFFIX);
  } else {
    id = `${AUTOGEN_APP_PREFIX}-${namespace}-${AUTOGEN_APP_SUFFIX}`;
  }
  return id.slice(0, LABEL_VALUE_MAX_LENGTH).replace(/[-_.]+$/, "");
}
