/**
 * Shared steps of the e2e tests: corral admission processes on the test bed, registering their own webhooks in url
 * mode; a TCP round-robin in front of several replicas plays the part of a Service; ServiceAccount kubeconfigs and
 * the audit-log check that a deploy/ RBAC is what a process uses.
 */
import { execFile } from "node:child_process";
import { createWriteStream } from "node:fs";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { connect, createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { pino } from "pino";
import { inject } from "vitest";
import { k8s } from "../../src/kube/client.js";
import {
  type CorralProcess,
  type KubeSchedulerProcess,
  type Testbed,
  freeTcpPort,
  kubeConfigFor,
  kubeSchedulerConfig,
  readTestbedEnv,
  startCorral,
  startKubeScheduler,
  waitFor,
} from "../../src/testbed/testbed.js";

export const quiet = pino({ level: "silent" });

export async function testbed(): Promise<Testbed> {
  return readTestbedEnv(inject("testbedEnv"));
}

let nextPort = 19100 + Math.floor(Math.random() * 400) * 2;
export const freePort = () => nextPort++;

/**
 * Starts `corral admission` in cluster mode (CAs in the Secret of `namespace`, self-registration with
 * `clientConfig.url`).
 * @param url the URL to register (default: this process's own port)
 */
export async function startAdmission(
  tb: Testbed,
  namespace: string,
  opts: { env?: Record<string, string>; args?: string[]; url?: string; port?: number; kubeconfig?: string; nodeArgs?: string[] } = {},
): Promise<{ corral: CorralProcess; port: number }> {
  const port = opts.port ?? freePort();
  const corral = await startCorral(
    [
      "admission",
      "--host",
      "127.0.0.1",
      "--port",
      String(port),
      "--kubeconfig",
      opts.kubeconfig ?? tb.kubeconfig.admin,
      "--webhook-url",
      opts.url ?? `https://127.0.0.1:${port}`,
      "--ca-propagation-seconds",
      "0.5",
      ...(opts.args ?? []),
    ],
    { env: { NAMESPACE: namespace, LOG_LEVEL: "debug", ...opts.env }, readyMsg: "admission controller serving", nodeArgs: opts.nodeArgs },
  );
  return { corral, port };
}

/**
 * Starts `corral scheduler` on 127.0.0.1, reading its queues from `namespace`'s `yunikorn-configs` ConfigMap,
 * resyncing every 5 s, with its log in the test bed's logs/ (`corral-scheduler-<name>-<port>.log`).
 * @param o.kubeconfig the identity it runs under (default: the test bed's admin)
 * @param o.port the port to serve on (default: a free one)
 * @param o.args further command-line arguments (after the common ones)
 * @param o.readyMsg the log message that says it is ready (default "scheduling"; a standby leader-election replica
 *   only reaches "scheduler REST API serving")
 * @param o.logLevel LOG_LEVEL (default "debug")
 */
export async function startScheduler(
  tb: Testbed,
  o: { namespace: string; name: string; kubeconfig?: string; port?: number; args?: string[]; readyMsg?: string; logLevel?: string },
): Promise<{ corral: CorralProcess; port: number }> {
  const port = o.port ?? freePort();
  const out = createWriteStream(join(tb.dir, "logs", `corral-scheduler-${o.name}-${port}.log`));
  const corral = await startCorral(
    [
      "scheduler",
      "--host",
      "127.0.0.1",
      "--port",
      String(port),
      "--kubeconfig",
      o.kubeconfig ?? tb.kubeconfig.admin,
      "--namespace",
      o.namespace,
      "--resync-seconds",
      "5",
      ...(o.args ?? []),
    ],
    { env: { LOG_LEVEL: o.logLevel ?? "debug" }, readyMsg: o.readyMsg ?? "scheduling", echo: (l) => out.write(`${l}\n`) },
  );
  return { corral, port };
}

/**
 * Creates, or replaces, the `yunikorn-configs` ConfigMap of `namespace` with `queues.yaml` and the further keys of
 * `extra` (e.g. `service.schedulerUser`).
 */
export async function applyQueuesConfig(
  tb: Testbed,
  namespace: string,
  queuesYaml: string,
  extra: Record<string, string> = {},
): Promise<void> {
  const core = kubeConfigFor(tb, "admin").makeApiClient(k8s.CoreV1Api);
  const body = { metadata: { name: "yunikorn-configs", namespace }, data: { "queues.yaml": queuesYaml, ...extra } };
  await core
    .createNamespacedConfigMap({ namespace, body })
    .catch(() => core.replaceNamespacedConfigMap({ name: "yunikorn-configs", namespace, body }));
}

/** Force-deletes every pod outside kube-system (a file's clean start: pods on fake nodes have no kubelet). */
export async function deleteAllPods(tb: Testbed): Promise<void> {
  const core = kubeConfigFor(tb, "admin").makeApiClient(k8s.CoreV1Api);
  const all = await core.listPodForAllNamespaces();
  await Promise.all(
    all.items
      .filter((p) => p.metadata?.namespace !== "kube-system")
      .map((p) =>
        core
          .deleteNamespacedPod({ name: p.metadata!.name!, namespace: p.metadata!.namespace!, gracePeriodSeconds: 0 })
          .catch(() => undefined),
      ),
  );
}

/** The pods of `namespace` whose name starts with `prefix` (read as the test bed's admin). */
export async function podsByPrefix(tb: Testbed, namespace: string, prefix: string): Promise<k8s.V1Pod[]> {
  const core = kubeConfigFor(tb, "admin").makeApiClient(k8s.CoreV1Api);
  return (await core.listNamespacedPod({ namespace })).items.filter((p) => p.metadata!.name!.startsWith(prefix));
}

/**
 * Force-deletes every pod of `namespace` (no kubelet: graceful deletion of a bound pod would never finish) and waits
 * until none is left.
 */
export async function clearPods(tb: Testbed, namespace: string): Promise<void> {
  const core = kubeConfigFor(tb, "admin").makeApiClient(k8s.CoreV1Api);
  const list = async () => (await core.listNamespacedPod({ namespace })).items;
  await Promise.all(
    (await list()).map((p) =>
      core.deleteNamespacedPod({ name: p.metadata!.name!, namespace, gracePeriodSeconds: 0 }).catch(() => undefined),
    ),
  );
  await waitFor(`pods of ${namespace} gone`, async () => (await list()).length === 0);
}

/**
 * The kubelet's part on fake nodes, for the pods of `namespace`: a pod being deleted (evicted) finishes terminating
 * at once — checked every `everyMs` ms (default 200) until the returned function is called.
 */
export function finishTerminations(tb: Testbed, namespace: string, everyMs = 200): () => void {
  const core = kubeConfigFor(tb, "admin").makeApiClient(k8s.CoreV1Api);
  const t = setInterval(() => {
    void core
      .listNamespacedPod({ namespace })
      .then((l) => terminate(core, namespace, l.items))
      .catch(() => undefined);
  }, everyMs);
  return () => clearInterval(t);
}

/** Finishes the termination of those of `pods` (of `namespace`) being deleted, as a kubelet would. */
export async function terminate(core: k8s.CoreV1Api, namespace: string, pods: readonly k8s.V1Pod[]): Promise<void> {
  await Promise.all(
    pods
      .filter((x) => x.metadata?.deletionTimestamp)
      .map((x) => core.deleteNamespacedPod({ name: x.metadata!.name!, namespace, gracePeriodSeconds: 0 }).catch(() => undefined)),
  );
}

/**
 * Queues a and b, each guaranteed 4 cpu with `preemption.delay: 1s`, under `provided` placement without create: the
 * preemption scenarios (one queue fills the cluster, the other asks for its guarantee back).
 */
export const GUARANTEED_QUEUES = `partitions:
  - name: default
    placementrules:
      - name: provided
        create: false
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: a
            resources: {guaranteed: {vcore: 4}}
            properties: {preemption.delay: 1s}
          - name: b
            resources: {guaranteed: {vcore: 4}}
            properties: {preemption.delay: 1s}
`;

/**
 * A one-container pod of application `app` in `queue` (upstream's labels) requesting `cpu` (default 1) and 256Mi;
 * `schedulerName` only when given (otherwise the admission controller sets it).
 */
export function batchPod(name: string, o: { queue: string; app: string; cpu?: string; schedulerName?: string }): k8s.V1Pod {
  return {
    metadata: { name, labels: { "yunikorn.apache.org/queue": o.queue, "yunikorn.apache.org/app-id": o.app } },
    spec: {
      ...(o.schedulerName ? { schedulerName: o.schedulerName } : {}),
      containers: [{ name: "c", image: "registry.example.com/batch:1", resources: { requests: { cpu: o.cpu ?? "1", memory: "256Mi" } } }],
    },
  };
}

export type TestUser = "admin" | "alice" | "bob" | "frontend";

/** The API server's refusal of `p` as "<code> <message>"; throws when `p` succeeds. */
export async function denial(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    const e = err as { code?: number; body?: string };
    const body = typeof e.body === "string" ? JSON.parse(e.body) : e.body;
    return `${e.code} ${(body as { message?: string })?.message ?? String(err)}`;
  }
  throw new Error("expected the API server to refuse the request");
}

