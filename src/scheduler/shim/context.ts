/**
 * The Kubernetes shim's state (yunikorn-shim reference §2-§4): Kubernetes objects in, calls to the core and actions
 * out. Pure — no API calls, no timers, no clock of its own; `src/processes/scheduler.ts` feeds it informer events and
 * carries out the actions it returns (bind, event, pod condition, activate).
 *
 * Every pod handler is level-triggered and idempotent (`syncPod` may see the same pod any number of times), so the
 * initial list, a watch restart or a periodic resync never double-counts a pod.
 *
 * Tasks (one per managed pod, key = pod UID) move Asked → Allocated → Bound; a failed bind rolls the allocation back
 * to an ask (upstream's SCHEDULING_FAILED_ON_RM release). Gang scheduling (docs/gang-scheduling.md): the first pod's
 * task groups become the application's placeholder ask; when the core moves the application to Reserving the shim
 * asks for the placeholder pods to be created; placeholders the core replaced or released go Releasing and are
 * deleted (again on every resync while they exist). In plugin mode (design 004, reference §4-5) an allocation
 * is not bound by us: it waits as Allocated until kube-scheduler's `filter` call takes it (InProgress) and its
 * `bind` call confirms it.
 */
import type { AddApplicationRequest, AllocationMessage, CoreResponse, SchedulerCore } from "../core/scheduler.js";
import { type HoldReason, formatHoldReason, holdEventText, holdState } from "../core/hold-reason.js";
import { type Res, addTo, sameResource, subFrom } from "../core/resources.js";
import type { LimitUsage } from "../core/scheduler.js";
import { ApplicationKeys } from "./app-keys.js";
import { exceededLimits, limitText, quantitiesText } from "./over-limit.js";
import { podResource } from "./pod-resources.js";
import { type NodeView, type PodConstraints, type Taint, nodeRejection } from "./predicates.js";
import {
  type PodObject,
  allocationOf,
  applicationIdOf,
  creationMs,
  applicationRequest,
  explicitApplicationId,
  identityOf,
  namespaceTags,
  nodeInfoOf,
  podTags,
} from "./translate.js";
import type { V1Pod } from "@kubernetes/client-node";
import { allocationOf as resultAllocation } from "../core/allocation-result.js";
import { DEFAULT_GANG_CONFIG, type GangConfig } from "./gang/config.js";
import { gangEvents, reservationTimeoutPodStatus } from "./gang/events.js";
import { type GangSpec, findTaskGroup, gangSpecOf, isPlaceholder, isTrustedPlaceholder, taskGroupNameOf } from "./gang/membership.js";
import { type OriginatorPod, buildPlaceholder, placeholderNonce } from "./gang/placeholder.js";
import { ANNOTATION_PLACEHOLDER_FLAG } from "./gang/constants.js";
import { placeholderTimeoutMs } from "./gang/policy-parameters.js";
import { gangReservation, placeholdersToCreate } from "./gang/reservation.js";
import { reservationStart } from "./gang/timeout.js";
import {
  preemptedMessage,
  preemptingMessage,
  preemptionBlockedMessage,
  quotaPreemptedMessage,
  quotaPreemptionBlockedMessage,
} from "./preemption-events.js";
import type { QuotaPreempting } from "../core/preemption/quota.js";
import type { Preempting } from "../core/preemption/result.js";
import { type PreemptionPodFields, type PriorityClassAnnotations, isOriginator, podPreemptionPolicy } from "./preemption.js";

/** Application tag: the originating pod's creation time, Unix seconds (upstream siCommon CreationTime). */
const APP_TAG_CREATION_TIME = "yunikorn.apache.org/creationTime";

/**
 * How allocations reach the API server (design 004): `standalone` binds pods itself; `plugin` leaves binding to
 * kube-scheduler's `filter`/`bind` calls.
 */
export type SchedulingMode = "standalone" | "plugin";

/** A pod as actions name it: namespace, name and UID (the UID is the precondition of deletes and the task key). */
export interface PodRef {
  namespace: string;
  name: string;
  uid: string;
}

/** The object an event is recorded on (`involvedObject`): a pod, a node, or the scheduler's ConfigMap. */
export interface ObjectRef {
  kind: "Pod" | "Node" | "ConfigMap";
  namespace?: string;
  name: string;
  uid?: string;
}

/** What the process must do against the API server. */
export type ShimAction =
  /**
   * POST pods/{name}/binding (standalone mode, and plugin mode's `bind` verb). `replaces`: a placeholder the pod takes
   * the place of, deleted first (gang scheduling).
   */
  | { kind: "bind"; pod: PodRef; node: string; replaces?: PodRef }
  /** Gang scheduling: create a placeholder pod of `owner`'s application (events about it go to `owner`). */
  | { kind: "createPod"; pod: V1Pod; owner: PodRef }
  /** Gang scheduling: delete a placeholder (grace period 0), retried; a missing pod is done. */
  | { kind: "deletePod"; pod: PodRef }
  /** Set the pod's status phase (a Hard gang timeout fails the unscheduled pods with its reason). */
  | { kind: "podStatus"; pod: PodRef; phase: "Failed"; reason: string; message: string }
  /**
   * Preemption: evict the victim pod (of `queue`) through the Eviction API (PodDisruptionBudgets apply) for the
   * pending ask `preemptor`, or to bring the queue `quota.queue` back under its lowered max (quota-change
   * preemption); once evicted, a Normal `Preempted` event with `message` on the pod; a refused eviction is reported
   * back with `evictionRefused`.
   */
  | ({ kind: "evict"; pod: PodRef; queue: string; message: string } & (
      | { preemptor: { applicationId: string; allocationKey: string; pod?: PodRef; queue: string }; quota?: undefined }
      | { quota: { queue: string }; preemptor?: undefined }
    ))
  /** For logs and metrics only: the core started a preemption for this ask (victims by allocation key). */
  | { kind: "preempting"; applicationId: string; allocationKey: string; queue: string; nodeId: string; victims: string[] }
  /** For logs and metrics only: the core started a quota-change preemption of this queue (victims by allocation key). */
  | { kind: "quotaPreempting"; queue: string; victims: string[] }
  /** Plugin mode: an allocation is ready; touch the pod so kube-scheduler retries it now (reference §5.4 Activate). */
  | { kind: "activate"; pod: PodRef; node: string }
  | { kind: "event"; object: ObjectRef; type: "Normal" | "Warning"; reason: string; message: string }
  /** Set the pod's `PodScheduled=False` condition with this reason and message. */
  | { kind: "condition"; pod: PodRef; reason: string; message: string }
  /**
   * For logs only: the pod names an application id held by another namespace or user, so it runs as its own core
   * application `applicationId` (see app-keys.ts).
   */
  | { kind: "notJoined"; pod: PodRef; podApplicationId: string; applicationId: string; user: string; differs: "namespace" | "user" }
  /** For logs and metrics only: an allocation recorded without a limit check exceeds these limits (see over-limit.ts). */
  | { kind: "overLimit"; pod: PodRef; applicationId: string; node: string; limits: LimitUsage[] };

/**
 * The fields of a Kubernetes Node the shim reads (a subset of client-node `V1Node`): name, uid, labels, taints,
 * `spec.unschedulable`, `status.allocatable` quantities.
 */
export interface NodeObject {
  metadata?: { name?: string; uid?: string; labels?: Record<string, string> };
  spec?: { unschedulable?: boolean; taints?: Taint[] };
  status?: { allocatable?: Record<string, string> };
}

/** `Releasing`: a placeholder the core replaced or released, waiting for its pod to be deleted. */
export type TaskState = "Asked" | "Rejected" | "Allocated" | "InProgress" | "Bound" | "Orphan" | "Releasing";

/** The shim's record of one managed pod (key: the pod UID); its `state` moves Asked → Allocated → Bound (module comment). */
export interface Task {
  pod: PodRef;
  /** Core application id: the pod's own id, or a derived one when another namespace or user holds it (app-keys.ts). */
  appId: string;
  /** The application id the pod names (label, annotation, `spark-app-selector`, or the generated one). */
  podAppId: string;
  /** User of the pod's `user.info`, charged for it. */
  user: string;
  /** The ask as sent to the core (without node), re-sent after a rollback. */
  ask: AllocationMessage;
  /** The application as this pod describes it, submitted when the core does not hold the application. */
  app: AddApplicationRequest;
  state: TaskState;
  /** Node of the allocation (Allocated, InProgress, Bound, Orphan). */
  node?: string;
  /** Last hold reported on the pod (its kind, state and text), so events are sent on change only. */
  held?: { kind: HoldReason["kind"]; state: "Skipped" | "Failed"; reason: string };
  /** Since when (ms, `ShimOptions.now`) the hold-reason sweep has seen the pod wait for its gang's reservation. */
  gangWaitSince?: number;
  /** Why the core rejected the ask or the application (Rejected). */
  rejection?: string;
  /** Plugin mode: kube-scheduler has been refused this pod at least once, so it must be activated. */
  refused?: boolean;
  /** The Scheduled event of the current binding was produced. */
  scheduledReported?: boolean;
  /** Limits the allocation exceeded when it was recorded without a limit check (a pod bound outside corral). */
  overLimit?: LimitUsage[];
  /** Gang scheduling: the application's gang, on the task whose pod described it (submitted with the application). */
  gang?: ShimGang;
}

