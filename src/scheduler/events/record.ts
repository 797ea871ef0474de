/**
 * YuniKorn's event records (apache/yunikorn-scheduler-interface si.EventRecord; apache/yunikorn-core pkg/events,
 * pkg/scheduler/objects/events, pkg/scheduler/ugm/ugm_events.go). Records are data: the core builds them from its
 * typed results, the event system stores and streams them, and `eventRecordJson` renders them exactly as YuniKorn's
 * REST API does (Go's encoding/json over the protobuf struct: enums as numbers, zero values left out).
 */
import type { QueueChange } from "../core/queue-change.js";
import type { Res } from "../core/resources.js";
import type { UgmChange } from "../core/ugm/tracker.js";

/** si.EventRecord.Type. */
export const EventType = { UNKNOWN_EVENTRECORD_TYPE: 0, REQUEST: 1, APP: 2, NODE: 3, QUEUE: 4, USERGROUP: 5 } as const;
export type EventType = (typeof EventType)[keyof typeof EventType];

/** si.EventRecord.ChangeType. */
export const ChangeType = { NONE: 0, SET: 1, ADD: 2, REMOVE: 3 } as const;
export type ChangeType = (typeof ChangeType)[keyof typeof ChangeType];

/** si.EventRecord.ChangeDetail (205 APP_STARTING and 301 NODE_READY are reserved upstream). */
export const ChangeDetail = {
  DETAILS_NONE: 0,
  REQUEST_CANCEL: 100,
  REQUEST_ALLOC: 101,
  REQUEST_TIMEOUT: 102,
  APP_ALLOC: 200,
  APP_REQUEST: 201,
  APP_REJECT: 202,
  APP_NEW: 203,
  APP_ACCEPTED: 204,
  APP_RUNNING: 206,
  APP_COMPLETING: 207,
  APP_COMPLETED: 208,
  APP_FAILING: 209,
  APP_FAILED: 210,
  APP_RESUMING: 211,
  APP_EXPIRED: 212,
  APP_CANNOTRUN_QUEUE: 213,
  APP_RUNNABLE_QUEUE: 214,
  APP_CANNOTRUN_QUOTA: 215,
  APP_RUNNABLE_QUOTA: 216,
  NODE_DECOMISSION: 300,
  NODE_SCHEDULABLE: 302,
  NODE_ALLOC: 303,
  NODE_CAPACITY: 304,
  NODE_OCCUPIED: 305,
  NODE_RESERVATION: 306,
  QUEUE_CONFIG: 400,
  QUEUE_DYNAMIC: 401,
  QUEUE_TYPE: 402,
  QUEUE_MAX: 403,
  QUEUE_GUARANTEED: 404,
  QUEUE_APP: 405,
  QUEUE_ALLOC: 406,
  QUEUE_PREEMPTION: 407,
  ALLOC_CANCEL: 500,
  ALLOC_PREEMPT: 501,
  ALLOC_TIMEOUT: 502,
  ALLOC_REPLACED: 503,
  ALLOC_NODEREMOVED: 504,
  UG_USER_LIMIT: 600,
  UG_GROUP_LIMIT: 601,
  UG_APP_LINK: 602,
  UG_USER_RESOURCE: 603,
  UG_GROUP_RESOURCE: 604,
} as const;
export type ChangeDetail = (typeof ChangeDetail)[keyof typeof ChangeDetail];

/** One event: what changed (`type`/`objectID`), the secondary object (`referenceID`), when (Unix ns) and how. */
export interface EventRecord {
  readonly type: EventType;
  /** Application id, node id, queue path, user or group name, or ask key (REQUEST). */
  readonly objectID: string;
  /** Allocation key, application id or queue path, depending on the event; "" when none. */
  readonly referenceID: string;
  readonly message: string;
  /** Unix nanoseconds. */
  readonly timestampNano: number;
  readonly eventChangeType: ChangeType;
  readonly eventChangeDetail: ChangeDetail;
  /** Resources in YuniKorn's units (memory bytes, vcore millicores); undefined when the change has none. */
  readonly resource?: Readonly<Res>;
}

/** A function that receives the core's events (the event system's `add`, or a test's array push). */
export type EventSink = (record: EventRecord) => void;

/**
 * The record as YuniKorn serialises it: `{"type":2,"objectID":"app-1","timestampNano":…,"eventChangeType":2,
 * "eventChangeDetail":203,"resource":{}}`; empty strings and zero numbers are left out, `resource` is always present
 * (`{"resources":{"memory":{"value":1000}}}`, a zero value as `{}`).
 */
export function eventRecordJson(r: EventRecord): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (r.type) out.type = r.type;
  if (r.objectID) out.objectID = r.objectID;
  if (r.message) out.message = r.message;
  if (r.timestampNano) out.timestampNano = r.timestampNano;
  if (r.eventChangeType) out.eventChangeType = r.eventChangeType;
  if (r.eventChangeDetail) out.eventChangeDetail = r.eventChangeDetail;
  if (r.referenceID) out.referenceID = r.referenceID;
  out.resource = siResource(r.resource);
  return out;
}

/** si.Resource JSON of a resource map. */
export function siResource(r: Readonly<Res> | undefined): { resources?: Record<string, { value?: number }> } {
  if (!r || Object.keys(r).length === 0) return {};
  const resources: Record<string, { value?: number }> = {};
  for (const k of Object.keys(r).sort()) resources[k] = r[k] ? { value: r[k] } : {};
  return { resources };
}

/** Upstream truncates messages to the Kubernetes event limit (1024 bytes) with "...". */
export function truncateMessage(m: string): string {
  return m.length <= 1024 ? m : `${m.slice(0, 1021)}...`;
}

