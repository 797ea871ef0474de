/**
 * npm run bench:e2e — pods bound per second on the real test bed (kube-apiserver v1.20.2, etcd), in one run:
 *
 *   ceiling          the API server's own pod-create rate with no scheduler (same client, same concurrency)
 *   kube-scheduler   kube-scheduler v1.20.2, default settings (its profile named `yunikorn`, the admission
 *                    controller's scheduler name)
 *   corral           `corral scheduler` (standalone: the core decides, corral binds)
 *   corral plugin    kube-scheduler v1.20.2 with corral as its extender (filter + bind), qps 500
 *
 * Each scheduler round: BENCH_PODS pending pods (default 2,000; 100m cpu, 128Mi) are created with the scheduler
 * stopped, through the admission controller (on for every round); then the scheduler starts and a pod watch records
 * when each pod gets `spec.nodeName`. Rate = pods / (last bind − first bind); "wall" also counts start-up (process start
 * → last bind). Nodes: BENCH_NODES (default 100) fake Node objects, 32 cpu / 128Gi / 110 pods each.
 * Targets (issue): corral ≥ 10 × kube-scheduler and ≥ 0.7 × the create ceiling.
 * Env: BENCH_PODS, BENCH_NODES, BENCH_CONCURRENCY (create calls in flight, default 32), BENCH_ROUNDS (comma list of
 * ceiling,kube-scheduler,corral,plugin), BENCH_CORRAL_ARGS (extra `corral scheduler` flags),
 * BENCH_NODE_ARGS (node flags for corral, e.g. `--cpu-prof`).
 */
import { createWriteStream } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { k8s, makeKeepAliveApiClient } from "../src/kube/client.js";
import {
  PROJECT_ROOT, type Testbed, createFakeNodes, deleteFakeNodes, freeTcpPort, kubeConfigFor, kubeSchedulerConfig, prepareNamespace,
  startCorral, startKubeScheduler, testbedUp, waitFor,
} from "../src/testbed/testbed.js";

const PODS = Number(process.env.BENCH_PODS ?? 2000);
const NODES = Number(process.env.BENCH_NODES ?? 100);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const ROUNDS = (process.env.BENCH_ROUNDS ?? "ceiling,kube-scheduler,corral,plugin").split(",");
const NS = "bench";
const CONF_NS = "corral-bench";

interface Row { round: string; pods: number; seconds: number; rate: number; wallSeconds?: number }

const say = (s: string) => process.stderr.write(`[bench:e2e] ${s}\n`);

async function createPods(core: k8s.CoreV1Api, prefix: string): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  const worker = async () => {
    while (next < PODS) {
      const i = next++;
      await core.createNamespacedPod({ namespace: NS, body: {
        metadata: { name: `${prefix}-${String(i).padStart(5, "0")}`, labels: { "yunikorn.apache.org/app-id": `${prefix}-app-${i % 20}` } },
        spec: { containers: [{ name: "c", image: "registry.example.com/batch:1", resources: { requests: { cpu: "100m", memory: "128Mi" } } }] },
      } });
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return (performance.now() - t0) / 1000;
}

async function clearPods(core: k8s.CoreV1Api): Promise<void> {
  await core.deleteCollectionNamespacedPod({ namespace: NS, gracePeriodSeconds: 0 });
  await waitFor("pods deleted", async () => (await core.listNamespacedPod({ namespace: NS, limit: 1 })).items.length === 0, 120_000, 500);
}

/** Watches the namespace's pods; resolves with first/last bind times (ms) once all `count` are bound. */
async function watchBinds(kc: k8s.KubeConfig, count: number, timeoutMs: number): Promise<{ first: number; last: number }> {
  const seen = new Set<string>();
  let first = 0;
  let last = 0;
  const watch = new k8s.Watch(kc);
  let req: { abort(): void } | undefined;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { req?.abort(); reject(new Error(`only ${seen.size}/${count} pods bound after ${timeoutMs / 1000} s`)); }, timeoutMs);
    void watch.watch(`/api/v1/namespaces/${NS}/pods`, { allowWatchBookmarks: false }, (_type: string, pod: k8s.V1Pod) => {
      if (!pod.spec?.nodeName || seen.has(pod.metadata!.name!)) return;
      const now = performance.now();
      if (seen.size === 0) first = now;
      seen.add(pod.metadata!.name!);
      last = now;
      if (seen.size === count) {
        clearTimeout(timer);
        req?.abort();
        resolve({ first, last });
      }
    }, (err: unknown) => {
      if (seen.size < count && err) say(`watch ended: ${(err as Error).message ?? err}`);
    }).then((r: { abort(): void }) => (req = r), reject);
  });
}