/** An application's gang as the shim keeps it: the first pod's task groups and what placeholders are built from. */
export interface ShimGang {
  spec: GangSpec;
  /** The pod the gang was read from: placeholders are owned by it and copy its priority class. */
  originator: OriginatorPod;
  originatorRef: PodRef;
  /** The application id the originating pod names (label on the placeholders; a derived core id is no label value). */
  podAppId: string;
  /** The application's queue as the core placed it (label on the placeholders). */
  queue?: string;
  /** The originating pod has its PlaceholderAllocated event (written once per application, see schedule()). */
  placeholderAllocatedReported?: boolean;
  /** Its placeholders could not be created: it gave up its reservation and runs as a normal application. */
  createFailed?: boolean;
}

/** kube-scheduler extender `filter` answer (k8s.io/kube-scheduler/extender/v1 ExtenderFilterResult). */
export interface ExtenderFilterResult {
  Nodes: null;
  NodeNames: string[];
  FailedNodes: Record<string, string>;
  FailedAndUnresolvableNodes: Record<string, string>;
  Error: string;
}

/** One application in `ShimContext.applications()`. */
export interface ShimApplicationInfo {
  /** Core application id (REST `/ws/v1/partition/{p}/application/{id}`). */
  applicationID: string;
  /** The id the pods name (label `applicationId` / `yunikorn.apache.org/app-id`). */
  podApplicationID: string;
  namespace: string;
  /** User charged (the pods' `user.info`). */
  user: string;
  tasks: number;
  overLimitAllocations: { allocationKey: string; pod: string; nodeId: string; limits: LimitUsage[] }[];
}

/**
 * Options of {@link ShimContext}; every field has a default (standalone mode, scheduler name `yunikorn`, gang
 * scheduling on, `Date.now`, `Math.random`).
 */
export interface ShimOptions {
  /** `spec.schedulerName` of managed pods (default `yunikorn`). */
  schedulerName?: string;
  mode?: SchedulingMode;
  /** Namespace annotations by namespace name, for application tags (reference §2.3). */
  namespaceAnnotations?: (namespace: string) => Record<string, string> | undefined;
  /** PriorityClass value by name, for pods without `spec.priority`. */
  priorityClassValue?: (name: string) => number | undefined;
  /** PriorityClass annotations by name (`yunikorn.apache.org/allow-preemption`); undefined: no such PriorityClass. */
  priorityClassAnnotations?: PriorityClassAnnotations;
  /** Gang scheduling configuration (`service.disableGangScheduling`, `service.placeholderImage`, …). */
  gang?: GangConfig;
  /** `admissionController.filtering.generateUniqueAppId`: a pod naming no application gets one of its own. */
  generateUniqueAppIds?: boolean;
  /** Clock in milliseconds since the epoch (default Date.now), for the placeholder timeout check on Reserving. */
  now?: () => number;
  /** Random numbers in [0, 1) for placeholder name nonces (default Math.random). */
  random?: () => number;
  /**
   * Milliseconds a real pod waits for its gang's placeholders (hold `gangReservation`) before the wait is written on
   * the pod (default {@link GANG_HOLD_REPORT_MS}).
   */
  gangHoldReportMs?: number;
}

/**
 * How long a gang member may wait for its application's placeholders before its `SchedulingSkipped` condition and
 * `PodUnschedulable` event say so: a gang that completes within it writes nothing on its real pods (upstream's shim
 * does not submit them while the application is Reserving, so it writes nothing at all).
 */
export const GANG_HOLD_REPORT_MS = 10_000;

/** A pod of another scheduler on a node (`ShimContext.foreignPods`); resources in core units. */
export interface ForeignPodView {
  uid: string;
  node: string;
  /** Its requests. */
  resource: Res;
  priority: number;
  /** `metadata.creationTimestamp`, ms since the epoch (undefined: none or unreadable). */
  createdMs: number | undefined;
  /** False for a static pod, owned by its Node (upstream foreign type `static`). */
  preemptable: boolean;
  /**
   * Its allocationTags as upstream's shim sends a foreign pod's (k8shim si_helper.go CreateAllocationForForeignPod):
   * the pod's tags (`podTags`: namespace, pod name, labels, `creationTime`) and `foreign`: `default`, or `static` for a
   * static pod. The web UI names the pod from the namespace and pod name tags.
   */
  tags: Record<string, string>;
}

const refOf = (pod: PodObject): PodRef => ({
  namespace: pod.metadata?.namespace ?? "default",
  name: pod.metadata?.name ?? "",
  uid: pod.metadata?.uid ?? "",
});
const podObject = (p: PodRef): ObjectRef => ({ kind: "Pod", namespace: p.namespace, name: p.name, uid: p.uid });
const isTerminated = (pod: PodObject) => pod.status?.phase === "Succeeded" || pod.status?.phase === "Failed";

/**
 * The shim's state over one {@link SchedulerCore} (module comment): `syncPod`/`syncNode`/`syncAll` and the core's
 * responses in, {@link ShimAction} lists out. Holds no clock and makes no API call.
 */
export class ShimContext {
  readonly tasks = new Map<string, Task>();
  /** Applications the core accepted: id → UIDs of their live tasks. */
  readonly apps = new Map<string, Set<string>>();
  /** Core application ids by (namespace, user, pod application id). */
  readonly appKeys = new ApplicationKeys();
  /** Nodes registered with the core, with their labels and taints for the predicates. */
  readonly nodes = new Map<string, { capacity: Res; unschedulable: boolean; view: NodeView; uid?: string }>();
  /** Pods the core does not manage, by UID: their node and resources (reference §2.9), and what the REST API lists. */
  private readonly foreign = new Map<string, ForeignPodView>();
  /** The same by node, then UID (what a node's REST answer lists). */
  private readonly foreignByNode = new Map<string, Map<string, ForeignPodView>>();
  private readonly occupied = new Map<string, Res>();
  /** Tasks waiting in the core (Asked), for the hold-reason sweep. */
  private readonly asked = new Set<string>();
  /** Managed pods seen waiting for their scheduling gates (no task until the gates are gone), by UID. */
  private readonly gated = new Set<string>();
  /** The rest of the current hold-reason sweep. */
  private sweep: string[] = [];
  readonly schedulerName: string;
  readonly mode: SchedulingMode;
  /** Gangs of the applications the core accepted, by application id. */
  readonly gangs = new Map<string, ShimGang>();
  /** Per application: the owner UIDs of the pod that created it and whether its originator task is known. */
  private readonly originators = new Map<string, { ownerUids: string[]; hasOriginator: boolean }>();
  private gangConfig: GangConfig;

  constructor(
    readonly core: SchedulerCore,
    private readonly o: ShimOptions = {},
  ) {
    this.schedulerName = o.schedulerName ?? "yunikorn";
    this.mode = o.mode ?? "standalone";
    this.gangConfig = o.gang ?? DEFAULT_GANG_CONFIG;
    this.uniqueAppIds = o.generateUniqueAppIds ?? false;
  }

  /** Whether a pod naming no application gets an id of its own (see {@link ShimOptions.generateUniqueAppIds}). */
  private uniqueAppIds: boolean;

  /**
   * The application id a managed pod names; undefined for a foreign pod (plugin mode: no id → default scheduling).
   * The core application it joins may be a derived one (`Task.appId`, app-keys.ts).
   */
  applicationId(pod: PodObject): string | undefined {
    if (pod.spec?.schedulerName !== this.schedulerName) return undefined;
    if (this.mode === "plugin") {
      return explicitApplicationId(pod);
    }
    return applicationIdOf(pod, this.schedulerName, this.uniqueAppIds);
  }

  // ------------------------------------------------------------------ nodes

