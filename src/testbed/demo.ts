/**
 * The local demo (`npm run demo`): a real kube-apiserver sends pods and workloads submitted by different users through
 * corral's admission webhooks; then corral's scheduler places pods on fake nodes — standalone, then in plugin mode
 * behind kube-scheduler v1.20.2 — with queues, a quota and per-user placement; prints what each object became, then
 * shuts everything down.
 */
import { ANNOTATION_USER_INFO } from "../yunikorn/constants.js";
import { k8s } from "../kube/client.js";
import { discoverApiVersions } from "../kube/discovery.js";
import {
  type CorralProcess,
  type KubeSchedulerProcess,
  type Testbed,
  type TestbedUser,
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
} from "./testbed.js";

const NS = "team-a";
const CORRAL_NS = "corral";
const say = (s: string) => process.stdout.write(`${s}\n`);

interface Row {
  object: string;
  by: string;
  result: string;
  scheduler: string;
  appId: string;
  queue: string;
  identity: string;
}

function describePodLike(
  meta: k8s.V1ObjectMeta | undefined,
  spec: { schedulerName?: string } | undefined,
): Omit<Row, "object" | "by" | "result"> {
  const ui = meta?.annotations?.[ANNOTATION_USER_INFO];
  let identity = "-";
  if (ui) {
    try {
      const v = JSON.parse(ui) as { user?: string; groups?: string[] };
      identity = `${v.user ?? ""} [${(v.groups ?? []).join(",")}]`;
    } catch {
      identity = ui;
    }
  }
  return {
    scheduler: spec?.schedulerName ?? "-",
    appId: meta?.labels?.applicationId ?? "-",
    queue: meta?.labels?.queue ?? "-",
    identity,
  };
}

function errorMessage(err: unknown): string {
  const e = err as { body?: unknown; message?: string };
  const body =
    typeof e.body === "string"
      ? (() => {
          try {
            return JSON.parse(e.body as string);
          } catch {
            return undefined;
          }
        })()
      : e.body;
  return (body as { message?: string })?.message ?? e.message ?? String(err);
}

function printTable(rows: Row[]): void {
  const notes: string[] = [];
  rows = rows.map((r) => {
    if (!r.result.startsWith("DENIED: ")) return r;
    notes.push(r.result.slice("DENIED: ".length));
    return { ...r, result: `DENIED [${notes.length}]` };
  });
  const head: Row = {
    object: "OBJECT",
    by: "SUBMITTED BY",
    result: "RESULT",
    scheduler: "SCHEDULER",
    appId: "APPLICATION ID",
    queue: "QUEUE",
    identity: "USER.INFO (user [groups])",
  };
  const all = [head, ...rows];
  const keys = Object.keys(head) as (keyof Row)[];
  const widths = keys.map((k) => Math.max(...all.map((r) => r[k].length)));
  for (const r of all)
    say(
      keys
        .map((k, i) => r[k].padEnd(widths[i]!))
        .join("  ")
        .trimEnd(),
    );
  notes.forEach((n, i) => say(`[${i + 1}] ${n}`));
}

/** Options of {@link runDemo} (`corral demo`). */
export interface DemoOptions {
  /** Leave the test bed, corral and kube-scheduler running at the end (dashboard open) until SIGINT or SIGTERM. */
  keep?: boolean;
}

/** Resolves on the first SIGINT or SIGTERM (Ctrl-C). */
function untilInterrupted(): Promise<void> {
  return new Promise((resolve) => {
    process.once("SIGINT", () => resolve());
    process.once("SIGTERM", () => resolve());
  });
}

