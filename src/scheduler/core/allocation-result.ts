/**
 * What one scheduling step decided (apache/yunikorn-core pkg/scheduler/objects/allocation_result.go; yunikorn-core
 * reference §4.1): at most one result per step. `allocated` and `allocatedReserved` go to the resource manager as new
 * allocations; `reserved` and `unreserved` change only the core's state; `replaced` (a real ask takes a placeholder's
 * place, gang scheduling) hands a new allocation over too; `preempting` asks the resource manager to release victims
 * so an ask can run on the node reserved for it, `quotaPreempting` so a queue comes back under its lowered max.
 */
import type { Application, Ask } from "./application.js";
import type { QuotaPreempting } from "./preemption/quota.js";
import type { Preempting } from "./preemption/result.js";
import type { Res } from "./resources.js";

/** A decision of the core: the ask `key` of `appId` goes to `nodeId`. */
export interface Allocation {
  key: string;
  appId: string;
  nodeId: string;
  /** Core units (memory bytes, vcore millicores). */
  resource: Res;
  /** Leaf queue path of the application. */
  queue: string;
  /** Gang scheduling: a placeholder allocation, and the task group of the ask. */
  placeholder?: boolean;
  taskGroup?: string;
}

/**
 * The outcome of one allocation attempt of the partition (apache/yunikorn-core
 * pkg/scheduler/objects/allocation_result.go), one variant per `kind` below.
 */
export type AllocationResult =
  /** Placed on the first node in order with room. */
  | { readonly kind: "allocated"; readonly allocation: Allocation }
  /** A reserved ask placed: on its reserved node, or elsewhere (`reservedNode` then released). */
  | { readonly kind: "allocatedReserved"; readonly allocation: Allocation; readonly reservedNode: string }
  /** No node has room now: `nodeId` is kept for the ask (reference §4.6). */
  | { readonly kind: "reserved"; readonly appId: string; readonly key: string; readonly nodeId: string }
  /** A reservation was given up without an allocation. */
  | {
      readonly kind: "unreserved";
      readonly appId: string;
      readonly key: string;
      readonly nodeId: string;
      /**
       * `preemptionEnded`: the victims of a preemption are gone and the node still has no room for the ask;
       * `queueNotLeaf`: a configuration made the ask's leaf a parent queue (its asks wait, the node is free for others).
       */
      readonly cause: "askRemoved" | "nodeRemoved" | "nodeUnschedulable" | "askChanged" | "preemptionEnded" | "queueNotLeaf";
    }
  /** Gang scheduling: the real ask takes the placeholder `placeholderKey`'s node; `placeholder` is the allocation gone. */
  | { readonly kind: "replaced"; readonly allocation: Allocation; readonly placeholderKey: string; readonly placeholder: Allocation }
  /**
   * Preemption: `victims` are to be released so the ask can run on `nodeId`, now reserved for it (it is allocated
   * there once they are gone); `preemption` is the decision with the rules that allowed each victim.
   */
  | {
      readonly kind: "preempting";
      readonly appId: string;
      readonly key: string;
      readonly nodeId: string;
      readonly victims: readonly Allocation[];
      readonly preemption: Preempting;
    }
  /**
   * Quota-change preemption (rule 8): `victims` are to be released so `queue` comes back under its lowered max;
   * `preemption` is the decision with the rule that allowed each victim. No node is reserved, no ask waits on it.
   */
  | {
      readonly kind: "quotaPreempting";
      readonly queue: string;
      readonly victims: readonly Allocation[];
      readonly preemption: QuotaPreempting;
    };

/** The allocation a result hands to the resource manager, if any. */
export function allocationOf(r: AllocationResult): Allocation | undefined {
  return r.kind === "allocated" || r.kind === "allocatedReserved" || r.kind === "replaced" ? r.allocation : undefined;
}

/** The allocation record of an ask of `app` on `nodeId` (a copy of its resource). */
export function allocationOfAsk(app: Application, ask: Ask, nodeId: string): Allocation {
  const a: Allocation = { key: ask.key, appId: app.id, nodeId, resource: { ...ask.resource }, queue: app.queue.path };
  if (ask.placeholder) a.placeholder = true;
  if (ask.taskGroup) a.taskGroup = ask.taskGroup;
  return a;
}
