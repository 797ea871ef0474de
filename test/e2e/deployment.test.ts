/**
 * Admission controller deployment on the real control plane: shared CA Secret between two replicas, rotation under
 * load, SIGKILL mid-rotation, repair of a hand-edited webhook configuration, the kustomize manifests, and RBAC
 * compared with the calls the code makes (from the API server's audit log).
 */
import { execFile } from "node:child_process";
import { X509Certificate } from "node:crypto";
import type { Server } from "node:net";
import { connect } from "node:tls";
import { promisify } from "node:util";
import { parseAllDocuments } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { k8s } from "../../src/kube/client.js";
import { type CorralProcess, type Testbed, kubeConfigFor, prepareNamespace, waitFor } from "../../src/testbed/testbed.js";
import {
  auditedCalls,
  freePort,
  grantedRules,
  renderDeploy,
  resetCluster,
  roundRobin,
  serviceAccountKubeconfig,
  startAdmission,
  testbed,
} from "./harness.js";

const run = promisify(execFile);
const UI = "yunikorn.apache.org/user.info";
const MUTATING = "yunikorn-admission-controller-mutations";
const VALIDATING = "yunikorn-admission-controller-validations";
const SECRET = "admission-controller-secrets";
/** Compresses a year into ~24 s: rotations every few seconds. */
const FAST_PKI = ["--pki-time-scale", String(Math.round((152 * 86400) / 8)), "--resync-seconds", "1"];

let tb: Testbed;
let admin: k8s.KubeConfig;
let core: k8s.CoreV1Api;
let adm: k8s.AdmissionregistrationV1Api;
const running: CorralProcess[] = [];

async function secretBundle(namespace: string): Promise<{ cas: string[]; bundle: string }> {
  const s = await core.readNamespacedSecret({ name: SECRET, namespace });
  const d = (k: string) => Buffer.from(s.data![k]!, "base64").toString("utf8");
  const cas = [d("cacert1.pem"), d("cacert2.pem")];
  return { cas, bundle: cas.map((c) => (c.endsWith("\n") ? c : `${c}\n`)).join("") };
}

async function webhookBundle(): Promise<string> {
  const m = await adm.readMutatingWebhookConfiguration({ name: MUTATING });
  return Buffer.from(m.webhooks![0]!.clientConfig.caBundle!, "base64").toString("utf8");
}

/** The certificate a replica serves right now (new TLS connection). */
function servedCert(port: number): Promise<X509Certificate> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: "127.0.0.1", port, rejectUnauthorized: false, servername: "localhost" }, () => {
      const c = s.getPeerX509Certificate();
      s.end();
      if (c) resolve(c);
      else reject(new Error("no peer certificate"));
    });
    s.on("error", reject);
  });
}

function signedByOneOf(cert: X509Certificate, cas: string[]): boolean {
  return cas.some((pem) => {
    const ca = new X509Certificate(pem);
    return cert.checkIssued(ca) && cert.verify(ca.publicKey);
  });
}

let podSeq = 0;
async function alicePod(namespace: string): Promise<k8s.V1Pod> {
  const name = `p-${++podSeq}`;
  await kubeConfigFor(tb, "alice")
    .makeApiClient(k8s.CoreV1Api)
    .createNamespacedPod({
      namespace,
      body: { metadata: { name }, spec: { containers: [{ name: "c", image: "busybox:1.36" }] } },
    });
  return core.readNamespacedPod({ name, namespace });
}

const mutated = (p: k8s.V1Pod) =>
  p.spec?.schedulerName === "yunikorn" && JSON.parse(p.metadata?.annotations?.[UI] ?? "{}").user === "alice";

async function stopAll(): Promise<void> {
  await Promise.all(running.splice(0).map((c) => c.stop()));
}

beforeAll(async () => {
  tb = await testbed();
  admin = kubeConfigFor(tb, "admin");
  core = admin.makeApiClient(k8s.CoreV1Api);
  adm = admin.makeApiClient(k8s.AdmissionregistrationV1Api);
  await prepareNamespace(admin, "team-b", ["alice"]);
});

afterAll(async () => {
  await stopAll();
  await resetCluster(tb);
});

