/**
 * The admission HTTPS server over real TLS on 127.0.0.1: HTTP edge cases, metrics, and garbage input (fast-check).
 */
import { request } from "node:https";
import fc from "fast-check";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultAdmissionConfig } from "../../src/admission/config.js";
import { EMPTY_LOOKUPS } from "../../src/admission/lookups.js";
import { decide } from "../../src/admission/review.js";
import { generateCa, generateServerCert } from "../../src/pki/certificates.js";
import { type WebhookServer, startWebhookServer } from "../../src/server/webhook-server.js";
import { pod, podCreate } from "../fixtures/reviews.js";

let server: WebhookServer;
let ca: string;
const cfg = defaultAdmissionConfig("corral");

interface Reply {
  status: number;
  body: string;
  headers: Record<string, unknown>;
}

function post(
  path: string,
  body: string | Buffer | undefined,
  contentType: string | undefined = "application/json",
  method = "POST",
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {};
    if (contentType) headers["content-type"] = contentType;
    const req = request(
      { host: "127.0.0.1", port: server.port, path, method, ca, servername: "localhost", headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString(), headers: res.headers }));
      },
    );
    req.on("error", reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
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
  server = await startWebhookServer({
    host: "127.0.0.1",
    port: 0,
    tls: { key: srv.keyPem, cert: srv.certPem },
    logger: pino({ level: "silent" }),
    routes: [{ path: "/mutate", name: "mutate", decide: (r) => decide(r, cfg, EMPTY_LOOKUPS) }],
  });
});
afterAll(async () => server?.close());

