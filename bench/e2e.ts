/**
 * npm run bench:e2e — pods bound per second on the real test bed (kube-apiserver v1.20.2, etcd), in one run:
 *
 *   ceiling          the API server's own pod-create rate with no scheduler (same client, same concurrency)
 *   kube-scheduler   kube-scheduler v1.20.2, default settings (its profile named `yunikorn`, the admission
 *                    controller's scheduler name)
 *   corral           `corral scheduler` (standalone: the core decides, corral binds)
 *   corral plugin    kube-scheduler v1.20.2 with corral as its extender (filter + bind), qps 500
 *   corral-streams   `corral scheduler` as in `corral`, with BENCH_STREAMS (default 10) clients reading
 *                    `/ws/v1/events/stream` from before the first bind to after the last: the records delivered
 *                    per second (all clients together) are reported; `npm run bench:events` runs corral and
 *                    corral-streams in the same run (ABBA order) and prints the pods/s ratio (target ≥ 0.9).
 *
 * Every round runs on a freshly started control plane (empty etcd). Each scheduler round: BENCH_PODS pending pods
 * (default 2,000; 100m cpu, 128Mi) are created with the scheduler stopped, through the admission controller (on for
 * every round); then the scheduler starts and a pod watch records when each pod gets `spec.nodeName`. Rate = pods /
 * (last bind − first bind); "wall" also counts start-up (process start → last bind). Nodes: BENCH_NODES (default 100)
 * fake Node objects, 32 cpu / 128Gi / 110 pods each.
 * Targets: corral ≥ 10 × kube-scheduler and ≥ 0.7 × the create ceiling.
 * The gang round: BENCH_GANG_APPS (default 200) Spark-shaped applications of one driver and BENCH_GANG_EXECUTORS (9)
 * executors, every pod a task-group member (task groups driver 1, executor 9; same pod size), created with the
 * scheduler stopped (all drivers first, a second later the executors). corral (run as the test bed's admin, which the
 * round's `service.schedulerUser` names) then creates a placeholder per member and replaces it by the real pod as
 * soon as the gang is complete: a placeholder still waiting for its binding then is deleted unbound, a bound one is
 * deleted before the real pod is bound. Reported: placeholders created/s, gangs fully running/s (all real pods bound)
 * and real pods/s, each over the window from the first placeholder created to the last real pod bound; placeholders
 * seen bound; when the first gang had all its pods bound and when the last placeholder was deleted; and the ratio to
 * the plain corral round just before (the first one when none is before; rounds may repeat, e.g.
 * corral,gang,corral,gang, and then the median ratio is printed too). The phases (placeholders created, bound,
 * deleted; real pods bound: 10/50/90/100 % points) are printed on stderr.
 *
 * For every round: CPU per pod of the scheduler, kube-apiserver, etcd, the admission controller and
 * kube-controller-manager over the measured window (/proc), and kube-apiserver's requests per pod over it by verb and
 * resource (its `apiserver_request_total`), so the rounds' API costs can be compared call by call.
 *
 * Env: BENCH_PODS, BENCH_NODES, BENCH_CONCURRENCY (create calls in flight, default 32), BENCH_ROUNDS (comma list of
 * ceiling,kube-scheduler,corral,plugin,gang), BENCH_CORRAL_ARGS (extra `corral scheduler` flags),
 * BENCH_NODE_ARGS (node flags for corral, e.g. `--cpu-prof`).
 */
import { createWriteStream, readFileSync } from "node:fs";
import { get } from "node:http";
import { type RequestOptions, get as httpsGet } from "node:https";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { k8s, makeKeepAliveApiClient } from "../src/kube/client.js";
import {
  type CorralProcess,
  type KubeSchedulerProcess,
  PROJECT_ROOT,
  type Testbed,
  createFakeNodes,
  freeTcpPort,
  kubeConfigFor,
  kubeSchedulerConfig,
  prepareNamespace,
  startCorral,
  startKubeScheduler,
  testbedDown,
  testbedUp,
  waitFor,
} from "../src/testbed/testbed.js";
import { createPods, podName } from "./pods.js";