  /** Registers or updates a node (reference §2.8). Idempotent. */
  syncNode(node: NodeObject): ShimAction[] {
    const name = node.metadata?.name;
    if (!name) return [];
    const info = nodeInfoOf(node);
    const unschedulable = node.spec?.unschedulable === true;
    const view: NodeView = { name, labels: node.metadata?.labels ?? {}, taints: node.spec?.taints ?? [] };
    const known = this.nodes.get(name);
    if (!known) {
      const r = this.core.updateNode([{ ...info, occupiedResource: this.occupied.get(name) }]);
      if (r.rejectedNodes.length > 0) {
        return [
          {
            kind: "event",
            object: { kind: "Node", name, uid: node.metadata?.uid },
            type: "Warning",
            reason: "NodeRejected",
            message: `node ${name} is rejected by the scheduler: ${r.rejectedNodes[0]!.reason}`,
          },
        ];
      }
      const uid = node.metadata?.uid;
      this.nodes.set(name, { capacity: info.schedulableResource ?? {}, unschedulable, view, uid });
      // upstream registerNodes: a Normal NodeAccepted event on the node
      const accepted: ShimAction = {
        kind: "event",
        object: { kind: "Node", name, uid },
        type: "Normal",
        reason: "NodeAccepted",
        message: `node ${name} is accepted by the scheduler`,
      };
      // Pods that arrived before their node, and asks no node could hold before, get another chance.
      return [accepted, ...this.retryOrphans(name), ...this.retryRejected()];
    }
    known.view = view;
    const out: ShimAction[] = [];
    if (!sameResource(known.capacity, info.schedulableResource ?? {})) {
      known.capacity = info.schedulableResource ?? {};
      this.core.updateNode([{ nodeID: name, action: "UPDATE", schedulableResource: known.capacity }]);
      out.push(...this.retryRejected());
    }
    if (known.unschedulable !== unschedulable) {
      known.unschedulable = unschedulable;
      this.core.updateNode([{ nodeID: name, action: unschedulable ? "DRAIN_NODE" : "DRAIN_TO_SCHEDULABLE" }]);
    }
    return out;
  }

  /** Removes a node: allocations not yet bound go back to asks, bound pods wait as orphans for the node. */
  deleteNode(name: string): ShimAction[] {
    const known = this.nodes.get(name);
    if (!known) return [];
    this.nodes.delete(name);
    const released = this.core.updateNode([{ nodeID: name, action: "DECOMISSION" }]).released;
    // upstream deleteNodeInternal: a Normal NodeDeleted event on the node
    const out: ShimAction[] = [
      {
        kind: "event",
        object: { kind: "Node", name, uid: known.uid },
        type: "Normal",
        reason: "NodeDeleted",
        message: `node ${name} is deleted from the scheduler`,
      },
    ];
    for (const a of released) {
      const t = this.tasks.get(a.key);
      if (!t) continue;
      if (t.state === "Bound") {
        t.state = "Orphan";
      } else if (t.state === "Allocated" || t.state === "InProgress") {
        t.state = "Asked";
        t.node = undefined;
        out.push(...this.submitAsk(t));
      }
    }
    return out;
  }

  // ------------------------------------------------------------------ pods

  /**
   * Brings the state in line with complete lists of nodes and pods (start-up recovery, reference §3.4, and periodic
   * resync): nodes first, then pods oldest first, so bound pods become allocations before anything is asked; nodes,
   * managed pods and foreign pods missing from the lists are removed.
   */
  syncAll(nodes: readonly NodeObject[], pods: readonly PodObject[]): ShimAction[] {
    const out: ShimAction[] = [];
    const liveNodes = new Set<string>();
    for (const n of nodes) {
      if (n.metadata?.name) liveNodes.add(n.metadata.name);
      out.push(...this.syncNode(n));
    }
    for (const name of [...this.nodes.keys()]) if (!liveNodes.has(name)) out.push(...this.deleteNode(name));
    const created = (p: PodObject) => new Date(p.metadata?.creationTimestamp ?? 0).getTime();
    // Oldest first, ties (timestamps have 1 s resolution) by namespace and name: the owner of an application id
    // (app-keys.ts) does not depend on the order of the list.
    const key = (p: PodObject) => `${p.metadata?.namespace ?? ""}/${p.metadata?.name ?? ""}`;
    const livePods = new Set<string>();
    for (const p of [...pods].sort((a, b) => created(a) - created(b) || (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0))) {
      if (p.metadata?.uid) livePods.add(p.metadata.uid);
      out.push(...this.syncPod(p));
    }
    for (const [uid, t] of [...this.tasks]) {
      if (!livePods.has(uid)) this.release(t);
      else if (t.state === "Releasing") out.push({ kind: "deletePod", pod: t.pod }); // a delete that failed is retried
    }
    for (const uid of [...this.foreign.keys()]) if (!livePods.has(uid)) this.removeForeign(uid);
    for (const uid of [...this.gated]) if (!livePods.has(uid)) this.gated.delete(uid);
    return out;
  }

  /** Adds or updates a pod (informer add/update, resync). Idempotent. */
  syncPod(pod: PodObject): ShimAction[] {
    const uid = pod.metadata?.uid;
    if (!uid) return [];
    const appId = this.tasks.get(uid)?.appId ?? this.applicationId(pod);
    if (!appId) {
      const node = pod.spec?.nodeName;
      if (!node || isTerminated(pod)) this.removeForeign(uid);
      else this.setForeign(uid, node, pod);
      return [];
    }
    const task = this.tasks.get(uid);
    if (isTerminated(pod)) {
      this.gated.delete(uid);
      if (task) this.release(task);
      return [];
    }
    if (!task) {
      const gates = pod.spec?.nodeName ? [] : (pod.spec?.schedulingGates ?? []);
      if (gates.length > 0) return this.waitForGates(uid, pod, gates);
      this.gated.delete(uid);
      return this.createTask(pod, appId);
    }
    if (task.state === "Releasing") return []; // a placeholder on its way out: the core no longer holds it
    const nodeName = pod.spec?.nodeName;
    if (nodeName && task.state !== "Bound") {
      if (task.node === nodeName && (task.state === "Allocated" || task.state === "InProgress")) {
        // the bind (ours or kube-scheduler's) was observed
        this.unask(task);
        task.state = "Bound";
      } else if (task.state !== "Orphan") {
        // bound by someone else, or to another node: the pod's placement is the truth
        this.core.updateAllocation({ releases: [{ applicationID: task.appId, allocationKey: uid }] });
        this.unask(task);
        return this.recordBound(task, nodeName);
      }
    }
    return task.state === "Bound" || task.state === "Asked" ? this.resized(task, pod) : [];
  }

  /**
   * A bound or waiting pod whose resources changed (in-place resize, Kubernetes ≥ 1.27; `podResource` counts a resize
   * in progress at its larger size): its allocation, on its node, or its ask is sent again with the new size, as
   * upstream's task.go SetTaskPod, so node, queue and user usage follow the pod. A bound pod's new size is the resource
   * manager's truth (the core takes it even over a limit); a malformed quantity leaves the last size.
   */
  private resized(task: Task, pod: PodObject): ShimAction[] {
    let res: Res;
    try {
      res = podResource(pod);
    } catch {
      return [];
    }
    if (sameResource(res, task.ask.resourcePerAlloc)) return [];
    task.ask = { ...task.ask, resourcePerAlloc: res };
    this.core.updateAllocation({ allocations: [task.state === "Bound" ? { ...task.ask, nodeID: task.node } : task.ask] });
    return [];
  }

  /**
   * A managed pod with scheduling gates (`spec.schedulingGates`, Kubernetes ≥ 1.26) is not asked for until they are all
   * removed (upstream k8shim context.go updateYuniKornPod: cached, no application or task): it holds no quota and no
   * node. The first time it is seen, a Normal `Scheduling` event `waiting for scheduling gates: <names>`, as upstream.
   */
  private waitForGates(uid: string, pod: PodObject, gates: readonly { name?: string }[]): ShimAction[] {
    if (this.gated.has(uid)) return [];
    this.gated.add(uid);
    const message = `waiting for scheduling gates: ${gates.map((g) => g.name ?? "").join(",")}`;
    return [{ kind: "event", object: podObject(refOf(pod)), type: "Normal", reason: "Scheduling", message }];
  }

  /** A pod was deleted (informer delete). */
  deletePod(pod: PodObject): void {
    const uid = pod.metadata?.uid;
    if (!uid) return;
    this.gated.delete(uid);
    this.removeForeign(uid);
    const t = this.tasks.get(uid);
    if (t) this.release(t);
  }