/** Runs the demo; resolves when everything is shut down. */
export async function runDemo(o: DemoOptions = {}): Promise<void> {
  say(
    `corral demo on Node.js ${process.version}: bringing up the local Kubernetes test bed (the first run builds ` +
      `kube-apiserver v1.20.2 from Debian's sources, ~10 min)`,
  );
  let tb: Testbed | undefined;
  let corral: CorralProcess | undefined;
  const processes: { stop(): Promise<unknown> }[] = [];
  try {
    tb = await testbedUp((l) => say(`  ${l}`));
    const admin = kubeConfigFor(tb, "admin");
    await prepareNamespace(admin, CORRAL_NS, []);
    await prepareNamespace(admin, NS, ["alice", "bob", "airflow"]);
    const core = (u: TestbedUser) => kubeConfigFor(tb!, u).makeApiClient(k8s.CoreV1Api);
    await core("admin")
      .createNamespacedConfigMap({
        namespace: CORRAL_NS,
        body: { metadata: { name: "yunikorn-configs" }, data: { "admissionController.accessControl.externalUsers": "^airflow$" } },
      })
      .catch(() => undefined);

    say("starting corral admission (cluster mode, informers on the test bed)");
    const port = 19089;
    corral = await startCorral(
      [
        "admission",
        "--host",
        "127.0.0.1",
        "--port",
        String(port),
        "--kubeconfig",
        tb.kubeconfig.admin,
        "--webhook-url",
        `https://127.0.0.1:${port}`,
      ],
      { env: { NAMESPACE: CORRAL_NS }, readyMsg: "admission controller serving" },
    );
    say(
      `corral generated its CAs in Secret ${CORRAL_NS}/admission-controller-secrets and registered its webhooks: ` +
        `https://127.0.0.1:${port}/mutate and /validate-conf`,
    );

    const rows: Row[] = [];
    const objects = (u: TestbedUser) => k8s.KubernetesObjectApi.makeApiClient(kubeConfigFor(tb!, u));
    const submit = async (
      by: TestbedUser,
      label: string,
      body: k8s.KubernetesObject,
      read: () => Promise<Omit<Row, "object" | "by" | "result">>,
    ) => {
      const who = by === "frontend" ? "airflow (front end)" : by;
      try {
        await objects(by).create(body);
        rows.push({ object: label, by: who, result: "admitted", ...(await read()) });
      } catch (err) {
        rows.push({
          object: label,
          by: who,
          result: `DENIED: ${errorMessage(err)}`,
          scheduler: "-",
          appId: "-",
          queue: "-",
          identity: "-",
        });
      }
    };
    const readPod = (ns: string, name: string) => async () => {
      const p = await core("admin").readNamespacedPod({ namespace: ns, name });
      return describePodLike(p.metadata, p.spec);
    };
    const container = [{ name: "main", image: "registry.example.com/busybox:1.36", command: ["sleep", "3600"] }];

    say("submitting workloads as alice, bob, the airflow front end and admin");
    await submit(
      "alice",
      "Pod team-a/alice-sleep",
      {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "alice-sleep", namespace: NS, labels: { app: "sleep" } },
        spec: { containers: container },
      } as k8s.KubernetesObject,
      readPod(NS, "alice-sleep"),
    );
    await submit(
      "bob",
      "Pod team-a/bob-spark-exec",
      {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "bob-spark-exec", namespace: NS, labels: { "spark-app-selector": "spark-0042", queue: "root.analytics" } },
        spec: { containers: container },
      } as k8s.KubernetesObject,
      readPod(NS, "bob-spark-exec"),
    );
    await submit(
      "alice",
      "Deployment team-a/web (template)",
      {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: "web", namespace: NS },
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: "web" } },
          template: { metadata: { labels: { app: "web" } }, spec: { containers: container } },
        },
      } as k8s.KubernetesObject,
      async () => {
        const d = await kubeConfigFor(tb!, "admin").makeApiClient(k8s.AppsV1Api).readNamespacedDeployment({ namespace: NS, name: "web" });
        return describePodLike(d.spec?.template.metadata, undefined);
      },
    );
    await submit(
      "bob",
      "Job team-a/etl (template)",
      {
        apiVersion: "batch/v1",
        kind: "Job",
        metadata: { name: "etl", namespace: NS },
        spec: { template: { spec: { restartPolicy: "Never", containers: container } } },
      } as k8s.KubernetesObject,
      async () => {
        const j = await kubeConfigFor(tb!, "admin").makeApiClient(k8s.BatchV1Api).readNamespacedJob({ namespace: NS, name: "etl" });
        return describePodLike(j.spec?.template.metadata, undefined);
      },
    );
    // CronJob: batch/v1beta1 on the 1.20 test bed, batch/v1 from 1.21 (discovery says which)
    const cronJobApiVersion = (await discoverApiVersions(admin)).cronJob ?? "batch/v1";
    await submit(
      "alice",
      "CronJob team-a/nightly (template)",
      {
        apiVersion: cronJobApiVersion,
        kind: "CronJob",
        metadata: { name: "nightly", namespace: NS },
        spec: { schedule: "0 3 * * *", jobTemplate: { spec: { template: { spec: { restartPolicy: "Never", containers: container } } } } },
      } as k8s.KubernetesObject,
      async () => {
        const c = (await objects("admin").read({
          apiVersion: cronJobApiVersion,
          kind: "CronJob",
          metadata: { name: "nightly", namespace: NS },
        })) as unknown as {
          spec: { jobTemplate: { spec: { template: { metadata?: k8s.V1ObjectMeta; spec?: { schedulerName?: string } } } } };
        };
        return describePodLike(c.spec.jobTemplate.spec.template.metadata, undefined);
      },
    );
    await submit(
      "frontend",
      "Pod team-a/carol-notebook",
      {
        apiVersion: "v1",
        kind: "Pod",
        metadata: {
          name: "carol-notebook",
          namespace: NS,
          annotations: { [ANNOTATION_USER_INFO]: '{"user":"carol","groups":["data-science"]}' },
        },
        spec: { containers: container },
      } as k8s.KubernetesObject,
      readPod(NS, "carol-notebook"),
    );
    await submit(
      "alice",
      "Pod team-a/pretend-bob",
      {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "pretend-bob", namespace: NS, annotations: { [ANNOTATION_USER_INFO]: '{"user":"bob","groups":["users"]}' } },
        spec: { containers: container },
      } as k8s.KubernetesObject,
      readPod(NS, "pretend-bob"),
    );
    await submit(
      "admin",
      "Pod kube-system/node-agent",
      {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "node-agent", namespace: "kube-system" },
        spec: { containers: container },
      } as k8s.KubernetesObject,
      readPod("kube-system", "node-agent"),
    );

    const podsOf = async (selector: string, n: number) =>
      waitFor(`${n} pods (${selector})`, async () => {
        const l = await core("admin").listNamespacedPod({ namespace: NS, labelSelector: selector });
        return l.items.length >= n ? l.items : undefined;
      });
    for (const p of await podsOf("app=web", 2))
      rows.push({
        object: `Pod team-a/${p.metadata?.name}`,
        by: "replicaset-controller",
        result: "admitted",
        ...describePodLike(p.metadata, p.spec),
      });
    for (const p of await podsOf("job-name=etl", 1))
      rows.push({
        object: `Pod team-a/${p.metadata?.name}`,
        by: "job-controller",
        result: "admitted",
        ...describePodLike(p.metadata, p.spec),
      });

    try {
      await objects("alice").patch(
        {
          apiVersion: "v1",
          kind: "Pod",
          metadata: { name: "alice-sleep", namespace: NS, annotations: { [ANNOTATION_USER_INFO]: '{"user":"bob"}' } },
        },
        undefined,
        undefined,
        undefined,
        undefined,
        k8s.PatchStrategy.MergePatch,
      );
      rows.push({
        object: "Pod team-a/alice-sleep (annotate user.info)",
        by: "alice",
        result: "admitted (unexpected)",
        scheduler: "-",
        appId: "-",
        queue: "-",
        identity: "-",
      });
    } catch (err) {
      rows.push({
        object: "Pod team-a/alice-sleep (annotate user.info)",
        by: "alice",
        result: `DENIED: ${errorMessage(err)}`,
        scheduler: "-",
        appId: "-",
        queue: "-",
        identity: "-",
      });
    }

    say("");
    printTable(rows);
    say("");
    await new Promise((r) => setTimeout(r, 400)); // corral flushes its buffered log every 200 ms
    const admissions = corral.logs.filter((l) => l.msg === "admission").length;
    say(
      `corral answered ${admissions} AdmissionReviews; the pods were created by the controllers on behalf of the users ` +
        `who submitted the workloads.`,
    );
    say("");
    const dashboard = await schedulingDemo(tb, processes);
    if (o.keep) {
      say("");
      say(`everything keeps running. Dashboard: ${dashboard}  (REST API under /ws/v1/ on the same port)`);
      say(`kubectl: KUBECONFIG=${tb.kubeconfig.admin} kubectl get pods -n ${NS}`);
      say("press Ctrl-C to shut down");
      await untilInterrupted();
    }
  } finally {
    say("shutting down");
    for (const p of processes.reverse()) await p.stop();
    await corral?.stop();
    if (tb) await testbedDown((l) => say(`  ${l}`));
  }
}

