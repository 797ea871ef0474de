/**
 * The scheduler on the real control plane: fake Node objects (capacity, no kubelet), pods submitted by the test bed's
 * users through the admission controller, queues from the `yunikorn-configs` ConfigMap (hot-reloaded), bindings and
 * events read back from the API server. Bound pods never run; a case that needs completion marks pods Succeeded through
 * the status subresource.
 */
import { execFile } from "node:child_process";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { promisify } from "node:util";
import { parseAllDocuments } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { k8s } from "../../src/kube/client.js";
import { parseK8sQuantity } from "../../src/scheduler/shim/pod-resources.js";
import {
  type CorralProcess,
  type KubeSchedulerProcess,
  PROJECT_ROOT,
  type Testbed,
  createFakeNodes,
  kubeConfigFor,
  prepareNamespace,
  waitFor,
} from "../../src/testbed/testbed.js";
import {
  applyQueuesConfig,
  auditedCalls,
  clearPods,
  grantedRules,
  resetCluster,
  serviceAccountKubeconfig,
  startAdmission,
  startPluginKubeScheduler,
  startScheduler,
  testbed,
  podsByPrefix,
} from "./harness.js";

const CONF_NS = "corral-sched";
/** Namespace the deploy/scheduler manifests are rendered into for the RBAC check. */
const DEPLOY_NS = "corral-sched-rbac";
const NS = "batch";
const PLAIN_NS = "plain";
const NODES = "e2e-sched";
const NODE_CPU = 4;

let tb: Testbed;
let admin: k8s.KubeConfig;
let adm: { corral: CorralProcess; port: number } | undefined;
let sched: { corral: CorralProcess; port: number } | undefined;
const core = (user: "admin" | "alice" | "bob" = "admin") => kubeConfigFor(tb, user).makeApiClient(k8s.CoreV1Api);

/** The test's queues; `fairMaxVcore` small blocks root.fair (its children then have no guarantees, which must fit). */
const QUEUES = (fairMaxVcore: string, guaranteed = true) => `partitions:
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
          - name: capped
            resources: {max: {vcore: 2, memory: 8Gi}}
          - name: fair
            resources: {max: {vcore: ${fairMaxVcore}}}
            queues:
              - name: a
${guaranteed ? "                resources: {guaranteed: {vcore: 4}}" : ""}
              - name: b
${guaranteed ? "                resources: {guaranteed: {vcore: 4}}" : ""}
          - name: limited
            limits:
              - limit: alice is capped
                users: [alice]
                maxresources: {vcore: 1}
          - name: big
          - name: users
            parent: true
`;

const setQueues = (yaml: string, namespace = CONF_NS) => applyQueuesConfig(tb, namespace, yaml);

function pod(name: string, o: { queue?: string; app?: string; cpu?: string } = {}): k8s.V1Pod {
  const labels: Record<string, string> = {};
  if (o.queue) labels["yunikorn.apache.org/queue"] = o.queue;
  if (o.app) labels["yunikorn.apache.org/app-id"] = o.app;
  return {
    metadata: { name, labels },
    spec: {
      containers: [{ name: "c", image: "registry.example.com/batch:1", resources: { requests: { cpu: o.cpu ?? "1", memory: "256Mi" } } }],
    },
  };
}

/** The pod as the admission controller would route it (for cases that run without it). */
const withSched = (p: k8s.V1Pod): k8s.V1Pod => ({ ...p, spec: { ...p.spec!, schedulerName: "yunikorn" } });

async function create(user: "admin" | "alice" | "bob", pods: k8s.V1Pod[], ns = NS): Promise<void> {
  for (const p of pods) await core(user).createNamespacedPod({ namespace: ns, body: p });
}

const pods = (prefix: string, ns = NS) => podsByPrefix(tb, ns, prefix);
const bound = (ps: k8s.V1Pod[]) => ps.filter((p) => p.spec?.nodeName);

