/**
 * Events and pod status the shim writes for gangs, with upstream's texts (apache/yunikorn-k8shim
 * pkg/cache/application.go, task.go, metadata.go; yunikorn-shim reference §2.13). Every gang event has reason
 * `GangScheduling` and names its step as the event's action; the object is the originating pod unless said otherwise.
 * Pure: data only, the caller records them.
 */
import { EVENT_REASON_GANG, RESERVATION_TIMEOUT_FAILURE } from "./constants.js";
import { type TaskGroupsProblem, describeTaskGroupsProblem } from "./task-groups.js";

/** A Kubernetes Event to record for a gang step: type, reason `GangScheduling`, the step as action, upstream's message. */
export interface GangEvent {
  type: "Normal" | "Warning";
  reason: typeof EVENT_REASON_GANG;
  action: string;
  message: string;
}

const normal = (action: string, message: string): GangEvent => ({ type: "Normal", reason: EVENT_REASON_GANG, action, message });
const warning = (action: string, message: string): GangEvent => ({ type: "Warning", reason: EVENT_REASON_GANG, action, message });

/** The gang events, one builder per step. */
export const gangEvents = {
  /** On the pod whose task-groups annotation was refused (the application then runs without a gang). */
  taskGroupsError: (p: TaskGroupsProblem) =>
    warning("TaskGroupsError", `unable to get taskGroups for pod, reason: ${describeTaskGroupsProblem(p)}`),
  /** On a real pod of a task group when it is submitted. */
  taskGroupMatch: (taskGroup: string) =>
    normal("TaskGroupMatch", `Pod belongs to the taskGroup ${taskGroup}, it will be scheduled as a gang member`),
  creatingPlaceholders: (appId: string) => normal("CreatingPlaceholders", `Application ${appId} creating placeholders`),
  /** On restart, the explicit timeout had already passed: no placeholders created. */
  placeholderTimeoutExceeded: (appId: string) =>
    warning("PlaceholderTimeout", `Application ${appId} placeholder timeout exceeded, not creating placeholders`),
  placeholderCreateFailed: (appId: string) => warning("PlaceholderCreateFailed", `Application ${appId} fall back to normal scheduling`),
  placeholderAllocated: (appId: string) => normal("PlaceholderAllocated", `Application ${appId} placeholder has been allocated.`),
  reservationComplete: (appId: string) =>
    normal("GangReservationComplete", `Application ${appId} all placeholders are allocated. Transitioning to running state.`),
  /** A placeholder released by the core with termination TIMEOUT. */
  placeholderTimedOut: (appId: string) => warning("PlaceholderTimeOut", `Application ${appId} placeholder has been timed out`),
  /** A placeholder smaller than the real pod of its group was released (the core's text names both sizes). */
  placeholderTooSmall: (coreMessage: string) => warning("PlaceholderTooSmall", coreMessage),
  /** The application entered Resuming (Soft timeout). */
  resumingAsNonGang: (appId: string) => warning("GangSchedulingFailed", `Application ${appId} resuming as non-gang application (SOFT)`),
} as const;

/**
 * Status written on each unscheduled real pod (New, Pending, Scheduling) of an application that failed because its
 * reservation timed out (Hard), or undefined when the failure message is about something else.
 */
export function reservationTimeoutPodStatus(failureMessage: string): { phase: "Failed"; reason: string; message: string } | undefined {
  if (!failureMessage.includes(RESERVATION_TIMEOUT_FAILURE)) return undefined;
  return { phase: "Failed", reason: RESERVATION_TIMEOUT_FAILURE, message: "Scheduling has timed out due to insufficient resources" };
}
