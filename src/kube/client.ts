/**
 * Kubernetes client set-up (@kubernetes/client-node 2.x, which sends requests with undici's fetch).
 */
import { createHash } from "node:crypto";
import type https from "node:https";
import tls from "node:tls";
import * as k8s from "@kubernetes/client-node";
import { Agent } from "undici";

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

/** What {@link makeKeepAliveApiClient} evaluated from the kubeconfig: request headers and the pooled dispatcher. */
interface EvaluatedAuth {
  at: number;
  headers: Record<string, string>;
  dispatcher: Agent;
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
  const agents = new Map<string, Agent>();
  let cached: EvaluatedAuth | undefined;
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
    return { at: Date.now(), headers, dispatcher };
  };
  const auth: k8s.SecurityAuthentication = {
    getName: () => "keep-alive",
    applySecurityAuthentication: async (ctx: k8s.RequestContext) => {
      if (!cached || Date.now() - cached.at > refreshSeconds * 1000) cached = await evaluate();
      if (!cached) return kc.applySecurityAuthentication(ctx); // proxy, plain HTTP: the client's own dispatcher
      for (const [k, v] of Object.entries(cached.headers)) ctx.setHeaderParam(k, v);
      ctx.setDispatcher(cached.dispatcher);
    },
  };
  return new api(k8s.createConfiguration({ baseServer: new k8s.ServerConfiguration(cluster.server, {}), authMethods: { default: auth } }));
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