describe("admission controller deployment", () => {
  it("two replicas started at once against an empty namespace end with one CA pair, both serving certificates it signed", async () => {
    await prepareNamespace(admin, "corral-ha", []);
    const lbPort = freePort(),
      pa = freePort(),
      pb = freePort();
    const lb: Server = await roundRobin(lbPort, [pa, pb]);
    try {
      const url = `https://127.0.0.1:${lbPort}`;
      const [a, b] = await Promise.all([
        startAdmission(tb, "corral-ha", { port: pa, url }),
        startAdmission(tb, "corral-ha", { port: pb, url }),
      ]);
      running.push(a.corral, b.corral);
      const { cas, bundle } = await secretBundle("corral-ha");
      expect(cas.every((c) => new X509Certificate(c).ca)).toBe(true);
      expect(cas[0]).not.toBe(cas[1]);
      for (const port of [pa, pb]) expect(signedByOneOf(await servedCert(port), cas)).toBe(true);
      // the two CAs do not expire together (12 and 6 months)
      const days = cas.map((c) => (new Date(new X509Certificate(c).validTo).getTime() - Date.now()) / 86_400_000);
      expect(Math.abs(days[0]! - days[1]!)).toBeGreaterThan(150);
      await waitFor("webhook caBundle from the Secret", async () => (await webhookBundle()) === bundle);
      for (let i = 0; i < 4; i++) expect(mutated(await alicePod("team-b"))).toBe(true);
    } finally {
      await stopAll();
      lb.close();
    }
  });

  it("rotation while pods are created: zero failed or unmutated admissions, new caBundle and certificate served", async () => {
    await prepareNamespace(admin, "corral-rot", []);
    const r = await startAdmission(tb, "corral-rot", { args: FAST_PKI });
    running.push(r.corral);
    await waitFor(
      "webhooks registered for this replica",
      async () => (await webhookBundle()) === (await secretBundle("corral-rot")).bundle,
    );
    const bundles = new Set<string>(),
      certs = new Set<string>();
    let created = 0,
      failed = 0,
      unmutated = 0;
    const end = Date.now() + 20_000;
    while (Date.now() < end && created + failed < 400) {
      try {
        const p = await alicePod("team-b");
        created++;
        if (!mutated(p)) unmutated++;
      } catch {
        failed++;
      }
      bundles.add(await webhookBundle());
      certs.add((await servedCert(r.port)).fingerprint256);
    }
    expect({ failed, unmutated }).toEqual({ failed: 0, unmutated: 0 });
    expect(created).toBeGreaterThan(20);
    expect(bundles.size).toBeGreaterThanOrEqual(2);
    expect(certs.size).toBeGreaterThanOrEqual(2);
    expect(r.corral.logs.filter((l) => l.msg === "serving certificate rotated").length).toBeGreaterThanOrEqual(1);
  });

  it("SIGKILL in the middle of a rotation, restart: the Secret, the webhooks and the served certificate converge", async () => {
    const old = running.pop()!;
    const port = Number((old.logs.find((l) => l.msg === "admission controller serving") as { port: number }).port);
    const writes = old.logs.filter((l) => l.msg === "CA secret written").length;
    // Kill right after the Secret is written, before the caBundle is updated and the certificate swapped.
    await old.waitForLog(
      (l) => l.msg === "CA secret written" && old.logs.filter((x) => x.msg === "CA secret written").length > writes,
      30_000,
    );
    old.proc.kill("SIGKILL");
    await old.stop();
    const r = await startAdmission(tb, "corral-rot", { port, args: FAST_PKI });
    running.push(r.corral);
    await waitFor(
      "caBundle equals the Secret's CAs",
      async () => (await webhookBundle()) === (await secretBundle("corral-rot")).bundle,
      15_000,
    );
    expect(signedByOneOf(await servedCert(r.port), (await secretBundle("corral-rot")).cas)).toBe(true);
    expect(mutated(await alicePod("team-b"))).toBe(true);
    await stopAll();
  });

  it("a webhook configuration edited by hand (caBundle corrupted) is repaired within the resync period", async () => {
    const r = await startAdmission(tb, "corral-ha", { args: ["--resync-seconds", "2"] });
    running.push(r.corral);
    const good = (await secretBundle("corral-ha")).bundle;
    await waitFor("registered", async () => (await webhookBundle()) === good);
    await adm.patchMutatingWebhookConfiguration(
      {
        name: MUTATING,
        body: [
          {
            op: "replace",
            path: "/webhooks/0/clientConfig/caBundle",
            value: Buffer.from("-----BEGIN CERTIFICATE-----\ngarbage\n-----END CERTIFICATE-----\n").toString("base64"),
          },
        ],
      },
      k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.JsonPatch),
    );
    expect(await webhookBundle()).not.toBe(good);
    const t0 = Date.now();
    await waitFor("repaired caBundle", async () => (await webhookBundle()) === good, 10_000);
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(mutated(await alicePod("team-b"))).toBe(true);
    await stopAll();
  });

  it("the deploy/ manifests are accepted by the API server (server-side dry run)", async () => {
    const rendered = await render("corral");
    // Namespaced objects are dry-run into an existing namespace (a dry-run Namespace is not created). It carries the
    // label of namespace.yaml, as a real apply would have set before the Deployment: the controller's namespace is
    // kept out of the webhooks by that label (Kubernetes 1.20 has no kubernetes.io/metadata.name to do it by name),
    // so the dry run does not depend on a running replica.
    await prepareNamespace(admin, "corral", []);
    await kubectl(["label", "namespace", "corral", "--overwrite", "admission.corral.dev/exclude=true"], "");
    const { stdout } = await kubectl(["apply", "--dry-run=server", "-f", "-"], rendered);
    for (const kind of [
      "namespace",
      "serviceaccount",
      "clusterrole",
      "clusterrolebinding",
      "role",
      "rolebinding",
      "service",
      "deployment",
      "poddisruptionbudget",
      "networkpolicy",
    ]) {
      expect(stdout).toMatch(new RegExp(`^${kind}[./].*(created|configured|unchanged) \\(server dry run\\)`, "m"));
    }
  });

  it("the RBAC of deploy/ is exactly what the controller uses: every call allowed, every rule used", async () => {
    const ns = "corral-rbac";
    const rendered = await render(ns);
    const rbacOnly = parseAllDocuments(rendered)
      .map((d) => d.toJS())
      .filter((o) => ["Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"].includes(o.kind));
    await kubectl(["apply", "-f", "-"], rbacOnly.map((o) => JSON.stringify(o)).join("\n"));
    const kubeconfig = await serviceAccountKubeconfig(tb, ns, "yunikorn-admission-controller");
    // Fresh start: no webhook configurations, no Secret → create paths; fast PKI → update paths.
    for (const del of [
      () => adm.deleteMutatingWebhookConfiguration({ name: MUTATING }),
      () => adm.deleteValidatingWebhookConfiguration({ name: VALIDATING }),
    ])
      await del().catch(() => undefined);
    const r = await startAdmission(tb, ns, { kubeconfig, args: FAST_PKI });
    running.push(r.corral);
    await r.corral.waitForLog((l) => l.msg === "serving certificate rotated", 30_000);
    await r.corral.waitForLog((l) => l.msg === "webhook configurations reconciled" && l.reason !== "start", 30_000);
    expect(mutated(await alicePod("team-b"))).toBe(true);
    await stopAll();

    const { forbidden, used } = await auditedCalls(tb, `system:serviceaccount:${ns}:yunikorn-admission-controller`);
    expect(forbidden).toEqual([]);
    const granted = grantedRules(rbacOnly);
    expect([...used].sort()).toEqual([...granted].sort());
  });
});

async function render(namespace: string): Promise<string> {
  // Kubernetes 1.20 serves PodDisruptionBudget as policy/v1beta1 only: renderDeploy adds the documented component.
  const rendered = await renderDeploy(tb, "base", namespace);
  expect(rendered).toContain("apiVersion: policy/v1beta1\nkind: PodDisruptionBudget");
  return rendered;
}

async function kubectl(args: string[], stdin: string): Promise<{ stdout: string; stderr: string }> {
  const p = run("kubectl", ["--kubeconfig", tb.kubeconfig.admin, ...args], { timeout: 60_000, maxBuffer: 10 << 20 });
  p.child.stdin!.end(stdin);
  return p;
}
