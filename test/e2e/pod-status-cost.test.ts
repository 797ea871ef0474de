/**
 * What the pods/status check costs (README "Security"): kubelet-like status patches (strategic merge of a condition,
 * as the kubelet's status manager sends them) at a fixed rate, first with the check off
 * (`admissionController.webHook.podStatusPolicy: Off`), then on (`Ignore`, the default). Measured: webhook calls
 * (corral's own counter) and the latency of each patch as the client sees it. Env: STATUS_RATE (patches/s, default
 * 50), STATUS_SECONDS (per phase, default 15), STATUS_PODS (default 50).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { request } from "node:https";
import { k8s } from "../../src/kube/client.js";
import { type CorralProcess, type Testbed, kubeConfigFor, prepareNamespace, waitFor } from "../../src/testbed/testbed.js";
import { resetCluster, startAdmission, testbed } from "./harness.js";

const CORRAL_NS = "corral-status";
const NS = "status-cost";
const RATE = Number(process.env.STATUS_RATE ?? 50);
const SECONDS = Number(process.env.STATUS_SECONDS ?? 15);
const PODS = Number(process.env.STATUS_PODS ?? 50);
const STATUS_WEBHOOK = "admission-webhook.yunikorn.validate-pod-status";

let tb: Testbed;
let adm: { corral: CorralProcess; port: number };
let core: k8s.CoreV1Api;

/** corral's count of validate-pods calls and the seconds it spent answering them (its /metrics). */
function statusCalls(): Promise<{ calls: number; seconds: number; rejected: number }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port: adm.port, path: "/metrics", rejectUnauthorized: false }, (res) => {
      let body = "";
      res.on("data", (d: Buffer) => (body += d.toString()));
      res.on("end", () => {
        let calls = 0;
        for (const m of body.matchAll(/^corral_admission_requests_total\{webhook="validate-pods"[^}]*\} (\d+)/gm)) calls += Number(m[1]);
        const seconds = Number(/^corral_admission_duration_seconds_sum\{webhook="validate-pods"\} ([\d.e+-]+)/m.exec(body)?.[1] ?? 0);
        let rejected = 0;
        for (const m of body.matchAll(/^corral_admission_rejected_total\{webhook="validate-pods"[^}]*\} (\d+)/gm)) rejected += Number(m[1]);
        resolve({ calls, seconds, rejected });
      });
    });
    req.on("error", reject);
    req.end();
  });
}

/** user+system CPU of corral, milliseconds (/proc/<pid>/stat, clock ticks of 10 ms). */
async function corralCpuMs(): Promise<number> {
  const { readFile } = await import("node:fs/promises");
  const f = (await readFile(`/proc/${adm.corral.proc.pid}/stat`, "utf8")).split(") ")[1]!.split(" ");
  return (Number(f[11]) + Number(f[12])) * 10;
}

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN;
};

/** RATE patches per second for SECONDS, round-robin over the pods, not waiting for answers (as many kubelets). */
async function statusPhase(): Promise<{ sent: number; failed: number; p50: number; p99: number; mean: number }> {
  const latencies: number[] = [];
  let failed = 0;
  const inFlight: Promise<void>[] = [];
  const total = RATE * SECONDS;
  const t0 = performance.now();
  for (let i = 0; i < total; i++) {
    const due = t0 + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const name = `p-${i % PODS}`;
    const started = performance.now();
    inFlight.push(
      core
        .patchNamespacedPodStatus(
          {
            name,
            namespace: NS,
            body: { status: { conditions: [{ type: "Ready", status: i % 2 === 0 ? "True" : "False", lastTransitionTime: new Date() }] } },
          },
          k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.StrategicMergePatch),
        )
        .then(
          () => void latencies.push(performance.now() - started),
          () => void failed++,
        ),
    );
  }
  await Promise.all(inFlight);
  const mean = latencies.reduce((a, b) => a + b, 0) / latencies.length;
  return {
    sent: total,
    failed,
    p50: Math.round(quantile(latencies, 0.5) * 10) / 10,
    p99: Math.round(quantile(latencies, 0.99) * 10) / 10,
    mean: Math.round(mean * 10) / 10,
  };
}