/**
 * Runs kubectl as a test bed user; a failure rejects with an error shaped like a client error (`code`, `body` with
 * the message), so that {@link denial} reads both.
 */
export async function kubectlAs(tb: Testbed, user: TestUser, args: string[], stdin?: string): Promise<{ stdout: string; stderr: string }> {
  const p = promisify(execFile)("kubectl", ["--kubeconfig", tb.kubeconfig[user], ...args], { timeout: 30_000 });
  if (stdin !== undefined) p.child.stdin!.end(stdin);
  try {
    return await p;
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw Object.assign(new Error(e.stderr || e.message), { code: 0, body: JSON.stringify({ message: e.stderr || e.message }) });
  }
}

/** A TCP round-robin over `backends` (TLS passes through), skipping backends that refuse connections. */
export async function roundRobin(port: number, backends: number[]): Promise<Server> {
  let i = 0;
  const server = createServer((client: Socket) => {
    const tryNext = (left: number) => {
      const target = backends[i++ % backends.length]!;
      const upstream = connect(target, "127.0.0.1");
      upstream.once("connect", () => {
        client.pipe(upstream).pipe(client);
      });
      upstream.once("error", () => {
        if (left > 1) tryNext(left - 1);
        else client.destroy();
      });
      client.once("error", () => upstream.destroy());
    };
    tryNext(backends.length);
  });
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", () => r()));
  return server;
}

