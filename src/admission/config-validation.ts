/**
 * The `/validate-conf` decision: ConfigMap CREATE/UPDATE of `yunikorn-defaults` / `yunikorn-configs` in the
 * controller's namespace (design 000 "validation webhook"; yunikorn-admission reference §8).
 *
 *  1. the ConfigMap is merged with the cached other one (defaults first, configs override; `binaryData` keys ending in
 *     `.gz` are gunzipped);
 *  2. the admission controller's own keys are checked here (bad value → denied, naming key and value; YuniKorn does
 *     not check them and falls back to defaults at run time);
 *  3. `<policyGroup>.yaml` is sent to the scheduler's `POST /ws/v1/validate-conf`; its verdict decides. When the
 *     scheduler cannot be reached the change is allowed with a warning (YuniKorn's behaviour), or denied when
 *     `admissionController.webHook.strictConfigValidation` is true.
 */
import { z } from "zod";
import type { AdmissionRequest } from "../webhook/admission-review.js";
import { formatZodError } from "../util/zod.js";
import { type AdmissionConfig, type ConfigLayer, formatConfigErrors, parseAdmissionConfig } from "./config.js";
import { CONFIGMAP_NAME, DEFAULT_CONFIGMAP_NAME } from "../yunikorn/constants.js";
import { type ConfigMapData, flattenConfigMaps } from "../yunikorn/config-maps.js";
import { type Decision, allow, refuse } from "../webhook/decision.js";

/** Verdict of the scheduler's queue-config validation. */
export type QueueVerdict =
  | { kind: "verdict"; allowed: boolean; reason?: string }
  /** The scheduler could not be asked (unreachable, timeout, non-2xx, unreadable body). */
  | { kind: "unavailable"; error: string };

/** Asks the scheduler to validate a `queues.yaml` text. */
export type QueueValidator = (yaml: string) => Promise<QueueVerdict>;

const configMapSchema = z.looseObject({
  metadata: z.looseObject({ name: z.string().optional(), namespace: z.string().optional() }),
  data: z.record(z.string(), z.string()).nullish(),
  binaryData: z.record(z.string(), z.string()).nullish(),
});

/** ConfigMap lookups by name in the controller's namespace (informer cache). */
export interface ConfigMapLookups {
  configMap(name: string): ConfigMapData | undefined;
}

/**
 * Validates a ConfigMap admission request.
 * @param validateQueues the scheduler client (injected; tests pass a local function)
 * @param parse how the running controller parses its configuration with the changed ConfigMaps as the last layer
 *   (its environment and `--config` file first, e.g. `service.policyGroup`); default: the ConfigMaps alone
 * @returns the decision; never throws on malformed input
 */
export async function validateConfigMap(
  request: AdmissionRequest,
  cfg: AdmissionConfig,
  lookups: ConfigMapLookups,
  validateQueues: QueueValidator,
  parse: (cmLayer: ConfigLayer) => ReturnType<typeof parseAdmissionConfig> = (l) => parseAdmissionConfig({ NAMESPACE: cfg.namespace }, [l]),
): Promise<Decision> {
  if (request.kind.kind !== "ConfigMap") return allow();
  if (request.operation !== "CREATE" && request.operation !== "UPDATE") return allow();
  const parsed = configMapSchema.safeParse(request.object);
  if (!parsed.success) return refuse(`cannot decode ConfigMap: ${formatZodError("", parsed.error)}`, 400);
  const cm = parsed.data;
  const namespace = request.namespace || cm.metadata.namespace || "default";
  const name = cm.metadata.name ?? request.name ?? "";
  if (namespace !== cfg.namespace) return allow();
  const slot = name === DEFAULT_CONFIGMAP_NAME ? 0 : name === CONFIGMAP_NAME ? 1 : -1;
  if (slot < 0) return allow();

  const maps: (ConfigMapData | undefined)[] = [lookups.configMap(DEFAULT_CONFIGMAP_NAME), lookups.configMap(CONFIGMAP_NAME)];
  maps[slot] = cm;
  let flat: Record<string, string>;
  try {
    flat = flattenConfigMaps(maps);
  } catch (err) {
    return refuse(`ConfigMap ${namespace}/${name}: ${(err as Error).message}`, 400);
  }

  const own = parse({ name: `ConfigMap ${namespace}/${name}`, data: flat });
  if (!own.ok) {
    return refuse(`invalid admission controller configuration: ${formatConfigErrors(own.errors)}`, 400);
  }

  const key = `${own.config.policyGroup}.yaml`;
  const content = flat[key];
  if (content === undefined) return allow();
  const verdict = await validateQueues(content);
  if (verdict.kind === "verdict") {
    return verdict.allowed ? allow() : refuse(verdict.reason || `${key} was rejected by the scheduler`, 400);
  }
  const why = `${key} not validated: scheduler at ${cfg.schedulerServiceAddress} unavailable (${verdict.error})`;
  if (cfg.strictConfigValidation) return refuse(`${why}; refused because strictConfigValidation is on`, 503);
  return allow([], [`${why}; accepted without validation`], [{ level: "warn", msg: why }]);
}