  private createTask(pod: PodObject, podAppId: string): ShimAction[] {
    const ref = refOf(pod);
    let ask: AllocationMessage;
    try {
      ask = allocationOf(pod, podAppId);
      if (pod.spec?.priority === undefined && (pod.spec as { priorityClassName?: string } | undefined)?.priorityClassName) {
        ask.priority = this.o.priorityClassValue?.((pod.spec as { priorityClassName: string }).priorityClassName) ?? 0;
      }
    } catch (err) {
      return [
        {
          kind: "event",
          object: podObject(ref),
          type: "Warning",
          reason: "FailedScheduling",
          message: `pod ${ref.namespace}/${ref.name} cannot be scheduled: ${(err as Error).message}`,
        },
      ];
    }
    const nodeID = ask.nodeID;
    const constraints = pod.spec as PodConstraints;
    const { user } = identityOf(pod);
    // a placeholder the scheduler created joins its originating pod's application (charged to that pod's user)
    const owner = this.placeholderOwner(pod, podAppId);
    const key = owner
      ? { namespace: owner.pod.namespace, user: owner.user, applicationId: owner.podAppId }
      : { namespace: ref.namespace, user, applicationId: podAppId };
    const resolved = this.appKeys.acquire(key);
    const appId = resolved.id;
    ask = {
      ...ask,
      applicationID: appId,
      nodeID: undefined,
      predicate: (n) => this.nodeFits(constraints, n),
      preemptionPolicy: podPreemptionPolicy(pod as PreemptionPodFields, this.o.priorityClassAnnotations ?? (() => undefined)),
    };
    if (this.originatorOf(pod, appId)) ask.originator = true;
    const app = applicationRequest(pod, appId);
    Object.assign(app.tags!, namespaceTags(this.o.namespaceAnnotations?.(app.tags?.namespace ?? "default") ?? {}));
    const task: Task = { pod: ref, appId, podAppId: key.applicationId, user: key.user, ask, app, state: "Asked" };
    const out: ShimAction[] = resolved.notJoined ? this.notJoinedActions(task, resolved.notJoined) : [];
    if (isPlaceholder(pod) && !this.trustedPlaceholder(pod)) out.push(this.untrustedPlaceholderEvent(task));
    out.push(...this.gangOfTask(task, pod));
    this.tasks.set(ref.uid, task);
    const ensured = this.ensureApp(app, task.gang);
    if (ensured) {
      task.state = "Rejected";
      task.rejection = ensured;
      return [
        ...out,
        ...this.rejectedActions(task, "ApplicationRejected", `application ${appId} is rejected by the scheduler: ${ensured}`),
      ];
    }
    this.apps.get(appId)!.add(ref.uid);
    // a placeholder created just before its gang gave up (its other placeholders could not be created) is not
    // scheduled: it goes, as upstream's cleanUp deletes the application's placeholders
    if (!nodeID && task.ask.placeholder && this.gangs.get(appId)?.createFailed) {
      task.state = "Releasing";
      return [...out, { kind: "deletePod", pod: ref }];
    }
    return [...out, ...(nodeID ? this.recordBound(task, nodeID) : this.submitAsk(task))];
  }

  /**
   * Whether the pod is its application's originator (shim/preemption.ts isOriginator): the first pod seen of an
   * application records its owner references (or itself when it has none, as upstream's placeholder owner); the first
   * pod whose UID is among them is the originator.
   */
  private originatorOf(pod: PodObject, appId: string): boolean {
    let o = this.originators.get(appId);
    if (!o) {
      const refs = (pod as OriginatorPod).metadata?.ownerReferences ?? [];
      const uids = refs.map((r) => r.uid).filter((u): u is string => !!u);
      o = { ownerUids: uids.length > 0 ? uids : [pod.metadata?.uid ?? ""], hasOriginator: false };
      this.originators.set(appId, o);
    }
    const yes = isOriginator(pod, o, { schedulerUser: this.gangConfig.schedulerUser });
    if (yes) o.hasOriginator = true;
    return yes;
  }

  /**
   * The pod names an application id another namespace or user holds: it runs as its own application. A Warning when
   * the id belongs to another namespace (a copied or guessed id), Normal for another user of the same namespace
   * (e.g. the namespace's generated id in a shared namespace). The other owner is not named.
   */
  private notJoinedActions(task: Task, differs: "namespace" | "user"): ShimAction[] {
    const other = differs === "namespace" ? "another namespace" : `another user in namespace ${task.pod.namespace}`;
    const message =
      `application ${task.podAppId} belongs to ${other}: this pod was not joined to it and runs as its ` +
      `own application ${task.appId}, charged to user ${task.user}`;
    return [
      {
        kind: "event",
        object: podObject(task.pod),
        type: differs === "namespace" ? "Warning" : "Normal",
        reason: "ApplicationNotJoined",
        message,
      },
      { kind: "notJoined", pod: task.pod, podApplicationId: task.podAppId, applicationId: task.appId, user: task.user, differs },
    ];
  }

  /** Records an allocation Kubernetes already made (recovery, or a pod bound by someone else). */
  private recordBound(task: Task, node: string): ShimAction[] {
    task.node = node;
    if (!this.nodes.has(node)) {
      task.state = "Orphan";
      return [];
    }
    const r = this.core.updateAllocation({ allocations: [{ ...task.ask, nodeID: node }] });
    task.state = r.rejectedAllocations.length > 0 ? "Orphan" : "Bound";
    if (task.state !== "Bound") return [];
    return this.overLimitActions(task, node);
  }

  /** Reports an allocation recorded without a limit check that takes usage over a queue maximum or user/group limit. */
  private overLimitActions(task: Task, node: string): ShimAction[] {
    const ask = task.ask.resourcePerAlloc;
    const exceeded = exceededLimits(this.core.limitsOf(task.appId), ask);
    task.overLimit = exceeded.length > 0 ? exceeded : undefined;
    if (exceeded.length === 0) return [];
    const message =
      `pod ${task.pod.namespace}/${task.pod.name} (${quantitiesText(ask)}) was already bound to node ` +
      `${node} when the scheduler saw it, so it is recorded without a limit check, over ` +
      `${exceeded.map((l) => limitText(l, ask)).join("; ")}`;
    return [
      { kind: "event", object: podObject(task.pod), type: "Warning", reason: "OverLimitAllocation", message },
      { kind: "overLimit", pod: task.pod, applicationId: task.appId, node, limits: exceeded },
    ];
  }

  /** @returns the rejection reason, or undefined when the application is (now) known to the core */
  private ensureApp(req: AddApplicationRequest, gang?: ShimGang): string | undefined {
    if (this.apps.has(req.applicationID)) return undefined;
    const r: CoreResponse = this.core.updateApplication({ new: [req] });
    if (r.rejectedApplications.length > 0) return r.rejectedApplications[0]!.reason;
    this.apps.set(req.applicationID, new Set());
    if (gang) this.gangs.set(req.applicationID, { ...gang, queue: this.core.applicationQueue(req.applicationID) });
    return undefined;
  }

  private submitAsk(task: Task): ShimAction[] {
    const r = this.core.updateAllocation({ allocations: [task.ask] });
    if (r.rejectedAllocations.length > 0) {
      task.state = "Rejected";
      task.rejection = r.rejectedAllocations[0]!.reason;
      return this.rejectedActions(
        task,
        "TaskRejected",
        `Task ${task.pod.namespace}/${task.pod.name} is rejected by the scheduler: ${task.rejection}`,
      );
    }
    task.state = "Asked";
    task.held = undefined;
    task.gangWaitSince = undefined;
    this.asked.add(task.pod.uid);
    return [];
  }

  private rejectedActions(task: Task, reason: string, message: string): ShimAction[] {
    return [
      { kind: "event", object: podObject(task.pod), type: "Warning", reason, message },
      { kind: "condition", pod: task.pod, reason: "Unschedulable", message },
    ];
  }

  private unask(task: Task): void {
    this.asked.delete(task.pod.uid);
  }

  /** Releases a task's ask or allocation and forgets it. */
  private release(task: Task): void {
    this.unask(task);
    this.tasks.delete(task.pod.uid);
    const app = this.apps.get(task.appId);
    if (app) {
      app.delete(task.pod.uid);
      if (task.state !== "Rejected" && task.state !== "Orphan") {
        this.core.updateAllocation({ releases: [{ applicationID: task.appId, allocationKey: task.pod.uid, message: "pod terminated" }] });
      } else if (task.state === "Orphan" && task.node && this.nodes.has(task.node)) {
        this.core.updateAllocation({ releases: [{ applicationID: task.appId, allocationKey: task.pod.uid }] });
      }
      // its last pod gone and nothing ever asked (pods bound to nodes not known yet, or rejected asks): the core would
      // keep the application New forever, and its dynamic queue with it (upstream makes none for an orphan pod)
      if (app.size === 0 && this.core.applicationState(task.appId) === "New") {
        this.core.updateApplication({ remove: [{ applicationID: task.appId }] });
        this.forgetApp(task.appId);
      }
    }
    // the id stays reserved for its key while the core holds the application (until it completes)
    this.appKeys.release(task.appId, this.apps.has(task.appId));
  }

