/**
 * corral's own read endpoints (not in YuniKorn): `GET /ws/v1/corral/pending` — every waiting pod with why it waits, as
 * data —, `GET /ws/v1/corral/limits` — the user and group limits in force —, and list summaries of applications and
 * nodes (counts instead of YuniKorn's full allocation lists, for pages with thousands of rows). Pure functions of the
 * core's read API; resources in core units (memory bytes, vcore millicores), the dashboard makes human units.
 */
import type { SchedulerConfig } from "../core/config.js";
import type { HoldReason } from "../core/hold-reason.js";
import type { Res } from "../core/resources.js";
import type { SchedulerCore } from "../core/scheduler.js";
import { limitTable } from "../core/ugm/limits.js";
import type { ApplicationSummary, HoldReasonInfo, LimitInfo, NodeSummary, PendingList, PendingPod } from "./api-types.js";
import { applicationInfo, holdInfo, lookupsOf } from "./app-dao.js";
import { RestError, type Router, json } from "./router.js";

const NAMESPACE_TAG = "kubernetes.io/meta/namespace";
const POD_NAME_TAG = "kubernetes.io/meta/podName";

/** The hold kinds a pending ask can have (placement refusals are application rejections, never a pending hold). */
type AskHold = Exclude<HoldReason, { kind: "placementRefused" }>;

/** A hold reason without the fields the server derives (`state`, `message`): what the core decides. */
type HoldData = HoldReasonInfo extends infer H ? (H extends HoldReasonInfo ? Omit<H, "state" | "message"> : never) : never;

/** A pending ask's hold as the API shows it: the core's typed reason with its scheduling state and text (dao.ts). */
export function pendingHold(h: AskHold): HoldReasonInfo {
  // compile-time check: the wire type (api-types.ts, shared with the dashboard) accepts every kind and field the core sends
  const checked: HoldData = h;
  return holdInfo(checked as AskHold) as HoldReasonInfo;
}

/** A preemption hold's victims with their pods (from their allocationTags, while allocated); other holds as they are. */
function withVictimPods(
  h: HoldReasonInfo,
  tags: (appId: string, key: string) => Readonly<Record<string, string>> | undefined,
): HoldReasonInfo {
  if (h.kind !== "preemption") return h;
  return {
    ...h,
    victims: h.victims.map((v) => {
      const t = v.released ? undefined : tags(v.applicationId, v.allocationKey);
      return t?.[POD_NAME_TAG] ? { ...v, namespace: t[NAMESPACE_TAG] ?? "", pod: t[POD_NAME_TAG] } : v;
    }),
  };
}

/**
 * Every pending ask of the partition with its pod (from the shim's allocationTags), application, user, queue, since
 * when it waits and why (the core's hold reason, as data), oldest first (then by key).
 */
export function pendingList(core: SchedulerCore, partition: string, now: number): PendingList {
  const out: PendingPod[] = [];
  for (const app of core.applicationViews("active", partition, { holds: true })) {
    for (const ask of app.asks) {
      const tags = core.allocationTags(app.id, ask.key, partition) ?? {};
      const h = ask.hold && ask.hold.kind !== "placementRefused" ? ask.hold : undefined;
      const hold = h && withVictimPods(pendingHold(h), (appId, key) => core.allocationTags(appId, key, partition));
      out.push({
        namespace: tags[NAMESPACE_TAG] ?? "",
        pod: tags[POD_NAME_TAG] ?? "",
        allocationKey: ask.key,
        applicationId: app.id,
        partition,
        queue: app.queue,
        user: app.user,
        groups: [...app.groups],
        applicationState: app.state,
        resource: { ...ask.resource },
        since: ask.createTime,
        ...(hold ? { hold } : {}),
      });
    }
  }
  out.sort((a, b) => a.since - b.since || (a.allocationKey < b.allocationKey ? -1 : a.allocationKey > b.allocationKey ? 1 : 0));
  return { partition, time: now, pending: out };
}

/**
 * The applications of a partition in one state group (as `applications/{active|completed|rejected}`), as summaries.
 */
export function applicationSummaries(
  core: SchedulerCore,
  partition: string,
  state: "active" | "completed" | "rejected",
): ApplicationSummary[] {
  return core.applicationViews(state, partition, { holds: false }).map((a) => ({
    applicationID: a.id,
    queueName: a.queue,
    user: a.user,
    groups: [...a.groups],
    applicationState: a.state,
    submissionTime: a.submissionTime,
    running: a.allocations.length,
    waiting: a.asks.length,
    preempted: a.allocations.filter((x) => x.preempted).length,
    usedResource: nonZero(a.allocated),
    pendingResource: nonZero(a.pending),
    ...(a.rejectedMessage ? { rejectedMessage: a.rejectedMessage } : {}),
  }));
}

