/**
 * Kubernetes client set-up (@kubernetes/client-node 2.x, which sends requests with undici's fetch).
 */
import { createHash } from "node:crypto";
import type https from "node:https";
import tls from "node:tls";
import * as k8s from "@kubernetes/client-node";
import { Agent, type Dispatcher, request } from "undici";

/**
 * Loads a kubeconfig: an explicit path, else `$KUBECONFIG`, else the in-cluster service account, else
 * `~/.kube/config` (the client's `loadFromDefault` order).
 * @throws Error when no configuration can be found
 */
export function loadKubeConfig(path?: string): k8s.KubeConfig {
  const kc = new k8s.KubeConfig();
  if (path) kc.loadFromFile(path);
  else kc.loadFromDefault();
  if (!kc.getCurrentCluster()) throw new Error(`no Kubernetes cluster configured${path ? ` in ${path}` : ""}`);
  return kc;
}

/** What the kept-alive transport evaluated from the kubeconfig: request headers and the pooled dispatcher. */
interface EvaluatedAuth {
  headers: Record<string, string>;
  dispatcher: Agent;
}

/**
 * The kept-alive transport of one kubeconfig: request headers and one shared undici `Agent` per distinct TLS option
 * set, evaluated by the client's own authentication (`applyToHTTPSOptions`) at most every `refreshSeconds`.
 * Resolves to undefined for proxies, plain HTTP and TLS-less configurations (the client's own dispatcher applies).
 */
function keepAliveTransport(
  kc: k8s.KubeConfig,
  maxSockets: number,
  refreshSeconds: number,
  allowH2 = true,
): () => Promise<EvaluatedAuth | undefined> {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error("no active cluster in the kubeconfig");
  const agents = new Map<string, Agent>();
  let cached: EvaluatedAuth | undefined;
  let at = 0;
  const evaluate = async (): Promise<EvaluatedAuth | undefined> => {
    const o: https.RequestOptions = {};
    await kc.applyToHTTPSOptions(o);
    const options = kc.createDispatcherOptions(cluster, {
      ca: o.ca,
      cert: o.cert,
      key: o.key,
      pfx: o.pfx,
      passphrase: o.passphrase,
      rejectUnauthorized: o.rejectUnauthorized,
      servername: o.servername,
    });
    if (options.type !== "agent") return undefined;
    const c = options.connect;
    const id = createHash("sha256")
      .update(
        JSON.stringify(
          [c.ca, c.cert, c.key, c.pfx, c.servername, c.rejectUnauthorized].map((v) =>
            Buffer.isBuffer(v) ? v.toString("base64") : (v ?? null),
          ),
        ),
      )
      .digest("hex");
    let dispatcher = agents.get(id);
    if (!dispatcher) {
      // One secure context for every connection rather than PEM text parsed again for each new socket.
      const secureContext = tls.createSecureContext({ ca: c.ca, cert: c.cert, key: c.key, pfx: c.pfx, passphrase: c.passphrase });
      dispatcher = new Agent({
        connections: maxSockets,
        allowH2,
        connect: {
          secureContext,
          servername: c.servername,
          rejectUnauthorized: c.rejectUnauthorized,
          keepAlive: true,
          keepAliveInitialDelay: 30_000,
        },
      });
      agents.set(id, dispatcher);
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(o.headers ?? {})) if (v !== undefined) headers[k] = String(v);
    if (o.auth) headers.Authorization = `Basic ${Buffer.from(o.auth).toString("base64")}`;
    return { headers, dispatcher };
  };
  return async () => {
    if (at === 0 || Date.now() - at > refreshSeconds * 1000) {
      cached = await evaluate();
      at = Date.now();
    }
    return cached;
  };
}

/**
 * An API client like `kc.makeApiClient(api)` whose calls reuse TLS connections. client-node 2.0 builds a new undici
 * `Agent` (so a new connection and TLS handshake) for every request, as 1.x built a new `https.Agent`; on the test bed
 * that caps pod creates well below what kept-alive connections reach (`npm run bench:keepalive` measures both).
 * Authentication is still the client's own (`applyToHTTPSOptions`: certificates, tokens, exec plug-ins, basic auth),
 * evaluated at most every `refreshSeconds` and reused in between — so rotated client certificates or tokens are picked
 * up within that delay — with one shared undici `Agent` per distinct TLS option set. The TLS options are mapped by the
 * client's public `createDispatcherOptions`; proxies, plain HTTP and TLS-less configurations use the client's own
 * dispatcher per request. test/integration/keepalive-client.test.ts fails if a client upgrade breaks either part.
 * @param maxSockets connections per API server at most
 * @param refreshSeconds seconds an evaluated authentication (headers, TLS options) is reused
 */
