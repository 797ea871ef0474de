/**
 * HTTPS server for admission webhooks (fastify + pino). Thin edge: decode the AdmissionReview, call a decision,
 * encode the answer, log one line, count it.
 *
 * HTTP behaviour (yunikorn-admission reference §2, minus quirk 8):
 *   - HTTPS only, TLS 1.2 or newer; the certificate can be swapped while serving ({@link WebhookServer.setCertificate}).
 *   - `POST <webhook path>`: Content-Type `application/json` (parameters such as charset allowed) else 415;
 *     empty body or invalid JSON → 400; body over `bodyLimitBytes` (default 3 MiB) → 413;
 *     an AdmissionReview without `request` → HTTP 200 with allowed:false and a message.
 *   - `GET /health` (`OK`), `/livez` (process alive), `/readyz` (503 until the process says it is ready),
 *     `/metrics` (Prometheus text).
 */
import Fastify, { type FastifyInstance, type FastifyReply } from "fastify";
import type { Logger } from "pino";
import type { Decision } from "../admission/decision.js";
import { toResponse } from "../admission/review.js";
import { type AdmissionRequest, decodeAdmissionReview, encodeAdmissionReview } from "./admission-review.js";
import { WebhookMetrics } from "./metrics.js";

/** A webhook route: path and decision. The decision must not throw on bad input (it denies instead). */
export interface WebhookRoute {
  path: string;
  /** Metric/log label, e.g. `mutate`. */
  name: string;
  decide(request: AdmissionRequest): Decision | Promise<Decision>;
}

export interface TlsMaterial {
  /** PEM private key. */
  key: string;
  /** PEM certificate chain (server certificate first). */
  cert: string;
}

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
}

export class BodyError extends Error {
  constructor(readonly statusCode: number, message: string) {
    super(message);
  }
}

export interface WebhookServer {
  readonly app: FastifyInstance;
  /** The bound port. */
  readonly port: number;
  readonly metrics: WebhookMetrics;
  /** Replaces the served certificate for new TLS connections; existing connections are kept. */
  setCertificate(tls: TlsMaterial): void;
  close(): Promise<void>;
}