/** Every node of a partition with its numbers, sorted by id. */
export function nodeSummaries(core: SchedulerCore, partition: string): NodeSummary[] {
  return core.nodeViews(partition).map((n) => {
    const utilized: Res = {};
    for (const k in n.capacity) utilized[k] = n.capacity[k]! > 0 ? Math.floor(((n.allocated[k] ?? 0) * 100) / n.capacity[k]!) : 0;
    return {
      nodeID: n.id,
      schedulable: n.schedulable,
      capacity: { ...n.capacity },
      allocated: nonZero(n.allocated),
      occupied: nonZero(n.occupied),
      available: n.available,
      utilized,
      allocations: n.allocations.length,
    };
  });
}

function nonZero(r: Readonly<Res>): Res {
  const out: Res = {};
  for (const k in r) if (r[k] !== 0) out[k] = r[k]!;
  return out;
}

/**
 * The user and group limits configured in `partition` (named and wildcard), root first; resources in core units.
 * Empty for an unknown partition.
 */
export function limitsList(config: SchedulerConfig, partition: string): LimitInfo[] {
  const root = config.partitions.find((x) => x.name === partition)?.queues?.[0];
  if (!root) return [];
  const out: LimitInfo[] = [];
  const res = (r: Res | undefined) => (r && Object.keys(r).length > 0 ? { maxResources: { ...r } } : {});
  for (const [queuePath, level] of limitTable(root)) {
    for (const [name, l] of level.users) out.push({ queuePath, kind: "user", name, ...res(l.maxResources), maxApplications: l.maxApps });
    if (level.wildcardUser)
      out.push({
        queuePath,
        kind: "user",
        name: "*",
        ...res(level.wildcardUser.maxResources),
        maxApplications: level.wildcardUser.maxApps,
      });
    for (const [name, l] of level.groups) out.push({ queuePath, kind: "group", name, ...res(l.maxResources), maxApplications: l.maxApps });
    if (level.wildcardGroup)
      out.push({
        queuePath,
        kind: "group",
        name: "*",
        ...res(level.wildcardGroup.maxResources),
        maxApplications: level.wildcardGroup.maxApps,
      });
  }
  return out;
}

/**
 * corral's read routes, `?partition=` (default `default`; unknown: 404 in YuniKorn's error body): `pending`,
 * `limits`, `applications?state=active|completed|rejected` (default active), `application?id=` (YuniKorn's
 * ApplicationDAOInfo in any state: active, the latest completed or failed run, or rejected; unknown: 404
 * `Application not found`; the id in the query, decoded once, where YuniKorn's path parameters are decoded twice),
 * `nodes`, under `/ws/v1/corral/`.
 */
export function addCorralRoutes(r: Router, core: SchedulerCore, now: () => number = Date.now): void {
  const partition = (query: URLSearchParams): string => {
    const name = query.get("partition") || "default";
    if (!core.partitionView(name)) throw new RestError(404, "Partition not found");
    return name;
  };
  r.add("GET", "/ws/v1/corral/pending", ({ res, query }) => json(res, 200, pendingList(core, partition(query), now())));
  r.add("GET", "/ws/v1/corral/limits", ({ res, query }) => json(res, 200, limitsList(core.appliedConfig, partition(query))));
  r.add("GET", "/ws/v1/corral/applications", ({ res, query }) => {
    const p = partition(query);
    const state = (query.get("state") || "active").toLowerCase();
    if (state !== "active" && state !== "completed" && state !== "rejected")
      throw new RestError(400, "Only following application states are allowed: active, rejected, completed");
    json(res, 200, applicationSummaries(core, p, state));
  });
  // YuniKorn's /partition/{p}/application/{id} finds active applications only; the dashboard shows any
  r.add("GET", "/ws/v1/corral/application", ({ res, query }) => {
    const p = partition(query);
    const id = query.get("id");
    if (!id) throw new RestError(400, "the application id is missing: ?id=<application id>");
    const a = core.applicationView(id, p);
    if (!a) throw new RestError(404, "Application not found");
    json(res, 200, applicationInfo(a, lookupsOf(core, p)));
  });
  r.add("GET", "/ws/v1/corral/nodes", ({ res, query }) => json(res, 200, nodeSummaries(core, partition(query))));
}
