/**
 * The queue configuration in the scheduler's ConfigMaps (yunikorn-shim reference §6, upstream
 * pkg/conf/schedulerconf.go). Flattening (`yunikorn-defaults` first, `yunikorn-configs` second, `.gz` binaryData
 * gunzipped) is yunikorn/config-maps.ts `flattenConfigMaps`, shared with the admission controller. Pure.
 */

/** Default `service.policyGroup`: the queue configuration is the key `queues.yaml`. */
export const DEFAULT_POLICY_GROUP = "queues";

/** The queue configuration text in a flat map (`<policyGroup>.yaml`), or "" (the core's default) when absent. */
export function queuesYamlOf(flat: Record<string, string>, policyGroup = DEFAULT_POLICY_GROUP): string {
  return flat[`${policyGroup}.yaml`] ?? "";
}

/**
 * The extra configuration the core is given beside the queue configuration (upstream k8shim
 * utils.GetExtraConfigFromConfigMap): every key of the flat map not ending in `.yaml`.
 */
export function extraConfigOf(flat: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(flat).filter(([k]) => !k.endsWith(".yaml")));
}
