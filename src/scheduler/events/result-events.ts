/**
 * The event records of the core's allocations, releases and scheduling results (apache/yunikorn-core
 * pkg/scheduler/objects/events: application_events.go SendNewAllocationEvent / SendRemoveAllocationEvent,
 * node_events.go SendAllocationAddedEvent / SendAllocationRemovedEvent / SendReservedEvent / SendUnreservedEvent,
 * queue_events.go SendQuotaPreemptionEvent, ask_events.go SendPreemptedByQuotaChange). Pure: records from data,
 * `now` in Unix milliseconds; the core emits them in the order returned.
 */
import type { Allocation, AllocationResult } from "../core/allocation-result.js";
import type { QuotaNoVictims, QuotaPreempting } from "../core/preemption/quota.js";
import type { RunnableChange } from "../core/partition.js";
import { type Res, addTo, format } from "../core/resources.js";
import { ChangeDetail, ChangeType, type EventRecord, appEvent, nodeEvent, queueEvent, requestEvent } from "./record.js";

/** A new allocation (scheduled, or recovered from the resource manager): APP `ADD APP_ALLOC`, then NODE `ADD NODE_ALLOC`. */
export function allocationEvents(a: Allocation, now: number): EventRecord[] {
  return [allocationAddedEvent(a, now), nodeAllocationEvent(now, { nodeId: a.nodeId, key: a.key, added: true, resource: a.resource })];
}

/** A new allocation on its application: APP `ADD APP_ALLOC`. */
export function allocationAddedEvent(a: Allocation, now: number): EventRecord {
  return appEvent(now, {
    objectID: a.appId,
    referenceID: a.key,
    changeType: ChangeType.ADD,
    detail: ChangeDetail.APP_ALLOC,
    resource: a.resource,
  });
}

/** The APP detail of a runnable change, by what held the application and whether it may run now. */
const RUNNABLE_DETAIL = {
  queue: { true: ChangeDetail.APP_RUNNABLE_QUEUE, false: ChangeDetail.APP_CANNOTRUN_QUEUE },
  quota: { true: ChangeDetail.APP_RUNNABLE_QUOTA, false: ChangeDetail.APP_CANNOTRUN_QUOTA },
} as const;

/**
 * An application waiting to run found kept out by maxapplications, or let in again (upstream application_events.go
 * SendAppNotRunnableInQueueEvent and the three like it): APP, change type NONE, APP_CANNOTRUN_QUEUE /
 * APP_RUNNABLE_QUEUE (its queues'), APP_CANNOTRUN_QUOTA / APP_RUNNABLE_QUOTA (its user's and group's).
 */
export function runnableEvent(c: RunnableChange, now: number): EventRecord {
  return appEvent(now, { objectID: c.appId, changeType: ChangeType.NONE, detail: RUNNABLE_DETAIL[c.by][`${c.runnable}`] });
}

/** An allocation `key` put on (`added`) or taken off a node: NODE `ADD` / `REMOVE` `NODE_ALLOC`. */
export function nodeAllocationEvent(now: number, o: NodeChange): EventRecord {
  return nodeChangeEvent(now, ChangeDetail.NODE_ALLOC, o);
}

/** A change on a node made for the allocation or ask `key` (its resource, when known). */
interface NodeChange {
  nodeId: string;
  key: string;
  added: boolean;
  resource: Readonly<Res> | undefined;
}

/** NODE `ADD` / `REMOVE` with `detail`, the ask or allocation as reference. */
function nodeChangeEvent(now: number, detail: ChangeDetail, o: NodeChange): EventRecord {
  return nodeEvent(now, {
    objectID: o.nodeId,
    referenceID: o.key,
    changeType: o.added ? ChangeType.ADD : ChangeType.REMOVE,
    detail,
    resource: o.resource,
  });
}

/**
 * A released allocation: APP `REMOVE` with the cause as its detail (`ALLOC_CANCEL`, `ALLOC_PREEMPT`,
 * `ALLOC_NODEREMOVED`…), then NODE `REMOVE NODE_ALLOC`.
 */
export function releaseEvents(a: Allocation, detail: ChangeDetail, now: number): EventRecord[] {
  return [
    appEvent(now, { objectID: a.appId, referenceID: a.key, changeType: ChangeType.REMOVE, detail, resource: a.resource }),
    nodeAllocationEvent(now, { nodeId: a.nodeId, key: a.key, added: false, resource: a.resource }),
  ];
}

/** A node reservation made (`ADD`) or ended (`REMOVE`) for the ask `key`: NODE `NODE_RESERVATION`. */
export function reservationEvent(
  now: number,
  o: { nodeId: string; key: string; reserved: boolean; resource: Readonly<Res> | undefined },
): EventRecord {
  return nodeChangeEvent(now, ChangeDetail.NODE_RESERVATION, { nodeId: o.nodeId, key: o.key, added: o.reserved, resource: o.resource });
}

/**
 * An ask-triggered preemption: a REQUEST record on each victim's allocation, `Preempted by <ask> from application
 * <app> in <queue>` (upstream preemption.go → ask_events.go SendPreemptedByScheduler; `queue`: the preemptor's leaf).
 */
export function preemptionEvents(r: Extract<AllocationResult, { kind: "preempting" }>, queue: string, now: number): EventRecord[] {
  return r.victims.map((v) =>
    requestEvent(now, {
      objectID: v.key,
      referenceID: v.appId,
      message: `Preempted by ${r.key} from application ${r.appId} in ${queue}`,
      resource: v.resource,
    }),
  );
}

/**
 * A quota-change preemption: the QUEUE `SET QUEUE_PREEMPTION` summary (upstream quota_preemptor.go: the preemptable
 * and claimed resources, the allocations selected as possible victims and those preempted; the resource is the
 * queue's lowered max), then a REQUEST record on each victim's ask.
 */
export function quotaPreemptionEvents(r: Extract<AllocationResult, { kind: "quotaPreempting" }>, now: number): EventRecord[] {
  const claimed: Res = {};
  for (const v of r.victims) addTo(claimed, v.resource);
  return [
    quotaSummaryEvent(r.preemption, format(claimed), r.victims.length, now),
    ...r.victims.map((v) =>
      requestEvent(now, {
        objectID: v.key,
        referenceID: v.appId,
        message: `Preempted by Quota change enforcement process in ${r.queue}`,
        resource: v.resource,
      }),
    ),
  ];
}

/**
 * A quota-change preemption pass that selected allocations but preempted none: YuniKorn still sends the summary, with
 * `preempted victims: 0`. Its claimed resources read as Go prints them: a leaf's were never set (`nil resource`), a
 * parent's total starts empty (`map[]`).
 */
export function quotaWithoutVictimsEvent(d: QuotaNoVictims, now: number): EventRecord {
  return quotaSummaryEvent(d, d.isLeaf ? "nil resource" : format({}), 0, now);
}

/** The QUEUE `SET QUEUE_PREEMPTION` summary of one quota-change preemption pass (`claimed` already formatted). */
function quotaSummaryEvent(d: QuotaPreempting | QuotaNoVictims, claimed: string, preempted: number, now: number): EventRecord {
  let selected = 0;
  for (const l of d.leaves) selected += l.selected;
  return queueEvent(now, {
    objectID: d.queue,
    message:
      `Quota Preemption results summary: preemptable resources: ${format(d.preemptable)}, ` +
      `claimed resources: ${claimed}, selected victims: ${selected}, preempted victims: ${preempted}`,
    changeType: ChangeType.SET,
    detail: ChangeDetail.QUEUE_PREEMPTION,
    resource: d.max,
  });
}