async function succeed(name: string, ns = NS): Promise<void> {
  await core().patchNamespacedPodStatus(
    { name, namespace: ns, body: { status: { phase: "Succeeded" } } },
    k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch),
  );
}

const clear = (ns: string) => clearPods(tb, ns);

async function events(ns: string, name: string): Promise<k8s.CoreV1Event[]> {
  return (await core().listNamespacedEvent({ namespace: ns })).items.filter((e) => e.involvedObject.name === name);
}

async function rest<T>(port: number, path: string): Promise<T> {
  const r = await fetch(`http://127.0.0.1:${port}${path}`, { headers: { accept: "application/json" } });
  return (await r.json()) as T;
}

/** cpu requested per node by the bound pods of `ns` (millicores). */
async function cpuPerNode(ns: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const p of bound((await core().listNamespacedPod({ namespace: ns })).items)) {
    if (p.status?.phase === "Succeeded" || p.status?.phase === "Failed") continue;
    const c = p.spec!.containers[0]!.resources!.requests!.cpu!;
    out.set(p.spec!.nodeName!, (out.get(p.spec!.nodeName!) ?? 0) + parseK8sQuantity(c, 3));
  }
  return out;
}

/** The file's scheduler; `args` after the common ones, `readyMsg` as {@link startScheduler}. */
const startSched = (args: string[] = [], readyMsg?: string) => startScheduler(tb, { namespace: CONF_NS, name: "sched", args, readyMsg });

beforeAll(async () => {
  tb = await testbed();
  admin = kubeConfigFor(tb, "admin");
  // Pods, workloads and nodes left by an earlier test file would otherwise be scheduled onto, or fill, this file's nodes.
  await resetCluster(tb);
  await prepareNamespace(admin, CONF_NS, []);
  await prepareNamespace(admin, NS, ["alice", "bob"]);
  await prepareNamespace(admin, PLAIN_NS, ["alice"]);
  await setQueues(QUEUES("8"));
  await createFakeNodes(admin, NODES, 4, { cpu: String(NODE_CPU), memory: "16Gi", pods: "110" });
  sched = await startSched();
  adm = await startAdm();
}, 300_000);

/** The file's admission controller (it registers its webhooks); its queue validation asks the scheduler of the moment. */
function startAdm(): Promise<{ corral: CorralProcess; port: number }> {
  return startAdmission(tb, CONF_NS, {
    env: {
      ADMISSION_CONTROLLER_DEFAULT_QUEUE: "",
      ADMISSION_CONTROLLER_BYPASS_NAMESPACES: `^kube-system$,^${PLAIN_NS}$`,
      SCHEDULER_SERVICE_ADDRESS: `127.0.0.1:${sched!.port}`,
      // the deployed scheduler of the RBAC test creates placeholders; only it may (service.schedulerUser), and the
      // user.info this controller stamps on them is what makes the scheduler trust them as its own
      ADMISSION_CONTROLLER_SCHEDULER_USER: `system:serviceaccount:${DEPLOY_NS}:corral-scheduler`,
    },
  });
}

afterAll(async () => {
  await sched?.corral.stop();
  await adm?.corral.stop();
  await resetCluster(tb);
});