  /** Drops what the shim keeps of an application the core no longer holds (its tasks, gang and originator). */
  private forgetApp(appId: string): void {
    this.apps.delete(appId);
    this.gangs.delete(appId);
    this.originators.delete(appId);
  }

  private retryOrphans(node: string): ShimAction[] {
    const out: ShimAction[] = [];
    // (foreign pods on the node were passed as occupied resources when it was registered)
    for (const t of this.tasks.values()) if (t.state === "Orphan" && t.node === node) out.push(...this.recordBound(t, node));
    return out;
  }

  /** Re-submits rejected tasks (after a node or config change). */
  retryRejected(): ShimAction[] {
    const out: ShimAction[] = [];
    for (const t of this.tasks.values()) {
      if (t.state !== "Rejected") continue;
      if (this.ensureApp(t.app, t.gang)) continue;
      this.apps.get(t.appId)!.add(t.pod.uid);
      const before = t.rejection;
      const actions = this.submitAsk(t);
      if ((t.state as TaskState) === "Asked") t.rejection = undefined;
      else if (t.rejection === before) continue; // same reason as before: already reported
      out.push(...actions);
    }
    return out;
  }

  /** The predicates for one node (see predicates.ts); an unknown node never fits. */
  private nodeFits(constraints: PodConstraints, node: string): boolean {
    const v = this.nodes.get(node)?.view;
    return v !== undefined && nodeRejection(constraints, v) === undefined;
  }

  // ------------------------------------------------------------------ foreign pods

  private setForeign(uid: string, node: string, pod: PodObject): void {
    let res: Res;
    try {
      res = podResource(pod);
    } catch {
      return;
    }
    const prev = this.foreign.get(uid);
    const isStatic = (pod.metadata?.ownerReferences ?? []).some((r) => r.kind === "Node");
    const entry: ForeignPodView = {
      uid,
      node,
      resource: res,
      priority: pod.spec?.priority ?? 0,
      createdMs: creationMs(pod),
      // a static pod (owned by its Node) is never a victim (upstream si_helper.go CreateAllocationForForeignPod)
      preemptable: !isStatic,
      tags: { ...podTags(pod), foreign: isStatic ? "static" : "default" },
    };
    if (prev && prev.node !== node) this.unindexForeign(prev);
    this.foreign.set(uid, entry);
    let onNode = this.foreignByNode.get(node);
    if (!onNode) this.foreignByNode.set(node, (onNode = new Map()));
    onNode.set(uid, entry);
    if (prev && prev.node === node && sameResource(prev.resource, res)) return;
    if (prev) this.adjustOccupied(prev.node, prev.resource, -1);
    this.adjustOccupied(node, res, 1);
  }

  /**
   * The pods of other schedulers on `node`, by UID (upstream 1.6+ node `foreignAllocations`: the shim sends them as
   * allocations tagged `foreign`); corral counts them in the node's occupied resources. Sorted by UID.
   */
  foreignPods(node: string): ForeignPodView[] {
    const out = [...(this.foreignByNode.get(node)?.values() ?? [])].map((f) => ({
      ...f,
      resource: { ...f.resource },
      tags: { ...f.tags },
    }));
    return out.sort((a, b) => (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0));
  }

  private removeForeign(uid: string): void {
    const prev = this.foreign.get(uid);
    if (!prev) return;
    this.foreign.delete(uid);
    this.unindexForeign(prev);
    this.adjustOccupied(prev.node, prev.resource, -1);
  }

  private unindexForeign(f: ForeignPodView): void {
    const onNode = this.foreignByNode.get(f.node);
    onNode?.delete(f.uid);
    if (onNode?.size === 0) this.foreignByNode.delete(f.node);
  }

  private adjustOccupied(node: string, res: Res, sign: 1 | -1): void {
    const o = this.occupied.get(node) ?? {};
    if (sign > 0) addTo(o, res);
    else subFrom(o, res);
    this.occupied.set(node, o);
    if (this.nodes.has(node)) this.core.updateNode([{ nodeID: node, action: "UPDATE", occupiedResource: o }]);
  }

  // ------------------------------------------------------------------ scheduling

  /**
   * One scheduling pass: the core's new allocations become bind actions (standalone) or pending allocations with an
   * activate action for pods kube-scheduler has already been refused (plugin); completed applications are forgotten.
   */
  schedule(): ShimAction[] {
    const out: ShimAction[] = [];
    for (const r of this.core.scheduleResults()) {
      if (r.kind === "preempting") {
        out.push(...this.preemptionActions(r.preemption));
        continue;
      }
      if (r.kind === "quotaPreempting") {
        out.push(...this.quotaPreemptionActions(r.preemption));
        continue;
      }
      const a = resultAllocation(r);
      if (!a) continue;
      const t = this.tasks.get(a.key);
      if (!t || t.state !== "Asked") {
        // the pod went away between the ask and the allocation: give the resources back
        this.core.updateAllocation({ releases: [{ applicationID: a.appId, allocationKey: a.key }] });
        continue;
      }
      this.unask(t);
      t.state = "Allocated";
      t.node = a.nodeId;
      t.held = undefined;
      // gang: the core swapped the placeholder for this pod; its pod is deleted (before the bind, standalone)
      const replaced = r.kind === "replaced" ? this.placeholderReleased(r.placeholderKey) : undefined;
      // upstream records PlaceholderAllocated on the originating pod at every placeholder allocation; its event
      // recorder folds the identical repeats into one series, so the pod shows one event: written once here
      const g = t.ask.placeholder ? this.gangs.get(a.appId) : undefined;
      if (g && !g.placeholderAllocatedReported) {
        g.placeholderAllocatedReported = true;
        out.push(this.gangEvent(g.originatorRef, gangEvents.placeholderAllocated(a.appId)));
      }
      if (this.mode === "standalone") out.push({ kind: "bind", pod: t.pod, node: a.nodeId, ...(replaced ? { replaces: replaced } : {}) });
      else {
        if (replaced) out.push({ kind: "deletePod", pod: replaced });
        if (t.refused) out.push({ kind: "activate", pod: t.pod, node: a.nodeId });
      }
    }
    out.push(...this.gangReleases());
    for (const c of this.core.stateChanges()) {
      out.push(...this.gangStateChange(c));
      if ((c.to === "Completed" || c.to === "Failed") && this.apps.get(c.appId)?.size === 0) {
        this.forgetApp(c.appId);
        this.appKeys.forgetIfUnused(c.appId, false);
      }
    }
    return out;
  }

  /**
   * Reports why waiting pods are held, on change only (reference §2.12 UpdateContainerSchedulingState): quota →
   * condition reason `SchedulingSkipped`, no node → `Unschedulable`, each with a `PodUnschedulable` event naming the
   * queue or resource.
   * @param max tasks checked in this call at most (the sweep resumes at the next call)
   */
  holdReasons(max = 2000): ShimAction[] {
    const out: ShimAction[] = [];
    // At most `max` tasks per call, continuing where the last call stopped: a large backlog is swept over several
    // calls instead of stalling one (each check may walk the nodes).
    if (this.sweep.length === 0) this.sweep = [...this.asked];
    const batch = this.sweep.splice(0, max);
    const now = (this.o.now ?? Date.now)();
    for (const uid of batch) {
      const t = this.tasks.get(uid);
      if (!t || !this.asked.has(uid)) continue;
      const hold = this.core.checkHold(t.appId, uid);
      if (hold?.kind === "gangReservation") {
        // waiting for its own gang: written once, after GANG_HOLD_REPORT_MS, not again as placeholders get allocated
        t.gangWaitSince ??= now;
        if (t.held?.kind === "gangReservation" || now - t.gangWaitSince < (this.o.gangHoldReportMs ?? GANG_HOLD_REPORT_MS)) continue;
      } else t.gangWaitSince = undefined;
      const state = hold && holdState(hold);
      const reason = hold && formatHoldReason(hold);
      if (t.held?.state === state && t.held?.reason === reason) continue;
      t.held = hold && { kind: hold.kind, state: state!, reason: reason! };
      if (!hold) continue;
      const message = holdEventText(`${t.pod.namespace}/${t.pod.name}`, hold);
      out.push(
        { kind: "condition", pod: t.pod, reason: state === "Skipped" ? "SchedulingSkipped" : "Unschedulable", message: reason! },
        { kind: "event", object: podObject(t.pod), type: "Normal", reason: "PodUnschedulable", message },
      );
    }
    return out;
  }

