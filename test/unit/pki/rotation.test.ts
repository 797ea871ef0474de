import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { generateCa, generateServerCert } from "../../../src/pki/certificates.js";
import { type SecretApi, ensureCas } from "../../../src/pki/ca-store.js";
import {
  DEFAULT_ROTATION_POLICY as P,
  caBundle,
  inspectSlot,
  nextRotation,
  planCaRenewals,
  scalePolicy,
  serverCertWindow,
  signingCa,
} from "../../../src/pki/rotation.js";
import { X509Certificate } from "node:crypto";

const DAY = 86_400_000;
const T0 = new Date("2026-01-01T00:00:00Z");
const at = (days: number) => new Date(T0.getTime() + days * DAY);
const ca = (fromDay: number, toDay: number) => generateCa({ notBefore: at(fromDay), notAfter: at(toDay) });

describe("inspectSlot", () => {
  it("accepts a CA outside the window and rejects it inside, expired, garbage or mismatched", async () => {
    const a = await ca(0, 365);
    const b = await ca(0, 365);
    expect(inspectSlot(a.certPem, a.keyPem, at(0), P.renewWithinMs).valid).toBe(true);
    expect(inspectSlot(a.certPem, a.keyPem, at(274), P.renewWithinMs)).toEqual({ valid: true, ca: expect.anything() }); // 91 days left
    expect(inspectSlot(a.certPem, a.keyPem, at(276), P.renewWithinMs)).toMatchObject({
      valid: false,
      reason: expect.stringMatching(/renewal window/),
    }); // 89 days
    expect(inspectSlot(a.certPem, a.keyPem, at(334), P.rotateWithinMs).valid).toBe(true); // 31 days left, running check
    expect(inspectSlot(a.certPem, a.keyPem, at(336), P.rotateWithinMs).valid).toBe(false); // 29 days
    expect(inspectSlot(a.certPem, a.keyPem, at(366), P.rotateWithinMs)).toMatchObject({
      valid: false,
      reason: expect.stringMatching(/^expired/),
    });
    expect(inspectSlot(undefined, a.keyPem, at(0), 0)).toEqual({ valid: false, reason: "missing" });
    expect(inspectSlot("-----BEGIN CERTIFICATE-----\ngarbage\n-----END CERTIFICATE-----\n", a.keyPem, at(0), 0)).toMatchObject({
      valid: false,
      reason: expect.stringMatching(/not valid PEM/),
    });
    expect(inspectSlot(a.certPem, "not a key", at(0), 0)).toMatchObject({
      valid: false,
      reason: expect.stringMatching(/private key is not valid/),
    });
    expect(inspectSlot(a.certPem, b.keyPem, at(0), 0)).toEqual({ valid: false, reason: "private key does not match the certificate" });
  });

  it("rejects a server (non-CA) certificate in a CA slot", async () => {
    const a = await ca(0, 365);
    const srv = await generateServerCert(a, { commonName: "x", sans: ["x"], notBefore: at(0), notAfter: at(10) });
    expect(inspectSlot(srv.certPem, srv.keyPem, at(1), 0)).toEqual({ valid: false, reason: "certificate is not a CA" });
  });
});

describe("planCaRenewals", () => {
  const ok = (toDay: number) => ({
    valid: true as const,
    ca: { certPem: "", keyPem: "", notBefore: at(0), notAfter: at(toDay), fingerprint: String(toDay) },
  });
  const bad = { valid: false as const, reason: "missing" };
  it("both missing: slot 1 gets 12 months, slot 2 six months (staggered)", () => {
    const plan = planCaRenewals([bad, bad], at(0), P);
    expect(plan.map((r) => [r.slot, Math.round((r.notAfter.getTime() - T0.getTime()) / DAY)])).toEqual([
      [1, 365],
      [2, 182],
    ]);
  });
  it("one expiring: only that one, 12 months", () => {
    expect(
      planCaRenewals([ok(300), bad], at(100), P).map((r) => [r.slot, Math.round((r.notAfter.getTime() - T0.getTime()) / DAY)]),
    ).toEqual([[2, 465]]);
    expect(planCaRenewals([bad, ok(300)], at(100), P).map((r) => r.slot)).toEqual([1]);
  });
  it("nothing to do when both are valid", () => {
    expect(planCaRenewals([ok(300), ok(200)], at(0), P)).toEqual([]);
  });
});

