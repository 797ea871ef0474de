/**
 * Gang scheduling keys and defaults, spelled exactly as Apache YuniKorn spells them (apache/yunikorn-k8shim
 * pkg/common/constants/constants.go "Gang scheduling", pkg/conf/schedulerconf.go; apache/yunikorn-core
 * pkg/scheduler/objects/application.go). One place, so a key is never typed twice.
 *
 * Upstream no longer reads the old placeholder markers (label `placeholder`, annotation
 * `yunikorn.apache.org/placeholder`; removed in YUNIKORN-3315), and the gang annotations never had older names, so
 * there are no legacy keys here.
 */

/** Pod annotation: JSON list of the application's task groups (read from the application's first pod). */
export const ANNOTATION_TASK_GROUPS = "yunikorn.apache.org/task-groups";
/** Pod annotation: the task group this pod belongs to. */
export const ANNOTATION_TASK_GROUP_NAME = "yunikorn.apache.org/task-group-name";
/** Pod annotation: `placeholderTimeoutInSeconds=N gangSchedulingStyle=Soft|Hard`. */
export const ANNOTATION_SCHEDULING_POLICY_PARAMETERS = "yunikorn.apache.org/schedulingPolicyParameters";
/** Set to `"true"` on placeholder pods only (see yunikorn/constants.ts). */
export { ANNOTATION_PLACEHOLDER_FLAG } from "../../../yunikorn/constants.js";

/** The annotations this module reads, for typed problems. */
export type GangAnnotation =
  typeof ANNOTATION_TASK_GROUPS | typeof ANNOTATION_TASK_GROUP_NAME | typeof ANNOTATION_SCHEDULING_POLICY_PARAMETERS;

/** Scheduling policy parameter names and their separator. */
export const PARAM_PLACEHOLDER_TIMEOUT = "placeholderTimeoutInSeconds";
/** `gangSchedulingStyle=Soft|Hard`: what happens when the placeholder timeout passes (upstream `gangSchedulingStyle`). */
export const PARAM_GANG_SCHEDULING_STYLE = "gangSchedulingStyle";
/** Separator of `key=value` pairs in `yunikorn.apache.org/schedulingPolicyParameters` (a space, as upstream). */
export const SCHEDULING_POLICY_PARAM_DELIMITER = " ";

export {
  type GangSchedulingStyle,
  DEFAULT_GANG_SCHEDULING_STYLE,
  DEFAULT_PLACEHOLDER_TIMEOUT_MS,
  RESERVATION_TIMEOUT_FAILURE,
} from "../../core/gang/constants.js";

/** The placeholder pod's container and defaults. */
export const DEFAULT_PLACEHOLDER_IMAGE = "registry.k8s.io/pause:3.7";
/** Name of the placeholder pod's only container (upstream `pause`). */
export const PLACEHOLDER_CONTAINER_NAME = "pause";
/** Restart policy of placeholder pods (`Never`, as upstream). */
export const PLACEHOLDER_RESTART_POLICY = "Never";

/** Scheduler configuration keys (ConfigMap `yunikorn-configs`, read once at start as upstream: not reloadable). */
export const CONF_DISABLE_GANG_SCHEDULING = "service.disableGangScheduling";
/** `service.placeholderImage`: image of the placeholder container (default {@link DEFAULT_PLACEHOLDER_IMAGE}). */
export const CONF_PLACEHOLDER_IMAGE = "service.placeholderImage";
/** `service.placeholderRunAsUser`: `runAsUser` of placeholder pods, an integer ≥ 0 (0 = unset, as upstream). */
export const CONF_PLACEHOLDER_RUN_AS_USER = "service.placeholderRunAsUser";
/** `service.placeholderRunAsGroup`: `runAsGroup` of placeholder pods, an integer ≥ 0 (0 = unset, as upstream). */
export const CONF_PLACEHOLDER_RUN_AS_GROUP = "service.placeholderRunAsGroup";
/** `service.placeholderFsGroup`: `fsGroup` of placeholder pods, an integer ≥ 0 (0 = unset, as upstream). */
export const CONF_PLACEHOLDER_FS_GROUP = "service.placeholderFsGroup";

/** Event reason of every gang event on the originating pod (upstream writes the step as the event's action). */
export const EVENT_REASON_GANG = "GangScheduling";