const PODS = Number(process.env.BENCH_PODS ?? 2000);
const NODES = Number(process.env.BENCH_NODES ?? 100);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const ROUNDS = (process.env.BENCH_ROUNDS ?? "ceiling,kube-scheduler,corral,plugin,gang").split(",");
const STREAMS = Number(process.env.BENCH_STREAMS ?? 10);
const GANG_APPS = Number(process.env.BENCH_GANG_APPS ?? 200);
const GANG_EXECUTORS = Number(process.env.BENCH_GANG_EXECUTORS ?? 9);
const NS = "bench";
const CONF_NS = "corral-bench";

interface Row {
  round: string;
  /** corral-streams: records received by all stream clients per second of the binding window, clients dropped. */
  events?: { perSecond: number; total: number; dropped: number };
  pods: number;
  seconds: number;
  rate: number;
  wallSeconds?: number;
  /** CPU milliseconds per pod over the measured window (see {@link Cpu}). */
  cpu?: Cpu;
  /** kube-apiserver requests per pod over the same window, by verb and resource (see {@link requestsPerPod}). */
  requests?: string;
  /** The gang round only. */
  gang?: {
    placeholdersPerSecond: number;
    gangsPerSecond: number;
    placeholders: number;
    /** Placeholders the watch saw bound (one replaced before its binding went out is deleted unbound). */
    placeholdersBound: number;
    /** Seconds from the first placeholder created to the last one deleted (0: not all deleted within the timeout). */
    cleanSeconds: number;
    /** Seconds from the first placeholder created to the first gang with all its real pods bound. */
    firstGangSeconds: number;
  };
}

/** user+system CPU of a process, milliseconds (/proc/<pid>/stat, clock ticks of 10 ms). */
function cpuMs(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return 0;
  }
}

/**
 * CPU milliseconds of a round's processes: the scheduler process(es), kube-apiserver, etcd, the admission controller,
 * kube-controller-manager.
 */
interface Cpu {
  scheduler: number;
  apiserver: number;
  etcd: number;
  admission: number;
  controllerManager: number;
}

/** Samples the CPU of the test bed's processes, the admission controller and the scheduler pids `scheduler()` names at the time. */
function cpuSampler(tb: Testbed, admissionPid: number | undefined, scheduler: () => number[] = () => []): () => Cpu {
  const pids = testbedPids(tb);
  return () => ({
    scheduler: scheduler().reduce((a, p) => a + cpuMs(p), 0),
    apiserver: cpuMs(pids["kube-apiserver"]),
    etcd: cpuMs(pids.etcd),
    admission: cpuMs(admissionPid),
    controllerManager: cpuMs(pids["kube-controller-manager"]),
  });
}

/** The CPU spent between two samples, per pod. */
const cpuPerPod = (a: Cpu, b: Cpu, pods: number): Cpu =>
  Object.fromEntries(Object.entries(b).map(([k, v]) => [k, (v - a[k as keyof Cpu]) / pods])) as unknown as Cpu;

/** Pids of the test bed's processes (its `pids` file: "<name> <pid>" lines). */
function testbedPids(tb: Testbed): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of readFileSync(join(tb.dir, "pids"), "utf8").split("\n")) {
    const [name, pid] = line.trim().split(" ");
    if (name && pid) out[name] = Number(pid);
  }
  return out;
}

/**
 * kube-apiserver's request counts so far (`apiserver_request_total` of its /metrics, summed over codes and versions),
 * keyed `VERB resource[/subresource]`: two readings around a window give the requests the window cost.
 */
