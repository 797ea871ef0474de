/**
 * Application, ask and allocation shapes of the REST API (apache/yunikorn-core pkg/webservice/dao
 * application_info.go, allocation_ask_info.go, allocation_info.go), made from the core's read API: JSON names
 * exactly as upstream, `omitempty` fields left out when empty or zero, times in Unix nanoseconds (`startTime` in Unix
 * milliseconds, as upstream), resources in YuniKorn's units (memory bytes, vcore millicores).
 *
 * corral extensions (as the core's read API has them): a pending request's `holdReason` (typed, with `state` and
 * `message`) and `reservedNodeId`; a rejected application's typed `rejectionReason`.
 *
 * Gang fields as upstream: `placeholder` and `taskGroupName` of asks and allocations (left out when false/empty),
 * an application's `placeholderData`; an allocation chosen as a preemption victim and not released yet has
 * `preempted: true`, the application's originator pod `originator: true`.
 *
 * A pending ask's `allocationLog` lists the hold reasons it was seen with (corral's texts, as in `holdReason`, not
 * upstream's fixed messages); `resourceHistory` is always present, as upstream (a Go struct is never omitted), its
 * series left out while empty. Not reported: `backoffDeadline`, `triggeredPreemption`, `schedulingAttempted`,
 * `triggeredScaleUp` (no ask backoff, no autoscaler).
 */
import type { AllocationView, ApplicationView, AskView } from "../core/read.js";
import type { Res } from "../core/resources.js";
import type { SchedulerCore } from "../core/scheduler.js";
import { type HoldReason, formatHoldReason, holdState } from "../core/hold-reason.js";
import type { AllocationLogEntry } from "../core/allocation-log.js";

/** A hold reason as REST shows it: the typed fields, its scheduling state and its text. */
export function holdInfo(r: HoldReason): Record<string, unknown> {
  return { ...r, state: holdState(r), message: formatHoldReason(r) };
}

/** Unix milliseconds as the Unix nanoseconds YuniKorn's REST API reports. */
export const ns = (ms: number) => ms * 1_000_000;

/** A resource map without zero values; undefined when nothing is left (omitempty). */
export function clean(r: Readonly<Res> | undefined): Res | undefined {
  if (!r) return undefined;
  const out: Res = {};
  for (const k in r) if (r[k] !== 0) out[k] = r[k]!;
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * A resource map as upstream's `Resource.DAOMap()`: every type the resource has, zero values included (an
 * application whose asks are all allocated pends `{"memory":0,"vcore":0}`, not nothing); undefined when it has none.
 */
export function daoMap(r: Readonly<Res> | undefined): Res | undefined {
  return r && Object.keys(r).length > 0 ? { ...r } : undefined;
}

/** Drops undefined, "", false, 0 and empty arrays/objects: Go's `omitempty`. Keys in `keep` stay. */
export function omitEmpty(o: Record<string, unknown>, keep: readonly string[] = []): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) {
    const empty =
      v === undefined ||
      v === "" ||
      v === false ||
      v === 0 ||
      (Array.isArray(v) && v.length === 0) ||
      (v !== null && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length === 0);
    if (!empty || keep.includes(k)) out[k] = v;
  }
  return out;
}

/**
 * What the DAO needs beyond the views: the RM's allocationTags, the largest usage of an application and the
 * allocation log of a pending ask.
 */
export interface DaoLookups {
  tags(appId: string, key: string): Readonly<Record<string, string>> | undefined;
  maxUsed(appId: string): Readonly<Res> | undefined;
  allocationLog(appId: string, key: string): readonly AllocationLogEntry[];
}

/** The lookups of one partition of a core. */
export const lookupsOf = (core: SchedulerCore, partition: string): DaoLookups => ({
  tags: (appId, key) => core.allocationTags(appId, key, partition),
  maxUsed: (appId) => core.maxUsedResource(appId, partition),
  allocationLog: (appId, key) => core.allocationLog(appId, key, partition),
});

/**
 * AllocationDAOInfo (handlers.go getAllocationDAO): `requestTime` the ask's creation, or, when it took a placeholder's
 * place (`placeholderUsed`), the placeholder's; `allocationTime` when the core allocated it; `allocationDelay` the
 * difference; Unix nanoseconds.
 */
