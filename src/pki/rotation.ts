/**
 * CA rotation policy of the admission controller (design 000 "Admission controller deployment";
 * yunikorn-admission reference §10.2-10.3). Pure: every function takes the time (`now`) and returns data.
 *
 *  - Two CAs (slots 1 and 2) live in the Secret; the webhook caBundle trusts both.
 *  - At start, a CA that is missing, unreadable, not matching its key, or within 90 days of expiry is regenerated with
 *    12 months of validity. When both are, slot 1 gets 12 months and slot 2 six months, so the two never expire
 *    together (design 000; upstream gives the 6 months to slot 1 instead).
 *  - While running, when either CA is within 30 days of expiry it is regenerated (12 months).
 *  - The server certificate is signed by the CA with the later expiry and never outlives it.
 */
import { X509Certificate, createPrivateKey } from "node:crypto";

const DAY = 24 * 3600 * 1000;

/** Durations in milliseconds. */
export interface RotationPolicy {
  /** Regenerate at start when a CA expires within this (90 days). */
  renewWithinMs: number;
  /** Regenerate while running when a CA expires within this (30 days). */
  rotateWithinMs: number;
  /** Validity of a regenerated CA (12 months). */
  validityMs: number;
  /** Validity of slot 2 when both CAs are regenerated together (6 months). */
  staggeredValidityMs: number;
  /** Validity of a server certificate (capped by its CA's expiry). */
  serverValidityMs: number;
  /** NotBefore backdating, against clock skew between replicas and API servers (5 minutes). */
  notBeforeSkewMs: number;
}

/** CAs valid 365 days (slot 2 of a pair made together 182), renewed at start within 90 days of expiry, while running within 30. */
export const DEFAULT_ROTATION_POLICY: Readonly<RotationPolicy> = Object.freeze({
  renewWithinMs: 90 * DAY,
  rotateWithinMs: 30 * DAY,
  validityMs: 365 * DAY,
  staggeredValidityMs: 182 * DAY,
  serverValidityMs: 365 * DAY,
  notBeforeSkewMs: 5 * 60 * 1000,
});

/** The policy with every duration divided by `factor` (tests and demos compress a year into seconds). */
export function scalePolicy(p: RotationPolicy, factor: number): RotationPolicy {
  if (!(factor >= 1)) throw new Error(`time scale must be >= 1, got ${factor}`);
  return {
    renewWithinMs: p.renewWithinMs / factor,
    rotateWithinMs: p.rotateWithinMs / factor,
    validityMs: p.validityMs / factor,
    staggeredValidityMs: p.staggeredValidityMs / factor,
    serverValidityMs: p.serverValidityMs / factor,
    notBeforeSkewMs: p.notBeforeSkewMs / factor,
  };
}

/** A usable CA. */
export interface CaInfo {
  certPem: string;
  keyPem: string;
  notBefore: Date;
  notAfter: Date;
  /** SHA-256 fingerprint, to tell CAs apart in logs. */
  fingerprint: string;
}

/** One CA slot of the Secret: a valid CA, or why it is not (missing, not PEM, not a CA, key mismatch, expired, expiring). */
export type CaSlot = { valid: true; ca: CaInfo } | { valid: false; reason: string };

/**
 * Checks one CA slot of the Secret.
 * @param certPem PEM certificate (undefined when the key is absent)
 * @param keyPem PEM private key (PKCS#8 or PKCS#1)
 * @param withinMs the slot is invalid when it expires within this many milliseconds of `now`
 * @returns the CA, or why it cannot be used (missing, garbage, not a CA, key mismatch, expired, expiring)
 */
export function inspectSlot(certPem: string | undefined, keyPem: string | undefined, now: Date, withinMs: number): CaSlot {
  if (!certPem || !keyPem) return { valid: false, reason: "missing" };
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(certPem);
  } catch (err) {
    return { valid: false, reason: `certificate is not valid PEM: ${(err as Error).message}` };
  }
  if (!cert.ca) return { valid: false, reason: "certificate is not a CA" };
  try {
    if (!cert.checkPrivateKey(createPrivateKey(keyPem))) return { valid: false, reason: "private key does not match the certificate" };
  } catch (err) {
    return { valid: false, reason: `private key is not valid PEM: ${(err as Error).message}` };
  }
  const notAfter = new Date(cert.validTo);
  const notBefore = new Date(cert.validFrom);
  if (notAfter.getTime() <= now.getTime()) return { valid: false, reason: `expired at ${notAfter.toISOString()}` };
  if (notAfter.getTime() - now.getTime() <= withinMs)
    return { valid: false, reason: `expires at ${notAfter.toISOString()}, within the renewal window` };
  return { valid: true, ca: { certPem, keyPem, notBefore, notAfter, fingerprint: cert.fingerprint256 } };
}

/** A CA to generate: which slot and until when. */
export interface CaRenewal {
  slot: 1 | 2;
  notBefore: Date;
  notAfter: Date;
  reason: string;
}

/**
 * Which CAs to regenerate.
 * @returns an empty list when both slots are valid
 */
export function planCaRenewals(slots: readonly [CaSlot, CaSlot], now: Date, policy: RotationPolicy): CaRenewal[] {
  const [s1, s2] = slots;
  const notBefore = new Date(now.getTime() - policy.notBeforeSkewMs);
  const year = new Date(now.getTime() + policy.validityMs);
  if (!s1.valid && !s2.valid) {
    return [
      { slot: 1, notBefore, notAfter: year, reason: s1.reason },
      { slot: 2, notBefore, notAfter: new Date(now.getTime() + policy.staggeredValidityMs), reason: s2.reason },
    ];
  }
  const out: CaRenewal[] = [];
  if (!s1.valid) out.push({ slot: 1, notBefore, notAfter: year, reason: s1.reason });
  if (!s2.valid) out.push({ slot: 2, notBefore, notAfter: year, reason: s2.reason });
  return out;
}

/** The CA that signs server certificates: the one with the later expiry (slot 1 on a tie). */
export function signingCa(cas: readonly [CaInfo, CaInfo]): CaInfo {
  return cas[1].notAfter.getTime() > cas[0].notAfter.getTime() ? cas[1] : cas[0];
}

/** When the running process must rotate: `rotateWithinMs` before the earlier CA expiry. */
export function nextRotation(cas: readonly [CaInfo, CaInfo], policy: RotationPolicy): Date {
  return new Date(Math.min(cas[0].notAfter.getTime(), cas[1].notAfter.getTime()) - policy.rotateWithinMs);
}

/** The caBundle: both CA certificates, slot 1 first. */
export function caBundle(cas: readonly [CaInfo, CaInfo]): string {
  const norm = (p: string) => (p.endsWith("\n") ? p : `${p}\n`);
  return norm(cas[0].certPem) + norm(cas[1].certPem);
}

/** Validity window of a new server certificate signed by `signer`. */
export function serverCertWindow(signer: CaInfo, now: Date, policy: RotationPolicy): { notBefore: Date; notAfter: Date } {
  return {
    notBefore: new Date(Math.max(now.getTime() - policy.notBeforeSkewMs, signer.notBefore.getTime())),
    notAfter: new Date(Math.min(now.getTime() + policy.serverValidityMs, signer.notAfter.getTime())),
  };
}

/** Secret data keys (YuniKorn's names). */
export const CA_SECRET_KEYS = { cert1: "cacert1.pem", key1: "cakey1.pem", cert2: "cacert2.pem", key2: "cakey2.pem" } as const;