async function main(): Promise<void> {
  say("starting the test bed");
  const tb: Testbed = await testbedUp((l) => say(l));
  const admin = kubeConfigFor(tb, "admin");
  // kept-alive connections: the API server's ceiling, not the client's TLS handshakes (see makeKeepAliveApiClient)
  const core = makeKeepAliveApiClient(admin, k8s.CoreV1Api);
  await prepareNamespace(admin, CONF_NS, []);
  await prepareNamespace(admin, NS, []);
  // Pods of earlier runs would be scheduled too.
  await clearPods(core);
  await deleteFakeNodes(admin, "bench").catch(() => undefined);
  say(`creating ${NODES} fake nodes`);
  await createFakeNodes(admin, "bench", NODES, { cpu: "32", memory: "128Gi", pods: "110" });
  const admPort = await freeTcpPort();
  const logDir = join(tb.dir, "logs");
  const sink = (name: string) => { const s = createWriteStream(join(logDir, `${name}.log`)); return (l: string) => s.write(`${l}\n`); };
  const adm = await startCorral(["admission", "--host", "127.0.0.1", "--port", String(admPort), "--kubeconfig", tb.kubeconfig.admin, "--webhook-url", `https://127.0.0.1:${admPort}`],
    { env: { NAMESPACE: CONF_NS, LOG_LEVEL: "info", ADMISSION_CONTROLLER_BYPASS_NAMESPACES: "^kube-system$" }, readyMsg: "admission controller serving", echo: sink("bench-admission") });
  await waitFor("admission webhook registered", async () => {
    try {
      await admin.makeApiClient(k8s.AdmissionregistrationV1Api).readMutatingWebhookConfiguration({ name: "yunikorn-admission-controller-mutations" });
      return true;
    } catch {
      return false;
    }
  });
  await new Promise((r) => setTimeout(r, 1000));
  const rows: Row[] = [];
  try {
    for (const round of ROUNDS) {
      say(`round ${round}: ${PODS} pods`);
      if (round === "ceiling") {
        const s = await createPods(core, "ceil");
        rows.push({ round: "API server create ceiling (no scheduler)", pods: PODS, seconds: s, rate: PODS / s });
        await clearPods(core);
        continue;
      }
      await createPods(core, round.replace(/[^a-z]/g, ""));
      const done = watchBinds(admin, PODS, 600_000);
      const t0 = performance.now();
      let stop: () => Promise<unknown>;
      if (round === "kube-scheduler") {
        const ks = await startKubeScheduler(tb, "bench-kube-scheduler", kubeSchedulerConfig({ kubeconfig: tb.kubeconfig.scheduler, schedulerName: "yunikorn", healthzPort: await freeTcpPort() }));
        stop = ks.stop;
      } else {
        const port = await freeTcpPort();
        const c = await startCorral(["scheduler", "--host", "127.0.0.1", "--port", String(port), "--kubeconfig", tb.kubeconfig.admin, "--namespace", CONF_NS, ...(round === "plugin" ? ["--mode", "plugin"] : []), ...(process.env.BENCH_CORRAL_ARGS ?? "").split(" ").filter(Boolean)],
          { env: { LOG_LEVEL: "info" }, readyMsg: "scheduler REST API serving", echo: sink(`bench-corral-${round}`), nodeArgs: (process.env.BENCH_NODE_ARGS ?? "").split(" ").filter(Boolean) });
        let ks: { stop(): Promise<void> } | undefined;
        if (round === "plugin") {
          ks = await startKubeScheduler(tb, "bench-kube-scheduler-plugin", kubeSchedulerConfig({ kubeconfig: tb.kubeconfig.scheduler, schedulerName: "yunikorn", healthzPort: await freeTcpPort(), extenderUrl: `http://127.0.0.1:${port}/scheduler`, qps: 500 }));
        }
        stop = async () => { await ks?.stop(); await c.stop(); };
      }
      const { first, last } = await done;
      await stop();
      const seconds = (last - first) / 1000;
      rows.push({
        round: round === "kube-scheduler" ? "kube-scheduler v1.20.2 (defaults)" : round === "corral" ? "corral standalone" : "corral plugin mode (kube-scheduler + extender)",
        pods: PODS, seconds, rate: (PODS - 1) / seconds, wallSeconds: (last - t0) / 1000,
      });
      await clearPods(core);
    }
  } finally {
    await adm.stop();
    await admin.makeApiClient(k8s.AdmissionregistrationV1Api).deleteMutatingWebhookConfiguration({ name: "yunikorn-admission-controller-mutations" }).catch(() => undefined);
    await admin.makeApiClient(k8s.AdmissionregistrationV1Api).deleteValidatingWebhookConfiguration({ name: "yunikorn-admission-controller-validations" }).catch(() => undefined);
    await deleteFakeNodes(admin, "bench").catch(() => undefined);
  }

  const by = (prefix: string) => rows.find((r) => r.round.startsWith(prefix));
  const ceiling = by("API server");
  const ks = by("kube-scheduler");
  const lines = [
    `bench:e2e — ${PODS} pods, ${NODES} fake nodes, admission controller on, kube-apiserver v1.20.2 on 127.0.0.1`,
    "",
    "| round | pods/s | seconds (first→last) | wall seconds (start→last bind) | vs kube-scheduler | vs create ceiling |",
    "|---|---|---|---|---|---|",
    ...rows.map((r) => `| ${r.round} | ${r.rate.toFixed(0)} | ${r.seconds.toFixed(2)} | ${r.wallSeconds?.toFixed(2) ?? "—"} | ${ks && r !== ceiling ? `${(r.rate / ks.rate).toFixed(1)}×` : "—"} | ${ceiling ? `${(r.rate / ceiling.rate).toFixed(2)}×` : "—"} |`),
    "",
    "Targets: corral standalone ≥ 10× kube-scheduler and ≥ 0.7× the create ceiling.",
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
  await mkdir(join(PROJECT_ROOT, ".corral", "reports"), { recursive: true });
  await writeFile(join(PROJECT_ROOT, ".corral", "reports", "bench-e2e.json"), JSON.stringify({ pods: PODS, nodes: NODES, rows }, null, 2));
}

main().catch((err: Error) => {
  say(`failed: ${err.stack ?? err.message}`);
  process.exit(1);
});
