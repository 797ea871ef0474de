/**
 * HTTPS server for admission webhooks (Node https + pino + prom-client). Thin edge: decode the AdmissionReview, call
 * a decision, encode the answer, log one line, count it.
 *
 * Node's https module rather than fastify: this server has five fixed routes and one body format, and moving off
 * fastify took `npm run bench:admission` from 0.53-0.69 to 0.83 × the bare https floor (target ≥ 0.7).
 *
 * HTTP behaviour (yunikorn-admission reference §2, minus quirk 8):
 *   - HTTPS only, TLS 1.2 or newer; the certificate can be swapped while serving ({@link WebhookServer.setCertificate}).
 *   - `POST <webhook path>`: Content-Type `application/json` (parameters such as charset allowed) else 415;
 *     empty body or invalid JSON → 400; body over `bodyLimitBytes` (default 3 MiB) → 413;
 *     an AdmissionReview without `request` → HTTP 200 with allowed:false and a message.
 *   - `GET /health` (`OK`), `/livez` (process alive), `/readyz` (503 until the process says it is ready),
 *     `/metrics` (Prometheus text). Anything else → 404; a wrong method → 405.
 *
 * Hostile callers (anyone who reaches the port; a NetworkPolicy should keep them out, deploy/):
 *   - overload gives fast errors rather than a slow death: a webhook POST that would take the requests in progress
 *     over `maxInFlightRequests`, or their body bytes over `maxInFlightBytes` (declared Content-Length reserved up
 *     front, chunked bodies counted as they arrive), is answered 429 with `Retry-After: 1` at once, before its body
 *     is read, and its connection closed. The API server then applies the webhook's failurePolicy immediately instead
 *     of waiting for its timeout. Memory held by bodies is thereby bounded by `maxInFlightBytes`; decisions run one at
 *     a time on the event loop, so at most one body is parsed at once.
 *   - a request must arrive whole within `requestTimeoutMs` (headers within `headersTimeoutMs`, TLS handshake within
 *     `handshakeTimeoutMs`), else 408 and the connection is closed: the API server never waits longer than the
 *     webhook's `timeoutSeconds` (at most 30 s), so a slower request can only be an attack.
 *   - at most `maxConnections` TCP connections; further ones are closed at once.
 * Label values of metrics that come from the body are bounded (metrics.ts).
 */
import { type IncomingMessage, type ServerResponse } from "node:http";
import { type Server, createServer } from "node:https";
import type { Socket } from "node:net";
import type { Logger } from "pino";
import { type Decision, refuse, toResponse } from "../webhook/decision.js";
import { type AdmissionRequest, decodeAdmissionReview, deny, encodeAdmissionReview } from "../webhook/admission-review.js";
import { readBody } from "../util/http-body.js";
import { METRIC_KINDS, METRIC_OPERATIONS, WebhookMetrics, boundedLabel } from "./metrics.js";

/** A webhook route: path and decision. The decision must not throw on bad input (it denies instead). */
export interface WebhookRoute {
  path: string;
  /** Metric/log label, e.g. `mutate`. */
  name: string;
  decide(request: AdmissionRequest): Decision | Promise<Decision>;
}

/** The serving key and certificate chain, PEM. */
export interface TlsMaterial {
  /** PEM private key. */
  key: string;
  /** PEM certificate chain (server certificate first). */
  cert: string;
}

/** Options of {@link startWebhookServer}: where to listen, TLS, the webhook routes and limits. */
export interface WebhookServerOptions {
  host: string;
  /** TCP port; 0 picks a free one. */
  port: number;
  tls: TlsMaterial;
  logger: Logger;
  routes: WebhookRoute[];
  metrics?: WebhookMetrics;
  /** Readiness for `/readyz`. */
  ready?: () => boolean;
  /** Request body limit in bytes (default 3 MiB, the API server's own request limit). */
  bodyLimitBytes?: number;
  /** Webhook requests in progress at once (default 64); more → 429. */
  maxInFlightRequests?: number;
  /** Body bytes held by webhook requests in progress (default 3 MiB; at least the body limit); more → 429. */
  maxInFlightBytes?: number;
  /** Time for a whole request to arrive, milliseconds (default 10 000); later → 408. */
  requestTimeoutMs?: number;
  /** Time for the request headers to arrive, milliseconds (default min(5 000, requestTimeoutMs)). */
  headersTimeoutMs?: number;
  /** Time for the TLS handshake, milliseconds (default 5 000). */
  handshakeTimeoutMs?: number;
  /** Open TCP connections at most (default 1 024). */
  maxConnections?: number;
}

