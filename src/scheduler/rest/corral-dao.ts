/**
 * corral's own read endpoints (not in YuniKorn): `GET /ws/v1/corral/pending` — every waiting pod with why it waits, as
 * data — and `GET /ws/v1/corral/limits` — the user and group limits in force. Pure functions of the core's state;
 * resources in core units (memory bytes, vcore millicores), the dashboard makes human units.
 */
import type { SchedulerConfig } from "../core/config.js";
import type { Application, Ask, Queue } from "../core/objects.js";
import type { Partition } from "../core/partition.js";
import { type Res, fitsWithin } from "../core/resources.js";
import type { SchedulerCore } from "../core/scheduler.js";
import { limitTable } from "../core/ugm/limits.js";
import type { ApplicationSummary, HoldReasonInfo, LimitInfo, NodeSummary, PendingList, PendingPod } from "./api-types.js";
import { isActive } from "./app-dao.js";
import { RestError, type Router, json } from "./router.js";

const NAMESPACE_TAG = "kubernetes.io/meta/namespace";
const POD_NAME_TAG = "kubernetes.io/meta/podName";

/** A hold reason without the fields every kind shares (what the core decides; `state`/`message` are derived). */
export type HoldData = HoldReasonInfo extends infer H ? H extends HoldReasonInfo ? Omit<H, "state" | "message"> : never : never;

/**
 * The scheduling state of a hold (the shim's `Skipped` for a quota, `Failed` for no node) and its pod-condition text.
 * @param text the core's text for the same hold (the pod condition's message)
 */
export function holdInfo(h: HoldData, text: string): HoldReasonInfo {
  const quota = h.kind === "queueMax" || h.kind === "queueMaxApplications" || h.kind === "limit";
  return { ...h, state: quota ? "Skipped" : "Failed", message: text } as HoldReasonInfo;
}

/**
 * Why `ask` of `app` waits, as data, in the order the core checks (Partition.pendingReason): maxapplications while the
 * application waits to run, user/group limits, queue maxima below root, the cluster size, then the nodes.
 *
 * The core reports its verdict as text only (`held`, from `Partition.pendingReason`); this derives the numbers from the
 * same state. The core's typed hold reason replaces the body with `core.holdReason(appId, key, partition)`.
 * @param held the core's verdict for the ask; undefined: nothing holds it
 */
export function holdOf(p: Partition, app: Application, ask: Ask, held: { state: "Skipped" | "Failed"; reason: string } | undefined): HoldData | undefined {
  if (!held) return undefined;
  const r = ask.resource;
  if (app.state === "Accepted") {
    for (let x: Queue | undefined = app.queue; x; x = x.parent) {
      if (x.maxApps > 0 && x.runningApps + 1 > x.maxApps) return { kind: "queueMaxApplications", queuePath: x.path, maxApplications: x.maxApps };
    }
    const run = p.limits.runHold(app);
    if (run) return { kind: "limit", hold: limitHoldInfo(run) };
  }
  const limit = p.limits.headroom(app, r);
  if (limit) return { kind: "limit", hold: limitHoldInfo(limit) };
  for (let x: Queue | undefined = app.queue; x?.parent; x = x.parent) {
    if (!fitsWithin(x.max, x.allocated, r)) return { kind: "queueMax", queuePath: x.path, max: { ...x.max }, used: { ...x.allocated }, ask: { ...r } };
  }
  const root = p.root;
  for (const k in r) {
    if ((root.allocated[k] ?? 0) + r[k]! > (root.max?.[k] ?? 0)) return { kind: "clusterCapacity", capacity: { ...root.max }, used: { ...root.allocated }, ask: { ...r } };
  }
  if (held.reason.includes("node selector")) return { kind: "noNodeMatches", ask: { ...r } };
  return { kind: "noNodeFits", ask: { ...r }, nodes: p.nodes.size };
}

function limitHoldInfo(h: NonNullable<ReturnType<Partition["limits"]["headroom"]>>): Extract<HoldData, { kind: "limit" }>["hold"] {
  const l = h.limit;
  return {
    kind: h.kind, name: h.name, queuePath: h.queuePath, wildcard: h.wildcard,
    limit: l.type === "resources" ? { type: "resources", max: { ...l.max }, used: { ...l.used }, ask: { ...l.ask } } : { type: "applications", max: l.max, running: l.running },
  };
}

/**
 * Every pending ask of the partition with its pod (from the shim's allocationTags), application, user, queue, since
 * when it waits and why, oldest first (then by key).
 */
