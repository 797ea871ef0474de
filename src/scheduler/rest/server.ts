/**
 * The scheduler's REST API (YuniKorn-compatible paths and JSON shapes; apache/yunikorn-core pkg/webservice
 * routes.go/handlers.go, yunikorn-core reference §3). Plain HTTP on port 9080 by default, as upstream. Every route
 * is in the table built by `routes()`; errors answer YuniKorn's body `{"status_code","message","description"}`.
 *
 * Served: `POST /ws/v1/validate-conf`; `GET /ws/v1/config`, `/ws/v1/scheduler/healthcheck`, `/ws/v1/metrics`,
 * `/ws/v1/clusters`, `/ws/v1/partitions`, `/ws/v1/scheduler/node-utilizations`, `/ws/v1/history/apps`,
 * `/ws/v1/history/containers`, `/ws/v1/events/batch`, `/ws/v1/events/stream`, `/debug/fullstatedump`,
 * `/debug/stack` (the Node.js process report: there are no goroutines); and under `/ws/v1/partition/{p}/`:
 * `placementrules`, `queues`, `queue/{q}`, `queue/{q}/applications[/{state}]`, `queue/{q}/application/{app}`,
 * `nodes`, `node/{n}`, `applications/{active|rejected|completed}`, `application/{app}`, `usage/users`,
 * `usage/user/{u}`, `usage/groups`, `usage/group/{g}`.
 */
import { type IncomingMessage, type Server, type ServerResponse, createServer } from "node:http";
import type { Logger } from "pino";
import { Registry, collectDefaultMetrics } from "prom-client";
import { stringify } from "yaml";
import { TERMINATED_STATES } from "../core/application-state.js";
import type { SchedulerConfig } from "../core/config.js";
import type { ApplicationView, QueueView } from "../core/read.js";
import { DEFAULT_CONFIG, type SchedulerCore } from "../core/scheduler.js";
import { GROUP_NAME, INVALID_QUEUE_NAME, QUEUE_NAME, USER_NAME, validateQueuesYaml } from "../core/validate.js";
import type { ForeignPodView } from "../shim/context.js";
import type { EventSystem } from "../events/system.js";
import { ACTIVE_STATUSES, applicationInfo, lookupsOf } from "./app-dao.js";
import { type BuildInfo, History, clustersInfo, corralBuildInfo, countsOf, nodeUtilizations, placementRules } from "./cluster-dao.js";
import { type ConfigExtras, configJson, configYaml } from "./config-dao.js";
import { addCorralRoutes } from "./corral-dao.js";
import { health, nodeInfo, partitionInfo, queueInfo, userUsage } from "./dao.js";
import { clientAddress } from "./forward.js";
import { RestError, Router, corsHeaders, error, json, redirect, send } from "./router.js";
import { serveUi } from "./ui-static.js";
import { registerYunikornMetrics } from "./metrics.js";
import { readBody as readRequestBody } from "../../util/http-body.js";

export { json } from "./router.js";

/** Options of {@link startRestServer}. */
export interface RestOptions {
  host: string;
  port: number;
  log: Logger;
  /** The configuration in force. */
  config: () => SchedulerConfig;
  /** The extra configuration: the ConfigMap keys not ending in `.yaml` (default: none). */
  extraConfig?: () => Readonly<Record<string, string>>;
  /** The running core, for the partition/queue/node/application endpoints. */
  core?: SchedulerCore;
  /** Largest request body accepted, bytes (default 3 MiB). */
  bodyLimitBytes?: number;
  /** Metrics registry to serve (default: a new one); the shim registers its own metrics in it. */
  registry?: Registry;
  /** Further routes, keyed `METHOD /path` (the shim's extender verbs and state dump). */
  routes?: Record<string, (req: IncomingMessage, res: ServerResponse) => void>;
  /** The event system behind `/ws/v1/events/*` (absent: 500 `Event tracking is disabled`). */
  events?: EventSystem;
  /** Scheduler start, Unix ms (clusters `startTime`, partitions `lastStateTransitionTime`). Default: now. */
  startTime?: number;
  /** The RM's build information for `/ws/v1/clusters` (default: corral's, `corralBuildInfo`). */
  build?: BuildInfo;
  /** Milliseconds between `/ws/v1/history/*` samples (default 60000, as upstream; 1440 samples kept). */
  historyIntervalMs?: number;
  /** Other schedulers' pods on a node, for the node DAO's `foreignAllocations` (default: none). */
  foreignAllocations?: (nodeId: string) => readonly ForeignPodView[];
  /** The RM's own state for the state dump's `rmDiagnostics` (the shim's view). */
  rmDiagnostics?: () => Record<string, unknown>;
  /** The built dashboard served at `/ui/` (default: `dist/ui/` of the package, see ui-static.ts); false: none. */
  uiDir?: string | false;
  /** Called before any route: true when it answered the request itself (a follower forwarding reads to the leader). */
  intercept?: (req: IncomingMessage, res: ServerResponse) => boolean;
}