const review = (request: unknown) => JSON.stringify({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", request });

describe("webhook HTTPS server", () => {
  it("answers an AdmissionReview with the uid echoed and a base64 JSON Patch", async () => {
    const req = podCreate(pod());
    const r = await post("/mutate", review(req));
    expect(r.status).toBe(200);
    expect(r.headers["content-type"]).toMatch(/^application\/json/);
    const out = JSON.parse(r.body);
    expect(out).toMatchObject({
      apiVersion: "admission.k8s.io/v1",
      kind: "AdmissionReview",
      response: { uid: req.uid, allowed: true, patchType: "JSONPatch" },
    });
    const ops = JSON.parse(Buffer.from(out.response.patch, "base64").toString());
    expect(ops.map((o: { path: string }) => o.path)).toEqual(["/metadata/annotations", "/spec/schedulerName", "/metadata/labels"]);
  });

  it("accepts a charset parameter on application/json", async () => {
    expect((await post("/mutate", review(podCreate(pod())), "application/json; charset=utf-8")).status).toBe(200);
  });

  it("refuses TLS below 1.2", async () => {
    const err = await new Promise<Error | undefined>((resolve) => {
      const req = request(
        { host: "127.0.0.1", port: server.port, path: "/health", ca, servername: "localhost", maxVersion: "TLSv1.1", minVersion: "TLSv1" },
        () => resolve(undefined),
      );
      req.on("error", resolve);
      req.end();
    });
    expect(err?.message).toMatch(/version|protocol|alert/i);
  });

  it.each([
    ["empty body", "", "application/json", 400, /empty or invalid body/],
    ["no body at all", undefined, undefined, 400, /empty or invalid body/],
    ["not JSON", "{nope", "application/json", 400, /not valid JSON/],
    ["wrong Content-Type", review(podCreate(pod())), "text/plain", 415, /invalid Content-Type/],
    ["body over 3 MiB", Buffer.alloc(3 * 1024 * 1024 + 10, 0x20), "application/json", 413, /exceeds 3145728 bytes/],
  ])("%s → HTTP %i", async (_n, body, ct, status, text) => {
    const r = await post("/mutate", body, ct);
    expect(r.status).toBe(status);
    expect(r.body).toMatch(text);
  });

  it.each([
    ["no request", { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview" }, /AdmissionReview has no request/],
    [
      "request without uid",
      {
        apiVersion: "admission.k8s.io/v1",
        kind: "AdmissionReview",
        request: { kind: { group: "", version: "v1", kind: "Pod" }, operation: "CREATE" },
      },
      /request\.uid/,
    ],
    [
      "unknown apiVersion",
      { apiVersion: "admission.k8s.io/v9", kind: "AdmissionReview", request: {} },
      /unsupported AdmissionReview apiVersion/,
    ],
    ["a JSON array", [1, 2], /not an AdmissionReview/],
  ])("%s → allowed:false with a clear message", async (_n, body, message) => {
    const r = await post("/mutate", JSON.stringify(body));
    expect(r.status).toBe(200);
    const out = JSON.parse(r.body);
    expect(out.response.allowed).toBe(false);
    expect(out.response.status.message).toMatch(message);
  });

  it("an undecodable object is denied naming the problem, uid echoed", async () => {
    const req = podCreate({ metadata: { labels: { app: 7 } } });
    const out = JSON.parse((await post("/mutate", review(req))).body);
    expect(out.response).toMatchObject({ uid: req.uid, allowed: false });
    expect(out.response.status.message).toMatch(/metadata\.labels\.app/);
  });

  it("serves health, readiness and Prometheus metrics", async () => {
    expect((await post("/health", undefined, undefined, "GET")).body).toBe("OK\n");
    expect((await post("/livez", undefined, undefined, "GET")).status).toBe(200);
    expect((await post("/readyz", undefined, undefined, "GET")).status).toBe(200);
    const m = await post("/metrics", undefined, undefined, "GET");
    expect(m.body).toMatch(/corral_admission_requests_total\{webhook="mutate",kind="Pod",operation="CREATE",result="patched"\} \d+/);
    expect(m.body).toMatch(/corral_admission_duration_seconds_bucket/);
  });

  it("survives garbage: random bodies and random AdmissionReview-shaped objects never crash it", async () => {
    const garbageReview = fc.record(
      {
        apiVersion: fc.oneof(fc.constant("admission.k8s.io/v1"), fc.string()),
        kind: fc.oneof(fc.constant("AdmissionReview"), fc.string()),
        request: fc.oneof(
          fc.anything(),
          fc.record(
            {
              uid: fc.oneof(fc.uuid(), fc.anything()),
              kind: fc.oneof(
                fc.record({
                  group: fc.constantFrom("", "apps", "batch"),
                  version: fc.constantFrom("v1", "v1beta1"),
                  kind: fc.constantFrom("Pod", "Deployment", "CronJob", "Job", "ConfigMap", "X"),
                }),
                fc.anything(),
              ),
              operation: fc.constantFrom("CREATE", "UPDATE", "DELETE", "CONNECT", ""),
              namespace: fc.oneof(fc.string(), fc.anything()),
              userInfo: fc.oneof(fc.record({ username: fc.string(), groups: fc.array(fc.string()) }), fc.anything()),
              object: fc.oneof(
                fc.anything(),
                fc.record({ metadata: fc.anything(), spec: fc.anything() }),
                fc.record({
                  metadata: fc.record({
                    labels: fc.dictionary(fc.string(), fc.anything()),
                    annotations: fc.dictionary(fc.string(), fc.string()),
                  }),
                  spec: fc.anything(),
                }),
              ),
              oldObject: fc.anything(),
            },
            { requiredKeys: [] },
          ),
        ),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string().map((s) => ({ raw: s })),
          garbageReview.map((r) => ({ raw: JSON.stringify(r) })),
          fc.uint8Array({ maxLength: 512 }).map((b) => ({ raw: Buffer.from(b).toString("latin1") })),
        ),
        async ({ raw }) => {
          const r = await post("/mutate", raw);
          expect([200, 400]).toContain(r.status);
          if (r.status === 200) {
            const out = JSON.parse(r.body);
            expect(typeof out.response.allowed).toBe("boolean");
            expect(out.response.status?.code ?? 200).not.toBe(500);
          }
        },
      ),
      { numRuns: 400 },
    );
    const ok = await post("/mutate", review(podCreate(pod())));
    expect(JSON.parse(ok.body).response.allowed).toBe(true);
  });

  it("swaps the certificate for new connections without restarting", async () => {
    const now = Date.now();
    const ca2 = await generateCa({ notBefore: new Date(now - 60_000), notAfter: new Date(now + 86_400_000) });
    const srv2 = await generateServerCert(ca2, {
      commonName: "localhost",
      sans: ["localhost"],
      notBefore: new Date(now - 60_000),
      notAfter: new Date(now + 86_400_000),
    });
    const oldCa = ca;
    server.setCertificate({ key: srv2.keyPem, cert: srv2.certPem });
    ca = ca2.certPem;
    expect((await post("/health", undefined, undefined, "GET")).status).toBe(200);
    ca = oldCa;
    await expect(post("/health", undefined, undefined, "GET")).rejects.toThrow(/certificate/);
    ca = ca2.certPem;
  });
});

describe("AdmissionReview encoding", () => {
  it("the fast path encodes exactly what JSON.stringify would", async () => {
    const { encodeAdmissionReview } = await import("../../src/webhook/admission-review.js");
    const res = { uid: 'a"b', allowed: true, patch: "W10=", patchType: "JSONPatch" as const };
    expect(JSON.parse(encodeAdmissionReview("admission.k8s.io/v1", res))).toEqual({
      apiVersion: "admission.k8s.io/v1",
      kind: "AdmissionReview",
      response: res,
    });
  });
});
