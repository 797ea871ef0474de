/**
 * Certificates and webhook registration of a running webhook process (admission controller, bootstrapper) (design 000 "Admission controller
 * deployment"): the shared CA Secret, the ephemeral server certificate, self-registration, and the background task
 * that rotates CAs and repairs the webhook configurations.
 *
 * One reconcile, serialised, runs at start, at the rotation time (30 days before the earlier CA expires) and every
 * resync period:
 *   1. load the CAs from the Secret, regenerating any that are due (start: 90 days; later: 30 days);
 *   2. create or update both webhook configurations with caBundle = both CAs (only when the live object differs);
 *   3. if the signing CA changed, wait for the API servers to see the new caBundle, then swap the server
 *      certificate in the running server (existing connections are kept).
 * Replicas share the Secret and converge on its content; every write carries a resourceVersion.
 */
import type { Logger } from "pino";
import { applyObject } from "../kube/apply.js";
import type { k8s } from "../kube/client.js";
import { ensureCas, type SecretApi } from "../pki/ca-store.js";
import { generateServerCert } from "../pki/certificates.js";
import { type CaInfo, type RotationPolicy, caBundle, nextRotation, serverCertWindow, signingCa } from "../pki/rotation.js";
import type { TlsMaterial } from "../server/webhook-server.js";

/** Options of {@link WebhookTls}: the CA Secret and the webhook registrations its CA bundle goes to. */
export interface WebhookTlsOptions {
  kc: k8s.KubeConfig;
  secrets: SecretApi;
  secretName: string;
  policy: RotationPolicy;
  /** Injected clock. */
  now: () => Date;
  /** DNS names and IPs for the server certificate. */
  sans: string[];
  /** Namespace of the CA Secret. */
  namespace: () => string;
  /**
   * The webhook configurations to keep registered for a caBundle (PEM); undefined: do not register.
   * Read at every reconcile, so configuration changes (names, policies) apply at the next resync.
   */
  webhooks: (caBundle: string) => k8s.KubernetesObject[] | undefined;
  /** Resync period, milliseconds. */
  resyncMs: number;
  /** Wait between publishing a new caBundle and serving a certificate signed by a new CA, milliseconds. */
  propagationMs: number;
  log: Logger;
}

/** The webhook server's TLS material from the CA Secret, reissued and re-registered as the CAs rotate (pki/rotation.ts). */
export class WebhookTls {
  private serving?: { signer: string; tls: TlsMaterial };
  private cas?: [CaInfo, CaInfo];
  private chain: Promise<void> = Promise.resolve();
  private timer?: NodeJS.Timeout;
  private stopped = false;
  private swap?: (tls: TlsMaterial) => void;
  /** Completed reconciles (for tests and /readyz). */
  reconciles = 0;

  constructor(private readonly o: WebhookTlsOptions) {}

  /** First reconcile: CAs (90-day rule) and the server certificate to start serving with. */
  async initial(): Promise<TlsMaterial> {
    const cas = await this.loadCas(this.o.policy.renewWithinMs);
    this.serving = await this.issue(cas);
    return this.serving.tls;
  }

  /** Starts registration and the background task; `swap` replaces the served certificate. */
  start(swap: (tls: TlsMaterial) => void): Promise<void> {
    this.swap = swap;
    return this.enqueue("start");
  }

  /** Runs a reconcile now (serialised with any in progress). */
  enqueue(reason: string): Promise<void> {
    this.chain = this.chain
      .then(() => this.reconcile(reason))
      .catch((err: Error) => {
        this.o.log.error({ err: err.message, reason }, "certificate/webhook reconcile failed; retrying at the next resync");
      })
      .finally(() => this.schedule());
    return this.chain;
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }

  /** The CAs currently trusted (after the last reconcile). */
  get currentCas(): [CaInfo, CaInfo] | undefined {
    return this.cas;
  }

  private async loadCas(withinMs: number): Promise<[CaInfo, CaInfo]> {
    const r = await ensureCas({
      api: this.o.secrets,
      namespace: this.o.namespace(),
      name: this.o.secretName,
      now: this.o.now,
      policy: this.o.policy,
      withinMs,
      log: this.o.log,
    });
    this.cas = r.cas;
    return r.cas;
  }

  private async issue(cas: [CaInfo, CaInfo]): Promise<{ signer: string; tls: TlsMaterial }> {
    const signer = signingCa(cas);
    const window = serverCertWindow(signer, this.o.now(), this.o.policy);
    const cert = await generateServerCert(
      { certPem: signer.certPem, keyPem: signer.keyPem },
      {
        commonName: this.o.sans.find((d) => d.endsWith(".svc")) ?? "localhost",
        sans: this.o.sans,
        ...window,
      },
    );
    this.o.log.info({ signer: signer.fingerprint.slice(0, 23), notAfter: window.notAfter.toISOString() }, "server certificate issued");
    return { signer: signer.fingerprint, tls: { key: cert.keyPem, cert: cert.certPem + signer.certPem } };
  }

  private async reconcile(reason: string): Promise<void> {
    if (this.stopped) return;
    // at start, initial() has just loaded (and if needed renewed) the CAs with the start rule: no second read
    const cas =
      reason === "start"
        ? (this.cas ?? (await this.loadCas(this.o.policy.renewWithinMs)))
        : await this.loadCas(this.o.policy.rotateWithinMs);
    const desired = this.o.webhooks(caBundle(cas));
    if (desired) {
      const results = [];
      for (const obj of desired) results.push(await applyObject(this.o.kc, obj, this.o.log));
      if (results.some((x) => x !== "unchanged")) this.o.log.info({ reason, results }, "webhook configurations reconciled");
    }
    const signer = signingCa(cas).fingerprint;
    if (this.serving && this.serving.signer !== signer) {
      if (desired && this.o.propagationMs > 0) await new Promise((r) => setTimeout(r, this.o.propagationMs));
      this.serving = await this.issue(cas);
      this.swap?.(this.serving.tls);
      this.o.log.info({ reason }, "serving certificate rotated");
    }
    this.reconciles++;
  }

  private schedule(): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    const now = this.o.now().getTime();
    const rotateAt = this.cas ? nextRotation(this.cas, this.o.policy).getTime() : now + this.o.resyncMs;
    const delay = Math.max(50, Math.min(rotateAt - now, this.o.resyncMs, 2 ** 31 - 1));
    const reason = rotateAt - now <= this.o.resyncMs ? "rotation" : "resync";
    this.timer = setTimeout(() => void this.enqueue(reason), delay);
    this.timer.unref();
  }
}