describe("signer, bundle, rotation time", () => {
  it("signs with the later CA, rotates 30 days before the earlier one expires, never outlives the signer", async () => {
    const c1 = { certPem: "A\n", keyPem: "", notBefore: at(0), notAfter: at(365), fingerprint: "1" };
    const c2 = { certPem: "B", keyPem: "", notBefore: at(0), notAfter: at(182), fingerprint: "2" };
    expect(signingCa([c1, c2])).toBe(c1);
    expect(signingCa([c2, c1])).toBe(c1);
    expect(nextRotation([c1, c2], P)).toEqual(at(152));
    expect(caBundle([c1, c2])).toBe("A\nB\n");
    expect(serverCertWindow(c2, at(100), P).notAfter).toEqual(at(182));
    expect(serverCertWindow(c1, at(100), P).notBefore.getTime()).toBe(at(100).getTime() - P.notBeforeSkewMs);
  });

  it("over two simulated years the bundle always trusts the serving CA, and the CAs never expire together", async () => {
    // Walk the clock through the start-up (90-day) and running (30-day) rules with in-memory Secret data.
    let data: Record<string, string> = {};
    let rv = 0;
    const api: SecretApi = {
      readNamespacedSecret: async () => {
        if (rv === 0) throw Object.assign(new Error("not found"), { code: 404 });
        return { metadata: { name: "s", resourceVersion: String(rv) }, data: { ...data } };
      },
      createNamespacedSecret: async ({ body }) => {
        data = { ...body.data };
        rv++;
        return body;
      },
      replaceNamespacedSecret: async ({ body }) => {
        data = { ...body.data };
        rv++;
        return body;
      },
    };
    const log = pino({ level: "silent" });
    let now = at(0);
    let r = await ensureCas({ api, namespace: "ns", name: "s", now: () => now, policy: P, withinMs: P.renewWithinMs, log });
    expect(r.wrote || rv === 1).toBe(true);
    const expiries = new Set<string>();
    for (let step = 0; step < 8; step++) {
      const rot = nextRotation(r.cas, P);
      expect(rot.getTime()).toBeGreaterThan(now.getTime());
      now = rot;
      const signerBefore = signingCa(r.cas);
      r = await ensureCas({ api, namespace: "ns", name: "s", now: () => now, policy: P, withinMs: P.rotateWithinMs, log });
      const bundle = caBundle(r.cas);
      // The CA that signed the certificates served before the rotation is still trusted after it.
      expect(bundle).toContain(signerBefore.certPem.trim());
      expect(Math.abs(r.cas[0].notAfter.getTime() - r.cas[1].notAfter.getTime())).toBeGreaterThan(30 * DAY);
      for (const c of r.cas) expect(c.notAfter.getTime()).toBeGreaterThan(now.getTime() + P.rotateWithinMs);
      expiries.add(r.cas[0].fingerprint).add(r.cas[1].fingerprint);
    }
    expect(now.getTime()).toBeGreaterThan(at(730).getTime());
    expect(expiries.size).toBeGreaterThan(4);
  });

  it("a stored Secret with garbage is treated as missing and rewritten, not a crash", async () => {
    let data: Record<string, string> = { "cacert1.pem": Buffer.from("garbage").toString("base64"), "cakey1.pem": "%%%" };
    const api: SecretApi = {
      readNamespacedSecret: async () => ({ metadata: { name: "s", resourceVersion: "1" }, data: { ...data } }),
      createNamespacedSecret: async ({ body }) => body,
      replaceNamespacedSecret: async ({ body }) => {
        data = { ...body.data };
        return body;
      },
    };
    const r = await ensureCas({
      api,
      namespace: "ns",
      name: "s",
      now: () => at(0),
      policy: P,
      withinMs: P.renewWithinMs,
      log: pino({ level: "silent" }),
    });
    expect(new X509Certificate(r.cas[0].certPem).ca).toBe(true);
    expect(Object.keys(data).sort()).toEqual(["cacert1.pem", "cacert2.pem", "cakey1.pem", "cakey2.pem"]);
  });

  it("retries on 409 and uses what the other writer stored", async () => {
    const other = await ca(0, 365);
    const other2 = await ca(0, 182);
    const stored = { "cacert1.pem": other.certPem, "cakey1.pem": other.keyPem, "cacert2.pem": other2.certPem, "cakey2.pem": other2.keyPem };
    let reads = 0;
    const api: SecretApi = {
      readNamespacedSecret: async () => {
        reads++;
        if (reads === 1) throw Object.assign(new Error("nf"), { code: 404 });
        return {
          metadata: { name: "s", resourceVersion: "2" },
          data: Object.fromEntries(Object.entries(stored).map(([k, v]) => [k, Buffer.from(v).toString("base64")])),
        };
      },
      createNamespacedSecret: async () => {
        throw Object.assign(new Error("exists"), { code: 409 });
      },
      replaceNamespacedSecret: async () => {
        throw new Error("must not be called");
      },
    };
    const r = await ensureCas({
      api,
      namespace: "ns",
      name: "s",
      now: () => at(1),
      policy: P,
      withinMs: P.renewWithinMs,
      log: pino({ level: "silent" }),
    });
    expect(r.wrote).toBe(false);
    expect(r.cas[0].certPem).toBe(other.certPem);
  });

  it("scalePolicy compresses every duration", () => {
    expect(scalePolicy(P, 1000).validityMs).toBe(P.validityMs / 1000);
    expect(() => scalePolicy(P, 0)).toThrow(/time scale/);
  });
});

describe("certificate generation cost", () => {
  it("generates a CA and a server certificate in well under 100 ms (ECDSA P-256; RSA 4096 takes seconds)", async () => {
    const t = performance.now();
    const c = await ca(0, 365);
    await generateServerCert(c, { commonName: "s", sans: ["s.ns.svc"], notBefore: at(0), notAfter: at(10) });
    expect(performance.now() - t).toBeLessThan(500);
  });
});
