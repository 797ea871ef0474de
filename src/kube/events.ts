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

/**
 * An Event body for `createNamespacedEvent` in the object's namespace (`default` for cluster-scoped objects).
 * @param component `source.component` and `reportingComponent`
 * @param instance `reportingInstance` (e.g. the replica's identity)
 */
export function eventFor(
  obj: InvolvedObject,
  type: "Normal" | "Warning",
  reason: string,
  message: string,
  component: string,
  instance?: string,
): k8s.CoreV1Event {
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