describe("corral scheduler, standalone, on kube-apiserver v1.20.2", () => {
  it("binds pods through pods/binding, records Scheduled events and keeps node capacity", async () => {
    await create("alice", [pod("s-1", { queue: "root.big" }), pod("s-2", { queue: "root.big" })]);
    const ps = await waitFor("2 pods bound", async () => {
      const b = bound(await pods("s-"));
      return b.length === 2 && b;
    });
    const ev = await waitFor("Scheduled event", async () => (await events(NS, "s-1")).find((e) => e.reason === "Scheduled"));
    expect(ev.message).toBe(`Successfully assigned ${NS}/s-1 to node ${ps.find((p) => p.metadata!.name === "s-1")!.spec!.nodeName}`);
    // identity from the admission controller reached the core
    const apps = await rest<{ applicationID: string; queueName: string; user: string }[]>(
      sched!.port,
      "/ws/v1/partition/default/applications/active",
    );
    expect(apps.find((a) => a.queueName === "root.big")).toBeDefined();
    await clear(NS);
  });

  it("quota held: pods beyond root.capped's max wait with an event naming the queue, and run when others finish", async () => {
    await create(
      "alice",
      [1, 2, 3, 4].map((i) => pod(`cap-${i}`, { queue: "root.capped", app: "capped" })),
    );
    await waitFor("2 bound", async () => bound(await pods("cap-")).length === 2);
    const waiting = (await pods("cap-")).filter((p) => !p.spec?.nodeName);
    expect(waiting).toHaveLength(2);
    const name = waiting[0]!.metadata!.name!;
    const ev = await waitFor("PodUnschedulable event", async () => (await events(NS, name)).find((e) => e.reason === "PodUnschedulable"));
    expect(ev.message).toContain("queue root.capped maximum");
    const cond = await waitFor("PodScheduled condition", async () =>
      (await core().readNamespacedPod({ name, namespace: NS })).status?.conditions?.find((c) => c.type === "PodScheduled"),
    );
    expect(cond).toMatchObject({ status: "False", reason: "SchedulingSkipped" });
    expect(cond.message).toContain("root.capped");
    // still held a while later
    await new Promise((r) => setTimeout(r, 1000));
    expect(bound(await pods("cap-"))).toHaveLength(2);
    const done = bound(await pods("cap-"))[0]!.metadata!.name!;
    await succeed(done);
    await waitFor(
      "a held pod bound after one finished",
      async () => bound(await pods("cap-")).filter((p) => p.metadata!.name !== done).length === 2,
    );
    await clear(NS);
  });

  it("fairness: two queues with equal guarantees share a freed parent quota evenly (hot-reloaded config)", async () => {
    const applied = () => sched!.corral.logs.filter((l) => String(l.msg).startsWith("queue configuration applied")).length;
    let before = applied();
    await setQueues(QUEUES("100m", false));
    await waitFor("config with root.fair max 100m applied", async () => applied() > before);
    await create(
      "alice",
      [0, 1, 2, 3, 4, 5, 6, 7].map((i) => pod(`fa-${i}`, { queue: "root.fair.a", app: "fair-a" })),
    );
    await create(
      "bob",
      [0, 1, 2, 3, 4, 5, 6, 7].map((i) => pod(`fb-${i}`, { queue: "root.fair.b", app: "fair-b" })),
    );
    await waitFor("all 16 held", async () => {
      const ps = [...(await pods("fa-")), ...(await pods("fb-"))];
      return ps.filter((p) => p.status?.conditions?.some((c) => c.reason === "SchedulingSkipped")).length === 16;
    });
    expect(bound([...(await pods("fa-")), ...(await pods("fb-"))])).toHaveLength(0);
    before = applied();
    await setQueues(QUEUES("8"));
    await waitFor("config with root.fair max 8 applied", async () => applied() > before);
    await waitFor("8 bound", async () => bound([...(await pods("fa-")), ...(await pods("fb-"))]).length === 8);
    await new Promise((r) => setTimeout(r, 500));
    const a = bound(await pods("fa-")).length;
    const b = bound(await pods("fb-")).length;
    expect([a, b]).toEqual([4, 4]);
    await clear(NS);
  });

  it("user limit: alice is capped at 1 vcore in root.limited, bob is not (identities from the admission controller)", async () => {
    await create(
      "alice",
      [0, 1, 2].map((i) => pod(`la-${i}`, { queue: "root.limited", app: "lim-alice" })),
    );
    await create(
      "bob",
      [0, 1, 2].map((i) => pod(`lb-${i}`, { queue: "root.limited", app: "lim-bob" })),
    );
    await waitFor("bob's 3 bound", async () => bound(await pods("lb-")).length === 3);
    await waitFor("alice's 1 bound", async () => bound(await pods("la-")).length === 1);
    const held = (await pods("la-")).find((p) => !p.spec?.nodeName)!.metadata!.name!;
    const ev = await waitFor("held event", async () => (await events(NS, held)).find((e) => e.reason === "PodUnschedulable"));
    expect(ev.message).toContain("user alice");
    expect(bound(await pods("la-"))).toHaveLength(1);
    await clear(NS);
  });

  it("placement by user: pods without a queue land in root.users.<user>", async () => {
    await create("alice", [pod("pa-0", { app: "place-alice" })]);
    await create("bob", [pod("pb-0", { app: "place-bob" })]);
    await waitFor("both bound", async () => bound([...(await pods("pa-")), ...(await pods("pb-"))]).length === 2);
    const apps = await rest<{ applicationID: string; queueName: string }[]>(sched!.port, "/ws/v1/partition/default/applications/active");
    expect(apps.find((a) => a.applicationID === "place-alice")?.queueName).toBe("root.users.alice");
    expect(apps.find((a) => a.applicationID === "place-bob")?.queueName).toBe("root.users.bob");
    await clear(NS);
  });

  it("node selector and taints: the core places pods only where kube-scheduler's rules would", async () => {
    const merge = k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch);
    await core().patchNode({ name: `${NODES}-1`, body: { metadata: { labels: { disk: "ssd" } } } }, merge);
    await core().patchNode(
      { name: `${NODES}-2`, body: { spec: { taints: [{ key: "dedicated", value: "gpu", effect: "NoSchedule" }] } } },
      merge,
    );
    try {
      await new Promise((r) => setTimeout(r, 500));
      const ssd = pod("sel-ssd", { queue: "root.big", app: "sel" });
      ssd.spec!.nodeSelector = { disk: "ssd" };
      await create("alice", [ssd, ...Array.from({ length: 8 }, (_, i) => pod(`sel-any-${i}`, { queue: "root.big", app: "sel" }))]);
      await waitFor("9 bound", async () => bound(await pods("sel-")).length === 9);
      const ps = await pods("sel-");
      expect(ps.find((p) => p.metadata!.name === "sel-ssd")!.spec!.nodeName).toBe(`${NODES}-1`);
      for (const p of ps) expect(p.spec!.nodeName).not.toBe(`${NODES}-2`);
    } finally {
      await core().patchNode({ name: `${NODES}-1`, body: { metadata: { labels: { disk: null } } } }, merge);
      await core().patchNode({ name: `${NODES}-2`, body: { spec: { taints: null } } }, merge);
      await clear(NS);
    }
  });

  it("restart mid-run: state rebuilt from bound pods, no node over capacity, no pod bound twice", async () => {
    const n = 24;
    await create(
      "alice",
      Array.from({ length: n }, (_, i) => pod(`r-${String(i).padStart(2, "0")}`, { queue: "root.big", app: "restart" })),
    );
    await waitFor("some bound", async () => bound(await pods("r-")).length >= 4, 30_000, 50);
    await sched!.corral.stop("SIGKILL");
    const before = bound(await pods("r-")).map((p) => `${p.metadata!.name}@${p.spec!.nodeName}`);
    // the recovery log counts every bound pod of the cluster's managed pods; any outside this test are not its own
    const elsewhere = bound((await core().listPodForAllNamespaces()).items).filter(
      (p) =>
        p.metadata!.namespace !== NS &&
        p.spec!.schedulerName === "yunikorn" &&
        p.status?.phase !== "Succeeded" &&
        p.status?.phase !== "Failed",
    ).length;
    sched = await startSched();
    await waitFor("16 bound (cluster full)", async () => bound(await pods("r-")).length === 16, 30_000);
    await new Promise((r) => setTimeout(r, 1500));
    const after = bound(await pods("r-"));
    expect(after).toHaveLength(4 * NODE_CPU);
    // pods bound before the restart kept their node
    for (const b of before) expect(after.map((p) => `${p.metadata!.name}@${p.spec!.nodeName}`)).toContain(b);
    for (const [, cpu] of await cpuPerNode(NS)) expect(cpu).toBeLessThanOrEqual(NODE_CPU * 1000);
    const nodes = await rest<{ nodeID: string; allocated: Record<string, number> }[]>(sched!.port, "/ws/v1/partition/default/nodes");
    const mine = nodes.filter((x) => x.nodeID.startsWith(NODES));
    expect(mine.reduce((s, x) => s + (x.allocated.vcore ?? 0), 0)).toBe(16_000);
    const recovered = sched!.corral.logs.find((l) => l.msg === "state recovered from the cluster")!;
    expect(recovered.Bound).toBe(before.length + elsewhere);
    await clear(NS);
  });

  it("an invalid queue configuration is refused by the scheduler and the running one stays in force", async () => {
    // the admission controller's validating webhook would refuse it first; stop it to reach the scheduler (and start
    // it again at the end: the tests after this one need it, see the RBAC test's gang)
    await adm!.corral.stop();
    adm = undefined;
    await kubeConfigFor(tb, "admin")
      .makeApiClient(k8s.AdmissionregistrationV1Api)
      .deleteValidatingWebhookConfiguration({ name: "yunikorn-admission-controller-validations" })
      .catch(() => undefined);
    await kubeConfigFor(tb, "admin")
      .makeApiClient(k8s.AdmissionregistrationV1Api)
      .deleteMutatingWebhookConfiguration({ name: "yunikorn-admission-controller-mutations" })
      .catch(() => undefined);
    try {
      await setQueues(
        "partitions:\n  - name: default\n    queues:\n      - name: root\n        queues:\n          - name: capped\n" +
          "            resources: {max: {vcore: -1}}\n",
      );
      const line = await sched!.corral.waitForLog((l) => String(l.msg).startsWith("queue configuration rejected"));
      expect(String(line.err)).toMatch(/vcore|negative|invalid/i);
      const ev = await waitFor("ConfigRejected event", async () =>
        (await events(CONF_NS, "yunikorn-configs")).find((e) => e.reason === "ConfigRejected"),
      );
      expect(ev.type).toBe("Warning");
      const cfg = await rest<{ Partitions: { Queues: { Queues?: { Name: string }[] }[] }[] }>(sched!.port, "/ws/v1/config");
      expect(cfg.Partitions[0]!.Queues[0]!.Queues!.map((q) => q.Name)).toContain("limited");
    } finally {
      await setQueues(QUEUES("8"));
      adm = await startAdm();
    }
  });
});