async function apiRequestCounts(kc: k8s.KubeConfig): Promise<Map<string, number>> {
  const o: RequestOptions = {};
  await kc.applyToHTTPSOptions(o);
  const url = new URL("/metrics", kc.getCurrentCluster()!.server);
  const text = await new Promise<string>((resolve, reject) => {
    const req = httpsGet({ ...o, host: url.hostname, port: url.port, path: url.pathname }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => (body += d));
      res.on("end", () => (res.statusCode === 200 ? resolve(body) : reject(new Error(`/metrics: HTTP ${res.statusCode}`))));
    });
    req.on("error", reject);
  });
  const counts = new Map<string, number>();
  for (const m of text.matchAll(/^apiserver_request_total\{([^}]*)\} (\S+)$/gm)) {
    const labels = Object.fromEntries([...m[1]!.matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
    const key = `${labels.verb} ${labels.resource}${labels.subresource ? `/${labels.subresource}` : ""}`;
    counts.set(key, (counts.get(key) ?? 0) + Number(m[2]));
  }
  return counts;
}

/** The requests between two {@link apiRequestCounts} readings per pod, largest first ("POST pods 1.00, …"; ≥ 0.01 only). */
function requestsPerPod(before: Map<string, number>, after: Map<string, number>, pods: number): string {
  return [...after]
    .map(([k, v]) => [k, (v - (before.get(k) ?? 0)) / pods] as const)
    .filter(([, v]) => v >= 0.01)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${v.toFixed(2)}`)
    .join(", ");
}

const say = (s: string) => process.stderr.write(`[bench:e2e] ${s}\n`);

/** Creates the round's BENCH_PODS pods (100m cpu, 128Mi; 20 applications), BENCH_CONCURRENCY calls in flight. */
const createRound = (core: k8s.CoreV1Api, prefix: string) =>
  createPods(core, {
    namespace: NS,
    count: PODS,
    concurrency: CONCURRENCY,
    pod: (i) => ({
      metadata: { name: podName(prefix, i), labels: { "yunikorn.apache.org/app-id": `${prefix}-app-${i % 20}` } },
      spec: {
        containers: [{ name: "c", image: "registry.example.com/batch:1", resources: { requests: { cpu: "100m", memory: "128Mi" } } }],
      },
    }),
  });

/** The gang round's pods: per application a driver carrying the task groups and its executors, all task-group members. */
async function createGangPods(core: k8s.CoreV1Api): Promise<number> {
  const groups = JSON.stringify([
    { name: "driver", minMember: 1, minResource: { cpu: "100m", memory: "128Mi" } },
    { name: "executor", minMember: GANG_EXECUTORS, minResource: { cpu: "100m", memory: "128Mi" } },
  ]);
  const pods: k8s.V1Pod[] = [];
  for (let a = 0; a < GANG_APPS; a++) {
    for (let e = 0; e <= GANG_EXECUTORS; e++) {
      const driver = e === 0;
      pods.push({
        metadata: {
          name: `gang-${String(a).padStart(4, "0")}-${driver ? "driver" : `exec-${e}`}`,
          labels: { "yunikorn.apache.org/app-id": `gang-app-${a}` },
          annotations: {
            "yunikorn.apache.org/task-group-name": driver ? "driver" : "executor",
            ...(driver ? { "yunikorn.apache.org/task-groups": groups } : {}),
          },
        },
        spec: {
          containers: [{ name: "c", image: "registry.example.com/spark:3", resources: { requests: { cpu: "100m", memory: "128Mi" } } }],
        },
      });
    }
  }
  // every driver before any executor, as Spark's driver creates its executors: the first pod the scheduler sees of an
  // application (oldest first, creation times have 1 s resolution) must be the one carrying the task groups
  const t0 = performance.now();
  for (const batch of [
    pods.filter((p) => p.metadata!.name!.endsWith("-driver")),
    pods.filter((p) => !p.metadata!.name!.endsWith("-driver")),
  ]) {
    await new Promise((r) => setTimeout(r, 1000)); // a later creation second than the batch before
    await createPods(core, { namespace: NS, count: batch.length, concurrency: CONCURRENCY, pod: (i) => batch[i]! });
  }
  return (performance.now() - t0) / 1000;
}

/** Times (performance.now(), ms) at which the watch saw each placeholder created, bound, deleted, and each real pod bound. */
interface GangPhases {
  created: number[];
  phBound: number[];
  phDeleted: number[];
  realBound: number[];
}

/** Seconds from `start` at which 10 %, 50 %, 90 % and all of a phase's events were seen. */
function phaseLine(name: string, times: number[], start: number): string {
  const at = (q: number) =>
    times.length ? ((times[Math.min(times.length - 1, Math.ceil(q * times.length) - 1)]! - start) / 1000).toFixed(1) : "—";
  return `${name}: ${times.length} — 10% ${at(0.1)} s, 50% ${at(0.5)} s, 90% ${at(0.9)} s, 100% ${at(1)} s`;
}

/**
 * The gang round's watch: placeholder creations (`tg-` pods added), real pods bound, applications with every real pod
 * bound. Resolves when all real pods are bound.
 */
function watchGangs(
  kc: k8s.KubeConfig,
  timeoutMs: number,
): {
  done: Promise<{ start: number; last: number; placeholders: number; lastPlaceholder: number; gangTimes: number[]; phases: GangPhases }>;
  /** Resolves with the time the last placeholder was deleted (after every real pod is bound), or 0 after `timeoutMs`. */
  clean: Promise<number>;
} {
  const realPods = GANG_APPS * (GANG_EXECUTORS + 1);
  const placeholders = new Set<string>();
  const deleted = new Set<string>();
  const bound = new Set<string>();
  const perApp = new Map<string, number>();
  const gangTimes: number[] = [];
  const phBound = new Set<string>();
  const phases: GangPhases = { created: [], phBound: [], phDeleted: [], realBound: [] };
  let start = 0;
  let lastPlaceholder = 0;
  const watch = new k8s.Watch(kc);
  let req: { abort(): void } | undefined;
  let onClean: (t: number) => void = () => undefined;
  const clean = new Promise<number>((r) => (onClean = r));
  const checkClean = (now: number) => {
    if (bound.size === realPods && deleted.size === placeholders.size) {
      req?.abort();
      onClean(now);
    }
  };
  const done = new Promise<Awaited<ReturnType<typeof watchGangs>["done"]>>((resolve, reject) => {
    const timer = setTimeout(() => {
      req?.abort();
      reject(new Error(`only ${bound.size}/${realPods} real pods bound after ${timeoutMs / 1000} s`));
    }, timeoutMs);
    void watch
      .watch(
        `/api/v1/namespaces/${NS}/pods`,
        { allowWatchBookmarks: false },
        (type: string, pod: k8s.V1Pod) => {
          const name = pod.metadata!.name!;
          const now = performance.now();
          if (name.startsWith("tg-")) {
            if (type === "ADDED" && !placeholders.has(name)) {
              if (placeholders.size === 0) start = now;
              placeholders.add(name);
              lastPlaceholder = now;
              phases.created.push(now);
            }
            if (pod.spec?.nodeName && !phBound.has(name)) {
              phBound.add(name);
              phases.phBound.push(now);
            }
            if (type === "DELETED" && !deleted.has(name)) {
              deleted.add(name);
              phases.phDeleted.push(now);
              checkClean(now);
            }
            return;
          }
          if (!pod.spec?.nodeName || bound.has(name)) return;
          bound.add(name);
          phases.realBound.push(now);
          const app = pod.metadata!.labels?.["yunikorn.apache.org/app-id"] ?? "";
          const n = (perApp.get(app) ?? 0) + 1;
          perApp.set(app, n);
          if (n === GANG_EXECUTORS + 1) gangTimes.push(now);
          if (bound.size === realPods) {
            clearTimeout(timer);
            resolve({ start, last: now, placeholders: placeholders.size, lastPlaceholder, gangTimes, phases });
            setTimeout(() => {
              req?.abort();
              onClean(0);
            }, 120_000).unref();
            checkClean(now);
          }
        },
        (err: unknown) => {
          if ((bound.size < realPods || deleted.size < placeholders.size) && err) say(`watch ended: ${(err as Error).message ?? err}`);
        },
      )
      .then((r: { abort(): void }) => (req = r), reject);
  });
  return { done, clean };
}

/** Watches the namespace's pods: `firstBind` resolves at the first bound pod, `all` with first/last bind times (ms). */
function watchBinds(
  kc: k8s.KubeConfig,
  count: number,
  timeoutMs: number,
): { firstBind: Promise<void>; all: Promise<{ first: number; last: number }> } {
  const seen = new Set<string>();
  let first = 0;
  let last = 0;
  const watch = new k8s.Watch(kc);
  let req: { abort(): void } | undefined;
  let onFirst: () => void = () => undefined;
  const firstBind = new Promise<void>((r) => (onFirst = r));
  const all = new Promise<{ first: number; last: number }>((resolve, reject) => {
    const timer = setTimeout(() => {
      req?.abort();
      reject(new Error(`only ${seen.size}/${count} pods bound after ${timeoutMs / 1000} s`));
    }, timeoutMs);
    void watch
      .watch(
        `/api/v1/namespaces/${NS}/pods`,
        { allowWatchBookmarks: false },
        (_type: string, pod: k8s.V1Pod) => {
          if (!pod.spec?.nodeName || seen.has(pod.metadata!.name!)) return;
          const now = performance.now();
          if (seen.size === 0) {
            first = now;
            onFirst();
          }
          seen.add(pod.metadata!.name!);
          last = now;
          if (seen.size === count) {
            clearTimeout(timer);
            req?.abort();
            resolve({ first, last });
          }
        },
        (err: unknown) => {
          if (seen.size < count && err) say(`watch ended: ${(err as Error).message ?? err}`);
        },
      )
      .then((r: { abort(): void }) => (req = r), reject);
  });
  return { firstBind, all };
}

/**
 * A freshly started control plane for one round (same binaries, empty etcd): no round inherits another's history.
 * Measured without it: four successive corral rounds on one control plane went 640 → 452 pods/s while
 * kube-apiserver's memory grew to 800 MiB.
 */
async function freshControlPlane(): Promise<{
  tb: Testbed;
  admin: k8s.KubeConfig;
  core: k8s.CoreV1Api;
  sink: (name: string) => (l: string) => void;
  /** Process id of the admission controller (its CPU is counted with the API server's: it serves its webhook calls). */
  admissionPid: number | undefined;
  stop(): Promise<void>;
}> {
  const tb: Testbed = await testbedUp((l) => say(l));
  const admin = kubeConfigFor(tb, "admin");
  // kept-alive connections: the API server's ceiling, not the client's TLS handshakes (see makeKeepAliveApiClient)
  const core = makeKeepAliveApiClient(admin, k8s.CoreV1Api);
  await prepareNamespace(admin, CONF_NS, []);
  await prepareNamespace(admin, NS, []);
  // corral runs as the test bed's admin here: it is the scheduler's own user, the only one that may create
  // placeholders (admission) and whose placeholders the scheduler trusts (both read service.schedulerUser)
  await core.createNamespacedConfigMap({
    namespace: CONF_NS,
    body: { metadata: { name: "yunikorn-configs", namespace: CONF_NS }, data: { "service.schedulerUser": "admin" } },
  });
  await createFakeNodes(admin, "bench", NODES, { cpu: "32", memory: "128Gi", pods: "110" });
  const sink = (name: string) => {
    const s = createWriteStream(join(tb.dir, "logs", `${name}.log`));
    return (l: string) => s.write(`${l}\n`);
  };
  const admPort = await freeTcpPort();
  const adm = await startCorral(
    [
      "admission",
      "--host",
      "127.0.0.1",
      "--port",
      String(admPort),
      "--kubeconfig",
      tb.kubeconfig.admin,
      "--webhook-url",
      `https://127.0.0.1:${admPort}`,
    ],
    {
      env: { NAMESPACE: CONF_NS, LOG_LEVEL: "info", ADMISSION_CONTROLLER_BYPASS_NAMESPACES: "^kube-system$" },
      readyMsg: "admission controller serving",
      echo: sink("bench-admission"),
    },
  );
  await waitFor("admission webhook registered", async () => {
    try {
      await admin
        .makeApiClient(k8s.AdmissionregistrationV1Api)
        .readMutatingWebhookConfiguration({ name: "yunikorn-admission-controller-mutations" });
      return true;
    } catch {
      return false;
    }
  });
  await new Promise((r) => setTimeout(r, 1000));
  return {
    tb,
    admin,
    core,
    sink,
    admissionPid: adm.proc.pid,
    stop: async () => {
      await adm.stop();
    },
  };
}

