/**
 * The scheduler's REST API (YuniKorn-compatible paths and JSON shapes; apache/yunikorn-core pkg/webservice,
 * yunikorn-core reference §3). Plain HTTP on port 9080 by default, as upstream.
 *
 * Served: `POST /ws/v1/validate-conf`, `GET /ws/v1/config`, `GET /ws/v1/scheduler/healthcheck`, `GET /ws/v1/metrics`,
 * `GET /ws/v1/partitions`, and under `/ws/v1/partition/{p}/`: `queues`, `queue/{q}`, `nodes`, `node/{n}`,
 * `applications/{active|rejected|completed}`, `application/{app}`, `usage/users`, `usage/groups`.
 * Errors answer YuniKorn's body `{"status_code","message","description"}`.
 */
import { type IncomingMessage, type Server, type ServerResponse, createServer } from "node:http";
import type { Logger } from "pino";
import { Gauge, Registry, collectDefaultMetrics } from "prom-client";
import type { QueueView } from "../core/read.js";
import { stringify } from "yaml";
import type { SchedulerConfig } from "../core/config.js";
import type { SchedulerCore } from "../core/scheduler.js";
import { applicationInfo, applicationsInfo, health, nodeInfo, partitionInfo, queueInfo, userUsage } from "./dao.js";
import { validateQueuesYaml } from "../core/validate.js";
import { readBody as readRequestBody } from "../../util/http-body.js";

export interface RestOptions {
  host: string;
  port: number;
  log: Logger;
  /** The configuration in force. */
  config: () => SchedulerConfig;
  /** The running core, for the partition/queue/node/application endpoints. */
  core?: SchedulerCore;
  /** Largest request body accepted, bytes (default 3 MiB). */
  bodyLimitBytes?: number;
  /** Metrics registry to serve (default: a new one); the shim registers its own metrics in it. */
  registry?: Registry;
  /** Further routes, keyed `METHOD /path` (the shim's extender verbs and state dump). */
  routes?: Record<string, (req: IncomingMessage, res: ServerResponse) => void>;
}

const JSON_HEADERS = {
  "content-type": "application/json; charset=UTF-8",
  "access-control-allow-origin": "*",
  "access-control-allow-headers": "X-Requested-With,Content-Type,Accept,Origin",
};

export function json(res: ServerResponse, status: number, body: unknown, methods = "GET, OPTIONS"): void {
  res.writeHead(status, { ...JSON_HEADERS, "access-control-allow-methods": methods });
  res.end(JSON.stringify(body));
}

/** YuniKorn's error body. */
function error(res: ServerResponse, status: number, message: string): void {
  json(res, status, { status_code: status, message, description: message });
}

/** The body as text; rejects with an Error carrying `status: 413` (connection destroyed) or 400 when the stream fails. */
export async function readBody(req: IncomingMessage, limit: number): Promise<string> {
  const read = await readRequestBody(req, { limitBytes: limit });
  if (read.ok) return read.body.toString("utf8");
  if (read.reason === "error") throw read.error;
  req.destroy();
  throw Object.assign(new Error(`request body exceeds ${limit} bytes`), { status: 413 });
}

export interface RestServer {
  server: Server;
  port: number;
  close(): Promise<void>;
}

export async function startRestServer(o: RestOptions): Promise<RestServer> {
  const registry = o.registry ?? new Registry();
  collectDefaultMetrics({ register: registry, prefix: "yunikorn_" });
  if (o.core) registerCoreMetrics(registry, o.core);
  const limit = o.bodyLimitBytes ?? 3 * 1024 * 1024;
  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0]!;
    const route = `${req.method} ${path}`;
    switch (route) {
      case "POST /ws/v1/validate-conf":
        readBody(req, limit).then(
          (text) => json(res, 200, validateQueuesYaml(text), "OPTIONS, POST"),
          (err: Error & { status?: number }) => error(res, err.status ?? 400, err.message),
        );
        return;
      case "GET /ws/v1/config":
        if ((req.headers.accept ?? "").includes("application/json")) return json(res, 200, o.config());
        res.writeHead(200, { "content-type": "application/x-yaml; charset=UTF-8" });
        res.end(stringify(o.config()));
        return;
      case "GET /ws/v1/scheduler/healthcheck":
        return json(res, 200, o.core ? health(o.core.partitionNames().map((name) => ({ partition: o.core!.partitionView(name)!, nodes: o.core!.nodeViews(name) }))) : { Healthy: true, HealthChecks: [] });
      case "GET /ws/v1/metrics":
        registry.metrics().then((t) => {
          res.writeHead(200, { "content-type": registry.contentType });
          res.end(t);
        }, (err: Error) => error(res, 500, err.message));
        return;
      default: {
        const extra = o.routes?.[route];
        if (extra) return extra(req, res);
        if (req.method === "OPTIONS") return json(res, 200, {}, "GET, OPTIONS, POST");
        if (req.method === "GET" && o.core && serveCore(o.core, path, req.url ?? "", res)) return;
        error(res, 404, "Not found");
      }
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(o.port, o.host, () => resolve());
  });
  const addr = server.address();
  const port = typeof addr === "object" && addr ? addr.port : o.port;
  o.log.info({ port, host: o.host }, "scheduler REST API serving");
  return { server, port, close: () => new Promise((r) => server.close(() => r())) };
}

