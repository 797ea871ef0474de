/**
 * makeKeepAliveApiClient over real HTTPS with client-certificate authentication: calls reuse one TLS connection
 * (client-node's own client opens one per call), and the client certificate still reaches the server.
 */
import { createServer, type Server } from "node:https";
import type { TLSSocket } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { k8s, makeKeepAliveApiClient } from "../../src/kube/client.js";
import { type KeyPairPem, generateCa, generateServerCert } from "../../src/pki/certificates.js";

let server: Server;
let port = 0;
let ca: KeyPairPem;
let client: KeyPairPem;
const handshakes: string[] = [];

beforeAll(async () => {
  const now = Date.now();
  const validity = { notBefore: new Date(now - 60_000), notAfter: new Date(now + 86_400_000) };
  ca = await generateCa(validity);
  const srv = await generateServerCert(ca, { commonName: "localhost", sans: ["127.0.0.1"], ...validity });
  client = await generateServerCert(ca, { commonName: "alice", sans: ["alice.example"], ...validity });
  server = createServer({ key: srv.keyPem, cert: srv.certPem, ca: ca.certPem, requestCert: true, rejectUnauthorized: false }, (req, res) => {
    const peer = (req.socket as TLSSocket).getPeerCertificate();
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ apiVersion: "v1", kind: "NamespaceList", metadata: {}, items: [{ metadata: { name: peer.subject?.CN ?? "anonymous" } }] }));
  });
  server.on("secureConnection", (s: TLSSocket) => handshakes.push(s.remoteAddress ?? ""));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  port = (server.address() as { port: number }).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

function kubeConfig(): k8s.KubeConfig {
  const kc = new k8s.KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: "c", server: `https://127.0.0.1:${port}`, caData: Buffer.from(ca.certPem).toString("base64"), skipTLSVerify: false }],
    users: [{ name: "alice", certData: Buffer.from(client.certPem).toString("base64"), keyData: Buffer.from(client.keyPem).toString("base64") }],
    contexts: [{ name: "c", cluster: "c", user: "alice" }],
    currentContext: "c",
  });
  return kc;
}

describe("makeKeepAliveApiClient", () => {
  it("ten calls, one TLS connection, client certificate presented", async () => {
    handshakes.length = 0;
    const api = makeKeepAliveApiClient(kubeConfig(), k8s.CoreV1Api);
    for (let i = 0; i < 10; i++) {
      const list = await api.listNamespace();
      expect(list.items[0]!.metadata!.name).toBe("alice");
    }
    expect(handshakes).toHaveLength(1);
  });

  it("for comparison: client-node's own client handshakes on every call", async () => {
    handshakes.length = 0;
    const api = kubeConfig().makeApiClient(k8s.CoreV1Api);
    for (let i = 0; i < 5; i++) await api.listNamespace();
    expect(handshakes.length).toBe(5);
  });
});
