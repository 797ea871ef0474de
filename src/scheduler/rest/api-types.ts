/**
 * The JSON shapes of the REST API as its readers see them: YuniKorn's DAO field names (apache/yunikorn-core
 * pkg/webservice/dao) for the endpoints the dashboard reads, and corral's own `/ws/v1/corral/*` endpoints. Types only:
 * the server builds these bodies, the dashboard (ui/) imports the same declarations, so a field renamed on one side
 * fails the other's type check.
 *
 * Units are YuniKorn's everywhere: resources `{name: integer}` with memory and ephemeral-storage in bytes and vcore in
 * millicores; times in Unix nanoseconds unless a field says otherwise. Human units are made by the dashboard only.
 */

/** A resource map, YuniKorn units. */
export type Resource = Record<string, number>;

/** PartitionQueueDAOInfo (`/ws/v1/partition/{p}/queues`, `/queue/{q}?subtree`). Empty resources are left out. */
export interface QueueInfo {
  queuename: string;
  status: string;
  partition: string;
  pendingResource?: Resource;
  maxResource?: Resource;
  guaranteedResource?: Resource;
  allocatedResource?: Resource;
  isLeaf: boolean;
  isManaged: boolean;
  parent: string;
  childNames: string[];
  /** maxapplications, 0 = unlimited. */
  maxRunningApps: number;
  runningApps: number;
  /** Ids of the applications below that allocate while still accepted (a gang placing placeholders); absent when none. */
  allocatingAcceptedApps?: string[];
  sortingPolicy: string;
  prioritySorting: boolean;
  absUsedCapacity?: Resource;
  /** Usage chosen as preemption victims and not released yet. */
  preemptingResource?: Resource;
  /** max − allocated down the path, the smallest per type (zeros kept). */
  headroom?: Resource;
  /** The properties in force (own over inherited). */
  properties?: Record<string, string>;
  /** TemplateInfo: the child template dynamic queues below get. */
  template?: { maxApplications?: number; maxResource?: Resource; guaranteedResource?: Resource; properties?: Record<string, string> };
  /** Go durations (`30s`, `1m30s`). */
  preemptionDelay?: string;
  quotaPreemptionDelay?: string;
  priorityOffset?: number;
  children?: QueueInfo[];
}

/** AllocationDAOInfo. */
export interface AllocationInfo {
  allocationKey: string;
  allocationTags?: Record<string, string>;
  requestTime?: number;
  allocationTime?: number;
  resource?: Resource;
  priority?: string;
  nodeId?: string;
  applicationId?: string;
  placeholder?: boolean;
  taskGroupName?: string;
  /** Chosen as a preemption victim and not released yet. */
  preempted?: boolean;
  /** The application's originator pod. */
  originator?: boolean;
}

/** AllocationAskDAOInfo. */
export interface AskInfo {
  allocationKey: string;
  allocationTags?: Record<string, string>;
  requestTime?: number;
  resource?: Resource;
  priority?: string;
  requiredNodeId?: string;
  applicationId?: string;
  /** AllocationAskLogDAOInfo: each hold reason seen, `lastOccurrence` in Unix ns. */
  allocationLog?: { message: string; lastOccurrence: number; count: number }[];
}

/** ApplicationDAOInfo (`applications/active`, `application/{id}`). */
export interface ApplicationInfo {
  applicationID: string;
  usedResource?: Resource;
  maxUsedResource?: Resource;
  pendingResource?: Resource;
  partition: string;
  queueName: string;
  submissionTime?: number;
  finishedTime?: number;
  requests?: AskInfo[];
  allocations?: AllocationInfo[];
  applicationState?: string;
  user?: string;
  groups?: string[];
  rejectedMessage?: string;
  stateLog?: { time: number; applicationState: string }[];
  /** Unix milliseconds, as upstream. */
  startTime?: number;
  /** Gang scheduling, per task group (upstream PlaceholderData): placeholders asked, replaced and timed out. */
  placeholderData?: { taskGroupName: string; count: number; minResource: Resource; replaced: number; timedout: number }[];
  /** Resource × seconds of released allocations per node instance type (always present; series left out while empty). */
  resourceHistory?: {
    resourceUsage?: Record<string, Resource>;
    preemptedResource?: Record<string, Resource>;
    placeholderResource?: Record<string, Resource>;
  };
}

