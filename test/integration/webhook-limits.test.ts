/**
 * The webhook server against hostile direct callers, over real TLS on 127.0.0.1: unbounded metric label values,
 * overload (fast 429s, bounded body memory), slow headers and slow bodies (closed within the timeouts).
 */
import { randomBytes } from "node:crypto";
import { request } from "node:https";
import { connect } from "node:tls";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultAdmissionConfig } from "../../src/admission/config.js";
import { EMPTY_LOOKUPS } from "../../src/admission/lookups.js";
import { decide } from "../../src/admission/review.js";
import { generateCa, generateServerCert } from "../../src/pki/certificates.js";
import { type WebhookServer, type WebhookServerOptions, startWebhookServer } from "../../src/server/webhook-server.js";
import { pod, podCreate } from "../fixtures/reviews.js";

const cfg = defaultAdmissionConfig("corral");
let tls: { key: string; cert: string };
let ca: string;
const servers: WebhookServer[] = [];

async function start(limits: Partial<WebhookServerOptions> = {}): Promise<WebhookServer> {
  const s = await startWebhookServer({
    host: "127.0.0.1",
    port: 0,
    tls,
    logger: pino({ level: "silent" }),
    routes: [{ path: "/mutate", name: "mutate", decide: (r) => decide(r, cfg, EMPTY_LOOKUPS) }],
    ...limits,
  });
  servers.push(s);
  return s;
}

interface Reply {
  status: number;
  body: string;
  headers: Record<string, unknown>;
  ms: number;
}

function post(port: number, path: string, body: string | Buffer, method = "POST"): Promise<Reply> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      { host: "127.0.0.1", port, path, method, ca, servername: "localhost", headers: { "content-type": "application/json" }, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks).toString(),
            headers: res.headers,
            ms: performance.now() - t0,
          }),
        );
      },
    );
    req.on("error", reject);
    req.end(method === "GET" ? undefined : body);
  });
}

const review = (request: unknown) => JSON.stringify({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", request });

/** A label-heavy pod review of about `bytes` bytes. */
function bigReview(bytes: number): string {
  const labels: Record<string, string> = {};
  for (let i = 0; i * 80 < bytes; i++) labels[`k${i}.example.com/label-${i}`] = `value-${i}-${"x".repeat(40)}`;
  return review(podCreate(pod({ labels })));
}

beforeAll(async () => {
  const now = Date.now();
  const caPair = await generateCa({ notBefore: new Date(now - 60_000), notAfter: new Date(now + 86_400_000) });
  const srv = await generateServerCert(caPair, {
    commonName: "localhost",
    sans: ["localhost", "127.0.0.1"],
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + 86_400_000),
  });
  ca = caPair.certPem;
  tls = { key: srv.keyPem, cert: srv.certPem };
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close(100)));
});

describe("hostile callers", () => {
  it("random kind and operation strings do not grow the metric series (they count as `other`)", async () => {
    const s = await start();
    const seriesCount = async () =>
      (await post(s.port, "/metrics", "", "GET")).body.split("\n").filter((l) => l.startsWith("corral_admission_requests_total{")).length;
    await post(s.port, "/mutate", review(podCreate(pod())));
    const before = await seriesCount();
    for (let i = 0; i < 300; i++) {
      const req = {
        ...podCreate(pod()),
        kind: { group: "", version: "v1", kind: randomBytes(2048).toString("hex") },
        operation: randomBytes(2048).toString("hex"),
      };
      expect((await post(s.port, "/mutate", review(req))).status).toBe(200);
    }
    const after = await seriesCount();
    // one more series at most: {kind="other", operation="other", result="allowed"}
    expect(after - before).toBeLessThanOrEqual(1);
    const text = (await post(s.port, "/metrics", "", "GET")).body;
    expect(text).toMatch(/corral_admission_requests_total\{webhook="mutate",kind="other",operation="other",result="allowed"\} 300/);
    expect(text.length).toBeLessThan(64 * 1024);
  });

  it("overload gets fast 429s with Retry-After; memory held by bodies stays within maxInFlightBytes; service resumes", async () => {
    const budget = 4 * 1024 * 1024;
    const s = await start({ maxInFlightBytes: budget, maxInFlightRequests: 8 });
    const body = bigReview(1.9 * 1024 * 1024);
    let peak = 0;
    const timer = setInterval(() => {
      void s.metrics.inFlightBytes.get().then((g) => (peak = Math.max(peak, g.values[0]?.value ?? 0)));
    }, 1);
    const replies = await Promise.all(
      Array.from({ length: 24 }, () =>
        post(s.port, "/mutate", body).catch((err: Error): Reply => ({ status: -1, body: err.message, headers: {}, ms: 0 })),
      ),
    );
    clearInterval(timer);
    const refused = replies.filter((r) => r.status === 429);
    const served = replies.filter((r) => r.status === 200);
    expect(refused.length).toBeGreaterThan(0);
    expect(served.length).toBeGreaterThan(0);
    expect(served.length + refused.length).toBe(24);
    for (const r of refused) {
      expect(r.headers["retry-after"]).toBe("1");
      expect(r.body).toMatch(/overloaded/);
    }
    expect(peak).toBeLessThanOrEqual(budget);
    const ok = await post(s.port, "/mutate", review(podCreate(pod())));
    expect(JSON.parse(ok.body).response.allowed).toBe(true);
    expect((await s.metrics.inFlightBytes.get()).values[0]?.value).toBe(0);
    const m = (await post(s.port, "/metrics", "", "GET")).body;
    expect(m).toMatch(new RegExp(`corral_admission_rejected_total\\{webhook="mutate",reason="overloaded"\\} ${refused.length}`));
  });

  it("a body that stalls is cut off after requestTimeoutMs; stalled headers after headersTimeoutMs", async () => {
    const s = await start({ requestTimeoutMs: 1000, headersTimeoutMs: 500 });
    const stall = (payload: string) =>
      new Promise<{ ms: number; data: string }>((resolve, reject) => {
        const t0 = performance.now();
        let data = "";
        const sock = connect({ host: "127.0.0.1", port: s.port, ca, servername: "localhost" }, () => sock.write(payload));
        sock.on("data", (d: Buffer) => (data += d.toString()));
        sock.on("close", () => resolve({ ms: performance.now() - t0, data }));
        sock.on("error", () => undefined);
        setTimeout(() => reject(new Error("connection still open after 10 s")), 10_000).unref();
      });
    const body = await stall(
      'POST /mutate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"apiVersion":',
    );
    expect(body.ms).toBeLessThan(3000);
    expect(body.data).toMatch(/^HTTP\/1.1 408/);
    const headers = await stall("POST /mutate HTTP/1.1\r\nHost: x\r\n");
    expect(headers.ms).toBeLessThan(3000);
  });

  it("the TLS handshake must finish within handshakeTimeoutMs", async () => {
    const s = await start({ handshakeTimeoutMs: 500 });
    const { connect: tcp } = await import("node:net");
    const ms = await new Promise<number>((resolve, reject) => {
      const t0 = performance.now();
      const sock = tcp(s.port, "127.0.0.1");
      sock.on("close", () => resolve(performance.now() - t0));
      sock.on("error", () => undefined);
      setTimeout(() => reject(new Error("still open")), 10_000).unref();
    });
    expect(ms).toBeLessThan(3000);
  });
});