interface Parts {
  objectID: string;
  referenceID?: string;
  message?: string;
  changeType: ChangeType;
  detail: ChangeDetail;
  resource?: Readonly<Res>;
}

const make = (type: EventType, now: number, p: Parts): EventRecord => ({
  type,
  objectID: p.objectID,
  referenceID: p.referenceID ?? "",
  message: truncateMessage(p.message ?? ""),
  timestampNano: now * 1_000_000,
  eventChangeType: p.changeType,
  eventChangeDetail: p.detail,
  resource: p.resource ? { ...p.resource } : undefined,
});

/** Builders, one per kind of record YuniKorn emits (`now` in Unix milliseconds). */
export const appEvent = (now: number, p: Parts) => make(EventType.APP, now, p);
export const nodeEvent = (now: number, p: Parts) => make(EventType.NODE, now, p);
export const queueEvent = (now: number, p: Parts) => make(EventType.QUEUE, now, p);
export const userGroupEvent = (now: number, p: Parts) => make(EventType.USERGROUP, now, p);
/** REQUEST records carry no change type or detail upstream: the message says what happened to the ask. */
export const requestEvent = (now: number, p: { objectID: string; referenceID: string; message: string; resource?: Readonly<Res> }) =>
  make(EventType.REQUEST, now, { ...p, changeType: ChangeType.NONE, detail: ChangeDetail.DETAILS_NONE });

/**
 * The APP_* detail of an application state (application_state.go stateEvents); undefined for states without one —
 * corral's pre-1.6 `Starting` state among them, as upstream removed APP_STARTING (205 is reserved).
 */
export function appStateDetail(state: string): ChangeDetail | undefined {
  switch (state) {
    case "New":
      return ChangeDetail.APP_NEW;
    case "Accepted":
      return ChangeDetail.APP_ACCEPTED;
    case "Running":
      return ChangeDetail.APP_RUNNING;
    case "Completing":
      return ChangeDetail.APP_COMPLETING;
    case "Completed":
      return ChangeDetail.APP_COMPLETED;
    case "Failing":
      return ChangeDetail.APP_FAILING;
    case "Failed":
      return ChangeDetail.APP_FAILED;
    case "Resuming":
      return ChangeDetail.APP_RESUMING;
    case "Expired":
      return ChangeDetail.APP_EXPIRED;
    case "Rejected":
      return ChangeDetail.APP_REJECT;
    default:
      return undefined;
  }
}

/**
 * The QUEUE record of a queue change (upstream queue_events.go): a new queue `ADD` and a removed one `REMOVE`, with
 * `QUEUE_DYNAMIC` for a dynamic queue and no detail for a configured one; `SET QUEUE_MAX` / `SET QUEUE_GUARANTEED`
 * with the new value (none: an empty resource); `SET QUEUE_TYPE` with the message `leaf queue: true|false`.
 */
export function queueChangeEvent(c: QueueChange, now: number): EventRecord {
  switch (c.kind) {
    case "added":
    case "removed":
      return queueEvent(now, {
        objectID: c.path,
        changeType: c.kind === "added" ? ChangeType.ADD : ChangeType.REMOVE,
        detail: c.managed ? ChangeDetail.DETAILS_NONE : ChangeDetail.QUEUE_DYNAMIC,
      });
    case "max":
      return queueEvent(now, { objectID: c.path, changeType: ChangeType.SET, detail: ChangeDetail.QUEUE_MAX, resource: c.max ?? {} });
    case "guaranteed":
      return queueEvent(now, {
        objectID: c.path,
        changeType: ChangeType.SET,
        detail: ChangeDetail.QUEUE_GUARANTEED,
        resource: c.guaranteed ?? {},
      });
    case "type":
      return queueEvent(now, {
        objectID: c.path,
        message: `leaf queue: ${c.isLeaf}`,
        changeType: ChangeType.SET,
        detail: ChangeDetail.QUEUE_TYPE,
      });
  }
}

/**
 * The USERGROUP record of a tracker change (upstream ugm_events.go): usage `ADD`/`REMOVE` `UG_USER_RESOURCE` or
 * `UG_GROUP_RESOURCE` (objectID the user or group, referenceID the leaf queue, the resource); an application linked
 * to / unlinked from its group `SET`/`REMOVE` `UG_APP_LINK` (objectID the group, referenceID the application); a
 * limit set or removed `SET`/`REMOVE` `UG_USER_LIMIT` or `UG_GROUP_LIMIT` (referenceID the queue of the limit).
 */
export function ugmChangeEvent(c: UgmChange, now: number): EventRecord {
  switch (c.kind) {
    case "usage":
      return userGroupEvent(now, {
        objectID: c.name,
        referenceID: c.queuePath,
        changeType: c.sign > 0 ? ChangeType.ADD : ChangeType.REMOVE,
        detail: c.who === "user" ? ChangeDetail.UG_USER_RESOURCE : ChangeDetail.UG_GROUP_RESOURCE,
        resource: c.resource,
      });
    case "appLink":
      return userGroupEvent(now, {
        objectID: c.group,
        referenceID: c.appId,
        changeType: c.linked ? ChangeType.SET : ChangeType.REMOVE,
        detail: ChangeDetail.UG_APP_LINK,
      });
    case "limit":
      return userGroupEvent(now, {
        objectID: c.name,
        referenceID: c.queuePath,
        changeType: c.set ? ChangeType.SET : ChangeType.REMOVE,
        detail: c.who === "user" ? ChangeDetail.UG_USER_LIMIT : ChangeDetail.UG_GROUP_LIMIT,
      });
  }
}