const QUEUES = `partitions:
  - name: default
    placementrules:
      - name: provided
        create: false
      - name: user
        create: true
        parent: {name: fixed, value: users}
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: analytics
            resources: {max: {vcore: 2, memory: 16Gi}}
          - name: users
            parent: true
`;

interface PlacedRow {
  pod: string;
  user: string;
  queue: string;
  node: string;
}

async function printPlacement(tb: Testbed, restPort: number, names: string[]): Promise<void> {
  const core = kubeConfigFor(tb, "admin").makeApiClient(k8s.CoreV1Api);
  const apps = (await (await fetch(`http://127.0.0.1:${restPort}/ws/v1/partition/default/applications/active`)).json()) as {
    applicationID: string;
    queueName: string;
    user?: string;
  }[];
  const rows: PlacedRow[] = [{ pod: "POD", user: "USER", queue: "QUEUE (scheduler)", node: "NODE / WHY WAITING" }];
  for (const name of names) {
    const p = await core.readNamespacedPod({ namespace: NS, name });
    const appId = p.metadata?.labels?.applicationId ?? "";
    const ui = JSON.parse(p.metadata?.annotations?.[ANNOTATION_USER_INFO] ?? "{}") as { user?: string };
    const cond = p.status?.conditions?.find((c) => c.type === "PodScheduled" && c.status === "False");
    const node =
      p.status?.phase === "Succeeded" ? `${p.spec?.nodeName} (finished)` : (p.spec?.nodeName ?? `pending: ${cond?.message ?? "-"}`);
    rows.push({ pod: name, user: ui.user ?? "-", queue: apps.find((a) => a.applicationID === appId)?.queueName ?? "-", node });
  }
  const keys = Object.keys(rows[0]!) as (keyof PlacedRow)[];
  const widths = keys.map((k) => Math.max(...rows.map((r) => r[k].length)));
  for (const r of rows)
    say(
      keys
        .map((k, i) => r[k].padEnd(widths[i]!))
        .join("  ")
        .trimEnd(),
    );
}