export function allocationInfo(x: AllocationView, l: DaoLookups): Record<string, unknown> {
  const at = x.allocatedAt ?? x.createTime;
  // an allocation that took a placeholder's place was requested when the placeholder was (handlers.go getAllocationDAO)
  const requested = x.placeholderCreateTime ?? x.createTime;
  return omitEmpty(
    {
      allocationKey: x.key,
      allocationTags: l.tags(x.appId, x.key),
      requestTime: ns(requested),
      allocationTime: ns(at),
      allocationDelay: ns(Math.max(0, at - requested)),
      resource: clean(x.resource),
      priority: String(x.priority),
      nodeId: x.nodeId,
      applicationId: x.appId,
      placeholder: x.placeholder,
      placeholderUsed: x.placeholderCreateTime !== undefined,
      taskGroupName: x.taskGroup,
      preempted: x.preempted,
      originator: x.originator,
    },
    ["allocationKey"],
  );
}

/** AllocationAskDAOInfo of a pending ask. */
export function askInfo(appId: string, x: AskView, l: DaoLookups): Record<string, unknown> {
  return omitEmpty(
    {
      allocationKey: x.key,
      allocationTags: l.tags(appId, x.key),
      requestTime: ns(x.createTime),
      resource: clean(x.resource),
      priority: String(x.priority),
      requiredNodeId: x.requiredNode,
      applicationId: appId,
      reservedNodeId: x.reservedNode,
      holdReason: x.hold && holdInfo(x.hold),
      placeholder: x.placeholder,
      taskGroupName: x.taskGroup,
      allocationLog: l
        .allocationLog(appId, x.key)
        .map((e) => ({ message: e.message, lastOccurrence: ns(e.lastOccurrence), count: e.count })),
    },
    ["allocationKey"],
  );
}

const FINISHED = new Set(["Completed", "Failed", "Rejected", "Expired"]);

/**
 * ApplicationDAOInfo. `stateLog` lists the states entered (upstream logs transitions, so the initial New is not in
 * it); `finishedTime` is when a Completed, Failed, Rejected or Expired application got there; `startTime` (Unix ms)
 * when it first started running.
 */
export function applicationInfo(a: ApplicationView, l: DaoLookups): Record<string, unknown> {
  const log = a.stateLog.filter((e, i) => !(i === 0 && e.state === "New"));
  const last = a.stateLog.at(-1);
  const started = a.stateLog.find((e) => e.state === "Starting" || e.state === "Running");
  const reserved = a.asks.filter((x) => x.reservedNode !== undefined).map((x) => x.key);
  return omitEmpty(
    {
      applicationID: a.id,
      usedResource: daoMap(a.allocated),
      maxUsedResource: clean(l.maxUsed(a.id)),
      pendingResource: daoMap(a.pending),
      partition: a.partition,
      queueName: a.queue,
      submissionTime: ns(a.submissionTime),
      finishedTime: FINISHED.has(a.state) && last ? ns(last.time) : undefined,
      requests: a.asks.map((x) => askInfo(a.id, x, l)),
      allocations: a.allocations.map((x) => allocationInfo(x, l)),
      placeholderData: a.placeholderData.map((d) => ({
        taskGroupName: d.taskGroupName,
        count: d.count,
        minResource: d.minResource,
        replaced: d.replaced,
        timedout: d.timedOut,
      })),
      applicationState: a.state,
      user: a.user,
      groups: a.groups,
      rejectedMessage: a.rejectedMessage,
      rejectionReason: a.rejection && holdInfo(a.rejection),
      stateLog: log.map((e) => ({ time: ns(e.time), applicationState: e.state })),
      // the application's node reservations, by the reserving ask's key (application.go HasReserved, GetReservations)
      hasReserved: reserved.length > 0,
      reservations: reserved,
      maxRequestPriority: a.maxPendingPriority ?? 0,
      startTime: started?.time,
      resourceHistory: omitEmpty({
        resourceUsage: a.resourceHistory.used,
        preemptedResource: a.resourceHistory.preempted,
        placeholderResource: a.resourceHistory.placeholder,
      }),
    },
    ["applicationID", "partition", "queueName", "resourceHistory"],
  );
}

/**
 * The `?status=` values allowed for active applications: upstream's, and corral's own Starting and Reserving (states
 * upstream does not have), so that every active application matches one.
 */
export const ACTIVE_STATUSES = ["new", "accepted", "starting", "reserving", "running", "completing", "failing", "resuming"] as const;