  /** The hold state of a task as the last sweep saw it (`Skipped` / `Failed`), for plugin-mode answers. */
  private holdState(t: Task): string | undefined {
    return t.held?.state;
  }

  // ------------------------------------------------------------------ binding results

  /**
   * Whether a queued binding is still to be sent when its turn comes (standalone): the task still holds that
   * allocation, not yet bound. False for a placeholder a real pod has already taken the place of (or the core released):
   * binding it would only have the kubelet start its pause container to stop it again, so it is deleted unbound.
   */
  bindWanted(uid: string, node: string): boolean {
    const t = this.tasks.get(uid);
    return !!t && t.state === "Allocated" && t.node === node;
  }

  /** Whether the task is a placeholder on its way out (`Releasing`: replaced or released, its pod to be deleted). */
  isReleasing(uid: string): boolean {
    return this.tasks.get(uid)?.state === "Releasing";
  }

  /** The bind of an allocation succeeded. */
  bindSucceeded(uid: string, node: string): ShimAction[] {
    const t = this.tasks.get(uid);
    // Bound already: the informer delivered the bound pod before the binding call returned
    if (!t || t.node !== node || t.scheduledReported || (t.state !== "Allocated" && t.state !== "InProgress" && t.state !== "Bound"))
      return [];
    t.state = "Bound";
    t.scheduledReported = true;
    // plugin mode: kube-scheduler reports its own Scheduled event
    if (this.mode === "plugin") return [];
    return [
      {
        kind: "event",
        object: podObject(t.pod),
        type: "Normal",
        reason: "Scheduled",
        message: `Successfully assigned ${t.pod.namespace}/${t.pod.name} to node ${node}`,
      },
    ];
  }

  /**
   * The bind failed for good: the allocation is released and the pod asked again (reference §2.12, YUNIKORN-2884).
   * `gone` = the pod no longer exists (404): the task is dropped instead.
   */
  bindFailed(uid: string, node: string, error: string, gone = false): ShimAction[] {
    const t = this.tasks.get(uid);
    if (!t || t.node !== node || (t.state !== "Allocated" && t.state !== "InProgress")) return [];
    if (gone) {
      this.release(t);
      return [];
    }
    this.core.updateAllocation({ releases: [{ applicationID: t.appId, allocationKey: uid, message: "scheduling failed on RM" }] });
    t.node = undefined;
    return [
      {
        kind: "event",
        object: podObject(t.pod),
        type: "Warning",
        reason: "PodBindFailure",
        message: `Failed to bind ${t.pod.namespace}/${t.pod.name} to node ${node}, it will be retried: ${error}`,
      },
      ...this.submitAsk(t),
    ];
  }

  // ------------------------------------------------------------------ plugin mode (extender)

  /**
   * The extender `filter` verb as the process receives it: decided on `live`, the pod as the informer cache holds it
   * (looked up by the body's namespace and name), never on the body's pod, which anyone who reaches the port can make
   * up (another user's `user.info`, a uid of its own). A pod the cache does not hold under that uid is not ready
   * for scheduling yet: no node passes, and kube-scheduler asks again.
   * @param claimed `ExtenderArgs.Pod` of the request body
   * @param live the pod from the informer cache, undefined when not known
   */
  filterRequest(
    claimed: PodObject,
    candidates: readonly string[],
    live: PodObject | undefined,
  ): { result: ExtenderFilterResult; actions: ShimAction[] } {
    const uid = claimed.metadata?.uid;
    if (!uid || !live || live.metadata?.uid !== uid) {
      const failed = Object.fromEntries(candidates.map((n) => [n, "Pod is not ready for scheduling"]));
      return {
        result: { Nodes: null, NodeNames: [], FailedNodes: { ...failed }, FailedAndUnresolvableNodes: failed, Error: "" },
        actions: [],
      };
    }
    return this.filter(live, candidates);
  }

  /**
   * The extender `filter` verb (reference §5.4 decision table): a pod without an application id passes with every
   * candidate; a managed pod passes only on the node the core allocated, which moves the allocation to in-progress.
   * The core runs a cycle first, so a pod that fits is accepted on its first attempt.
   * @param pod the pod kube-scheduler is placing (created here if the informer has not delivered it yet)
   * @param candidates node names kube-scheduler found feasible
   */
  filter(pod: PodObject, candidates: readonly string[]): { result: ExtenderFilterResult; actions: ShimAction[] } {
    // Refused nodes go in both maps: FailedAndUnresolvableNodes (Kubernetes ≥ 1.21: no preemption attempt; it takes
    // precedence over FailedNodes) and FailedNodes, the only map v1.20 reads (without it the reasons are lost and
    // kube-scheduler reports "0/N nodes are available").
    const pass = (names: string[], failed: Record<string, string> = {}) => ({
      Nodes: null,
      NodeNames: names,
      FailedNodes: { ...failed },
      FailedAndUnresolvableNodes: failed,
      Error: "",
    });
    const rejectAll = (msg: string) => pass([], Object.fromEntries(candidates.map((n) => [n, msg])));
    const uid = pod.metadata?.uid ?? "";
    const appId = this.tasks.get(uid)?.appId ?? this.applicationId(pod);
    if (!appId) return { result: pass([...candidates]), actions: [] };
    const actions = this.tasks.has(uid) ? [] : this.syncPod(pod);
    let t = this.tasks.get(uid);
    if (!t) return { result: rejectAll("Pod is not ready for scheduling"), actions };
    if (t.state === "InProgress") {
      // seen again after a pass: kube-scheduler gave up on it; give the allocation back and ask again
      actions.push(...this.bindFailed(uid, t.node!, "kube-scheduler retried the pod after its allocation was handed over"));
      t.refused = true;
      return { result: rejectAll("Pod is not ready for scheduling"), actions };
    }
    if (t.state === "Asked") actions.push(...this.schedule());
    t = this.tasks.get(uid)!;
    if (t.state === "Allocated") {
      const node = t.node!;
      if (candidates.includes(node)) {
        t.state = "InProgress";
        return {
          result: pass([node], Object.fromEntries(candidates.filter((n) => n !== node).map((n) => [n, "Pod is not fit for node"]))),
          actions,
        };
      }
      // kube-scheduler's own plugins (ports, volumes, pod affinity…) ruled the node out: move the allocation to a
      // candidate with room, when the core agrees
      for (const c of candidates) {
        if (this.core.relocate(t.appId, uid, c)) {
          t.node = c;
          t.state = "InProgress";
          return {
            result: pass([c], Object.fromEntries(candidates.filter((n) => n !== c).map((n) => [n, "Pod is not fit for node"]))),
            actions,
          };
        }
      }
      t.refused = true;
      return { result: rejectAll("Pod is not fit for node"), actions };
    }
    t.refused = true;
    if (t.state === "Asked") {
      const current = this.core.holdReason(t.appId, uid);
      const hold = this.holdState(t) ?? (current && holdState(current));
      return {
        result: rejectAll(
          hold === "Skipped"
            ? "Pod doesn't fit within queue"
            : hold === "Failed"
              ? "Pod is not ready for scheduling"
              : "Pod is pending scheduling",
        ),
        actions,
      };
    }
    return { result: rejectAll(`Pod unschedulable: ${t.state}`), actions };
  }

  /**
   * The extender `bind` verb: may this pod be bound to `node`? Managed pods only on their in-progress allocation.
   * Pods without a task (foreign: default scheduling in plugin mode) only when `live` — the pod as the informer cache
   * holds it, looked up by the request's namespace and name — has the request's uid, names this scheduler, is not
   * bound yet, is not a managed pod, and `node` is a known node whose selector, affinity and taints it fits. The verb
   * is reachable by anyone who reaches the port, and the binding is made with the scheduler's rights: it must never
   * bind what kube-scheduler itself could not have chosen (a managed pod held by its limits, another scheduler's pod,
   * a pod onto a node it does not tolerate).
   * @param live the pod from the informer cache (undefined: not known)
   * @returns an error text, or undefined to go ahead with the binding
   */
  bindAllowed(uid: string, node: string, live?: PodObject): string | undefined {
    const t = this.tasks.get(uid);
    if (!t) return this.foreignBindRefusal(uid, node, live);
    // the binding names the pod by namespace and name (the API server does not check its uid): it must be this task's
    if (!live || live.metadata?.uid !== uid) return `pod with uid ${uid} is not known to the scheduler`;
    if ((t.state === "InProgress" || t.state === "Allocated") && t.node === node) return undefined;
    return (
      `pod ${t.pod.namespace}/${t.pod.name} has no allocation on node ${node} (state ` +
      `${t.state}${t.node ? `, allocated on ${t.node}` : ""})`
    );
  }

  // ------------------------------------------------------------------ preemption (docs/preemption.md)