export function makeKeepAliveApiClient<T>(
  kc: k8s.KubeConfig,
  api: new (config: k8s.Configuration) => T,
  maxSockets = 64,
  refreshSeconds = 10,
): T {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error("no active cluster in the kubeconfig");
  const transport = keepAliveTransport(kc, maxSockets, refreshSeconds);
  const auth: k8s.SecurityAuthentication = {
    getName: () => "keep-alive",
    applySecurityAuthentication: async (ctx: k8s.RequestContext) => {
      const cached = await transport();
      if (!cached) return kc.applySecurityAuthentication(ctx); // proxy, plain HTTP: the client's own dispatcher
      for (const [k, v] of Object.entries(cached.headers)) ctx.setHeaderParam(k, v);
      ctx.setDispatcher(cached.dispatcher);
    },
  };
  return new api(k8s.createConfiguration({ baseServer: new k8s.ServerConfiguration(cluster.server, {}), authMethods: { default: auth } }));
}

/** A write the scheduler sends at a high rate: method, path below the server URL, JSON body and its content type. */
export interface ApiWrite {
  method: "POST" | "PATCH" | "PUT" | "DELETE";
  /** e.g. `/api/v1/namespaces/team-a/pods/web-1/binding`; query parameters included. */
  path: string;
  body?: unknown;
  /** Default `application/json`; a patch names its kind (`application/merge-patch+json`, …). */
  contentType?: string;
}

/** A non-2xx answer to an {@link ApiWrite}: the HTTP status (`code`, read by {@link statusCode}) and the body text. */
export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly body: string,
  ) {
    let message = body;
    try {
      message = (JSON.parse(body) as { message?: string }).message ?? body;
    } catch {
      // not JSON: the text itself
    }
    super(`HTTP ${code}: ${message}`);
  }
}

/** Sends {@link ApiWrite}s; see {@link makeApiWriter}. */
export type ApiWriter = (w: ApiWrite) => Promise<void>;

/**
 * Writes to the API server with the same authentication as {@link makeKeepAliveApiClient}, without client-node's
 * request and response (de)serialisation: the body is sent as JSON and the answer is discarded. For the scheduler's
 * high-rate writes (bindings, placeholder creates and deletes, events, status patches), where client-node's per-call
 * object mapping (the whole pod a create or delete returns) cost more CPU than the call itself. Over HTTP/1.1 with up
 * to `maxSockets` kept-alive connections: undici would otherwise negotiate HTTP/2 and carry every call on one
 * connection, which on the test bed bound about half as many pods per second (kube-apiserver v1.20, 32 calls in
 * flight: 275-290 against 574-689 bindings/s).
 * @returns a function resolving on a 2xx answer
 * @throws ApiError on any other status; the transport's error when no answer came (refused, reset, timeout)
 */
export function makeApiWriter(kc: k8s.KubeConfig, maxSockets = 64, refreshSeconds = 10): ApiWriter {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error("no active cluster in the kubeconfig");
  const base = cluster.server.replace(/\/+$/, "");
  const transport = keepAliveTransport(kc, maxSockets, refreshSeconds, false);
  return async (w) => {
    const url = base + w.path;
    let headers: Record<string, string>;
    let dispatcher: Dispatcher | undefined;
    const cached = await transport();
    if (cached) {
      headers = { ...cached.headers };
      dispatcher = cached.dispatcher;
    } else {
      // proxy, plain HTTP: the client's own authentication and dispatcher
      const ctx = new k8s.RequestContext(url, k8s.HttpMethod[w.method]);
      await kc.applySecurityAuthentication(ctx);
      headers = ctx.getHeaders();
      dispatcher = ctx.getDispatcher();
    }
    headers.accept = "application/json";
    if (w.body !== undefined) headers["content-type"] = w.contentType ?? "application/json";
    const res = await request(url, {
      method: w.method,
      headers,
      body: w.body === undefined ? undefined : JSON.stringify(w.body),
      // undici closes an HTTP/1.1 connection after a DELETE with a body (DeleteOptions) unless told not to:
      // kube-apiserver reads such bodies, so the connection stays pooled
      reset: false,
      ...(dispatcher ? { dispatcher } : {}),
    });
    if (res.statusCode >= 200 && res.statusCode < 300) {
      await res.body.dump();
      return;
    }
    throw new ApiError(res.statusCode, await res.body.text());
  };
}

/**
 * The HTTP status of a failed API call (client-node's ApiException `code`; `statusCode` on older error shapes), or
 * undefined when the call did not get an HTTP answer (connection refused, timeout…).
 */
export function statusCode(err: unknown): number | undefined {
  if (typeof err !== "object" || err === null) return undefined;
  const e = err as { code?: unknown; statusCode?: unknown };
  if (typeof e.code === "number") return e.code;
  return typeof e.statusCode === "number" ? e.statusCode : undefined;
}

export { k8s };