/** Defaults of the limits, exported for the process that sizes them (admission.ts) and for tests. */
export const SERVER_LIMITS = {
  maxInFlightRequests: 64,
  // one body of the largest size (bodyLimitBytes) at a time, beside small ones: 2 × 1.9 MiB no longer fit
  maxInFlightBytes: 3 * 1024 * 1024,
  requestTimeoutMs: 10_000,
  headersTimeoutMs: 5_000,
  handshakeTimeoutMs: 5_000,
  maxConnections: 1024,
} as const;

/** A listening webhook server. */
export interface WebhookServer {
  readonly server: Server;
  /** The bound port. */
  readonly port: number;
  readonly metrics: WebhookMetrics;
  /** Replaces the served certificate for new TLS connections; existing connections are kept. */
  setCertificate(tls: TlsMaterial): void;
  /** Stops accepting, lets requests in flight finish (at most `graceMs`), then closes idle connections. */
  close(graceMs?: number): Promise<void>;
}

const TEXT = { "content-type": "text/plain; charset=utf-8" };

function plain(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...TEXT, ...headers });
  res.end(body);
}

/** True for `application/json`, with or without parameters (`; charset=utf-8`). */
function isJson(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const semi = contentType.indexOf(";");
  return (semi < 0 ? contentType : contentType.slice(0, semi)).trim().toLowerCase() === "application/json";
}