/** Scheduling on fake nodes: standalone, then plugin mode. @returns the dashboard's URL */
async function schedulingDemo(tb: Testbed, processes: { stop(): Promise<unknown> }[]): Promise<string> {
  const admin = kubeConfigFor(tb, "admin");
  const core = (u: TestbedUser) => kubeConfigFor(tb, u).makeApiClient(k8s.CoreV1Api);
  say("scheduling: 3 nodes without a kubelet (4 cpu, 8Gi each); queues in ConfigMap corral/yunikorn-configs:");
  say("  root.analytics (max 2 cpu), root.users.<user> for pods that name no existing queue (placement rules provided, user)");
  await createFakeNodes(admin, "demo-node", 3, { cpu: "4", memory: "8Gi", pods: "110" });
  const cm = await core("admin").readNamespacedConfigMap({ namespace: CORRAL_NS, name: "yunikorn-configs" });
  await core("admin").replaceNamespacedConfigMap({
    namespace: CORRAL_NS,
    name: "yunikorn-configs",
    body: { ...cm, data: { ...cm.data, "queues.yaml": QUEUES } },
  });
  const restPort = 19080;
  let sched = await startCorral(
    ["scheduler", "--host", "127.0.0.1", "--port", String(restPort), "--kubeconfig", tb.kubeconfig.admin, "--namespace", CORRAL_NS],
    { readyMsg: "scheduling" },
  );
  processes.push(sched);
  const dashboard = `http://127.0.0.1:${restPort}/ui/`;
  say(`corral scheduler (standalone) is binding pods; REST API on http://127.0.0.1:${restPort}/ws/v1/, dashboard on ${dashboard}`);
  const pod = (name: string, labels: Record<string, string>, cpu: string): k8s.V1Pod => ({
    metadata: { name, labels },
    spec: { containers: [{ name: "main", image: "registry.example.com/spark:3.5", resources: { requests: { cpu, memory: "1Gi" } } }] },
  });
  for (const i of [1, 2, 3])
    await core("alice").createNamespacedPod({
      namespace: NS,
      body: pod(`spark-exec-${i}`, { "spark-app-selector": "spark-0100", queue: "root.analytics" }, "1"),
    });
  for (const i of [1, 2])
    await core("bob").createNamespacedPod({ namespace: NS, body: pod(`bob-train-${i}`, { applicationId: "bob-train" }, "1") });
  const names = ["spark-exec-1", "spark-exec-2", "spark-exec-3", "bob-train-1", "bob-train-2"];
  const isBound = async (n: string) => Boolean((await core("admin").readNamespacedPod({ namespace: NS, name: n })).spec?.nodeName);
  await waitFor("4 pods bound", async () => (await Promise.all(names.map(isBound))).filter(Boolean).length === 4);
  await waitFor("the held pod's condition", async () =>
    (await core("admin").readNamespacedPod({ namespace: NS, name: "spark-exec-3" })).status?.conditions?.some(
      (c) => c.reason === "SchedulingSkipped",
    ),
  );
  say("");
  await printPlacement(tb, restPort, names);
  say("");
  say("spark-exec-1 finishes (marked Succeeded: there is no kubelet); the held executor fits root.analytics now");
  await core("admin").patchNamespacedPodStatus(
    { namespace: NS, name: "spark-exec-1", body: { status: { phase: "Succeeded" } } },
    k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch),
  );
  await waitFor("spark-exec-3 bound", () => isBound("spark-exec-3"));
  await printPlacement(tb, restPort, names);
  say("");

  say("plugin mode: corral stops binding; kube-scheduler v1.20.2 asks corral (extender filter + bind) and keeps its own plugins");
  await sched.stop();
  sched = await startCorral(
    [
      "scheduler",
      "--mode",
      "plugin",
      "--host",
      "127.0.0.1",
      "--port",
      String(restPort),
      "--kubeconfig",
      tb.kubeconfig.admin,
      "--namespace",
      CORRAL_NS,
    ],
    { readyMsg: "scheduling" },
  );
  processes.push(sched);
  const ks: KubeSchedulerProcess = await startKubeScheduler(
    tb,
    "demo-kube-scheduler",
    kubeSchedulerConfig({
      kubeconfig: tb.kubeconfig.scheduler,
      schedulerName: "yunikorn",
      healthzPort: await freeTcpPort(),
      extenderUrl: `http://127.0.0.1:${restPort}/scheduler`,
      qps: 500,
    }),
  );
  processes.push(ks);
  await core("alice").createNamespacedPod({
    namespace: NS,
    body: pod("spark-exec-4", { "spark-app-selector": "spark-0100", queue: "root.analytics" }, "1"),
  });
  await core("bob").createNamespacedPod({ namespace: NS, body: pod("bob-eval", { applicationId: "bob-eval" }, "2") });
  await waitFor("bob-eval bound by kube-scheduler", () => isBound("bob-eval"), 60_000);
  await new Promise((r) => setTimeout(r, 1500));
  await printPlacement(tb, restPort, [...names, "spark-exec-4", "bob-eval"]);
  say("");
  say("spark-exec-4 waits: root.analytics is at its 2 cpu; kube-scheduler's FailedScheduling event carries corral's reason:");
  const ev = (await core("admin").listNamespacedEvent({ namespace: NS })).items
    .filter((e) => e.involvedObject.name === "spark-exec-4")
    .map((e) => `  ${e.reason}: ${e.message}`);
  for (const l of [...new Set(ev)].slice(0, 3)) say(l);
  say(`the dashboard shows the queues and why spark-exec-4 waits, with the numbers: ${dashboard}#/waiting`);
  return dashboard;
}