/** Writes a kubeconfig (token auth) for ServiceAccount `namespace/name` on the test bed, once its token exists. */
export async function serviceAccountKubeconfig(tb: Testbed, namespace: string, name: string): Promise<string> {
  const core = kubeConfigFor(tb, "admin").makeApiClient(k8s.CoreV1Api);
  const secret = await waitFor(
    `token of ${namespace}/${name}`,
    async () => (await core.readNamespacedServiceAccount({ name, namespace })).secrets?.[0]?.name,
  );
  const token = Buffer.from((await core.readNamespacedSecret({ name: secret, namespace })).data!.token!, "base64").toString();
  const file = join(await mkdtemp(join(tmpdir(), "corral-sa-")), "kubeconfig");
  await writeFile(
    file,
    JSON.stringify({
      apiVersion: "v1",
      kind: "Config",
      "current-context": "sa",
      clusters: [{ name: "tb", cluster: { server: tb.server, "certificate-authority": join(tb.dir, "pki", "ca.crt") } }],
      users: [{ name: "sa", user: { token } }],
      contexts: [{ name: "sa", context: { cluster: "tb", user: "sa" } }],
    }),
  );
  return file;
}

interface AuditEvent {
  user?: { username?: string };
  objectRef?: { apiGroup?: string; resource: string; subresource?: string };
  verb: string;
  stage: string;
  responseStatus?: { code?: number };
}