  /**
   * A preemption the core started: each victim pod is evicted (then a `Preempted` event naming the preemptor, its
   * queue and the rules); the preemptor gets a Normal `Preempting` event. A victim without a live pod is left to its
   * release (the core counts it until then).
   */
  private preemptionActions(d: Preempting): ShimAction[] {
    const preemptor = this.tasks.get(d.ask.key);
    const out: ShimAction[] = [
      {
        kind: "preempting",
        applicationId: d.ask.applicationId,
        allocationKey: d.ask.key,
        queue: d.ask.queuePath,
        nodeId: d.nodeId,
        victims: d.victims.map((v) => v.allocationKey),
      },
    ];
    const names: PodRef[] = [];
    for (const v of d.victims) {
      const t = this.tasks.get(v.allocationKey);
      if (!t || t.appId !== v.applicationId) continue;
      names.push(t.pod);
      out.push({
        kind: "evict",
        pod: t.pod,
        queue: v.queuePath,
        message: preemptedMessage({ victim: v, preemptor: preemptor?.pod, decision: d }),
        preemptor: {
          applicationId: d.ask.applicationId,
          allocationKey: d.ask.key,
          queue: d.ask.queuePath,
          ...(preemptor ? { pod: preemptor.pod } : {}),
        },
      });
    }
    if (preemptor)
      out.push({
        kind: "event",
        object: podObject(preemptor.pod),
        type: "Normal",
        reason: "Preempting",
        message: preemptingMessage({ decision: d, victims: names }),
      });
    return out;
  }

  /**
   * A quota-change preemption the core started: each victim pod is evicted (then a `Preempted` event naming the queue
   * whose lowered max it enforces and the rule). A victim without a live pod is left to its release.
   */
  private quotaPreemptionActions(d: QuotaPreempting): ShimAction[] {
    const out: ShimAction[] = [{ kind: "quotaPreempting", queue: d.queue, victims: d.victims.map((v) => v.allocationKey) }];
    for (const v of d.victims) {
      const t = this.tasks.get(v.allocationKey);
      if (!t || t.appId !== v.applicationId) continue;
      out.push({ kind: "evict", pod: t.pod, queue: v.queuePath, message: quotaPreemptedMessage(v), quota: { queue: d.queue } });
    }
    return out;
  }

  /**
   * The eviction of a victim was refused (HTTP 429: a PodDisruptionBudget; or another error): the core ends that
   * preemption and retries later without this victim; a Warning `PreemptionBlocked` on the preemptor. For a
   * quota-change victim the pod is kept, the queue is tried again later without it, and the Warning goes on the pod.
   */
  evictionRefused(a: Extract<ShimAction, { kind: "evict" }>, error: string): ShimAction[] {
    const victim = this.tasks.get(a.pod.uid);
    if (!victim) return [];
    if (a.quota) {
      if (!this.core.quotaPreemptionBlocked(a.quota.queue, { appId: victim.appId, key: a.pod.uid })) return [];
      return [
        {
          kind: "event",
          object: podObject(victim.pod),
          type: "Warning",
          reason: "PreemptionBlocked",
          message: quotaPreemptionBlockedMessage({ queue: a.quota.queue, error }),
        },
      ];
    }
    if (!this.core.preemptionBlocked(a.preemptor.applicationId, a.preemptor.allocationKey, { appId: victim.appId, key: a.pod.uid }))
      return [];
    const p = this.tasks.get(a.preemptor.allocationKey);
    return p
      ? [
          {
            kind: "event",
            object: podObject(p.pod),
            type: "Warning",
            reason: "PreemptionBlocked",
            message: preemptionBlockedMessage({ victim: a.pod, error }),
          },
        ]
      : [];
  }

  // ------------------------------------------------------------------ gang scheduling (docs/gang-scheduling.md)

  /**
   * Gang fields of a new task (pkg/cache/metadata.go): a placeholder's flag and group, a real pod's group (Normal
   * `TaskGroupMatch` event); for an application's first pod its task groups become the application's placeholder
   * ask, timeout and style (a refused task-groups annotation: Warning `TaskGroupsError`, no gang).
   */
  private gangOfTask(task: Task, pod: PodObject): ShimAction[] {
    const cfg = { disableGangScheduling: this.gangConfig.disableGangScheduling };
    const out: ShimAction[] = [];
    const placeholder = this.trustedPlaceholder(pod);
    const group = taskGroupNameOf(pod, cfg);
    if (placeholder) task.ask.placeholder = true;
    if (group) task.ask.taskGroupName = group;
    if (this.apps.has(task.appId)) {
      const g = this.gangs.get(task.appId);
      if (g && !placeholder && findTaskGroup(g.spec.taskGroups, group).kind === "member")
        out.push(this.gangEvent(task.pod, gangEvents.taskGroupMatch(group!)));
      return out;
    }
    const r = gangSpecOf(pod, cfg);
    if (r.problem) out.push(this.gangEvent(task.pod, gangEvents.taskGroupsError(r.problem)));
    if (r.spec.taskGroups.length === 0) return out;
    task.app.placeholderAsk = gangReservation(r.spec.taskGroups);
    task.app.executionTimeoutMilliSeconds =
      r.spec.schedulingPolicyParameters.placeholderTimeoutSeconds > 0 ? placeholderTimeoutMs(r.spec.schedulingPolicyParameters) : 0;
    task.app.gangSchedulingStyle = r.spec.schedulingPolicyParameters.gangSchedulingStyle;
    // the core counts the placeholder timeout from the pod's creation (after a restart: what remains)
    const created = pod.metadata?.creationTimestamp ? new Date(pod.metadata.creationTimestamp).getTime() : Number.NaN;
    if (Number.isFinite(created)) task.app.tags = { ...task.app.tags, [APP_TAG_CREATION_TIME]: String(Math.floor(created / 1000)) };
    task.gang = { spec: r.spec, originator: pod as OriginatorPod, originatorRef: task.pod, podAppId: task.podAppId };
    if (!placeholder && findTaskGroup(r.spec.taskGroups, group).kind === "member")
      out.push(this.gangEvent(task.pod, gangEvents.taskGroupMatch(group!)));
    return out;
  }

  /**
   * The task of the pod that owns placeholder `pod`: a placeholder the scheduler created (annotation and user.info
   * user `service.schedulerUser`, see isTrustedPlaceholder) owned by a pod of the same namespace whose application id
   * is the one the placeholder names. Such a placeholder joins that pod's application, charged to that pod's user.
   * A pod flagged as placeholder by anyone else joins nothing: it is its own user's ordinary pod.
   */
  private placeholderOwner(pod: PodObject, podAppId: string): Task | undefined {
    if (!this.trustedPlaceholder(pod)) return undefined;
    const refs = (pod as OriginatorPod).metadata?.ownerReferences ?? [];
    for (const r of refs) {
      const t = r.kind === "Pod" && r.uid ? this.tasks.get(r.uid) : undefined;
      if (t && t.pod.namespace === (pod.metadata?.namespace ?? "default") && t.podAppId === podAppId && this.gangs.has(t.appId)) return t;
    }
    return undefined;
  }

  /** A placeholder the scheduler created (membership.ts isTrustedPlaceholder with `service.schedulerUser`). */
  private trustedPlaceholder(pod: PodObject): boolean {
    return isTrustedPlaceholder(pod, this.gangConfig.schedulerUser);
  }

  /** Warning on a pod flagged as placeholder by someone other than the scheduler: it runs as an ordinary pod. */
  private untrustedPlaceholderEvent(task: Task): ShimAction {
    const message =
      `pod ${task.pod.namespace}/${task.pod.name} is flagged as a placeholder ` +
      `(${ANNOTATION_PLACEHOLDER_FLAG}) but was not created by the scheduler (user ${task.user}, not ` +
      `${this.gangConfig.schedulerUser}): it is scheduled as an ordinary pod of user ${task.user}`;
    return { kind: "event", object: podObject(task.pod), type: "Warning", reason: "PlaceholderNotTrusted", message };
  }

  private gangEvent(pod: PodRef, e: { type: "Normal" | "Warning"; reason: string; action: string; message: string }): ShimAction {
    return { kind: "event", object: podObject(pod), type: e.type, reason: e.reason, message: e.message };
  }

  /** A placeholder the core swapped for a real pod or released: its task waits for the pod's deletion. */
  private placeholderReleased(key: string): PodRef | undefined {
    const t = this.tasks.get(key);
    if (!t) return undefined;
    this.unask(t);
    t.state = "Releasing";
    return t.pod;
  }