/** A client of `/ws/v1/events/stream` that counts the records it receives (lines, not parsed). */
function streamClient(port: number): Promise<{ records(): number; ended(): boolean; close(): void }> {
  return new Promise((resolve, reject) => {
    const req = get({ host: "127.0.0.1", port, path: "/ws/v1/events/stream" }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`event stream: HTTP ${res.statusCode}`));
      let lines = 0;
      let ended = false;
      res.on("data", (b: Buffer) => {
        for (let i = b.indexOf(10); i >= 0; i = b.indexOf(10, i + 1)) lines++;
      });
      res.on("end", () => (ended = true));
      res.on("error", () => (ended = true));
      // the first line is the instance id
      resolve({ records: () => Math.max(0, lines - 1), ended: () => ended, close: () => req.destroy() });
    });
    req.on("error", reject);
  });
}

async function main(): Promise<void> {
  const rows: Row[] = [];
  let last: { stop(): Promise<void> } | undefined;
  try {
    for (const round of ROUNDS) {
      say(`round ${round}: fresh control plane, ${NODES} nodes, admission controller on`);
      const { tb, admin, core, sink, admissionPid, stop: stopAdmission } = await freshControlPlane();
      last = { stop: stopAdmission };
      say(`round ${round}: ${PODS} pods`);
      if (round === "ceiling") {
        const cpu = cpuSampler(tb, admissionPid);
        const [cpu0, req0] = [cpu(), await apiRequestCounts(admin)];
        const s = await createRound(core, "ceil");
        const [cpu1, req1] = [cpu(), await apiRequestCounts(admin)];
        rows.push({
          round: "API server create ceiling (no scheduler)",
          pods: PODS,
          seconds: s,
          rate: PODS / s,
          cpu: cpuPerPod(cpu0, cpu1, PODS),
          requests: requestsPerPod(req0, req1, PODS),
        });
        await stopAdmission();
        continue;
      }
      if (round === "gang") {
        say(`round gang: ${GANG_APPS} applications × ${GANG_EXECUTORS + 1} pods`);
        await createGangPods(core);
        const gangDone = watchGangs(admin, 900_000);
        const { corral: c } = await startBenchScheduler(tb, "gang", sink);
        const cpuNow = cpuSampler(tb, admissionPid, () => [c.proc.pid!]);
        const cpu0 = cpuNow();
        const req0 = await apiRequestCounts(admin);
        const g = await gangDone.done;
        const cpu1 = cpuNow();
        const req1 = await apiRequestCounts(admin);
        const clean = await gangDone.clean;
        for (const [k, v] of Object.entries(g.phases)) say(`round gang: ${phaseLine(k, v, g.start)}`);
        await c.stop();
        await stopAdmission();
        const real = GANG_APPS * (GANG_EXECUTORS + 1);
        const seconds = (g.last - g.start) / 1000;
        rows.push({
          round: `corral gang (${GANG_APPS} × ${GANG_EXECUTORS + 1} pods, task groups)`,
          pods: real,
          seconds,
          rate: real / seconds,
          cpu: cpuPerPod(cpu0, cpu1, real),
          requests: requestsPerPod(req0, req1, real),
          gang: {
            placeholdersPerSecond: g.placeholders / ((g.lastPlaceholder - g.start) / 1000 || 1),
            gangsPerSecond: g.gangTimes.length / seconds,
            placeholders: g.placeholders,
            placeholdersBound: g.phases.phBound.length,
            cleanSeconds: clean ? (clean - g.start) / 1000 : 0,
            firstGangSeconds: g.gangTimes.length > 0 ? (g.gangTimes[0]! - g.start) / 1000 : 0,
          },
        });
        continue;
      }
      await createRound(core, round.replace(/[^a-z]/g, ""));
      const done = watchBinds(admin, PODS, 600_000);
      const t0 = performance.now();
      let schedPids: number[] = [];
      const sample = cpuSampler(tb, admissionPid, () => schedPids);
      let cpu0 = sample();
      let stop: () => Promise<unknown>;
      let clients: Awaited<ReturnType<typeof streamClient>>[] = [];
      if (round === "kube-scheduler") {
        const ks = await startKubeScheduler(
          tb,
          "bench-kube-scheduler",
          kubeSchedulerConfig({ kubeconfig: tb.kubeconfig.scheduler, schedulerName: "yunikorn", healthzPort: await freeTcpPort() }),
        );
        schedPids = [ks.proc.pid!];
        stop = ks.stop;
      } else {
        const { corral: c, port } = await startBenchScheduler(tb, round, sink);
        let ks: KubeSchedulerProcess | undefined;
        if (round === "plugin") {
          ks = await startKubeScheduler(
            tb,
            "bench-kube-scheduler-plugin",
            kubeSchedulerConfig({
              kubeconfig: tb.kubeconfig.scheduler,
              schedulerName: "yunikorn",
              healthzPort: await freeTcpPort(),
              extenderUrl: `http://127.0.0.1:${port}/scheduler`,
              qps: 500,
            }),
          );
        }
        schedPids = [c.proc.pid!, ...(ks ? [ks.proc.pid!] : [])];
        stop = async () => {
          await ks?.stop();
          await c.stop();
        };
        if (round === "corral-streams") clients = await Promise.all(Array.from({ length: STREAMS }, () => streamClient(port)));
      }
      // CPU and API requests from the first bind (sampled when the first pod is seen bound) to the last
      let req0 = new Map<string, number>();
      const firstSeen = done.firstBind.then(async () => {
        cpu0 = sample();
        req0 = await apiRequestCounts(admin);
      });
      const { first, last: lastBind } = await done.all;
      await firstSeen;
      const cpu1 = sample();
      const req1 = await apiRequestCounts(admin);
      await new Promise((r) => setTimeout(r, 500)); // the last batch of records reaches the clients
      const delivered = clients.reduce((n, c) => n + c.records(), 0);
      const dropped = clients.filter((c) => c.ended()).length;
      for (const c of clients) c.close();
      await stop();
      await stopAdmission();
      const seconds = (lastBind - first) / 1000;
      rows.push({
        round:
          round === "kube-scheduler"
            ? "kube-scheduler v1.20.2 (defaults)"
            : round === "corral"
              ? "corral standalone"
              : round === "corral-streams"
                ? `corral standalone + ${STREAMS} event streams`
                : "corral plugin mode (kube-scheduler + extender)",
        pods: PODS,
        seconds,
        rate: (PODS - 1) / seconds,
        wallSeconds: (lastBind - t0) / 1000,
        ...(round === "corral-streams" ? { events: { perSecond: delivered / seconds, total: delivered, dropped } } : {}),
        cpu: cpuPerPod(cpu0, cpu1, PODS),
        requests: requestsPerPod(req0, req1, PODS),
      });
    }
  } finally {
    await last?.stop();
    await testbedDown((l) => say(l));
  }

  const by = (prefix: string) => rows.find((r) => r.round.startsWith(prefix));
  const ceiling = by("API server");
  const ks = by("kube-scheduler");
  const lines = [
    `bench:e2e — ${PODS} pods, ${NODES} fake nodes, admission controller on, kube-apiserver v1.20.2 on 127.0.0.1`,
    "",
    tableRow([
      "round",
      "pods/s",
      "seconds (first→last)",
      "wall seconds (start→last bind)",
      "vs kube-scheduler",
      "vs create ceiling",
      "CPU ms/pod: scheduler, apiserver, etcd, admission, controller-manager",
    ]),
    "|---|---|---|---|---|---|---|",
    ...rows.map((r) =>
      tableRow([
        r.round,
        r.rate.toFixed(0),
        r.seconds.toFixed(2),
        r.wallSeconds?.toFixed(2) ?? "—",
        ks && r !== ceiling ? `${(r.rate / ks.rate).toFixed(1)}×` : "—",
        ceiling ? `${(r.rate / ceiling.rate).toFixed(2)}×` : "—",
        r.cpu
          ? [r.cpu.scheduler, r.cpu.apiserver, r.cpu.etcd, r.cpu.admission, r.cpu.controllerManager].map((x) => x.toFixed(2)).join(", ")
          : "—",
      ]),
    ),
    "",
    "Targets: corral standalone ≥ 10× kube-scheduler and ≥ 0.7× the create ceiling.",
    "",
    "kube-apiserver requests per pod over each round's window:",
    ...rows.filter((r) => r.requests).map((r) => `- ${r.round}: ${r.requests}`),
    ...gangLines(rows),
  ];
  const plain = rows.filter((r) => r.round === "corral standalone");
  const streamed = rows.filter((r) => r.events);
  if (plain.length > 0 && streamed.length > 0) {
    const mean = (rs: Row[]) => rs.reduce((a, r) => a + r.rate, 0) / rs.length;
    const delivered = (r: Row) =>
      `${r.events!.perSecond.toFixed(0)} records/s delivered (${r.events!.total} records, ${r.events!.dropped} clients dropped)`;
    lines.push(
      "",
      `Event streams: ${streamed.map(delivered).join("; ")}; ` +
        `pods/s with ${STREAMS} streams / without: ${(mean(streamed) / mean(plain)).toFixed(2)}× (target ≥ 0.9×).`,
    );
  }
  process.stdout.write(`${lines.join("\n")}\n`);
  await mkdir(join(PROJECT_ROOT, ".corral", "reports"), { recursive: true });
  await writeFile(join(PROJECT_ROOT, ".corral", "reports", "bench-e2e.json"), JSON.stringify({ pods: PODS, nodes: NODES, rows }, null, 2));
}

