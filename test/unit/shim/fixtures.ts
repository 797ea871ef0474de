/**
 * Fixtures of the shim tests (ShimContext against a real SchedulerCore): the clock's start, Node objects as the API
 * server returns them, pods likewise, and helpers over ShimAction lists.
 */
import type { NodeObject, ShimAction } from "../../../src/scheduler/shim/context.js";
import type { PodObject } from "../../../src/scheduler/shim/translate.js";

/** The instant (ms since the epoch) the tests' clocks start from. */
export const T0 = Date.parse("2026-01-05T10:00:00Z");

/**
 * A schedulable Node with `cpu` (default "4") and `memory` (default "8Gi") allocatable and 110 pods; `spec.unschedulable`
 * only when given.
 */
export function fakeNode(name: string, o: { cpu?: string; memory?: string; unschedulable?: boolean } = {}): NodeObject {
  return {
    metadata: { name, uid: `node-uid-${name}` },
    spec: o.unschedulable === undefined ? {} : { unschedulable: o.unschedulable },
    status: { allocatable: { cpu: o.cpu ?? "4", memory: o.memory ?? "8Gi", pods: "110" } },
  };
}

/** The actions of kind `k` among `a`, typed as that kind. */
export const ofKind = <K extends ShimAction["kind"]>(a: readonly ShimAction[], k: K) =>
  a.filter((x): x is Extract<ShimAction, { kind: K }> => x.kind === k);

/**
 * A pod as the API server returns it: uid `uid-<name>` unless `uid` is given, scheduler `yunikorn` unless `scheduler`
 * is, one container (`container`, default "c") requesting `requests`, bound to `node` when given; phase `phase`, else
 * Running when bound and Pending when not. `metadata` and `spec` add further fields (owner references, priority…).
 * @param o.created creationTimestamp (RFC 3339)
 */
export function shimPod(
  name: string,
  o: {
    namespace: string;
    created: string;
    requests: Record<string, string>;
    uid?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    container?: string;
    node?: string;
    phase?: string;
    scheduler?: string;
    metadata?: Partial<PodObject["metadata"]>;
    spec?: Partial<NonNullable<PodObject["spec"]>>;
  },
): PodObject {
  return {
    metadata: {
      name,
      namespace: o.namespace,
      uid: o.uid ?? `uid-${name}`,
      labels: { ...(o.labels ?? {}) },
      annotations: { ...(o.annotations ?? {}) },
      creationTimestamp: o.created,
      ...o.metadata,
    } as PodObject["metadata"],
    spec: {
      schedulerName: o.scheduler ?? "yunikorn",
      containers: [{ name: o.container ?? "c", resources: { requests: { ...o.requests } } }],
      ...(o.node ? { nodeName: o.node } : {}),
      ...o.spec,
    } as PodObject["spec"],
    status: { phase: o.phase ?? (o.node ? "Running" : "Pending") },
  };
}
