/**
 * core/v1 Events as corral's processes record them (one Event per occurrence, `count: 1`; the API server names it from
 * `generateName`).
 */
import type { k8s } from "./client.js";

/** The object an Event is about. */
export interface InvolvedObject {
  kind: string;
  name: string;
  namespace?: string;
  uid?: string;
  apiVersion?: string;
}

/** What an Event says and who reports it. */
export interface EventInfo {
  type: "Normal" | "Warning";
  /** CamelCase reason, e.g. `Scheduled`. */
  reason: string;
  /** Cut at 1024 characters. */
  message: string;
  /** `source.component` and `reportingComponent`. */
  component: string;
  /** `reportingInstance` (e.g. the replica's identity). */
  instance?: string;
}

/** An Event body for `createNamespacedEvent` in the object's namespace (`default` for cluster-scoped objects). */
export function eventFor(obj: InvolvedObject, { type, reason, message, component, instance }: EventInfo): k8s.CoreV1Event {
  const now = new Date();
  return {
    metadata: { generateName: `${obj.name}.`, namespace: obj.namespace ?? "default" },
    involvedObject: { apiVersion: "v1", ...obj },
    reason,
    type,
    message: message.slice(0, 1024),
    source: { component },
    reportingComponent: component,
    ...(instance ? { reportingInstance: instance } : {}),
    firstTimestamp: now,
    lastTimestamp: now,
    count: 1,
  };
}