describe("deploy/scheduler", () => {
  it("manifests pass a server-side dry run; the RBAC is what the scheduler uses: no 403, every rule used", async () => {
    const run = promisify(execFile);
    // rendered into a namespace of its own (kustomize overlay), so nothing here touches other tests' namespaces
    const overlay = await mkdtemp(join(tmpdir(), "corral-kustomize-"));
    await writeFile(
      join(overlay, "kustomization.yaml"),
      `namespace: ${DEPLOY_NS}\nresources:\n  - ${relative(overlay, join(PROJECT_ROOT, "deploy", "scheduler"))}\n`,
    );
    const { stdout: rendered } = await run("kubectl", ["kustomize", overlay], { maxBuffer: 10 << 20 });
    const objects = parseAllDocuments(rendered).map(
      (d) =>
        d.toJS() as { kind: string; metadata: { name: string }; rules?: { apiGroups: string[]; resources: string[]; verbs: string[] }[] },
    );
    const kubectl = (args: string[], stdin: string) => {
      const p = run("kubectl", ["--kubeconfig", tb.kubeconfig.admin, ...args], { maxBuffer: 10 << 20 });
      p.child.stdin!.end(stdin);
      return p;
    };
    await prepareNamespace(admin, DEPLOY_NS, []);
    const { stdout } = await kubectl(["apply", "--dry-run=server", "-f", "-"], rendered);
    for (const kind of [
      "serviceaccount",
      "clusterrole",
      "clusterrolebinding",
      "role",
      "rolebinding",
      "service",
      "deployment",
      "networkpolicy",
    ]) {
      expect(stdout).toMatch(new RegExp(`^${kind}[./].*\\(server dry run\\)`, "m"));
    }
    const rbac = objects.filter((o) => ["ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"].includes(o.kind));
    await kubectl(["apply", "-f", "-"], rbac.map((o) => JSON.stringify(o)).join("\n"));
    const kubeconfig = await serviceAccountKubeconfig(tb, DEPLOY_NS, "corral-scheduler");
    await setQueues(QUEUES("8"), DEPLOY_NS);

    await sched!.corral.stop();
    const { corral: sa } = await startScheduler(tb, {
      namespace: DEPLOY_NS,
      name: "rbac",
      kubeconfig,
      args: ["--leader-elect", "--identity", "rbac"],
    });
    try {
      // bindings, a quota hold (status patch + events)
      const held = [1, 2, 3].map((i) => withSched(pod(`rb-${i}`, { queue: "root.capped", app: "rbac" })));
      await create("admin", held);
      await waitFor("2 bound", async () => bound(await pods("rb-")).length === 2);
      await waitFor("held pod's condition", async () =>
        (await pods("rb-")).some((p) => p.status?.conditions?.some((c) => c.reason === "SchedulingSkipped")),
      );
      await waitFor("Scheduled events", async () =>
        (await core().listNamespacedEvent({ namespace: NS })).items.some(
          (e) => e.reason === "Scheduled" && (e.involvedObject.name ?? "").startsWith("rb-"),
        ),
      );
      // a gang of one: its placeholder is created, bound, and deleted when the driver takes its place (pods create/delete).
      // The scheduler takes the placeholder for its own only because the admission controller stamped its account as
      // the placeholder's user.info (service.schedulerUser); without the controller the gang would wait for its
      // placeholder timeout (this failed when an earlier test left the controller stopped).
      expect(adm, "the admission controller runs").toBeDefined();
      const gang = withSched(pod("rb-gang", { queue: "root.big", app: "rbac-gang" }));
      gang.metadata!.annotations = {
        "yunikorn.apache.org/task-groups": JSON.stringify([{ name: "driver", minMember: 1, minResource: { cpu: "1", memory: "256Mi" } }]),
        "yunikorn.apache.org/task-group-name": "driver",
      };
      await create("admin", [gang]);
      await waitFor("gang driver bound, its placeholder gone", async () => {
        const ps = (await core().listNamespacedPod({ namespace: NS })).items;
        return (
          ps.some((p) => p.metadata!.name === "rb-gang" && p.spec?.nodeName) &&
          !ps.some((p) => p.metadata!.name!.startsWith("tg-rbac-gang-"))
        );
      });
    } finally {
      await sa.stop();
      await clear(NS);
      sched = await startSched();
    }
    const { forbidden, used } = await auditedCalls(tb, `system:serviceaccount:${DEPLOY_NS}:corral-scheduler`);
    expect(forbidden).toEqual([]);
    const granted = grantedRules(rbac);
    // pods patch is plugin mode's activation only; pods/eviction (preemption) is used and checked under this account by preemption.test.ts
    expect([...used].sort()).toEqual([...granted].filter((g) => g !== "/pods/patch" && g !== "/pods/eviction/create").sort());
  }, 120_000);
});