/** The read endpoints over the core's read API; false when the path is not one of them. */
function serveCore(core: SchedulerCore, path: string, url: string, res: ServerResponse): boolean {
  if (path === "/ws/v1/partitions") {
    json(res, 200, core.partitionNames().map((name) => partitionInfo(core.partitionView(name)!)));
    return true;
  }
  const m = /^\/ws\/v1\/partition\/([^/]+)\/(queues|queue|nodes|node|applications|application|usage)(?:\/([^/]+))?$/.exec(path);
  if (!m) return false;
  const partition = decodeURIComponent(m[1]!);
  if (!core.partitionView(partition)) {
    error(res, 404, "Partition not found");
    return true;
  }
  const arg = m[3] === undefined ? undefined : decodeURIComponent(m[3]);
  switch (m[2]) {
    case "queues":
      json(res, 200, queueInfo(core.queueView("root", { partition, subtree: true })!, partition));
      return true;
    case "queue": {
      const q = arg ? core.queueView(arg, { partition, subtree: new URL(url, "http://localhost").searchParams.has("subtree") }) : undefined;
      if (!q) error(res, 404, "Queue not found");
      else json(res, 200, queueInfo(q));
      return true;
    }
    case "nodes":
      json(res, 200, core.nodeViews(partition).map(nodeInfo));
      return true;
    case "node": {
      const n = arg ? core.nodeView(arg, partition) : undefined;
      if (!n) error(res, 404, "Node not found");
      else json(res, 200, nodeInfo(n));
      return true;
    }
    case "applications": {
      if (arg === "active" || arg === "completed" || arg === "rejected") json(res, 200, applicationsInfo(core.applicationViews(arg, partition, { holds: arg === "active" }), arg));
      else error(res, 400, "Only following application states are allowed: active, rejected, completed");
      return true;
    }
    case "application": {
      const a = arg ? core.applicationView(arg, partition) : undefined;
      if (!a) error(res, 404, "Application not found");
      else json(res, 200, applicationInfo(a));
      return true;
    }
    case "usage":
      if (arg === "users" || arg === "groups") json(res, 200, userUsage(core.usageViews(arg, partition), arg));
      else error(res, 404, "Not found");
      return true;
  }
  return false;
}

/**
 * YuniKorn's scheduler gauges (yunikorn-core reference §3.2), computed at scrape time from the core:
 * `yunikorn_queue_resource{queue,state,resource}`, `yunikorn_queue_app{queue,state}`, `yunikorn_scheduler_node{state}`.
 */
function registerCoreMetrics(registry: Registry, core: SchedulerCore): void {
  const walk = (q: QueueView, f: (q: QueueView) => void) => {
    f(q);
    for (const c of q.children ?? []) walk(c, f);
  };
  new Gauge({
    name: "yunikorn_queue_resource", help: "Queue resources by state (guaranteed, max, allocated, pending, maxRunningApps)",
    labelNames: ["queue", "state", "resource"], registers: [registry],
    collect() {
      this.reset();
      for (const name of core.partitionNames()) {
        walk(core.queueView("root", { partition: name, subtree: true })!, (q) => {
          for (const [state, r] of [["guaranteed", q.guaranteed], ["max", q.max], ["allocated", q.allocated], ["pending", q.pending]] as const) {
            for (const k in r ?? {}) this.set({ queue: q.path, state, resource: k }, r![k]!);
          }
          this.set({ queue: q.path, state: "maxRunningApps", resource: "" }, q.maxApplications);
        });
      }
    },
  });
  new Gauge({
    name: "yunikorn_queue_app", help: "Applications per queue by state", labelNames: ["queue", "state"], registers: [registry],
    collect() {
      this.reset();
      for (const name of core.partitionNames()) {
        for (const a of core.applicationViews("active", name, { holds: false })) this.inc({ queue: a.queue, state: a.state.toLowerCase() });
      }
    },
  });
  new Gauge({
    name: "yunikorn_scheduler_node", help: "Nodes by state", labelNames: ["state"], registers: [registry],
    collect() {
      this.reset();
      for (const name of core.partitionNames()) for (const n of core.nodeViews(name)) this.inc({ state: n.schedulable ? "active" : "draining" });
    },
  });
}
