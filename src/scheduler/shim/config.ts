/**
 * The queue configuration in the scheduler's ConfigMaps (yunikorn-shim reference §6, upstream
 * pkg/conf/schedulerconf.go). Flattening (`yunikorn-defaults` first, `yunikorn-configs` second, `.gz` binaryData
 * gunzipped) is yunikorn/config-maps.ts `flattenConfigMaps`, shared with the admission controller. Pure.
 */
import { parseGoBool } from "../../util/go-strconv.js";
import { GENERATE_UNIQUE_APP_IDS_KEY } from "../../yunikorn/constants.js";

/** Default `service.policyGroup`: the queue configuration is the key `queues.yaml`. */
export const DEFAULT_POLICY_GROUP = "queues";

/** The queue configuration text in a flat map (`<policyGroup>.yaml`), or "" (the core's default) when absent. */
export function queuesYamlOf(flat: Record<string, string>, policyGroup = DEFAULT_POLICY_GROUP): string {
  return flat[`${policyGroup}.yaml`] ?? "";
}

/**
 * `admissionController.filtering.generateUniqueAppId` in a flat map (the scheduler reads it for pods that name no
 * application, as upstream's shim): false when absent; `invalid` holds a value that is no Go boolean (false then).
 */
export function generateUniqueAppIdsOf(flat: Readonly<Record<string, string>>): { on: boolean; invalid?: string } {
  const v = flat[GENERATE_UNIQUE_APP_IDS_KEY];
  if (v === undefined) return { on: false };
  const b = parseGoBool(v);
  return b === undefined ? { on: false, invalid: v } : { on: b };
}

/**
 * The extra configuration the core is given beside the queue configuration (upstream k8shim
 * utils.GetExtraConfigFromConfigMap): every key of the flat map not ending in `.yaml`.
 */
export function extraConfigOf(flat: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(flat).filter(([k]) => !k.endsWith(".yaml")));
}