describe("leader election", () => {
  it("two replicas: one leader schedules; when it dies the other takes over", async () => {
    await sched!.corral.stop();
    sched = undefined;
    const one = await startSched(["--leader-elect", "--identity", "replica-1"], "scheduler REST API serving");
    await one.corral.waitForLog((l) => l.msg === "scheduling", 30_000);
    const two = await startSched(["--leader-elect", "--identity", "replica-2"], "scheduler REST API serving");
    try {
      await create("admin", [withSched(pod("le-0", { queue: "root.big", app: "le" }))]);
      await waitFor("le-0 bound", async () => bound(await pods("le-")).length === 1);
      await new Promise((r) => setTimeout(r, 2500));
      expect(two.corral.logs.some((l) => l.msg === "scheduling")).toBe(false);
      const lease = await kubeConfigFor(tb, "admin")
        .makeApiClient(k8s.CoordinationV1Api)
        .readNamespacedLease({ name: "corral-scheduler", namespace: CONF_NS });
      expect(lease.spec?.holderIdentity).toBe("replica-1");
      await one.corral.stop("SIGKILL");
      await two.corral.waitForLog((l) => l.msg === "scheduling", 40_000);
      await create("admin", [withSched(pod("le-1", { queue: "root.big", app: "le" }))]);
      await waitFor("le-1 bound by the new leader", async () => bound(await pods("le-")).length === 2);
    } finally {
      await one.corral.stop();
      await two.corral.stop();
      await clear(NS);
    }
  }, 120_000);
});