/**
 * What `user` did according to the test bed's audit log (service-account requests only): refused calls as
 * "verb resource" (from ResponseComplete: a refusal is logged before the client reads it), and the calls made as
 * "group/resource[/subresource]/verb" (from RequestReceived: a watch reaches ResponseComplete only when it ends,
 * which the API server may log some time after the process that held it has exited).
 */
export async function auditedCalls(tb: Testbed, user: string): Promise<{ forbidden: string[]; used: Set<string> }> {
  const events = (await readFile(join(tb.dir, "logs", "audit.log"), "utf8"))
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as AuditEvent)
    .filter((e) => e.user?.username === user && e.objectRef);
  return {
    forbidden: events
      .filter((e) => e.stage === "ResponseComplete" && e.responseStatus?.code === 403)
      .map((e) => `${e.verb} ${e.objectRef!.resource}`),
    used: new Set(
      events
        .filter((e) => e.stage === "RequestReceived")
        .map(
          (e) =>
            `${e.objectRef!.apiGroup ?? ""}/${e.objectRef!.resource}` +
            `${e.objectRef!.subresource ? `/${e.objectRef!.subresource}` : ""}/${e.verb}`,
        ),
    ),
  };
}

/** The "group/resource/verb" triples granted by the Roles and ClusterRoles among `objects`. */
export function grantedRules(
  objects: readonly { kind: string; rules?: { apiGroups: string[]; resources: string[]; verbs: string[] }[] }[],
): Set<string> {
  const granted = new Set<string>();
  for (const o of objects) {
    if (o.kind !== "ClusterRole" && o.kind !== "Role") continue;
    for (const rule of o.rules ?? [])
      for (const g of rule.apiGroups) for (const r of rule.resources) for (const v of rule.verbs) granted.add(`${g}/${r}/${v}`);
  }
  return granted;
}

/**
 * Renders `deploy/<dir>` with kubectl kustomize for the test bed: in `namespace` when given, and with the
 * deploy/components/kubernetes-1.20 component when discovery says the cluster serves PodDisruptionBudgets as
 * policy/v1beta1 only (as 1.20 does) — the documented way to install on 1.20, chosen as corral chooses versions.
 */
export async function renderDeploy(tb: Testbed, dir: string, namespace?: string): Promise<string> {
  const { execFile } = await import("node:child_process");
  const { promisify } = await import("node:util");
  const { relative } = await import("node:path");
  const { PROJECT_ROOT } = await import("../../src/testbed/testbed.js");
  const { discoverApiVersions } = await import("../../src/kube/discovery.js");
  const versions = await discoverApiVersions(kubeConfigFor(tb, "admin"));
  const overlay = await mkdtemp(join(tmpdir(), "corral-kustomize-"));
  const rel = (p: string) => relative(overlay, join(PROJECT_ROOT, "deploy", p));
  await writeFile(
    join(overlay, "kustomization.yaml"),
    [
      ...(namespace ? [`namespace: ${namespace}`] : []),
      "resources:",
      `  - ${rel(dir)}`,
      ...(versions.podDisruptionBudget === "policy/v1beta1" ? ["components:", `  - ${rel("components/kubernetes-1.20")}`] : []),
    ].join("\n") + "\n",
  );
  const { stdout } = await promisify(execFile)("kubectl", ["kustomize", overlay], { maxBuffer: 10 << 20 });
  return stdout;
}

/** Namespaces the test bed itself has; {@link resetCluster} leaves them (and their objects other than pods) alone. */
const SYSTEM_NAMESPACES = new Set(["default", "kube-system", "kube-public", "kube-node-lease"]);

/**
 * Returns the shared control plane to the state the test bed starts in, for the next test file: deletes every
 * namespace but the test bed's own (workload controllers first so that nothing recreates pods, then every pod
 * force-deleted, since pods bound to fake nodes have no kubelet to finish a graceful deletion), every pod left in
 * `default`, every fake node, every webhook configuration and every PriorityClass but the built-in `system-*` ones;
 * waits until the namespaces are gone (a namespace still terminating would refuse the next file's objects).
 * Call it from `afterAll` of every file that creates objects, after stopping the file's corral processes.
 * @throws Error when a namespace is still there after `timeoutMs` milliseconds
 */