/** NodeDAOInfo (`/ws/v1/partition/{p}/nodes`). */
export interface NodeInfo {
  nodeID: string;
  hostName: string;
  rackName: string;
  attributes?: Record<string, string>;
  capacity: Resource;
  allocated: Resource;
  occupied: Resource;
  available: Resource;
  /** Percent per resource type. */
  utilized: Resource;
  allocations: AllocationInfo[];
  /** Pods of other schedulers on the node (YuniKorn 1.6+ ForeignAllocationDAOInfo); absent when none. */
  foreignAllocations?: {
    allocationKey: string;
    allocationTime?: number;
    resource?: Resource;
    priority?: string;
    nodeId?: string;
    preemptable?: boolean;
  }[];
  schedulable: boolean;
  isReserved: boolean;
}

/** PartitionNodesUtilDAOInfo (`/ws/v1/scheduler/node-utilizations`): ten buckets per resource type. */
export interface NodeUtilizations {
  clusterId: string;
  partition: string;
  utilizations?: { type: string; utilization: { bucketName: string; numOfNodes?: number; nodeNames?: string[] }[] }[];
}

/** ResourceUsageDAOInfo: one level of a user's or group's usage tree. */
export interface UsageTree {
  queuePath: string;
  resourceUsage?: Resource;
  runningApplications?: string[];
  children?: UsageTree[];
}

/** UserResourceUsageDAOInfo / GroupResourceUsageDAOInfo (`usage/users`, `usage/groups`). */
export interface UsageInfo {
  userName?: string;
  groupName?: string;
  groups?: Record<string, string>;
  applications?: string[];
  queues?: UsageTree;
}

/** EventRecord (`/ws/v1/events/batch`, `/ws/v1/events/stream`). */
export interface EventRecord {
  type: string;
  objectID: string;
  referenceID?: string;
  message?: string;
  timestampNano: number;
  eventChangeType?: string;
  eventChangeDetail?: string;
  resource?: Resource;
}

/** `/ws/v1/scheduler/shim` (cluster mode only): the shim's own state. */
export interface ShimStatus {
  ready: boolean;
  mode: string;
  schedulerName: string;
  leader: boolean;
  config: { error?: string; loadedAt?: string };
  tasks: Record<string, number>;
}

/** YuniKorn's error body. */
export interface ErrorBody {
  status_code: number;
  message: string;
  description: string;
}

// ------------------------------------------------------------------ corral's own endpoints

/** A user or group limit that holds an ask or an application back (the core's `LimitHold`, core units). */
export interface LimitHoldInfo {
  kind: "user" | "group";
  /** The user, or the group the application is tracked under (`*`: the shared wildcard group). */
  name: string;
  /** Queue where the limit is configured. */
  queuePath: string;
  wildcard: boolean;
  limit: { type: "resources"; max: Resource; used: Resource; ask: Resource } | { type: "applications"; max: number; running: number };
}

/**
 * Why a pending ask waits, as data: the kinds of the core's hold reason. `state` is the shim's scheduling state
 * (`Skipped`: a quota, `Failed`: no node), `message` the text the pod's condition carries.
 */
export type HoldReasonInfo = { state: "Skipped" | "Failed"; message: string } &
  /** A queue below root would exceed its max. */
  (
    | { kind: "queueMax"; queuePath: string; max: Resource; used: Resource; ask: Resource }
    /** The cluster (the sum of node capacities) has no room left for the ask. */
    | { kind: "clusterCapacity"; capacity: Resource; used: Resource; ask: Resource }
    /** maxapplications of a queue on the path is reached while the application waits to run. */
    | { kind: "queueMaxApplications"; queuePath: string; maxApplications: number }
    /** A user or group limit on the application's queue path. */
    | { kind: "limit"; hold: LimitHoldInfo }
    /** No schedulable node has the ask free now. */
    | { kind: "noNodeFits"; ask: Resource; nodes: number }
    /** The application's leaf became a parent queue in a new configuration: its asks wait until it is a leaf again. */
    | { kind: "queueNotLeaf"; queuePath: string }
    /** Nodes have room, but none passes the pod's node selector, affinity or tolerations. */
    | { kind: "noNodeMatches"; ask: Resource }
    /** The ask reserved a node and waits for it to have room. */
    | { kind: "reservation"; nodeId: string; ask: Resource; available: Resource }
    /**
     * Preemption under way: the pod reserved `nodeId` and waits for its victims to be released; `guarantee` is the
     * nearest queue on its path with a guarantee (what preemption brings it towards) and that queue's usage now.
     */
    | {
        kind: "preemption";
        nodeId: string;
        ask: Resource;
        available: Resource;
        queuePath: string;
        guarantee?: { queuePath: string; guaranteed: Resource; allocated: Resource };
        /** The queue whose subtree the victims were searched in (preemption fence; root without one). */
        fence: string;
        /** When the victims were chosen, Unix milliseconds. */
        since: number;
        victims: readonly PreemptionVictimInfo[];
      }
    /**
     * Gang scheduling: the application is reserving; its real pods wait until every placeholder is allocated.
     * `taskGroups`: placeholders asked (minMember) and allocated now, per task group.
     */
    | {
        kind: "gangReservation";
        appId: string;
        allocated: Resource;
        reservation: Resource;
        taskGroups: readonly { taskGroupName: string; minMember: number; allocated: number }[];
      }
  );