/** Starts `corral scheduler` for a bench round (plugin mode for `plugin`) on a free port, as the test bed's admin. */
async function startBenchScheduler(
  tb: Testbed,
  round: string,
  sink: (name: string) => (l: string) => void,
): Promise<{ corral: CorralProcess; port: number }> {
  const port = await freeTcpPort();
  const corral = await startCorral(
    [
      "scheduler",
      "--host",
      "127.0.0.1",
      "--port",
      String(port),
      "--kubeconfig",
      tb.kubeconfig.admin,
      "--namespace",
      CONF_NS,
      ...(round === "plugin" ? ["--mode", "plugin"] : []),
      ...(process.env.BENCH_CORRAL_ARGS ?? "").split(" ").filter(Boolean),
    ],
    {
      env: { LOG_LEVEL: "info" },
      readyMsg: "scheduler REST API serving",
      echo: sink(`bench-corral-${round}`),
      nodeArgs: (process.env.BENCH_NODE_ARGS ?? "").split(" ").filter(Boolean),
    },
  );
  return { corral, port };
}

/** One Markdown table row of the cells. */
const tableRow = (cells: string[]): string => `| ${cells.join(" | ")} |`;

/**
 * The gang rounds' own table: placeholders created/s, gangs fully running/s, real pods/s vs a plain corral round of
 * the same run — the one just before it (rounds interleaved: corral,gang,corral,gang), else the first — and, with
 * several gang rounds, the median of their ratios.
 */
