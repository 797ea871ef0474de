/**
 * Requests on a follower are answered by the leader: with two replicas behind one Service, a REST read or an extender
 * verb that lands on the follower (whose core is empty) is forwarded to the REST address the leader publishes on its
 * Lease, and the leader's answer is passed back unchanged (status, headers, body; streams included). The choice and
 * its limits:
 *
 * - forwarded: every request under `/ws/` and `/debug/` except `GET /ws/v1/metrics` (each replica's own process
 *   metrics, as Prometheus scrapes pods), `GET /ws/v1/scheduler/healthcheck` (the replica's own probe) and
 *   `POST /ws/v1/validate-conf` (stateless: any replica validates); and plugin mode's extender verbs under
 *   `/scheduler/` (`filter`, `bind`: kube-scheduler reaches the Service, and only the leader has allocations);
 * - a forwarded request carries `x-corral-forwarded`; a replica that is not the leader either answers it with 503
 *   instead of forwarding again (no loops while the Lease changes hands);
 * - no leader known, or the leader unreachable: 503 in YuniKorn's error body — never an empty core's answer.
 *
 * `forwardDecision` is the rule (pure); `forwardRequest` the edge; `replicaIntercept` puts them in front of the REST
 * server.
 */
import { type IncomingMessage, type ServerResponse, request } from "node:http";
import { error } from "./router.js";

/** The Lease annotation in which the leader publishes its REST base URL (e.g. `http://10.0.0.7:9080`). */
export const LEADER_ADDRESS_ANNOTATION = "scheduling.corral.dev/rest-address";
/** Request header set on forwarded requests; response header naming the replica that answered. */
export const FORWARDED_HEADER = "x-corral-forwarded";
/** Response header naming the replica that answered (set on every answer). */
export const SERVED_BY_HEADER = "x-corral-served-by";
/** The original client's address on a forwarded request (the leader counts event streams per client). */
export const CLIENT_HEADER = "x-corral-client";

/** The client a request comes from: the address a forwarding replica names, else the connection's peer. */
export function clientAddress(req: IncomingMessage): string {
  const named = req.headers[FORWARDED_HEADER] !== undefined ? req.headers[CLIENT_HEADER] : undefined;
  return (typeof named === "string" && named) || req.socket.remoteAddress || "unknown";
}

/** What a replica knows about the leader when it decides where a request is answered. */
export interface LeaderView {
  /** This replica holds the Lease. */
  leading: boolean;
  /** The REST base URL the Lease's holder published; undefined when none is known. */
  leaderAddress?: string;
}

/** Plugin mode's extender verbs (`POST /scheduler/filter`, `/scheduler/bind`; extender-routes.ts). */
const EXTENDER_PREFIX = "/scheduler/";

const LOCAL = new Set([
  "GET /ws/v1/metrics",
  "GET /ws/v1/scheduler/healthcheck",
  "POST /ws/v1/validate-conf",
  "OPTIONS /ws/v1/validate-conf",
]);

/**
 * What a replica does with a request: answer it (`local`), pass it to the leader (`forward`), or refuse it with
 * the reason (`unavailable`).
 */
export function forwardDecision(
  method: string,
  path: string,
  forwarded: boolean,
  view: LeaderView,
): { action: "local" } | { action: "forward"; target: string } | { action: "unavailable"; reason: string } {
  if (view.leading) return { action: "local" };
  if (!path.startsWith("/ws/") && !path.startsWith("/debug/") && !path.startsWith(EXTENDER_PREFIX)) return { action: "local" };
  if (LOCAL.has(`${method} ${path}`)) return { action: "local" };
  if (forwarded) return { action: "unavailable", reason: "this replica is not the leader (request already forwarded once)" };
  if (!view.leaderAddress) return { action: "unavailable", reason: "no leader known: the leader Lease names no REST address" };
  return { action: "forward", target: view.leaderAddress };
}

/**
 * Passes `req` to `target` (base URL) and its answer back; 503 when the leader cannot be reached.
 * @param identity this replica's identity (sent in `x-corral-forwarded`)
 */
export function forwardRequest(req: IncomingMessage, res: ServerResponse, target: string, identity: string): void {
  let base: URL;
  try {
    base = new URL(target);
  } catch {
    return error(res, 503, `the leader published an invalid REST address "${target}"`);
  }
  const up = request(
    {
      host: base.hostname,
      port: base.port || 80,
      method: req.method,
      path: req.url,
      headers: { ...req.headers, host: base.host, [FORWARDED_HEADER]: identity, [CLIENT_HEADER]: clientAddress(req) },
    },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  up.on("error", (err) => {
    if (!res.headersSent) error(res, 503, `the leader at ${target} cannot be reached: ${err.message}`);
    else res.destroy();
  });
  res.on("close", () => up.destroy());
  req.pipe(up);
}

/**
 * The REST server's `intercept` for one replica: names the replica on every answer (`x-corral-served-by`); with leader
 * election, applies `forwardDecision` with the replica's view of the leader now and forwards or refuses (503).
 * @returns true when the request was answered here (forwarded or refused), false to serve it locally
 */
export function replicaIntercept(o: {
  identity: string;
  leaderElect: boolean;
  view: () => LeaderView;
}): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    res.setHeader(SERVED_BY_HEADER, o.identity);
    if (!o.leaderElect) return false;
    const path = (req.url ?? "/").split("?")[0]!;
    const d = forwardDecision(req.method ?? "GET", path, req.headers[FORWARDED_HEADER] !== undefined, o.view());
    if (d.action === "local") return false;
    if (d.action === "unavailable") error(res, 503, d.reason);
    else {
      res.removeHeader(SERVED_BY_HEADER);
      forwardRequest(req, res, d.target, o.identity);
    }
    return true;
  };
}