describe("plugin mode: kube-scheduler v1.20.2 with corral as its extender", () => {
  let ks: KubeSchedulerProcess | undefined;
  afterAll(async () => {
    await ks?.stop();
    await sched?.corral.stop();
  });

  it("managed pods go where the core allocated and wait for quota; a pod without an application id is placed by kube-scheduler alone", async () => {
    sched = await startSched(["--mode", "plugin"]);
    ks = await startPluginKubeScheduler(tb, "kube-scheduler-plugin", sched.port);
    await create(
      "admin",
      [1, 2, 3].map((i) => withSched(pod(`pm-${i}`, { queue: "root.capped", app: "plugin-capped" }))),
    );
    await waitFor("2 bound", async () => bound(await pods("pm-")).length === 2, 30_000);
    await new Promise((r) => setTimeout(r, 1500));
    expect(bound(await pods("pm-"))).toHaveLength(2);
    // the core's allocation is the node kube-scheduler bound to
    const apps = await rest<{ applicationID: string; allocations?: { allocationKey: string; nodeId: string }[] }[]>(
      sched.port,
      "/ws/v1/partition/default/applications/active",
    );
    const allocs = apps.find((a) => a.applicationID === "plugin-capped")!.allocations!;
    for (const p of bound(await pods("pm-")))
      expect(allocs.find((a) => a.allocationKey === p.metadata!.uid)?.nodeId).toBe(p.spec!.nodeName);
    // kube-scheduler's own event for the held pod comes from the extender's refusal
    const held = (await pods("pm-")).find((p) => !p.spec?.nodeName)!.metadata!.name!;
    await succeed(bound(await pods("pm-"))[0]!.metadata!.name!);
    await waitFor(
      "held pod bound after release",
      async () => (await core().readNamespacedPod({ name: held, namespace: NS })).spec?.nodeName,
      40_000,
    );

    await create(
      "admin",
      [withSched({ metadata: { name: "web-0" }, spec: { containers: [{ name: "web", image: "nginx:1.25" }] } })],
      PLAIN_NS,
    );
    const web = await waitFor(
      "plain pod bound",
      async () => {
        const p = await core().readNamespacedPod({ name: "web-0", namespace: PLAIN_NS });
        return p.spec?.nodeName ? p : undefined;
      },
      30_000,
    );
    expect(web.metadata?.labels?.["yunikorn.apache.org/app-id"]).toBeUndefined();
    const appsAfter = await rest<{ applicationID: string }[]>(sched.port, "/ws/v1/partition/default/applications/active");
    expect(appsAfter.some((a) => a.applicationID.includes(PLAIN_NS))).toBe(false);
  }, 120_000);
});
