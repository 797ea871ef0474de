/**
 * Application, ask and allocation shapes of the REST API (apache/yunikorn-core pkg/webservice/dao
 * application_info.go, allocation_ask_info.go, allocation_info.go): JSON names exactly as upstream, `omitempty`
 * fields left out when empty or zero, times in Unix nanoseconds (`startTime` in Unix milliseconds, as upstream),
 * resources in YuniKorn's units (memory bytes, vcore millicores).
 *
 * Not reported because corral does not have them yet: `placeholderData`, `placeholder`/`taskGroupName` (no gang
 * scheduling; left out, as upstream does for a false/empty value), `reservations`/`hasReserved` (no reservations),
 * `allocationLog` (the hold reason is on the pod's condition and in REQUEST events), `resourceHistory`.
 */
import type { Application, Ask } from "../core/objects.js";
import type { Partition } from "../core/partition.js";
import type { Res } from "../core/resources.js";
import type { SchedulerCore } from "../core/scheduler.js";

export const ns = (ms: number) => ms * 1_000_000;

/** A resource map without zero values; undefined when nothing is left (omitempty). */
export function clean(r: Readonly<Res> | undefined): Res | undefined {
  if (!r) return undefined;
  const out: Res = {};
  for (const k in r) if (r[k] !== 0) out[k] = r[k]!;
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Drops undefined, "", false, 0 and empty arrays/objects: Go's `omitempty`. Keys in `keep` stay. */
export function omitEmpty(o: Record<string, unknown>, keep: readonly string[] = []): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) {
    const empty = v === undefined || v === "" || v === false || v === 0 || (Array.isArray(v) && v.length === 0) ||
      (v !== null && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length === 0);
    if (!empty || keep.includes(k)) out[k] = v;
  }
  return out;
}

/** AllocationDAOInfo of an allocated ask. */
export function allocationInfo(core: SchedulerCore, p: Partition, appId: string, ask: Ask): Record<string, unknown> {
  return omitEmpty({
    allocationKey: ask.key, allocationTags: core.allocationTags(appId, ask.key, p.name), requestTime: ns(ask.createTime),
    allocationTime: ns(ask.createTime), resource: clean(ask.resource), priority: String(ask.priority), nodeId: ask.node,
    applicationId: appId,
  }, ["allocationKey"]);
}

/** AllocationAskDAOInfo of a pending ask. */
export function askInfo(core: SchedulerCore, p: Partition, appId: string, ask: Ask): Record<string, unknown> {
  return omitEmpty({
    allocationKey: ask.key, allocationTags: core.allocationTags(appId, ask.key, p.name), requestTime: ns(ask.createTime),
    resource: clean(ask.resource), priority: String(ask.priority), requiredNodeId: ask.requiredNode, applicationId: appId,
  }, ["allocationKey"]);
}

/** ApplicationDAOInfo of an application the partition holds. */
export function applicationInfo(core: SchedulerCore, p: Partition, a: Application): Record<string, unknown> {
  const asks = [...a.asks.values()];
  const h = core.applicationHistory(a.id, p.name);
  const started = h?.stateLog.find((e) => e.applicationState === "Starting" || e.applicationState === "Running");
  const maxPriority = a.maxPendingPriority();
  return omitEmpty({
    applicationID: a.id, usedResource: clean(a.allocated), maxUsedResource: clean(h?.maxUsedResource), pendingResource: clean(a.pending),
    partition: p.name, queueName: a.queue.path, submissionTime: ns(a.submissionTime),
    finishedTime: h?.finishedTime === undefined ? undefined : ns(h.finishedTime),
    requests: asks.filter((x) => !x.node).map((x) => askInfo(core, p, a.id, x)),
    allocations: asks.filter((x) => x.node).map((x) => allocationInfo(core, p, a.id, x)),
    applicationState: a.state, user: a.user, groups: [...a.groups],
    stateLog: (h?.stateLog ?? []).map((e) => ({ time: ns(e.time), applicationState: e.applicationState })),
    maxRequestPriority: Number.isFinite(maxPriority) ? maxPriority : 0,
    startTime: started?.time,
  }, ["applicationID", "partition", "queueName"]);
}

/** ApplicationDAOInfo of a rejected application (never placed: no queue). */
export function rejectedInfo(core: SchedulerCore, p: Partition, id: string, message: string): Record<string, unknown> {
  const h = core.applicationHistory(id, p.name);
  return omitEmpty({
    applicationID: id, partition: p.name, queueName: "", submissionTime: h?.stateLog[0] ? ns(h.stateLog[0].time) : undefined,
    finishedTime: h?.finishedTime === undefined ? undefined : ns(h.finishedTime), applicationState: "Rejected", rejectedMessage: message,
    stateLog: (h?.stateLog ?? []).map((e) => ({ time: ns(e.time), applicationState: e.applicationState })),
  }, ["applicationID", "partition", "queueName"]);
}

const DONE = new Set(["Completed", "Failed", "Expired", "Rejected"]);

/** Active = New, Accepted, Starting, Running, Completing, Failing, Resuming (upstream's virtual state). */
export const isActive = (a: Application) => !DONE.has(a.state);

/** The `?status=` values upstream allows for active applications. */
export const ACTIVE_STATUSES = ["new", "accepted", "running", "completing", "failing", "resuming"] as const;

/**
 * `applications/{active|completed|rejected}` of a partition; `status` narrows active ones to one state.
 */
export function applicationsInfo(core: SchedulerCore, p: Partition, state: "active" | "completed" | "rejected", status?: string): unknown[] {
  if (state === "rejected") return [...p.rejected.entries()].map(([id, msg]) => rejectedInfo(core, p, id, msg));
  const apps = [...p.apps.values()].filter((a) => (state === "active" ? isActive(a) && (!status || a.state.toLowerCase() === status) : a.state === "Completed" || a.state === "Failed"));
  return apps.map((a) => applicationInfo(core, p, a));
}