export function pendingList(core: SchedulerCore, p: Partition, now: number): PendingList {
  const out: PendingPod[] = [];
  for (const app of p.apps.values()) {
    for (const ask of app.asks.values()) {
      if (ask.node) continue;
      const tags = core.allocationTags(app.id, ask.key, p.name) ?? {};
      const held = p.pendingReason(app.id, ask.key);
      const h = holdOf(p, app, ask, held);
      out.push({
        namespace: tags[NAMESPACE_TAG] ?? "", pod: tags[POD_NAME_TAG] ?? "", allocationKey: ask.key, applicationId: app.id,
        partition: p.name, queue: app.queue.path, user: app.user, groups: [...app.groups], applicationState: app.state,
        resource: { ...ask.resource }, since: ask.createTime,
        ...(h ? { hold: holdInfo(h, held!.reason) } : {}),
      });
    }
  }
  out.sort((a, b) => a.since - b.since || (a.allocationKey < b.allocationKey ? -1 : a.allocationKey > b.allocationKey ? 1 : 0));
  return { partition: p.name, time: now, pending: out };
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
    if (level.wildcardUser) out.push({ queuePath, kind: "user", name: "*", ...res(level.wildcardUser.maxResources), maxApplications: level.wildcardUser.maxApps });
    for (const [name, l] of level.groups) out.push({ queuePath, kind: "group", name, ...res(l.maxResources), maxApplications: l.maxApps });
    if (level.wildcardGroup) out.push({ queuePath, kind: "group", name: "*", ...res(level.wildcardGroup.maxResources), maxApplications: level.wildcardGroup.maxApps });
  }
  return out;
}

/**
 * The applications of a partition in one state group (as `applications/{active|completed|rejected}`), as summaries.
 */
export function applicationSummaries(p: Partition, state: "active" | "completed" | "rejected"): ApplicationSummary[] {
  if (state === "rejected") {
    return [...p.rejected.entries()].map(([id, message]) => ({
      applicationID: id, queueName: "", user: "", groups: [], applicationState: "Rejected", submissionTime: 0, running: 0, waiting: 0,
      usedResource: {}, pendingResource: {}, rejectedMessage: message,
    }));
  }
  const out: ApplicationSummary[] = [];
  for (const a of p.apps.values()) {
    if (state === "active" ? !isActive(a) : a.state !== "Completed" && a.state !== "Failed") continue;
    let running = 0;
    for (const ask of a.asks.values()) if (ask.node) running++;
    out.push({
      applicationID: a.id, queueName: a.queue.path, user: a.user, groups: [...a.groups], applicationState: a.state,
      submissionTime: a.submissionTime, running, waiting: a.asks.size - running, usedResource: nonZero(a.allocated), pendingResource: nonZero(a.pending),
    });
  }
  return out;
}

/** Every node of a partition with its numbers, sorted by id. */
export function nodeSummaries(p: Partition): NodeSummary[] {
  return [...p.nodes.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).map((n) => {
    const utilized: Res = {};
    for (const k in n.capacity) utilized[k] = n.capacity[k]! > 0 ? Math.floor(((n.allocated[k] ?? 0) * 100) / n.capacity[k]!) : 0;
    return {
      nodeID: n.id, schedulable: n.schedulable, capacity: { ...n.capacity }, allocated: nonZero(n.allocated), occupied: nonZero(n.occupied),
      available: n.available(), utilized, allocations: n.allocations.size,
    };
  });
}

function nonZero(r: Readonly<Res>): Res {
  const out: Res = {};
  for (const k in r) if (r[k] !== 0) out[k] = r[k]!;
  return out;
}

/**
 * corral's read routes, `?partition=` (default `default`; unknown: 404 in YuniKorn's error body): `pending`,
 * `limits`, `applications?state=active|completed|rejected` (default active), `nodes`, under `/ws/v1/corral/`.
 */
export function addCorralRoutes(r: Router, core: SchedulerCore, now: () => number = Date.now): void {
  const partition = (query: URLSearchParams): Partition => {
    const p = core.partitions.get(query.get("partition") || "default");
    if (!p) throw new RestError(404, "Partition not found");
    return p;
  };
  r.add("GET", "/ws/v1/corral/pending", ({ res, query }) => json(res, 200, pendingList(core, partition(query), now())));
  r.add("GET", "/ws/v1/corral/limits", ({ res, query }) => json(res, 200, limitsList(core.appliedConfig, partition(query).name)));
  r.add("GET", "/ws/v1/corral/applications", ({ res, query }) => {
    const p = partition(query);
    const state = (query.get("state") || "active").toLowerCase();
    if (state !== "active" && state !== "completed" && state !== "rejected") throw new RestError(400, "Only following application states are allowed: active, rejected, completed");
    json(res, 200, applicationSummaries(p, state));
  });
  r.add("GET", "/ws/v1/corral/nodes", ({ res, query }) => json(res, 200, nodeSummaries(partition(query))));
}