/** Starts the server; resolves once it listens. */
export async function startWebhookServer(opts: WebhookServerOptions): Promise<WebhookServer> {
  const metrics = opts.metrics ?? new WebhookMetrics();
  const log = opts.logger;
  const app = Fastify({
    https: { key: opts.tls.key, cert: opts.tls.cert, minVersion: "TLSv1.2" },
    bodyLimit: opts.bodyLimitBytes ?? 3 * 1024 * 1024,
    logger: false,
    return503OnClosing: true,
    forceCloseConnections: "idle",
  });

  app.removeAllContentTypeParsers();
  app.addContentTypeParser("application/json", { parseAs: "buffer" }, (_req, body, done) => {
    const buf = body as Buffer;
    if (buf.length === 0) return done(new BodyError(400, "empty or invalid body"), undefined);
    let parsed: unknown;
    try {
      parsed = JSON.parse(buf.toString("utf8"));
    } catch (err) {
      return done(new BodyError(400, `body is not valid JSON: ${(err as Error).message}`), undefined);
    }
    done(null, parsed);
  });

  app.setErrorHandler((err: Error & { statusCode?: number; code?: string }, req, reply) => {
    let status = err.statusCode ?? 500;
    let message = err.message;
    if (err.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE") message = "invalid Content-Type, expect `application/json`";
    if (err.code === "FST_ERR_CTP_BODY_TOO_LARGE") message = `request body exceeds ${opts.bodyLimitBytes ?? 3 * 1024 * 1024} bytes`;
    if (err.code === "FST_ERR_CTP_EMPTY_JSON_BODY") message = "empty or invalid body";
    if (status >= 500) log.error({ err, url: req.url }, "webhook request failed");
    else log.warn({ url: req.url, status, reason: message }, "bad webhook request");
    if (status < 400) status = 500;
    reply.code(status).type("text/plain").send(message + "\n");
  });

  // Labelled metric children are cached: resolving labels on every observation is measurable at this rate.
  const counters = new Map<string, { inc(): void }>();
  const count = (webhook: string, kind: string, operation: string, result: string) => {
    const key = `${webhook}\u0000${kind}\u0000${operation}\u0000${result}`;
    let c = counters.get(key);
    if (!c) {
      c = metrics.requests.labels({ webhook, kind, operation, result });
      if (counters.size < 1000) counters.set(key, c);
    }
    c.inc();
  };

  for (const route of opts.routes) {
    const durations = metrics.duration.labels({ webhook: route.name });
    const rlog = log.child({ webhook: route.name });
    const answer = (reply: FastifyReply, start: bigint, body: string, fields: Record<string, unknown>) => {
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      durations.observe(seconds);
      fields.ms = Math.round(seconds * 1e6) / 1e3;
      rlog.info(fields, "admission");
      reply.type("application/json").send(body);
    };
    const finish = (reply: FastifyReply, start: bigint, apiVersion: string, r: AdmissionRequest, decision: Decision) => {
      const body = encodeAdmissionReview(apiVersion, toResponse(r.uid, decision));
      const result = !decision.allowed ? "denied" : decision.ops.length > 0 ? "patched" : "allowed";
      count(route.name, r.kind.kind, r.operation, result);
      for (const n of decision.notes) log[n.level]({ uid: r.uid }, n.msg);
      // Built field by field: a spread object here made the later writes measurably slower.
      const fields: Record<string, unknown> = {
        uid: r.uid, kind: r.kind.kind, namespace: r.namespace, name: r.name, operation: r.operation,
        user: r.userInfo?.username, allowed: decision.allowed, ops: decision.ops.length,
      };
      if (!decision.allowed) fields.reason = decision.message;
      answer(reply, start, body, fields);
    };
    const failed = (r: AdmissionRequest, err: unknown): Decision => {
      // A decision must not throw; if one does, deny with the error rather than crash or hang the API server.
      log.error({ err, uid: r.uid }, "decision failed");
      return { allowed: false, ops: [], message: `internal error: ${(err as Error).message}`, code: 500, warnings: [], notes: [] };
    };
    // Synchronous handler: decisions are usually synchronous, and the answer goes out without an extra tick.
    app.post(route.path, (req, reply) => {
      const start = process.hrtime.bigint();
      // A POST without a body reaches here with no Content-Type and no parsed body.
      if (req.body === undefined) {
        reply.code(400).type("text/plain").send("empty or invalid body\n");
        return;
      }
      const decoded = decodeAdmissionReview(req.body);
      if (!decoded.ok) {
        count(route.name, "", "", "invalid");
        const body = encodeAdmissionReview(decoded.apiVersion, { uid: decoded.uid, allowed: false, status: { code: 400, message: decoded.message } });
        answer(reply, start, body, { uid: decoded.uid, allowed: false, reason: decoded.message });
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
        result.catch((err: unknown) => failed(r, err)).then((d) => finish(reply, start, decoded.apiVersion, r, d), (err: unknown) => reply.send(err));
        return;
      }
      finish(reply, start, decoded.apiVersion, r, result);
    });
  }

  const ok = (_req: unknown, reply: { type(t: string): { send(b: string): void } }) => reply.type("text/plain").send("OK\n");
  app.get("/health", ok);
  app.get("/livez", ok);
  app.get("/readyz", (_req, reply) => {
    if (opts.ready && !opts.ready()) return reply.code(503).type("text/plain").send("not ready\n");
    return reply.type("text/plain").send("OK\n");
  });
  app.get("/metrics", async (_req, reply) => {
    reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
    return reply;
  });

  await app.listen({ host: opts.host, port: opts.port });
  const addr = app.server.address();
  const port = typeof addr === "object" && addr ? addr.port : opts.port;
  return {
    app,
    port,
    metrics,
    setCertificate(tls: TlsMaterial) {
      (app.server as unknown as import("node:tls").Server).setSecureContext({ key: tls.key, cert: tls.cert, minVersion: "TLSv1.2" });
    },
    close: () => app.close(),
  };
}