/** Starts the server; resolves once it listens. */
export async function startWebhookServer(opts: WebhookServerOptions): Promise<WebhookServer> {
  const metrics = opts.metrics ?? new WebhookMetrics();
  const log = opts.logger;
  const limit = opts.bodyLimitBytes ?? 3 * 1024 * 1024;

  // Labelled metric children are cached: resolving labels on every observation is measurable at this rate.
  const counters = new Map<string, { inc(): void }>();
  const count = (webhook: string, rawKind: string, rawOperation: string, result: string) => {
    const kind = boundedLabel(rawKind, METRIC_KINDS);
    const operation = boundedLabel(rawOperation, METRIC_OPERATIONS);
    const key = `${webhook}\u0000${kind}\u0000${operation}\u0000${result}`;
    let c = counters.get(key);
    if (!c) {
      c = metrics.requests.labels({ webhook, kind, operation, result });
      counters.set(key, c);
    }
    c.inc();
  };

  type Handler = (req: IncomingMessage, res: ServerResponse, body: Buffer) => void;
  const posts = new Map<string, { name: string; handle: Handler }>();
  for (const route of opts.routes) {
    const durations = metrics.duration.labels({ webhook: route.name });
    const rlog = log.child({ webhook: route.name });
    const answer = (res: ServerResponse, start: number, body: string, fields: Record<string, unknown>) => {
      const seconds = (performance.now() - start) / 1e3;
      durations.observe(seconds);
      fields.ms = Math.round(seconds * 1e6) / 1e3;
      rlog.info(fields, "admission");
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
      res.end(body);
    };
    const finish = (res: ServerResponse, start: number, apiVersion: string, r: AdmissionRequest, decision: Decision) => {
      const body = encodeAdmissionReview(apiVersion, toResponse(r.uid, decision));
      const result = !decision.allowed ? "denied" : decision.ops.length > 0 ? "patched" : "allowed";
      count(route.name, r.kind.kind, r.operation, result);
      for (const n of decision.notes) rlog[n.level]({ uid: r.uid }, n.msg);
      // Built field by field: a spread object here made the later writes measurably slower.
      const fields: Record<string, unknown> = {
        uid: r.uid,
        kind: r.kind.kind,
        namespace: r.namespace,
        name: r.name,
        operation: r.operation,
        user: r.userInfo?.username,
        allowed: decision.allowed,
        ops: decision.ops.length,
      };
      if (!decision.allowed) fields.reason = decision.message;
      answer(res, start, body, fields);
    };
    const failed = (r: AdmissionRequest, err: unknown): Decision => {
      // A decision must not throw; if one does, deny with the error rather than crash or hang the API server.
      rlog.error({ err, uid: r.uid }, "decision failed");
      return refuse(`internal error: ${(err as Error).message}`, 500);
    };
    posts.set(route.path, {
      name: route.name,
      handle: (req, res, raw) => {
        const start = performance.now();
        let parsed: unknown;
        try {
          parsed = JSON.parse(raw.toString("utf8"));
        } catch (err) {
          rlog.warn({ url: req.url, status: 400 }, "bad webhook request: body is not JSON");
          plain(res, 400, `body is not valid JSON: ${(err as Error).message}\n`);
          return;
        }
        const decoded = decodeAdmissionReview(parsed);
        if (!decoded.ok) {
          count(route.name, "", "", "invalid");
          const body = encodeAdmissionReview(decoded.apiVersion, deny(decoded.uid, decoded.message, 400));
          answer(res, start, body, { uid: decoded.uid, allowed: false, reason: decoded.message });
          return;
        }
        const r = decoded.request;
        let result: Decision | Promise<Decision>;
        try {
          result = route.decide(r);
        } catch (err) {
          result = failed(r, err);
        }
        if (result instanceof Promise) {
          void result.catch((err: unknown) => failed(r, err)).then((d) => finish(res, start, decoded.apiVersion, r, d));
          return;
        }
        finish(res, start, decoded.apiVersion, r, result);
      },
    });
  }

  const gets = new Map<string, (res: ServerResponse) => void>([
    ["/health", (res) => plain(res, 200, "OK\n")],
    ["/livez", (res) => plain(res, 200, "OK\n")],
    ["/readyz", (res) => (opts.ready && !opts.ready() ? plain(res, 503, "not ready\n") : plain(res, 200, "OK\n"))],
    [
      "/metrics",
      (res) => {
        metrics.registry.metrics().then(
          (text) => plain(res, 200, text, { "content-type": metrics.registry.contentType }),
          (err: Error) => plain(res, 500, `${err.message}\n`),
        );
      },
    ],
  ]);

  const limits = {
    maxInFlightRequests: opts.maxInFlightRequests ?? SERVER_LIMITS.maxInFlightRequests,
    // never below the body limit, or a request of allowed size could never be served
    maxInFlightBytes: Math.max(limit, opts.maxInFlightBytes ?? SERVER_LIMITS.maxInFlightBytes),
    requestTimeoutMs: opts.requestTimeoutMs ?? SERVER_LIMITS.requestTimeoutMs,
  };
  const headersTimeoutMs = opts.headersTimeoutMs ?? Math.min(SERVER_LIMITS.headersTimeoutMs, limits.requestTimeoutMs);
  let inFlightRequests = 0;
  let inFlightBytes = 0;
  /** Answers before the body is read and closes the connection, so the rest of the body costs nothing. */
  const reject = (
    req: IncomingMessage,
    res: ServerResponse,
    {
      webhook,
      status,
      reason,
      text,
      headers = {},
    }: { webhook: string; status: number; reason: string; text: string; headers?: Record<string, string> },
  ) => {
    metrics.rejected.labels({ webhook, reason }).inc();
    log.warn({ url: req.url, status, reason, inFlightRequests, inFlightBytes }, `webhook request refused: ${text.trim()}`);
    res.shouldKeepAlive = false;
    plain(res, status, text, { connection: "close", ...headers });
    req.socket.destroySoon();
  };
  const overloaded = (req: IncomingMessage, res: ServerResponse, webhook: string) =>
    reject(req, res, {
      webhook,
      status: 429,
      reason: "overloaded",
      text: "admission controller overloaded, retry\n",
      headers: { "retry-after": "1" },
    });

  let closing = false;
  const server = createServer(
    {
      key: opts.tls.key,
      cert: opts.tls.cert,
      minVersion: "TLSv1.2",
      handshakeTimeout: opts.handshakeTimeoutMs ?? SERVER_LIMITS.handshakeTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      headersTimeout: headersTimeoutMs,
      // how often request and header timeouts are checked (Node's default, 30 s, would let slow requests live that long)
      connectionsCheckingInterval: Math.max(100, Math.min(1000, Math.floor(headersTimeoutMs / 2))),
    },
    (req, res) => {
      const q = req.url?.indexOf("?") ?? -1;
      const path = q >= 0 ? req.url!.slice(0, q) : (req.url ?? "/");
      if (closing) {
        res.setHeader("connection", "close");
        plain(res, 503, "shutting down\n");
        return;
      }
      const post = posts.get(path);
      if (post) {
        if (req.method !== "POST") return plain(res, 405, "method not allowed\n", { allow: "POST" });
        const declared = Number(req.headers["content-length"] ?? NaN);
        if (declared > limit) {
          return reject(req, res, { webhook: post.name, status: 413, reason: "too_large", text: `request body exceeds ${limit} bytes\n` });
        }
        let reserved = Number.isFinite(declared) && declared > 0 ? declared : 0;
        if (inFlightRequests + 1 > limits.maxInFlightRequests || inFlightBytes + reserved > limits.maxInFlightBytes) {
          return overloaded(req, res, post.name);
        }
        inFlightRequests++;
        inFlightBytes += reserved;
        metrics.inFlightBytes.set(inFlightBytes);
        let released = false;
        res.once("close", () => {
          if (released) return;
          released = true;
          inFlightRequests--;
          inFlightBytes -= reserved;
          metrics.inFlightBytes.set(inFlightBytes);
        });
        void readBody(req, {
          limitBytes: limit,
          declaredBytes: reserved,
          grow: (size) => {
            if (size <= reserved) return true;
            // a chunked body, or more than declared: reserve as it arrives
            if (inFlightBytes + (size - reserved) > limits.maxInFlightBytes) return false;
            inFlightBytes += size - reserved;
            reserved = size;
            metrics.inFlightBytes.set(inFlightBytes);
            return true;
          },
        }).then((read) => {
          if (!read.ok) {
            if (read.reason === "too_large")
              return reject(req, res, {
                webhook: post.name,
                status: 413,
                reason: "too_large",
                text: `request body exceeds ${limit} bytes\n`,
              });
            if (read.reason === "refused") return overloaded(req, res, post.name);
            return log.warn({ err: read.error.message, url: req.url }, "request stream error");
          }
          if (read.body.length === 0) {
            log.warn({ url: req.url, status: 400 }, "bad webhook request: empty body");
            return plain(res, 400, "empty or invalid body\n");
          }
          if (!isJson(req.headers["content-type"])) {
            log.warn({ url: req.url, status: 415, contentType: req.headers["content-type"] }, "bad webhook request: Content-Type");
            return plain(res, 415, "invalid Content-Type, expect `application/json`\n");
          }
          try {
            post.handle(req, res, read.body);
          } catch (err) {
            log.error({ err, url: req.url }, "webhook request failed");
            if (!res.headersSent) plain(res, 500, "internal error\n");
          }
        });
        return;
      }
      const get = gets.get(path);
      if (get) {
        if (req.method !== "GET" && req.method !== "HEAD") return plain(res, 405, "method not allowed\n", { allow: "GET" });
        return get(res);
      }
      plain(res, 404, "404 page not found\n");
    },
  );
  server.keepAliveTimeout = 90_000;
  server.maxConnections = opts.maxConnections ?? SERVER_LIMITS.maxConnections;
  const sockets = new Set<Socket>();
  server.on("connection", (s: Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  server.on("tlsClientError", (err) => log.debug({ err: err.message }, "TLS handshake failed"));

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, opts.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const addr = server.address();
  const port = typeof addr === "object" && addr ? addr.port : opts.port;
  return {
    server,
    port,
    metrics,
    setCertificate(tls: TlsMaterial) {
      server.setSecureContext({ key: tls.key, cert: tls.cert, minVersion: "TLSv1.2" });
    },
    close: async (graceMs = 5000) => {
      closing = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const timer = setTimeout(() => {
        for (const s of sockets) s.destroy();
      }, graceMs);
      await closed;
      clearTimeout(timer);
    },
  };
}
