/**
 * Lease times through @kubernetes/client-node 2.x against a local API stand-in: the body the client sends carries
 * metav1.MicroTime with six fractional digits (the API server refuses fewer), and times read back parse to the same
 * instant. Fails when a client upgrade changes how `V1MicroTime` is serialised.
 */
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { k8s } from "../../src/kube/client.js";
import { microTime } from "../../src/kube/leader.js";

let server: Server;
let port = 0;
const bodies: unknown[] = [];
const STORED = "2026-01-01T00:00:00.123456Z";

beforeAll(async () => {
  server = createServer((req, res) => {
    let text = "";
    req.on("data", (d: Buffer) => (text += d.toString()));
    req.on("end", () => {
      if (text) bodies.push(JSON.parse(text));
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          apiVersion: "coordination.k8s.io/v1",
          kind: "Lease",
          metadata: { name: "l", namespace: "n" },
          spec: { holderIdentity: "a", renewTime: STORED, acquireTime: STORED },
        }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  port = (server.address() as { port: number }).port;
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));

function api(): k8s.CoordinationV1Api {
  const kc = new k8s.KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: "c", server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
    users: [{ name: "u", token: "t" }],
    contexts: [{ name: "c", cluster: "c", user: "u" }],
    currentContext: "c",
  });
  return kc.makeApiClient(k8s.CoordinationV1Api);
}

describe("Lease MicroTime through client-node", () => {
  it("sends six fractional digits", async () => {
    const ms = Date.UTC(2026, 0, 1, 0, 0, 0, 123);
    await api().createNamespacedLease({
      namespace: "n",
      body: { metadata: { name: "l" }, spec: { holderIdentity: "a", renewTime: microTime(ms), acquireTime: microTime(ms) } },
    });
    expect(bodies.at(-1)).toMatchObject({ spec: { renewTime: "2026-01-01T00:00:00.123000Z", acquireTime: "2026-01-01T00:00:00.123000Z" } });
  });

  it("reads a stored MicroTime back as the same instant (to the millisecond)", async () => {
    const lease = await api().readNamespacedLease({ name: "l", namespace: "n" });
    expect(new Date(lease.spec!.renewTime as unknown as string).getTime()).toBe(Date.parse(STORED));
  });
});
