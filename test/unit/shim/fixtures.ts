/**
 * Fixtures of the shim tests (ShimContext against a real SchedulerCore): the clock's start, Node objects as the API
 * server returns them, and helpers over ShimAction lists.
 */
import type { NodeObject, ShimAction } from "../../../src/scheduler/shim/context.js";

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
