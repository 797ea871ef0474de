/**
 * makeKeepAliveApiClient over real HTTPS with client-certificate and bearer-token authentication: calls reuse pooled
 * TLS connections (client-node's own client opens one per call), and the credentials still reach the server. This
 * fails when a client-node upgrade changes what makeKeepAliveApiClient relies on (`applyToHTTPSOptions`,
 * `createDispatcherOptions`, `RequestContext.setDispatcher`).
 */
import { createServer, type Server } from "node:https";
import type { TLSSocket } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiError, k8s, makeApiWriter, makeKeepAliveApiClient, statusCode } from "../../src/kube/client.js";
import { type KeyPairPem, generateCa, generateServerCert } from "../../src/pki/certificates.js";

let server: Server;
let port = 0;
let ca: KeyPairPem;
let client: KeyPairPem;
let serverPem: KeyPairPem;
const handshakes: string[] = [];

beforeAll(async () => {
  const now = Date.now();
  const validity = { notBefore: new Date(now - 60_000), notAfter: new Date(now + 86_400_000) };
  ca = await generateCa(validity);
  const srv = await generateServerCert(ca, { commonName: "localhost", sans: ["127.0.0.1"], ...validity });
  serverPem = srv;
  client = await generateServerCert(ca, { commonName: "alice", sans: ["alice.example"], ...validity });
  server = createServer(
    { key: srv.keyPem, cert: srv.certPem, ca: ca.certPem, requestCert: true, rejectUnauthorized: false },
    (req, res) => {
      const peer = (req.socket as TLSSocket).getPeerCertificate();
      const who = req.headers.authorization ?? peer.subject?.CN ?? "anonymous";
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ apiVersion: "v1", kind: "NamespaceList", metadata: {}, items: [{ metadata: { name: who } }] }));
    },
  );
  server.on("secureConnection", (s: TLSSocket) => handshakes.push(s.remoteAddress ?? ""));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  port = (server.address() as { port: number }).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

function kubeConfig(user: "certificate" | "token" = "certificate"): k8s.KubeConfig {
  const kc = new k8s.KubeConfig();
  kc.loadFromOptions({
    clusters: [
      { name: "c", server: `https://127.0.0.1:${port}`, caData: Buffer.from(ca.certPem).toString("base64"), skipTLSVerify: false },
    ],
    users: [
      user === "certificate"
        ? {
            name: "alice",
            certData: Buffer.from(client.certPem).toString("base64"),
            keyData: Buffer.from(client.keyPem).toString("base64"),
          }
        : { name: "alice", token: "t0ken" },
    ],
    contexts: [{ name: "c", cluster: "c", user: "alice" }],
    currentContext: "c",
  });
  return kc;
}

describe("makeKeepAliveApiClient", () => {
  // undici hands a connection back to its pool a tick after the body is read, so the second of back-to-back calls
  // opens a second connection; from then on both are reused.
  it("ten calls, at most two TLS connections, client certificate presented", async () => {
    handshakes.length = 0;
    const api = makeKeepAliveApiClient(kubeConfig(), k8s.CoreV1Api);
    for (let i = 0; i < 10; i++) {
      const list = await api.listNamespace();
      expect(list.items[0]!.metadata!.name).toBe("alice");
    }
    expect(handshakes.length).toBeGreaterThanOrEqual(1);
    expect(handshakes.length).toBeLessThanOrEqual(2);
  });

  it("bearer tokens reach the server over the pooled connections", async () => {
    handshakes.length = 0;
    const api = makeKeepAliveApiClient(kubeConfig("token"), k8s.CoreV1Api);
    for (let i = 0; i < 10; i++) expect((await api.listNamespace()).items[0]!.metadata!.name).toBe("Bearer t0ken");
    expect(handshakes.length).toBeLessThanOrEqual(2);
  });

  it("for comparison: client-node's own client handshakes on every call", async () => {
    handshakes.length = 0;
    const api = kubeConfig().makeApiClient(k8s.CoreV1Api);
    for (let i = 0; i < 5; i++) await api.listNamespace();
    expect(handshakes.length).toBe(5);
  });
});

describe("makeApiWriter", () => {
  it("writes JSON over pooled HTTP/1.1 connections, DELETE bodies included; a non-2xx answer is an ApiError with its status", async () => {
    const seen: { method: string; url: string; type: string; body: string }[] = [];
    const srv = createServer(
      { key: serverPem.keyPem, cert: serverPem.certPem, ca: ca.certPem, requestCert: true, rejectUnauthorized: false },
      (req, res) => {
        let body = "";
        req.on("data", (d: Buffer) => (body += d.toString()));
        req.on("end", () => {
          seen.push({ method: req.method!, url: req.url!, type: req.headers["content-type"] ?? "", body });
          const missing = req.url!.includes("missing");
          res.writeHead(missing ? 404 : 200, { "content-type": "application/json" });
          res.end(JSON.stringify(missing ? { kind: "Status", code: 404, message: 'pods "missing" not found' } : { kind: "Pod" }));
        });
      },
    );
    let conns = 0;
    srv.on("secureConnection", () => conns++);
    await new Promise<void>((r) => srv.listen(0, "127.0.0.1", () => r()));
    try {
      const kc = kubeConfig();
      kc.clusters[0] = { ...kc.clusters[0]!, server: `https://127.0.0.1:${(srv.address() as { port: number }).port}` };
      const write = makeApiWriter(kc);
      for (let i = 0; i < 10; i++)
        await write({
          method: "DELETE",
          path: `/api/v1/namespaces/ns/pods/p${i}`,
          body: { gracePeriodSeconds: 0, preconditions: { uid: `u${i}` } },
        });
      await write({
        method: "PATCH",
        path: "/api/v1/namespaces/ns/pods/p0/status",
        body: { status: {} },
        contentType: "application/merge-patch+json",
      });
      expect(seen).toHaveLength(11);
      expect(seen[3]).toEqual({
        method: "DELETE",
        url: "/api/v1/namespaces/ns/pods/p3",
        type: "application/json",
        body: JSON.stringify({ gracePeriodSeconds: 0, preconditions: { uid: "u3" } }),
      });
      expect(seen[10]!.type).toBe("application/merge-patch+json");
      // undici closes a connection after a DELETE with a body unless told not to
      expect(conns).toBeLessThanOrEqual(2);
      const err = await write({ method: "DELETE", path: "/api/v1/namespaces/ns/pods/missing" }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiError);
      expect(statusCode(err)).toBe(404);
      expect((err as Error).message).toBe('HTTP 404: pods "missing" not found');
    } finally {
      srv.closeAllConnections();
      await new Promise<void>((r) => srv.close(() => r()));
    }
  });
});
