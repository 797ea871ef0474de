/**
 * The scheduler-interface messages the core takes and answers with (apache/yunikorn-scheduler-interface si.proto:
 * NodeInfo, AddApplicationRequest, Allocation, AllocationRelease, the responses' rejections), in TypeScript. Resources
 * in the core's units (memory bytes, vcore millicores, `pods` count, others as given); `SchedulerCore` (scheduler.ts)
 * is the interface that takes them.
 */
import type { Allocation } from "./allocation-result.js";
import type { GangSchedulingStyle } from "./gang/constants.js";
import type { Res } from "./resources.js";
import type { TrackedLimit } from "./ugm/tracker.js";

/**
 * si.NodeInfo action: add a node schedulable (`CREATE`) or drained (`CREATE_DRAIN`), change its capacity or occupied
 * resources (`UPDATE`), stop or resume placing on it (`DRAIN_NODE`, `DRAIN_TO_SCHEDULABLE`), remove it and release
 * its allocations (`DECOMISSION`, upstream's spelling).
 */
export type NodeAction = "CREATE" | "UPDATE" | "DRAIN_NODE" | "DRAIN_TO_SCHEDULABLE" | "DECOMISSION" | "CREATE_DRAIN";

/** One node change of `updateNode` (si.NodeInfo). */
export interface NodeInfo {
  nodeID: string;
  action: NodeAction;
  /** Allocatable capacity (memory bytes, vcore millicores, other units). */
  schedulableResource?: Res;
  /** Used by pods the core does not manage. */
  occupiedResource?: Res;
  attributes?: Record<string, string>;
  /** Partition name; default `default`. */
  partition?: string;
}

/**
 * A new application of `updateApplication` (si.AddApplicationRequest): placed by the partition's placement rules
 * from `queueName` and `tags` (`namespace`, `namespace.*` annotations), owned by `ugi` (groups as the RM resolved
 * them, design 002).
 */
export interface AddApplicationRequest {
  applicationID: string;
  queueName: string;
  partitionName?: string;
  ugi: { user: string; groups?: string[] };
  tags?: Record<string, string>;
  /**
   * Gang scheduling (upstream placeholderAsk): Σ over the task groups of minMember × placeholder resource. Set and
   * not zero: the application must be in a FIFO leaf queue whose max (and its parents') can hold all of it, else it is
   * rejected; it reserves with placeholders before its real asks are scheduled.
   */
  placeholderAsk?: Res;
  /** Placeholder timeout in milliseconds (upstream executionTimeoutMilliSeconds); 0 or unset: 15 minutes. */
  executionTimeoutMilliSeconds?: number;
  gangSchedulingStyle?: GangSchedulingStyle;
}

/**
 * An ask or an existing allocation of `updateAllocation` (si.Allocation); keyed by `allocationKey` within its
 * application. Resources in the core's units (memory bytes, vcore millicores, `pods` count, others as given).
 */
export interface AllocationMessage {
  allocationKey: string;
  applicationID: string;
  partitionName?: string;
  resourcePerAlloc: Res;
  priority?: number;
  /** Set: an allocation the RM already made (recovery). Unset: a pending ask. */
  nodeID?: string;
  /** `creationTime` (Unix seconds), `yunikorn.apache.org/requiredNode`. */
  allocationTags?: Record<string, string>;
  /**
   * The RM's node check, called for nodes with room before one is chosen (YuniKorn: the shim's `Predicates`
   * callback, yunikorn-shim reference §2.12). Must be fast and pure; undefined: any node with room.
   */
  predicate?: (nodeID: string) => boolean;
  /** Gang scheduling: a placeholder ask (upstream `placeholder`). */
  placeholder?: boolean;
  /** Gang scheduling: the task group of the ask (placeholder or real pod); upstream `taskGroupName`. */
  taskGroupName?: string;
  /**
   * si.PreemptionPolicy of the pod (shim/preemption.ts): `allowPreemptSelf` false — opted out of being a victim
   * (`yunikorn.apache.org/allow-preemption: "false"` on the pod or its PriorityClass); `allowPreemptOther` false —
   * `preemptionPolicy: Never`. Unset: both true.
   */
  preemptionPolicy?: { allowPreemptSelf: boolean; allowPreemptOther: boolean };
  /** The application's originator (the pod that created it; upstream `originator`). */
  originator?: boolean;
}

/** A release of `updateAllocation` (si.AllocationRelease): the RM gives back one allocation or ask, or all of an app's. */
export interface AllocationRelease {
  applicationID: string;
  partitionName?: string;
  /** Empty: release every allocation and ask of the application. */
  allocationKey?: string;
  message?: string;
}

/** What the core refused (a node id, application id or allocation key) and why, in upstream's words. */
export interface Rejection {
  id: string;
  reason: string;
}

/** A queue maximum, or a user or group resource limit, with the usage it is measured against (`limitsOf`). */
export type LimitUsage = TrackedLimit | { kind: "queue"; name: string; path: string; wildcard: false; max: Res; used: Res };

/**
 * The answer to one `update*` call (si.NodeResponse, ApplicationResponse, AllocationResponse in one shape): ids
 * accepted, rejections with their reasons, and allocations the core released as a consequence.
 */
export interface CoreResponse {
  acceptedNodes: string[];
  rejectedNodes: Rejection[];
  acceptedApplications: string[];
  rejectedApplications: Rejection[];
  rejectedAllocations: Rejection[];
  /** Allocations released by the core (node or application removed), to be confirmed by the RM. */
  released: Allocation[];
}
