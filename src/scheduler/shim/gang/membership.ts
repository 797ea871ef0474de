/**
 * What a pod says about gangs (apache/yunikorn-k8shim pkg/cache/metadata.go getAppMetadata / getTaskMetadata,
 * pkg/common/utils/utils.go GetTaskGroupFromPodSpec / GetPlaceholderFlagFromPodSpec, pkg/cache/gang_utils.go
 * FindAppTaskGroup; yunikorn-shim reference §2.3, §2.5). Pure.
 *
 * Invalid task-group JSON does not stop the pod: the application is scheduled without a gang and the caller writes
 * a Warning event naming the problem (upstream's behaviour; refusing the pod at admission would break workloads that
 * run unchanged on YuniKorn). See docs/gang-scheduling.md.
 */
import { parseGoBool } from "../../../util/go-strconv.js";
import { type PodObject, identityOf } from "../translate.js";
import {
  ANNOTATION_PLACEHOLDER_FLAG,
  ANNOTATION_SCHEDULING_POLICY_PARAMETERS,
  ANNOTATION_TASK_GROUP_NAME,
  ANNOTATION_TASK_GROUPS,
} from "./constants.js";
import { type IgnoredParameter, type SchedulingPolicyParameters, parseSchedulingPolicyParameters } from "./policy-parameters.js";
import { type TaskGroup, type TaskGroupsProblem, parseTaskGroups } from "./task-groups.js";

/** An application's gang, from its first pod. */
export interface GangSpec {
  /** Empty: not a gang (no annotation, invalid annotation, or gang scheduling disabled). */
  taskGroups: TaskGroup[];
  /** The task-groups annotation as written ("" when absent or disabled), copied onto placeholders for recovery. */
  taskGroupsDefinition: string;
  schedulingPolicyParameters: SchedulingPolicyParameters;
  /** The schedulingPolicyParameters annotation as written (""), copied onto placeholders for recovery. */
  schedulingParamsDefinition: string;
}

/** The gang a pod describes ({@link gangSpecOf}), with the annotation problem and skipped parameters to report. */
export interface GangSpecResult {
  spec: GangSpec;
  /** Set when the task-groups annotation was refused: write a Warning event on the pod naming it. */
  problem?: TaskGroupsProblem;
  /** Scheduling policy pairs that were skipped, for the log. */
  ignoredParameters: IgnoredParameter[];
}

/** Options of {@link gangSpecOf}. */
export interface GangOptions {
  /** `service.disableGangScheduling`: task groups and task-group names are not read. */
  disableGangScheduling?: boolean;
}

/** The gang an application's first pod describes (getAppMetadata). */
export function gangSpecOf(pod: PodObject, o: GangOptions = {}): GangSpecResult {
  const ann = pod.metadata?.annotations ?? {};
  const params = parseSchedulingPolicyParameters(ann[ANNOTATION_SCHEDULING_POLICY_PARAMETERS]);
  const base = {
    schedulingPolicyParameters: params.parameters,
    schedulingParamsDefinition: ann[ANNOTATION_SCHEDULING_POLICY_PARAMETERS] ?? "",
  };
  if (o.disableGangScheduling) return { spec: { taskGroups: [], taskGroupsDefinition: "", ...base }, ignoredParameters: params.ignored };
  const definition = ann[ANNOTATION_TASK_GROUPS] ?? "";
  const r = parseTaskGroups(definition);
  return r.ok
    ? { spec: { taskGroups: r.taskGroups, taskGroupsDefinition: definition, ...base }, ignoredParameters: params.ignored }
    : { spec: { taskGroups: [], taskGroupsDefinition: definition, ...base }, problem: r.problem, ignoredParameters: params.ignored };
}

/** The pod's `yunikorn.apache.org/task-group-name`, or undefined (also when gang scheduling is disabled). */
export function taskGroupNameOf(pod: PodObject, o: GangOptions = {}): string | undefined {
  if (o.disableGangScheduling) return undefined;
  return pod.metadata?.annotations?.[ANNOTATION_TASK_GROUP_NAME] || undefined;
}

/** True for a placeholder pod: annotation `internal.yunikorn.apache.org/placeholder` is a Go boolean true (`true`, `1`, `T` …). */
export function isPlaceholder(pod: PodObject): boolean {
  const v = pod.metadata?.annotations?.[ANNOTATION_PLACEHOLDER_FLAG];
  return v !== undefined && parseGoBool(v) === true;
}

/**
 * True for a placeholder the scheduler itself created: the placeholder flag AND user.info user `schedulerUser`
 * (`service.schedulerUser`; the admission controller stamps the creator and refuses the flag from anyone else). A
 * pod another user flagged — e.g. created while the admission webhook was down — is an ordinary pod of its own user.
 */
export function isTrustedPlaceholder(pod: PodObject, schedulerUser: string): boolean {
  return isPlaceholder(pod) && identityOf(pod).user === schedulerUser;
}

/** Which task group a pod belongs to. */
export type TaskGroupMatch =
  /** The pod names no group, or the application has none: an ordinary pod. */
  | { kind: "none" }
  | { kind: "member"; taskGroup: TaskGroup }
  /** The pod names a group the application does not define (`taskGroup <name> is not defined in the application`). */
  | { kind: "undefined"; name: string };

/** The task group of a pod naming `name`, among the application's groups (FindAppTaskGroup). */
export function findTaskGroup(taskGroups: readonly TaskGroup[], name: string | undefined): TaskGroupMatch {
  if (!name || taskGroups.length === 0) return { kind: "none" };
  const taskGroup = taskGroups.find((g) => g.name === name);
  return taskGroup ? { kind: "member", taskGroup } : { kind: "undefined", name };
}
