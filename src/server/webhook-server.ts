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
import Fastify, { type FastifyInstance } from "fastify";
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
  app.addContentTypeParser("application/json", { parseAs: "string" }, (_req, body, done) => {
    const text = body as string;
    if (text.length === 0) return done(new BodyError(400, "empty or invalid body"), undefined);
    try {
      done(null, JSON.parse(text));
    } catch (err) {
      done(new BodyError(400, `body is not valid JSON: ${(err as Error).message}`), undefined);
    }
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

  for (const route of opts.routes) {
    app.post(route.path, async (req, reply) => {
      const start = process.hrtime.bigint();
      // A POST without a body reaches here with no Content-Type and no parsed body.
      if (req.body === undefined) return reply.code(400).type("text/plain").send("empty or invalid body\n");
      const decoded = decodeAdmissionReview(req.body);
      let body: string;
      let fields: Record<string, unknown>;
      if (!decoded.ok) {
        body = encodeAdmissionReview(decoded.apiVersion, { uid: decoded.uid, allowed: false, status: { code: 400, message: decoded.message } });
        metrics.requests.inc({ webhook: route.name, kind: "", operation: "", result: "invalid" });
        fields = { webhook: route.name, uid: decoded.uid, allowed: false, reason: decoded.message };
      } else {
        const r = decoded.request;
        let decision: Decision;
        try {
          decision = await route.decide(r);
        } catch (err) {
          // A decision must not throw; if one does, deny with the error rather than crash or hang the API server.
          log.error({ err, uid: r.uid }, "decision failed");
          decision = { allowed: false, ops: [], message: `internal error: ${(err as Error).message}`, code: 500, warnings: [], notes: [] };
        }
        const response = toResponse(r.uid, decision);
        body = encodeAdmissionReview(decoded.apiVersion, response);
        const result = !decision.allowed ? "denied" : decision.ops.length > 0 ? "patched" : "allowed";
        metrics.requests.inc({ webhook: route.name, kind: r.kind.kind, operation: r.operation, result });
        for (const n of decision.notes) log[n.level]({ uid: r.uid }, n.msg);
        fields = {
          webhook: route.name, uid: r.uid, kind: r.kind.kind, namespace: r.namespace, name: r.name, operation: r.operation,
          user: r.userInfo?.username, allowed: decision.allowed, ops: decision.ops.length,
          ...(decision.allowed ? {} : { reason: decision.message }),
        };
      }
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      metrics.duration.observe({ webhook: route.name }, seconds);
      log.info({ ...fields, ms: Math.round(seconds * 1e6) / 1e3 }, "admission");
      reply.type("application/json").send(body);
      return reply;
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
