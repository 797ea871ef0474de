/**
 * How YuniKorn's configuration ConfigMaps (`yunikorn-defaults`, then `yunikorn-configs`) are read into one key → value
 * map: `data` as is, `binaryData` base64-decoded, keys ending in `.gz` gunzipped (k8shim pkg/conf/schedulerconf.go).
 * The admission controller and the scheduler read the maps the same way through this one function.
 */
import { gunzipSync } from "node:zlib";

/**
 * The most a `.gz` binaryData value may inflate to, bytes (3 MiB, the request body limit of the admission webhook and
 * of the scheduler's `POST /ws/v1/validate-conf`). Upstream reads without a bound; here a small compressed value
 * cannot make the process inflate hundreds of MiB.
 */
export const MAX_INFLATED_BYTES = 3 * 1024 * 1024;

/** The data parts of a ConfigMap (`binaryData` values base64). */
export interface ConfigMapData {
  data?: Record<string, string> | null;
  binaryData?: Record<string, string> | null;
}

/**
 * Flattens ConfigMaps into one key → value map, later maps overriding earlier ones.
 * @throws Error naming the key when a `.gz` binaryData value is not valid gzip or inflates to more than
 *   {@link MAX_INFLATED_BYTES}
 */
export function flattenConfigMaps(maps: readonly (ConfigMapData | undefined)[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const cm of maps) {
    if (!cm) continue;
    for (const [k, v] of Object.entries(cm.data ?? {})) out[k] = v;
    for (const [k, v] of Object.entries(cm.binaryData ?? {})) {
      const bytes = Buffer.from(v, "base64");
      if (k.toLowerCase().endsWith(".gz")) {
        let text: string;
        try {
          text = gunzipSync(bytes, { maxOutputLength: MAX_INFLATED_BYTES }).toString("utf8");
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE")
            throw new Error(`binaryData key ${k} inflates to more than ${MAX_INFLATED_BYTES / 1024 / 1024} MiB, the limit`, { cause: err });
          throw new Error(`binaryData key ${k} is not valid gzip: ${(err as Error).message}`, { cause: err });
        }
        out[k.slice(0, -3)] = text;
      } else {
        out[k] = bytes.toString("utf8");
      }
    }
  }
  return out;
}