/** The body as text; rejects with an Error carrying `status: 413` (connection destroyed) or the stream's error. */
export async function readBody(req: IncomingMessage, limit: number): Promise<string> {
  const read = await readRequestBody(req, { limitBytes: limit });
  if (read.ok) return read.body.toString("utf8");
  if (read.reason === "error") throw read.error;
  req.destroy();
  throw Object.assign(new Error(`request body exceeds ${limit} bytes`), { status: 413 });
}

/** A listening REST server: its port, and `close()` (ends event streams and connections, then stops listening). */
export interface RestServer {
  server: Server;
  port: number;
  close(): Promise<void>;
}

/**
 * Serves YuniKorn's REST API (`/ws/v1/*`), the metrics, the dashboard and `routes` on `host:port` (yunikorn-core
 * reference §6).
 * @throws Error when the port cannot be bound
 */
export async function startRestServer(o: RestOptions): Promise<RestServer> {
  const registry = o.registry ?? new Registry();
  collectDefaultMetrics({ register: registry, prefix: "yunikorn_" });
  const yunikornMetrics = o.core && registerYunikornMetrics(registry, o.core);
  const history = new History();
  const timers: NodeJS.Timeout[] = [];
  if (o.core) {
    const core = o.core;
    const sample = () => history.record({ time: Date.now(), ...countsOf(core) });
    sample();
    timers.push(setInterval(sample, o.historyIntervalMs ?? 60_000).unref());
  }
  const router = routes({
    ...o,
    build: o.build ?? corralBuildInfo({ plugin: false }),
    registry,
    history,
    refreshMetrics: yunikornMetrics?.refresh,
    startTime: o.startTime ?? Date.now(),
    bodyLimitBytes: o.bodyLimitBytes ?? 3 * 1024 * 1024,
  });
  const server = createServer((req, res) => {
    if (o.intercept?.(req, res)) return;
    if (o.uiDir !== false && serveUi(req, res, o.uiDir)) return;
    const path = (req.url ?? "/").split("?")[0]!;
    const extra = o.routes?.[`${req.method} ${path}`];
    if (extra) return extra(req, res);
    router.serve(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(o.port, o.host, () => resolve());
  });
  const addr = server.address();
  const port = typeof addr === "object" && addr ? addr.port : o.port;
  o.log.info({ port, host: o.host }, "scheduler REST API serving");
  return {
    server,
    port,
    close: () =>
      new Promise((r) => {
        for (const t of timers) clearInterval(t);
        o.events?.close();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/**
 * Go's strconv.ParseUint (base 10, 64 bits) as upstream reads `count` and `start`: digits only, at most 2^64 − 1, with
 * Go's error text. A value past the largest safe integer is read as that integer (a count is capped far below it, and
 * no event id reaches it).
 * @throws RestError 400 `strconv.ParseUint: parsing "x": invalid syntax` or `…: value out of range`
 */
function parseUint(raw: string | null, dflt: number): number {
  if (raw === null || raw === "") return dflt;
  if (!/^\d+$/.test(raw)) throw new RestError(400, `strconv.ParseUint: parsing ${goQuote(raw)}: invalid syntax`);
  const n = BigInt(raw);
  if (n > 2n ** 64n - 1n) throw new RestError(400, `strconv.ParseUint: parsing ${goQuote(raw)}: value out of range`);
  return n > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(n);
}

/** Go's strconv.Quote for the texts quoted in error messages (JSON's escapes are Go's for these). */
function goQuote(s: string): string {
  return JSON.stringify(s);
}

/**
 * Upstream's validateQueue: every segment of the path must be a valid queue name (configs.IsQueueNameValid, its error
 * common.ErrorInvalidQueueName).
 * @throws RestError 400 with upstream's text
 */
function checkQueuePath(path: string): void {
  for (const name of path.split(".")) {
    if (!QUEUE_NAME.test(name)) throw new RestError(400, INVALID_QUEUE_NAME);
  }
}

/**
 * The checksum's text and the extra configuration of `/ws/v1/config` and the state dump: the core's configuration text
 * (the default one when it has none, as the core reads it).
 */
function configExtras(o: RestOptions): ConfigExtras {
  const text = o.core?.config ?? "";
  return { text: text.trim() === "" ? DEFAULT_CONFIG : text, extra: o.extraConfig?.() ?? {} };
}

/** The route table. */
function routes(
  o: RestOptions & {
    registry: Registry;
    history: History;
    startTime: number;
    bodyLimitBytes: number;
    build: BuildInfo;
    /** Registers the metric families named after queues and resources as they are now (rest/metrics.ts). */
    refreshMetrics?: () => void;
  },
): Router {
  const r = new Router();
  r.add("POST", "/ws/v1/validate-conf", ({ req, res }) =>
    readBody(req, o.bodyLimitBytes).then(
      (text) => json(res, 200, validateQueuesYaml(text), "OPTIONS, POST"),
      (err: Error & { status?: number }) => error(res, err.status ?? 400, err.message),
    ),
  );
  // JSON only for exactly `Accept: application/json`, as upstream getClusterConfig; YAML keeps the CORS headers
  r.add("GET", "/ws/v1/config", ({ req, res }) => {
    if (req.headers.accept === "application/json") return json(res, 200, configJson(o.config(), configExtras(o)));
    // every object written out in full (the root queue's limits are the partition's: no YAML anchor and alias)
    const text = stringify(configYaml(o.config(), configExtras(o)), { aliasDuplicateObjects: false });
    send(res, 200, { ...corsHeaders(), "content-type": "application/x-yaml; charset=UTF-8" }, text);
  });
  r.add("GET", "/ws/v1/scheduler/healthcheck", ({ res }) => {
    const core = o.core;
    json(res, 200, core ? health(core.healthViews(), core.failures) : { Healthy: true, HealthChecks: [] });
  });
  r.add("GET", "/ws/v1/metrics", async ({ res }) => {
    o.refreshMetrics?.();
    send(res, 200, { "content-type": o.registry.contentType }, await o.registry.metrics());
  });
  r.add("GET", "/debug/stack", ({ res }) => {
    // Node.js has no goroutines: the process report (JavaScript and native stacks, libuv handles, heap) is the nearest.
    send(res, 200, { "content-type": "text/plain; charset=UTF-8" }, JSON.stringify(process.report.getReport(), null, 2));
  });
  for (const name of ["stack", "fullstatedump"]) {
    // the query goes along, as upstream's redirect keeps the request's URL but for the prefix
    r.add("GET", `/ws/v1/${name}`, ({ req, res }) => {
      const q = (req.url ?? "").indexOf("?");
      redirect(res, 301, `/debug/${name}${q >= 0 ? req.url!.slice(q) : ""}`, "GET");
    });
  }
  addEventRoutes(r, o.events);
  if (o.core) {
    addCoreRoutes(r, o.core, o);
    addCorralRoutes(r, o.core);
  }
  return r;
}

function addCoreRoutes(r: Router, core: SchedulerCore, o: RestOptions & { history: History; startTime: number; build: BuildInfo }): void {
  const partition = (name: string): string => {
    if (!core.partitionView(name)) throw new RestError(404, "Partition not found");
    return name;
  };
  // upstream's usage handlers read the one user/group manager and never the partition: an unknown partition name
  // answers with the default partition's usage (the one named `default`, else the first), not 404
  const usagePartition = (name: string): string => {
    if (core.partitionView(name)) return name;
    const names = core.partitionNames();
    return names.includes("default") ? "default" : names[0]!;
  };
  const queue = (p: string, path: string, subtree = false): QueueView => {
    checkQueuePath(path);
    const q = core.queueView(path, { partition: p, subtree });
    if (!q) throw new RestError(404, "Queue not found");
    return q;
  };
  const activeStatus = (query: URLSearchParams): string | undefined => {
    const status = (query.get("status") ?? "").toLowerCase();
    if (status && !(ACTIVE_STATUSES as readonly string[]).includes(status))
      throw new RestError(400, `Only following active statuses are allowed: ${ACTIVE_STATUSES.join(",")}`);
    return status || undefined;
  };
  const apps = (p: string, list: ApplicationView[]) => list.map((a) => applicationInfo(a, lookupsOf(core, p)));
  const queueApps = (p: string, q: QueueView, status?: string) =>
    apps(
      p,
      core.applicationViews("active", p).filter((a) => a.queue === q.path && (!status || a.state.toLowerCase() === status)),
    );
  const foreign = (id: string) => o.foreignAllocations?.(id) ?? [];
  const nodes = (p: string) => core.nodeViews(p).map((n) => nodeInfo(n, lookupsOf(core, p), foreign(n.id)));
  const allApps = (p: string) => [
    ...apps(p, core.applicationViews("active", p)),
    ...apps(p, core.applicationViews("completed", p)),
    ...rejected(p),
  ];
  const rejected = (p: string) => core.applicationViews("rejected", p).map((a) => applicationInfo(a, lookupsOf(core, p)));

  r.add("GET", "/ws/v1/clusters", ({ res }) => json(res, 200, clustersInfo(core.partitionNames(), o.startTime, o.build)));
  r.add("GET", "/ws/v1/partitions", ({ res }) =>
    json(
      res,
      200,
      core.partitionNames().map((p) => partitionInfo(core.partitionView(p)!, o.startTime)),
    ),
  );
  r.add("GET", "/ws/v1/scheduler/node-utilizations", ({ res }) =>
    json(
      res,
      200,
      core.partitionNames().map((p) => nodeUtilizations(p, core.nodeViews(p))),
    ),
  );
  r.add("GET", "/ws/v1/history/apps", ({ res }) => json(res, 200, o.history.apps()));
  r.add("GET", "/ws/v1/history/containers", ({ res }) => json(res, 200, o.history.containers()));
  r.add("GET", "/ws/v1/partition/:partition/placementrules", ({ res, params }) =>
    json(res, 200, placementRules(core.appliedConfig, partition(params.partition!))),
  );
  r.add("GET", "/ws/v1/partition/:partition/queues", ({ res, params }) => {
    const p = partition(params.partition!);
    json(res, 200, queueInfo(core.queueView("root", { partition: p, subtree: true })!, p));
  });
  r.add("GET", "/ws/v1/partition/:partition/queue/:queue", ({ res, params, query }) => {
    json(res, 200, queueInfo(queue(partition(params.partition!), params.queue!, query.has("subtree"))));
  });
  r.add("GET", "/ws/v1/partition/:partition/queue/:queue/applications", ({ res, params }) => {
    checkQueuePath(params.queue!); // before the partition, as upstream getQueueApplications
    const p = partition(params.partition!);
    json(res, 200, queueApps(p, queue(p, params.queue!)));
  });
  r.add("GET", "/ws/v1/partition/:partition/queue/:queue/applications/:state", ({ res, params, query }) => {
    const p = partition(params.partition!);
    const q = queue(p, params.queue!);
    if (params.state!.toLowerCase() !== "active") throw new RestError(400, "Only following application states are allowed: active");
    json(res, 200, queueApps(p, q, activeStatus(query)));
  });
  r.add("GET", "/ws/v1/partition/:partition/queue/:queue/application/:application", ({ res, params }) => {
    const p = partition(params.partition!);
    const q = queue(p, params.queue!);
    const a = core.applicationView(params.application!, p);
    // a queue holds its active applications only (upstream Queue.GetApplication): a finished one is not found here
    if (!a || a.queue !== q.path || TERMINATED_STATES.has(a.state)) throw new RestError(404, "Application not found");
    json(res, 200, applicationInfo(a, lookupsOf(core, p)));
  });
  r.add("GET", "/ws/v1/partition/:partition/nodes", ({ res, params }) => json(res, 200, nodes(partition(params.partition!))));
  r.add("GET", "/ws/v1/partition/:partition/node/:node", ({ res, params }) => {
    const p = partition(params.partition!);
    const n = core.nodeView(params.node!, p);
    if (!n) throw new RestError(404, "Node not found");
    json(res, 200, nodeInfo(n, lookupsOf(core, p), foreign(n.id)));
  });
  r.add("GET", "/ws/v1/partition/:partition/applications/:state", ({ res, params, query }) => {
    const p = partition(params.partition!);
    const state = params.state!.toLowerCase();
    if (state !== "active" && state !== "completed" && state !== "rejected")
      throw new RestError(400, "Only following application states are allowed: active, rejected, completed");
    const status = state === "active" ? activeStatus(query) : undefined;
    json(
      res,
      200,
      apps(
        p,
        core.applicationViews(state, p).filter((a) => !status || a.state.toLowerCase() === status),
      ),
    );
  });
  r.add("GET", "/ws/v1/partition/:partition/application/:application", ({ res, params }) => {
    const p = partition(params.partition!);
    const a = core.applicationView(params.application!, p);
    // the partition's active applications only (upstream PartitionContext.GetApplication): a completed, failed or
    // rejected one is listed under /applications/{completed|rejected}
    if (!a || TERMINATED_STATES.has(a.state)) throw new RestError(404, "Application not found");
    json(res, 200, applicationInfo(a, lookupsOf(core, p)));
  });
  r.add("GET", "/ws/v1/partition/:partition/usage/users", ({ res, params }) =>
    json(res, 200, userUsage(core.usageViews("users", usagePartition(params.partition!)), "users")),
  );
  r.add("GET", "/ws/v1/partition/:partition/usage/groups", ({ res, params }) =>
    json(res, 200, userUsage(core.usageViews("groups", usagePartition(params.partition!)), "groups")),
  );
  r.add("GET", "/ws/v1/partition/:partition/usage/user/:user", ({ res, params }) => {
    const p = usagePartition(params.partition!);
    if (!USER_NAME.test(params.user!)) throw new RestError(400, "Invalid user name");
    const u = userUsage(
      core.usageViews("users", p).filter((x) => x.name === params.user),
      "users",
    )[0];
    if (!u) throw new RestError(404, "User not found");
    json(res, 200, u);
  });
  r.add("GET", "/ws/v1/partition/:partition/usage/group/:group", ({ res, params }) => {
    const p = usagePartition(params.partition!);
    if (!GROUP_NAME.test(params.group!)) throw new RestError(400, "Invalid group name");
    const g = userUsage(
      core.usageViews("groups", p).filter((x) => x.name === params.group),
      "groups",
    )[0];
    if (!g) throw new RestError(404, "Group not found");
    json(res, 200, g);
  });
  r.add("GET", "/debug/fullstatedump", ({ res }) => {
    const parts = core.partitionNames();
    const dump = {
      timestamp: Date.now() * 1_000_000,
      partitions: parts.map((p) => partitionInfo(core.partitionView(p)!, o.startTime)),
      applications: parts.flatMap(allApps),
      appHistory: o.history.apps(),
      nodes: parts.map((p) => ({ partitionName: p, nodesInfo: nodes(p) })),
      clusterInfo: clustersInfo(parts, o.startTime, o.build),
      containerHistory: o.history.containers(),
      queues: parts.map((p) => queueInfo(core.queueView("root", { partition: p, subtree: true })!, p)),
      rmDiagnostics: o.rmDiagnostics?.() ?? { empty: "Resource Manager did not register callback" },
      logLevel: o.log.level,
      config: configJson(o.config(), configExtras(o)),
      placementRules: parts.map((p) => ({ partition: p, rules: placementRules(core.appliedConfig, p) })),
      eventStreams: o.events?.streamsInfo() ?? [],
    };
    send(
      res,
      200,
      { "content-type": "application/json; charset=UTF-8", "access-control-allow-origin": "*" },
      JSON.stringify(dump, null, 2),
    );
  });
}

/**
 * `/ws/v1/events/batch` and `/ws/v1/events/stream` (upstream handlers.go getEvents, getStream). The per-host stream
 * limit counts the client's address — the original client's when a follower forwarded the request (upstream counts
 * the request's Host header, which every client behind one Service shares).
 */
function addEventRoutes(r: Router, events: EventSystem | undefined): void {
  const tracking = () => {
    if (!events || !events.config.trackingEnabled) throw new RestError(500, "Event tracking is disabled");
    return events;
  };
  r.add("GET", "/ws/v1/events/batch", ({ res, query }) => {
    const ev = tracking();
    const asked = parseUint(query.get("count"), ev.config.restResponseSize);
    if (asked === 0) throw new RestError(400, '0 is not a valid value for "count"');
    json(res, 200, ev.batch(parseUint(query.get("start"), 0), Math.min(asked, ev.config.restResponseSize)));
  });
  r.add("GET", "/ws/v1/events/stream", ({ req, res, query }) => {
    const ev = tracking();
    const host = clientAddress(req);
    // the connection limit first, then the count (upstream getStream)
    const full = ev.streamRefusal(host);
    if (full) throw new RestError(503, full);
    const count = parseUint(query.get("count"), 0);
    let started = false;
    const handle = ev.openStream({
      host,
      name: `${host}:${req.socket.remotePort ?? ""}`,
      count,
      consumer: {
        write: (chunk) => {
          if (!started) {
            started = true;
            res.writeHead(200, { ...corsHeaders(), "content-type": "application/json; charset=UTF-8", "cache-control": "no-cache" });
          }
          return res.write(chunk);
        },
        close: (last) => {
          res.end(last);
          // a consumer that does not read the end either goes after upstream's 5 s write deadline
          setTimeout(() => res.destroy(), 5000).unref();
        },
      },
    });
    if ("refused" in handle) throw new RestError(503, handle.refused);
    res.on("drain", handle.drained);
    res.on("close", handle.remove);
  });
}