export async function resetCluster(tb: Testbed, timeoutMs = 120_000): Promise<void> {
  const admin = kubeConfigFor(tb, "admin");
  const core = admin.makeApiClient(k8s.CoreV1Api);
  const apps = admin.makeApiClient(k8s.AppsV1Api);
  const batch = admin.makeApiClient(k8s.BatchV1Api);
  const reg = admin.makeApiClient(k8s.AdmissionregistrationV1Api);
  const sched = admin.makeApiClient(k8s.SchedulingV1Api);
  const ignore = () => undefined;
  const namespaces = (await core.listNamespace()).items.map((n) => n.metadata!.name!).filter((n) => !SYSTEM_NAMESPACES.has(n));
  await Promise.all(
    namespaces.map(async (namespace) => {
      await Promise.all([
        apps.deleteCollectionNamespacedDeployment({ namespace }).catch(ignore),
        apps.deleteCollectionNamespacedStatefulSet({ namespace }).catch(ignore),
        apps.deleteCollectionNamespacedDaemonSet({ namespace }).catch(ignore),
        batch.deleteCollectionNamespacedJob({ namespace }).catch(ignore),
      ]);
      await apps.deleteCollectionNamespacedReplicaSet({ namespace }).catch(ignore);
    }),
  );
  const forceDeletePods = async (namespace: string) => {
    const pods = (await core.listNamespacedPod({ namespace })).items;
    await Promise.all(
      pods.map((p) => core.deleteNamespacedPod({ name: p.metadata!.name!, namespace, gracePeriodSeconds: 0 }).catch(ignore)),
    );
  };
  await Promise.all(["default", ...namespaces].map((ns) => forceDeletePods(ns).catch(ignore)));
  await Promise.all(namespaces.map((name) => core.deleteNamespace({ name }).catch(ignore)));
  await Promise.all([
    core.deleteCollectionNode({ labelSelector: "corral.test/fake-node" }).catch(ignore),
    ...(await reg.listMutatingWebhookConfiguration()).items.map((w) =>
      reg.deleteMutatingWebhookConfiguration({ name: w.metadata!.name! }).catch(ignore),
    ),
    ...(await reg.listValidatingWebhookConfiguration()).items.map((w) =>
      reg.deleteValidatingWebhookConfiguration({ name: w.metadata!.name! }).catch(ignore),
    ),
    ...(await sched.listPriorityClass()).items
      .filter((p) => !p.metadata!.name!.startsWith("system-"))
      .map((p) => sched.deletePriorityClass({ name: p.metadata!.name! }).catch(ignore)),
  ]);
  await waitFor(
    "test namespaces deleted",
    async () => {
      const left = (await core.listNamespace()).items.map((n) => n.metadata!.name!).filter((n) => namespaces.includes(n));
      // the namespace controller deletes pods gracefully; without a kubelet only a forced deletion ends them
      await Promise.all(left.map((ns) => forceDeletePods(ns).catch(ignore)));
      return left.length === 0;
    },
    timeoutMs,
    500,
  );
}

/**
 * kube-scheduler v1.20 of the test bed with corral as its extender (plugin mode): profile `yunikorn`, filter and bind
 * verbs at `http://127.0.0.1:<corralPort>/scheduler`.
 * @param o.qps client QPS (burst twice that); default 200, `"default"` for kube-scheduler's own (50/100)
 */
export async function startPluginKubeScheduler(
  tb: Testbed,
  name: string,
  corralPort: number,
  o: { qps?: number | "default" } = {},
): Promise<KubeSchedulerProcess> {
  return startKubeScheduler(
    tb,
    name,
    kubeSchedulerConfig({
      kubeconfig: tb.kubeconfig.scheduler,
      schedulerName: "yunikorn",
      healthzPort: await freeTcpPort(),
      extenderUrl: `http://127.0.0.1:${corralPort}/scheduler`,
      qps: o.qps === "default" ? undefined : (o.qps ?? 200),
    }),
  );
}