/**
 * A victim of a preemption under way (the core's decision, core/preemption/result.ts): its allocation, the rules that
 * allowed taking it and whether it is released yet (until then it stays allocated, with `preempted: true` in
 * AllocationDAOInfo).
 */
export interface PreemptionVictimInfo {
  allocationKey: string;
  applicationId: string;
  queuePath: string;
  nodeId: string;
  resource: Resource;
  priority: number;
  /** Unix milliseconds. */
  createTime: number;
  placeholder: boolean;
  originator: boolean;
  /** False: the pod opted out of preemption (chosen last). */
  allowPreemption: boolean;
  released: boolean;
  /** Its queue is above its guarantee (own `guaranteed`, absent when only a parent has one) and stays at or above it. */
  queueRule: { rule: "victim-queue-over-guarantee"; queue: string; guaranteed?: Resource; allocated: Resource };
  priorityRule:
    { rule: "priority-lower-or-equal"; victimPriority: number; askPriority: number } | { rule: "inside-priority-fence"; fence: string };
  helps: { rule: "frees-node"; nodeId: string } | { rule: "frees-queue-quota"; fence: string };
  /** The victim's pod (`/ws/v1/corral/pending` only, from its allocationTags; absent once released). */
  namespace?: string;
  pod?: string;
}

/** The kinds of hold reason (`HoldReasonInfo.kind`). */
export type HoldKind = HoldReasonInfo["kind"];

/** One waiting pod (pending ask) of `GET /ws/v1/corral/pending`. */
export interface PendingPod {
  /** From the ask's allocationTags (`kubernetes.io/meta/namespace`, `kubernetes.io/meta/podName`); "" without a pod. */
  namespace: string;
  pod: string;
  allocationKey: string;
  applicationId: string;
  partition: string;
  queue: string;
  user: string;
  groups: string[];
  /** The application's state (a pod of an `Accepted` application waits to run). */
  applicationState: string;
  /** The ask's resources. */
  resource: Resource;
  /** When the ask was made, Unix milliseconds. */
  since: number;
  /** Absent: nothing holds it; it is placed in the next cycle. */
  hold?: HoldReasonInfo;
}

/** `GET /ws/v1/corral/pending`: every pending ask of the partition, oldest first. */
export interface PendingList {
  partition: string;
  /** When the list was computed, Unix milliseconds. */
  time: number;
  pending: PendingPod[];
}

/** One configured user or group limit of `GET /ws/v1/corral/limits` (core units; `maxApplications` 0 = unlimited). */
export interface LimitInfo {
  queuePath: string;
  kind: "user" | "group";
  /** The user or group; `*` for the wildcard limit. */
  name: string;
  maxResources?: Resource;
  maxApplications: number;
}

/**
 * One application of `GET /ws/v1/corral/applications`: what a list needs, without the allocations, asks and state log
 * of ApplicationDAOInfo (those come with `/ws/v1/partition/{p}/application/{id}`).
 */
export interface ApplicationSummary {
  applicationID: string;
  queueName: string;
  user: string;
  groups: string[];
  applicationState: string;
  /** Unix milliseconds. */
  submissionTime: number;
  /** Allocated (running) and pending asks. */
  running: number;
  waiting: number;
  /** Allocations chosen as preemption victims and not released yet (counted in `running`). */
  preempted: number;
  usedResource: Resource;
  pendingResource: Resource;
  rejectedMessage?: string;
}

/** One node of `GET /ws/v1/corral/nodes`: NodeDAOInfo's numbers with the allocations counted, not listed. */
export interface NodeSummary {
  nodeID: string;
  schedulable: boolean;
  capacity: Resource;
  allocated: Resource;
  occupied: Resource;
  available: Resource;
  /** Percent per resource type (allocated / capacity). */
  utilized: Resource;
  allocations: number;
}