async function setPolicy(policy: "Off" | "Ignore"): Promise<void> {
  const body = { metadata: { name: "yunikorn-configs" }, data: { "admissionController.webHook.podStatusPolicy": policy } };
  await core
    .replaceNamespacedConfigMap({ name: "yunikorn-configs", namespace: CORRAL_NS, body })
    .catch(() => core.createNamespacedConfigMap({ namespace: CORRAL_NS, body }));
  const reg = kubeConfigFor(tb, "admin").makeApiClient(k8s.AdmissionregistrationV1Api);
  await waitFor(
    `pods/status webhook ${policy === "Off" ? "absent" : "registered"}`,
    async () => {
      const v = await reg.readValidatingWebhookConfiguration({ name: "yunikorn-admission-controller-validations" });
      const has = (v.webhooks ?? []).some((w) => w.name === STATUS_WEBHOOK);
      return has === (policy !== "Off") ? true : undefined;
    },
    20_000,
  );
  // the API server's webhook configuration cache
  await new Promise((r) => setTimeout(r, 2000));
}

beforeAll(async () => {
  tb = await testbed();
  const admin = kubeConfigFor(tb, "admin");
  core = admin.makeApiClient(k8s.CoreV1Api);
  await prepareNamespace(admin, CORRAL_NS, []);
  await prepareNamespace(admin, NS, ["alice"]);
  await core
    .createNamespacedConfigMap({
      namespace: CORRAL_NS,
      body: { metadata: { name: "yunikorn-configs" }, data: { "admissionController.webHook.podStatusPolicy": "Off" } },
    })
    .catch((err: { code?: number }) => {
      if (err.code !== 409) throw err;
    });
  adm = await startAdmission(tb, CORRAL_NS, { env: { LOG_LEVEL: "info" }, args: ["--resync-seconds", "1"] });
  const alice = kubeConfigFor(tb, "alice").makeApiClient(k8s.CoreV1Api);
  for (let i = 0; i < PODS; i++) {
    await alice.createNamespacedPod({
      namespace: NS,
      body: { metadata: { name: `p-${i}` }, spec: { containers: [{ name: "c", image: "busybox:1.36" }] } },
    });
  }
});

afterAll(async () => {
  await adm?.corral.stop();
  await resetCluster(tb);
});

describe("pods/status check cost", () => {
  it(`kubelet-like status patches at ${RATE}/s: webhook calls and latency with the check off and on`, async () => {
    const measure = async (policy: "Off" | "Ignore") => {
      await setPolicy(policy);
      const [m0, cpu0] = [await statusCalls(), await corralCpuMs()];
      const client = await statusPhase();
      const [m1, cpu1] = [await statusCalls(), await corralCpuMs()];
      const calls = m1.calls - m0.calls;
      return {
        ...client,
        webhookCalls: calls,
        refusedBeforeDecision: m1.rejected - m0.rejected,
        corralCpuMs: cpu1 - cpu0,
        corralMsPerCall: calls > 0 ? Math.round((((m1.seconds - m0.seconds) * 1000) / calls) * 1000) / 1000 : 0,
      };
    };
    const off = await measure("Off");
    const on = await measure("Ignore");
    const { loadavg } = await import("node:os");
    const report = { rate: RATE, seconds: SECONDS, pods: PODS, loadavg1m: loadavg()[0], off, on };
    process.stderr.write(`pods/status cost: ${JSON.stringify(report)}\n`);
    expect(off.failed).toBe(0);
    expect(on.failed).toBe(0);
    expect(off.webhookCalls).toBe(0);
    // every status write passes the check (more than once when the API server retries a conflicting patch)
    expect(on.webhookCalls).toBeGreaterThanOrEqual(on.sent);
  }, 120_000);
});