function gangLines(rows: Row[]): string[] {
  const gangs = rows.filter((r) => r.gang);
  if (gangs.length === 0) return [];
  const isPlain = (r: Row) => r.round === "corral standalone";
  const plainFor = (g: Row) => rows.slice(0, rows.indexOf(g)).findLast(isPlain) ?? rows.find(isPlain);
  const ratios = gangs.flatMap((g) => {
    const p = plainFor(g);
    return p ? [g.rate / p.rate] : [];
  });
  const sorted = [...ratios].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return [
    "",
    tableRow([
      "gang round",
      "placeholders created",
      "placeholders bound",
      "placeholders created/s",
      "gangs fully running/s",
      "first gang running (s)",
      "real pods/s",
      "vs plain corral pods/s",
      "seconds to last real pod bound",
      "seconds to last placeholder deleted",
    ]),
    "|---|---|---|---|---|---|---|---|---|---|",
    ...gangs.map((g) => {
      const p = plainFor(g);
      return tableRow([
        g.round,
        String(g.gang!.placeholders),
        String(g.gang!.placeholdersBound),
        g.gang!.placeholdersPerSecond.toFixed(0),
        g.gang!.gangsPerSecond.toFixed(1),
        g.gang!.firstGangSeconds.toFixed(1),
        g.rate.toFixed(0),
        p ? `${(g.rate / p.rate).toFixed(2)}× (of ${p.rate.toFixed(0)})` : "—",
        g.seconds.toFixed(1),
        g.gang!.cleanSeconds ? g.gang!.cleanSeconds.toFixed(1) : "—",
      ]);
    }),
    "",
    `Target: gang round ≥ 0.4× the plain corral round's pods/s${ratios.length > 1 ? `; median of ${ratios.length}: ` : ""}` +
      `${ratios.length > 1 ? `${median!.toFixed(2)}×` : ""}.`,
  ];
}

main().catch((err: Error) => {
  say(`failed: ${err.stack ?? err.message}`);
  process.exit(1);
});