  /** Placeholders the core released on its own (timeout, too small, given up): their pods are deleted. */
  private gangReleases(): ShimAction[] {
    const out: ShimAction[] = [];
    const timedOut = new Set<string>();
    for (const rel of this.core.releases()) {
      const pod = this.placeholderReleased(rel.allocation.key);
      if (pod) out.push({ kind: "deletePod", pod });
      const g = this.gangs.get(rel.allocation.appId);
      if (g && rel.cause === "tooLarge") out.push(this.gangEvent(g.originatorRef, gangEvents.placeholderTooSmall(rel.message)));
      if (g && rel.cause === "timeout" && !timedOut.has(rel.allocation.appId)) {
        timedOut.add(rel.allocation.appId);
        out.push(this.gangEvent(g.originatorRef, gangEvents.placeholderTimedOut(rel.allocation.appId)));
      }
    }
    return out;
  }

  /**
   * What an application state change means for its gang (pkg/cache/application.go onReserving, handleFailApplication):
   * Reserving → create the missing placeholders (after a restart, those it did not find; none, and the core ends the
   * reservation, when the explicit timeout has already passed since the pod was created and none was found); Running → the reservation
   * is complete; Resuming → the gang gave up (Soft); Failing for `ResourceReservationTimeout` → the unscheduled real
   * pods are failed with that reason.
   */
  private gangStateChange(c: { appId: string; from: string; to: string; message?: string }): ShimAction[] {
    const g = this.gangs.get(c.appId);
    if (!g) return [];
    const originator = g.originatorRef;
    switch (c.to) {
      case "Reserving": {
        if (this.core.applicationState(c.appId) !== "Reserving") return [];
        const tasks = [...(this.apps.get(c.appId) ?? [])].map((uid) => this.tasks.get(uid)).filter((t): t is Task => !!t);
        const mine = tasks.filter((t) => t.ask.placeholder === true && t.state !== "Releasing");
        // real pods of a group already placed (they replaced placeholders before a restart) count as its members
        const placed = tasks.filter(
          (t) => !t.ask.placeholder && t.ask.taskGroupName && (t.state === "Allocated" || t.state === "InProgress" || t.state === "Bound"),
        );
        const params = g.spec.schedulingPolicyParameters;
        const created = g.originator.metadata?.creationTimestamp ? new Date(g.originator.metadata.creationTimestamp).getTime() : undefined;
        const start = reservationStart({
          now: (this.o.now ?? Date.now)(),
          existingPlaceholders: mine.length,
          placeholderTimeoutSeconds: params.placeholderTimeoutSeconds,
          style: params.gangSchedulingStyle,
          createdAtMs: created,
        });
        if (start.kind === "expired") {
          this.core.timeoutReservation(c.appId);
          return [this.gangEvent(originator, gangEvents.placeholderTimeoutExceeded(c.appId))];
        }
        // after a restart that found some placeholders, only the missing ones are created
        const out: ShimAction[] = start.kind === "create" ? [this.gangEvent(originator, gangEvents.creatingPlaceholders(c.appId))] : [];
        const random = this.o.random ?? Math.random;
        for (const { taskGroup, count } of placeholdersToCreate(
          g.spec.taskGroups,
          [...mine, ...placed].map((t) => t.ask.taskGroupName ?? ""),
        )) {
          for (let i = 0; i < count; i++) {
            const pod = buildPlaceholder({
              originator: g.originator,
              applicationId: g.podAppId,
              queue: g.queue ?? "",
              taskGroup,
              gang: g.spec,
              nonce: placeholderNonce(random),
              schedulerName: this.schedulerName,
              config: this.gangConfig.placeholder,
              schedulerUser: this.gangConfig.schedulerUser,
            });
            out.push({ kind: "createPod", pod, owner: originator });
          }
        }
        return out;
      }
      case "Running":
        return c.from === "Reserving" ? [this.gangEvent(originator, gangEvents.reservationComplete(c.appId))] : [];
      case "Resuming":
        // a gang whose placeholders could not be created already said it falls back (PlaceholderCreateFailed)
        return g.createFailed ? [] : [this.gangEvent(originator, gangEvents.resumingAsNonGang(c.appId))];
      case "Failing": {
        const status = reservationTimeoutPodStatus(c.message ?? "");
        if (!status) return [];
        const out: ShimAction[] = [];
        for (const uid of this.apps.get(c.appId) ?? []) {
          const t = this.tasks.get(uid);
          if (t && !t.ask.placeholder && (t.state === "Asked" || t.state === "Rejected"))
            out.push({ kind: "podStatus", pod: t.pod, ...status });
        }
        return out;
      }
      default:
        return [];
    }
  }

  /** Replaces the gang configuration (read with the ConfigMaps at start; applies to gangs seen from now on). */
  setGangConfig(c: GangConfig): void {
    this.gangConfig = c;
  }

  /**
   * Sets `generateUniqueAppIds` (read with the ConfigMaps at start, as upstream: not reloaded); applies to pods seen
   * from now on.
   */
  setGenerateUniqueAppIds(on: boolean): void {
    this.uniqueAppIds = on;
  }

  /**
   * A placeholder pod could not be created (upstream onReserving: cleanUp, RunApplicationEvent, Warning
   * PlaceholderCreateFailed): the gang gives up its reservation and runs as a normal application whatever its style,
   * the placeholders already made released (their pods deleted at the next `schedule`). Once per reservation: a
   * further failed create of the same gang changes nothing.
   */
  placeholderCreateFailed(appId: string): ShimAction[] {
    const g = this.gangs.get(appId);
    if (!g || !this.core.abandonReservation(appId)) return [];
    g.createFailed = true;
    return [this.gangEvent(g.originatorRef, gangEvents.placeholderCreateFailed(appId))];
  }

  /**
   * Why a bind of a pod the scheduler has no task for is refused (plugin mode): decided on the informer's pod (`live`,
   * which must carry `uid`), never on the request body; undefined when it may be bound to `node`.
   */
  private foreignBindRefusal(uid: string, node: string, live: PodObject | undefined): string | undefined {
    if (!live || live.metadata?.uid !== uid) return `pod with uid ${uid} is not known to the scheduler`;
    const ref = refOf(live);
    const who = `pod ${ref.namespace}/${ref.name}`;
    if (live.spec?.schedulerName !== this.schedulerName)
      return `${who} names scheduler ${live.spec?.schedulerName ?? "default-scheduler"}, not ${this.schedulerName}`;
    if (live.spec?.nodeName) return `${who} is already bound to ${live.spec.nodeName}`;
    if (this.applicationId(live) !== undefined) return `${who} is managed by the scheduler and has no allocation on node ${node}`;
    const view = this.nodes.get(node)?.view;
    if (!view) return `${who} cannot be bound to unknown node ${node}`;
    const misfit = nodeRejection(live.spec as PodConstraints, view);
    return misfit ? `${who} cannot be bound to node ${node}: ${misfit}` : undefined;
  }

  /**
   * The live applications as the pods name them and as the core holds them (REST `GET /ws/v1/scheduler/shim/applications`):
   * core id, the pods' application id, namespace and user of the key, task count, and the allocations recorded over a
   * limit. Sorted by core id.
   */
  applications(): ShimApplicationInfo[] {
    const byId = new Map<string, ShimApplicationInfo>();
    for (const t of this.tasks.values()) {
      let a = byId.get(t.appId);
      if (!a)
        byId.set(
          t.appId,
          (a = {
            applicationID: t.appId,
            podApplicationID: t.podAppId,
            namespace: t.pod.namespace,
            user: t.user,
            tasks: 0,
            overLimitAllocations: [],
          }),
        );
      a.tasks++;
      if (t.overLimit)
        a.overLimitAllocations.push({
          allocationKey: t.pod.uid,
          pod: `${t.pod.namespace}/${t.pod.name}`,
          nodeId: t.node ?? "",
          limits: t.overLimit,
        });
    }
    return [...byId.values()].sort((a, b) => (a.applicationID < b.applicationID ? -1 : a.applicationID > b.applicationID ? 1 : 0));
  }

  /** Live tasks whose allocation was recorded over a limit, by limit kind (metrics). */
  overLimitCounts(): Record<LimitUsage["kind"], number> {
    const out = { queue: 0, user: 0, group: 0 };
    for (const t of this.tasks.values()) for (const kind of new Set((t.overLimit ?? []).map((l) => l.kind))) out[kind]++;
    return out;
  }

  /** Counts by task state, foreign pods and nodes (metrics, logs, tests). */
  stats(): Record<string, number> {
    const s: Record<string, number> = { nodes: this.nodes.size, foreignPods: this.foreign.size, applications: this.apps.size };
    for (const t of this.tasks.values()) s[t.state] = (s[t.state] ?? 0) + 1;
    return s;
  }
}
