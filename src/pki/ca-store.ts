/**
 * The CA pair in the Secret `admission-controller-secrets` (edge). Replicas share it without leader election:
 * creation and updates carry the observed resourceVersion, a 409 means another replica wrote first, and the loop
 * re-reads and re-plans (the other replica's fresh CAs are then valid, so nothing more is written).
 */
import type { Logger } from "pino";
import { type k8s, statusCode } from "../kube/client.js";
import { generateCa } from "./certificates.js";
import { CA_SECRET_KEYS, type CaInfo, type CaSlot, type RotationPolicy, inspectSlot, planCaRenewals } from "./rotation.js";

/** The Secret operations the store needs (CoreV1Api in production; tests may pass the same calls). */
export interface SecretApi {
  readNamespacedSecret(p: { name: string; namespace: string }): Promise<k8s.V1Secret>;
  createNamespacedSecret(p: { namespace: string; body: k8s.V1Secret }): Promise<k8s.V1Secret>;
  replaceNamespacedSecret(p: { name: string; namespace: string; body: k8s.V1Secret }): Promise<k8s.V1Secret>;
}

const b64 = (s: string) => Buffer.from(s).toString("base64");
const unb64 = (s: string | undefined) => (s === undefined ? undefined : Buffer.from(s, "base64").toString("utf8"));

/** The two CAs of the Secret after an ensure (current first), and whether this call wrote the Secret. */
export interface EnsureResult {
  cas: [CaInfo, CaInfo];
  /** True when this call wrote the Secret. */
  wrote: boolean;
  resourceVersion?: string;
}

/** Options of {@link ensureCas}. */
export interface EnsureCasOptions {
  api: SecretApi;
  /** Namespace and name of the Secret holding both CAs. */
  namespace: string;
  name: string;
  now: () => Date;
  policy: RotationPolicy;
  /** A CA expiring within this many ms is regenerated (start: 90 days; running: 30 days). */
  withinMs: number;
  log: Logger;
  /** Read-modify-write rounds tried on 409 Conflict (default 10). */
  attempts?: number;
}

/**
 * Loads the two CAs, regenerating what the policy says, and writes the Secret back only if something changed.
 * @throws Error after `attempts` rounds of conflicts, or on an API error other than 404/409
 */
export async function ensureCas(o: EnsureCasOptions): Promise<EnsureResult> {
  const { api, namespace, name, now, policy, withinMs, log, attempts = 10 } = o;
  for (let i = 0; i < attempts; i++) {
    let secret: k8s.V1Secret | undefined;
    try {
      secret = await api.readNamespacedSecret({ name, namespace });
    } catch (err) {
      if (statusCode(err) !== 404) throw err;
    }
    const data = secret?.data ?? {};
    const t = now();
    const slots: [CaSlot, CaSlot] = [
      inspectSlot(unb64(data[CA_SECRET_KEYS.cert1]), unb64(data[CA_SECRET_KEYS.key1]), t, withinMs),
      inspectSlot(unb64(data[CA_SECRET_KEYS.cert2]), unb64(data[CA_SECRET_KEYS.key2]), t, withinMs),
    ];
    const plan = planCaRenewals(slots, t, policy);
    if (plan.length === 0) {
      return {
        cas: [(slots[0] as { ca: CaInfo }).ca, (slots[1] as { ca: CaInfo }).ca],
        wrote: false,
        resourceVersion: secret?.metadata?.resourceVersion,
      };
    }
    const next = { ...data };
    for (const r of plan) {
      const pair = await generateCa({ commonName: `corral-admission-ca-${r.slot}`, notBefore: r.notBefore, notAfter: r.notAfter });
      next[r.slot === 1 ? CA_SECRET_KEYS.cert1 : CA_SECRET_KEYS.cert2] = b64(pair.certPem);
      next[r.slot === 1 ? CA_SECRET_KEYS.key1 : CA_SECRET_KEYS.key2] = b64(pair.keyPem);
      log.info({ secret: `${namespace}/${name}`, slot: r.slot, reason: r.reason, notAfter: r.notAfter.toISOString() }, "generating CA");
    }
    try {
      if (!secret) {
        await api.createNamespacedSecret({
          namespace,
          body: { metadata: { name, namespace, labels: { app: "yunikorn" } }, type: "Opaque", data: next },
        });
      } else {
        await api.replaceNamespacedSecret({ name, namespace, body: { ...secret, data: next } });
      }
      log.info({ secret: `${namespace}/${name}`, slots: plan.map((r) => r.slot) }, "CA secret written");
    } catch (err) {
      const c = statusCode(err);
      if (c === 409 || c === 404) {
        log.info({ secret: `${namespace}/${name}`, code: c }, "CA secret changed concurrently; re-reading");
        continue;
      }
      throw err;
    }
    // Loop once more: re-read what is stored, so every replica serves exactly what the Secret holds.
  }
  throw new Error(`Secret ${namespace}/${name}: unable to update CA certificates after ${attempts} attempts`);
}
