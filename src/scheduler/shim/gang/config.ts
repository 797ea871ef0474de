/**
 * Gang scheduling keys of the scheduler configuration (apache/yunikorn-k8shim pkg/conf/schedulerconf.go
 * `service.disableGangScheduling`, `service.placeholderImage`, `service.placeholderRunAsUser`,
 * `service.placeholderRunAsGroup`, `service.placeholderFsGroup`), read from the flattened ConfigMaps
 * (`flattenConfigMaps`). Upstream does not reload them: they are read when the scheduler starts. Pure.
 *
 * Unlike upstream, which logs a bad value and keeps going, a bad value is an error naming the key and the value; the
 * caller keeps the last good configuration (for the first load: the defaults).
 */
import { parseGoBool } from "../../../util/go-strconv.js";
import {
  CONF_DISABLE_GANG_SCHEDULING,
  CONF_PLACEHOLDER_FS_GROUP,
  CONF_PLACEHOLDER_IMAGE,
  CONF_PLACEHOLDER_RUN_AS_GROUP,
  CONF_PLACEHOLDER_RUN_AS_USER,
  DEFAULT_PLACEHOLDER_IMAGE,
} from "./constants.js";
import { CONF_SCHEDULER_USER, defaultSchedulerUser } from "../../../yunikorn/scheduler-identity.js";

/** How placeholder pods are built. A cluster without internet access needs `image` in a registry it can reach. */
export interface PlaceholderConfig {
  /** Image of the placeholder's only container (default `registry.k8s.io/pause:3.7`, as upstream). */
  image: string;
  /** Pod security context ids; unset (upstream: 0 = unset) leaves them to the image (pause runs as 65535). */
  runAsUser?: number;
  runAsGroup?: number;
  fsGroup?: number;
}

/**
 * Gang scheduling settings from the scheduler ConfigMap (`service.disableGangScheduling`, `service.placeholder*`,
 * `service.schedulerUser`), read once at start (upstream: not reloadable).
 */
export interface GangConfig {
  disableGangScheduling: boolean;
  placeholder: PlaceholderConfig;
  /**
   * `service.schedulerUser`: the user.info user of placeholders the scheduler created (the admission controller
   * stamps the creator). A pod flagged as placeholder by anyone else is an ordinary pod of its own user.
   */
  schedulerUser: string;
}

/** Gang scheduling on, placeholders from `registry.k8s.io/pause:3.7` with the image's own ids, the default scheduler user. */
export const DEFAULT_GANG_CONFIG: Readonly<GangConfig> = Object.freeze({
  disableGangScheduling: false,
  placeholder: Object.freeze({ image: DEFAULT_PLACEHOLDER_IMAGE }),
  schedulerUser: defaultSchedulerUser(),
});

/**
 * The gang keys of a flat configuration map (other keys are ignored).
 * @param o.namespace the scheduler's namespace, for the default `service.schedulerUser` (default `corral`)
 * @returns the configuration, or every bad key with its value (`service.placeholderRunAsUser: must be an integer ≥ 0, got "root"`)
 */
export function parseGangConfig(
  flat: Readonly<Record<string, string>>,
  o: { namespace?: string } = {},
): { ok: true; config: GangConfig } | { ok: false; errors: string[] } {
  const errors: string[] = [];
  const bad = (key: string, need: string) => errors.push(`${key}: ${need}, got ${JSON.stringify(flat[key])}`);
  let disableGangScheduling = false;
  const d = flat[CONF_DISABLE_GANG_SCHEDULING];
  if (d !== undefined) {
    const b = parseGoBool(d);
    if (b === undefined) bad(CONF_DISABLE_GANG_SCHEDULING, "must be true or false");
    else disableGangScheduling = b;
  }
  const placeholder: PlaceholderConfig = { image: flat[CONF_PLACEHOLDER_IMAGE]?.trim() || DEFAULT_PLACEHOLDER_IMAGE };
  if (/\s/.test(placeholder.image)) bad(CONF_PLACEHOLDER_IMAGE, "must be an image reference without spaces");
  const ids = [
    [CONF_PLACEHOLDER_RUN_AS_USER, "runAsUser"],
    [CONF_PLACEHOLDER_RUN_AS_GROUP, "runAsGroup"],
    [CONF_PLACEHOLDER_FS_GROUP, "fsGroup"],
  ] as const;
  for (const [key, field] of ids) {
    const v = flat[key];
    if (v === undefined || v.trim() === "") continue;
    if (!/^\+?\d+$/.test(v.trim()) || !Number.isSafeInteger(Number(v))) {
      bad(key, "must be an integer ≥ 0");
      continue;
    }
    const n = Number(v);
    if (n !== 0) placeholder[field] = n;
  }
  const schedulerUser = flat[CONF_SCHEDULER_USER]?.trim() || defaultSchedulerUser(o.namespace);
  return errors.length > 0 ? { ok: false, errors } : { ok: true, config: { disableGangScheduling, placeholder, schedulerUser } };
}
