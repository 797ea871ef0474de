/**
 * Attacks on the scheduler's accounting, performed as alice (X.509 user, `edit` in her namespaces only) on the real
 * control plane: joining another user's application by its id, and pods that arrive already bound (`spec.nodeName`).
 * The rule: a pod is charged to the user of its own `user.info`, and a pod recorded without a limit check is reported
 * when it takes usage over a limit. Also a pod posing as a placeholder of another user's gang.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { k8s } from "../../src/kube/client.js";
import {
  type CorralProcess,
  type KubeSchedulerProcess,
  type Testbed,
  createFakeNodes,
  kubeConfigFor,
  prepareNamespace,
  waitFor,
} from "../../src/testbed/testbed.js";
import type { UsageInfo, UsageTree } from "../../src/scheduler/rest/api-types.js";
import { TRUST_QUEUES as QUEUES } from "../fixtures/trust-queues.js";
import {
  applyQueuesConfig,
  clearPods,
  deleteAllPods,
  denial,
  resetCluster,
  startAdmission,
  startPluginKubeScheduler,
  startScheduler,
  testbed,
} from "./harness.js";

const CONF_NS = "corral-trust";
const NS_A = "trust-a";
const NS_B = "trust-b";
const NS_SHARED = "trust-shared";
const NODES = "e2e-trust";

let tb: Testbed;
let adm: { corral: CorralProcess; port: number } | undefined;
let sched: { corral: CorralProcess; port: number } | undefined;
const core = (user: "admin" | "alice" | "bob" = "admin") => kubeConfigFor(tb, user).makeApiClient(k8s.CoreV1Api);

function pod(name: string, o: { app?: string; queue?: string; cpu?: string } = {}): k8s.V1Pod {
  const labels: Record<string, string> = {};
  if (o.app) labels.applicationId = o.app;
  if (o.queue) labels["yunikorn.apache.org/queue"] = o.queue;
  return {
    metadata: { name, labels },
    spec: {
      containers: [{ name: "c", image: "registry.example.com/batch:1", resources: { requests: { cpu: o.cpu ?? "1", memory: "256Mi" } } }],
    },
  };
}

const create = (user: "admin" | "alice" | "bob", ns: string, p: k8s.V1Pod) => core(user).createNamespacedPod({ namespace: ns, body: p });
const read = (ns: string, name: string) => core().readNamespacedPod({ name, namespace: ns });
const nodeOf = async (ns: string, name: string) => (await read(ns, name)).spec?.nodeName;
const eventOf = async (ns: string, name: string, reason: string) =>
  (await core().listNamespacedEvent({ namespace: ns })).items.find((e) => e.involvedObject.name === name && e.reason === reason);
/** Waits until the pod is bound or held by a quota (PodUnschedulable), and says which. */
const outcome = (ns: string, name: string) =>
  waitFor(`${ns}/${name} bound or held`, async () =>
    (await nodeOf(ns, name)) ? "bound" : (await eventOf(ns, name, "PodUnschedulable")) ? "held" : undefined,
  );

async function rest<T>(path: string): Promise<T> {
  const r = await fetch(`http://127.0.0.1:${sched!.port}${path}`, { headers: { accept: "application/json" } });
  return (await r.json()) as T;
}

interface AppInfo {
  applicationID: string;
  user: string;
  queueName: string;
  allocations?: { allocationKey: string }[];
  requests?: { allocationKey: string }[];
}
interface ShimApp {
  applicationID: string;
  podApplicationID: string;
  namespace: string;
  user: string;
  overLimitAllocations: {
    pod: string;
    limits: { kind: string; name: string; max: Record<string, number>; used: Record<string, number> }[];
  }[];
}
const app = (id: string) => rest<AppInfo>(`/ws/v1/partition/default/application/${encodeURIComponent(id)}`);
/** The node of a user's usage tree (UserResourceUsageDAOInfo.queues, upstream ResourceUsageDAOInfo) at `path`. */
const usageAt = (tree: UsageTree | undefined, path: string): UsageTree | undefined =>
  !tree ? undefined : tree.queuePath === path ? tree : (tree.children ?? []).map((c) => usageAt(c, path)).find((t) => t !== undefined);
/** vcore millicores charged to `user` on root. */
const rootUsage = async (user: string) =>
  usageAt((await rest<UsageInfo[]>("/ws/v1/partition/default/usage/users")).find((u) => u.userName === user)?.queues, "root")?.resourceUsage
    ?.vcore ?? 0;

const clear = (ns: string) => clearPods(tb, ns);

/** The file's scheduler; `args` after the common ones. */
const startSched = (args: string[] = []) => startScheduler(tb, { namespace: CONF_NS, name: "trust", args });

const startAdm = () =>
  startAdmission(tb, CONF_NS, { env: { ADMISSION_CONTROLLER_DEFAULT_QUEUE: "", SCHEDULER_SERVICE_ADDRESS: `127.0.0.1:${sched!.port}` } });

async function deleteWebhooks(): Promise<void> {
  const api = kubeConfigFor(tb, "admin").makeApiClient(k8s.AdmissionregistrationV1Api);
  await api.deleteValidatingWebhookConfiguration({ name: "yunikorn-admission-controller-validations" }).catch(() => undefined);
  await api.deleteMutatingWebhookConfiguration({ name: "yunikorn-admission-controller-mutations" }).catch(() => undefined);
}

beforeAll(async () => {
  tb = await testbed();
  const admin = kubeConfigFor(tb, "admin");
  // Pods left pending by earlier test files would otherwise be scheduled onto this file's nodes.
  await deleteAllPods(tb);
  await prepareNamespace(admin, CONF_NS, []);
  await prepareNamespace(admin, NS_A, ["alice"]);
  await prepareNamespace(admin, NS_B, ["bob"]);
  await prepareNamespace(admin, NS_SHARED, ["alice", "bob"]);
  // the scheduler runs as the test bed's admin here: its placeholders are admin's (admission and scheduler read this)
  await applyQueuesConfig(tb, CONF_NS, QUEUES, { "service.schedulerUser": "admin" });
  await createFakeNodes(admin, NODES, 3, { cpu: "4", memory: "16Gi", pods: "110" });
  sched = await startSched();
  adm = await startAdm();
}, 300_000);

// each attack starts from empty namespaces, also after a failed one
afterEach(async () => {
  for (const ns of [NS_A, NS_B, NS_SHARED]) await clear(ns);
});

afterAll(async () => {
  await sched?.corral.stop();
  await adm?.corral.stop();
  await resetCluster(tb);
});

/** Attack: bob runs spark-bob-1 in root.teamb; alice creates a 3-cpu pod in her namespace with the same applicationId. */
async function reuseBobsApplicationId(): Promise<void> {
  const bob = await create("bob", NS_B, pod("bob-driver", { app: "spark-bob-1", queue: "root.teamb" }));
  await waitFor("bob's driver bound", () => nodeOf(NS_B, "bob-driver"));
  const alice = await create("alice", NS_A, pod("alice-steal", { app: "spark-bob-1", queue: "root.teamb", cpu: "3" }));
  const own = `spark-bob-1~${NS_A}~alice`;
  expect(await outcome(NS_A, "alice-steal")).toBe("held");
  expect((await eventOf(NS_A, "alice-steal", "PodUnschedulable"))!.message).toContain("user alice quota reached on root");
  await new Promise((r) => setTimeout(r, 1500));
  expect(await nodeOf(NS_A, "alice-steal")).toBeUndefined();
  expect(await rootUsage("bob")).toBe(1000);
  const notJoined = await waitFor("ApplicationNotJoined event", () => eventOf(NS_A, "alice-steal", "ApplicationNotJoined"));
  expect(notJoined.type).toBe("Warning");
  expect(notJoined.message).toBe(
    `application spark-bob-1 belongs to another namespace: this pod was not joined to it and runs as its own ` +
      `application ${own}, charged to user alice`,
  );

  const bobs = await app("spark-bob-1");
  expect({ user: bobs.user, queue: bobs.queueName, allocations: bobs.allocations?.map((a) => a.allocationKey) }).toEqual({
    user: "bob",
    queue: "root.teamb",
    allocations: [bob.metadata!.uid],
  });
  expect(bobs.requests ?? []).toEqual([]);
  const hers = await app(own);
  expect({ user: hers.user, queue: hers.queueName, requests: hers.requests?.map((a) => a.allocationKey) }).toEqual({
    user: "alice",
    queue: `root.tenants.${NS_A}`,
    requests: [alice.metadata!.uid],
  });
  // the mapping is visible: the pods' id, the core's id, whose it is
  const mapping = await rest<ShimApp[]>("/ws/v1/scheduler/shim/applications");
  expect(
    mapping
      .filter((a) => a.podApplicationID === "spark-bob-1")
      .map(({ applicationID, namespace, user }) => ({ applicationID, namespace, user })),
  ).toEqual([
    { applicationID: "spark-bob-1", namespace: NS_B, user: "bob" },
    { applicationID: own, namespace: NS_A, user: "alice" },
  ]);
  const line = await sched!.corral.waitForLog((l) => l.podApplicationId === "spark-bob-1");
  expect(line).toMatchObject({ applicationId: own, user: "alice", differs: "namespace", pod: `${NS_A}/alice-steal` });
}

describe("attack: joining another user's application", () => {
  it(
    "alice reuses bob's applicationId spark-bob-1: her pod is its own application, charged to her, not in root.teamb, held by her limit",
    reuseBobsApplicationId,
  );

  it("alice names bob's generated id (yunikorn-trust-b-autogen): bob's allowance is not spent", async () => {
    await create("bob", NS_B, pod("bob-auto-0"));
    await waitFor("bob's first pod bound", () => nodeOf(NS_B, "bob-auto-0"));
    const generated = (await read(NS_B, "bob-auto-0")).metadata!.labels!.applicationId;
    expect(generated).toBe(`yunikorn-${NS_B}-autogen`);
    await create("alice", NS_A, pod("alice-auto", { app: generated, cpu: "3" }));
    expect(await outcome(NS_A, "alice-auto")).toBe("held");
    // bob's 4 cores: 1 used, 3 more fit (had alice's 3 joined his application, they would not)
    await create("bob", NS_B, pod("bob-auto-1", { cpu: "3" }));
    expect(await outcome(NS_B, "bob-auto-1")).toBe("bound");
    expect(await rootUsage("bob")).toBe(4000);
    expect(await nodeOf(NS_A, "alice-auto")).toBeUndefined();
    expect((await app(generated!)).user).toBe("bob");
    expect((await app(`${generated}~${NS_A}~alice`)).user).toBe("alice");
  });

  it("a namespace shared by alice and bob with the default generated id: each is charged their own usage, also after a restart", async () => {
    await create("alice", NS_SHARED, pod("sh-a-0"));
    await waitFor("alice's pod bound", () => nodeOf(NS_SHARED, "sh-a-0"));
    await create("bob", NS_SHARED, pod("sh-b-0"));
    await create("bob", NS_SHARED, pod("sh-b-1"));
    expect([await outcome(NS_SHARED, "sh-b-0"), await outcome(NS_SHARED, "sh-b-1")]).toEqual(["bound", "bound"]);
    const check = async () => {
      expect(await rootUsage("alice")).toBe(1000);
      expect(await rootUsage("bob")).toBe(2000);
      const generated = `yunikorn-${NS_SHARED}-autogen`;
      expect((await app(generated)).user).toBe("alice");
      const bobs = await app(`${generated}~${NS_SHARED}~bob`);
      expect({ user: bobs.user, n: bobs.allocations?.length }).toEqual({ user: "bob", n: 2 });
    };
    await check();
    const ev = await waitFor("ApplicationNotJoined on bob's pod", () => eventOf(NS_SHARED, "sh-b-0", "ApplicationNotJoined"));
    expect(ev.type).toBe("Normal");
    expect(ev.message).toContain(`another user in namespace ${NS_SHARED}`);
    expect(ev.message).not.toContain("alice");
    // recovery sees the pods oldest first: the same owner keeps the plain id
    await sched!.corral.stop("SIGKILL");
    sched = await startSched();
    await check();
  });
});

describe("attack: a pod posing as a placeholder of another user's gang", () => {
  it("alice's pod flagged as a placeholder of bob's driver is refused at admission; created while the webhook is down, it is charged to alice, not bob", async () => {
    adm ??= await startAdm();
    const group = [{ name: "driver", minMember: 1, minResource: { cpu: "500m", memory: "256Mi" } }];
    const driver = pod("bob-gang-driver", { app: "spark-bob-gang", cpu: "500m" });
    driver.metadata!.annotations = {
      "yunikorn.apache.org/task-groups": JSON.stringify(group),
      "yunikorn.apache.org/task-group-name": "driver",
    };
    const bobs = await create("bob", NS_SHARED, driver);
    await waitFor(
      "bob's driver bound in its placeholder's place",
      async () =>
        (await nodeOf(NS_SHARED, "bob-gang-driver")) &&
        !(await core().listNamespacedPod({ namespace: NS_SHARED })).items.some((p) => p.metadata!.name!.startsWith("tg-")),
    );
    const bobUsage = await rootUsage("bob");
    expect(bobUsage).toBe(500);

    // alice's pod: the placeholder flag, bob's application id, an owner reference to bob's driver (she can read its uid)
    const forged = pod("alice-ph", { app: "spark-bob-gang", cpu: "500m" });
    forged.metadata!.annotations = { "internal.yunikorn.apache.org/placeholder": "true", "yunikorn.apache.org/task-group-name": "driver" };
    forged.metadata!.ownerReferences = [{ apiVersion: "v1", kind: "Pod", name: "bob-gang-driver", uid: bobs.metadata!.uid! }];
    expect(await denial(create("alice", NS_SHARED, forged))).toMatch(
      /^403 .*pod trust-shared\/alice-ph: setting internal\.yunikorn\.apache\.org\/placeholder is refused: placeholders are created by the scheduler \(admin\) only \(requested by alice\)/,
    );

    // the webhook down: she names the scheduler herself and gives her own identity
    await adm!.corral.stop();
    adm = undefined;
    await deleteWebhooks();
    forged.metadata!.annotations["yunikorn.apache.org/user.info"] = JSON.stringify({ user: "alice", groups: ["system:authenticated"] });
    forged.spec = { ...forged.spec!, schedulerName: "yunikorn" };
    await create("alice", NS_SHARED, forged);
    await waitFor("alice-ph charged to alice", async () => (await rootUsage("alice")) === 500, 15_000);
    expect(await rootUsage("bob")).toBe(bobUsage);
    expect((await app("spark-bob-gang")).allocations?.map((a) => a.allocationKey)).toEqual([bobs.metadata!.uid]);
    expect(await outcome(NS_SHARED, "alice-ph")).toBe("bound");
    const ev = await waitFor("PlaceholderNotTrusted event", () => eventOf(NS_SHARED, "alice-ph", "PlaceholderNotTrusted"));
    expect(ev.type).toBe("Warning");
    // not handled as a placeholder: still there a resync later
    await new Promise((r) => setTimeout(r, 6000));
    expect((await read(NS_SHARED, "alice-ph")).metadata?.deletionTimestamp).toBeUndefined();
    adm = await startAdm();
  });
});

describe("attack: preset spec.nodeName", () => {
  it("pods created bound over alice's limit while the webhook is down are reported (event, metric, REST); alice's further pods are held", async () => {
    await adm!.corral.stop();
    adm = undefined;
    await deleteWebhooks();
    const node = `${NODES}-0`;
    const preset = (name: string, cpu: string): k8s.V1Pod => {
      const p = pod(name, { cpu });
      p.metadata!.annotations = { "yunikorn.apache.org/user.info": JSON.stringify({ user: "alice", groups: ["system:authenticated"] }) };
      p.spec = { ...p.spec!, schedulerName: "yunikorn", nodeName: node };
      return p;
    };
    await create("admin", NS_A, preset("np-0", "1"));
    await create("admin", NS_A, preset("np-1", "1"));
    await create("admin", NS_A, preset("np-2", "2150m"));
    const ev = await waitFor("OverLimitAllocation event", () => eventOf(NS_A, "np-2", "OverLimitAllocation"));
    expect(ev.type).toBe("Warning");
    expect(ev.message).toBe(
      `pod ${NS_A}/np-2 (cpu 2150m, memory 256Mi, pods 1) was already bound to node ${node} when the scheduler saw it, ` +
        `so it is recorded without a limit check, over user alice limit on root: cpu 2 allowed, cpu 4150m used`,
    );
    expect(await eventOf(NS_A, "np-0", "OverLimitAllocation")).toBeUndefined();
    expect(await eventOf(NS_A, "np-1", "OverLimitAllocation")).toBeUndefined();
    expect(await rootUsage("alice")).toBe(4150);

    const metrics = await (await fetch(`http://127.0.0.1:${sched!.port}/ws/v1/metrics`)).text();
    expect(metrics).toMatch(/^corral_scheduler_over_limit_allocations_total\{limit="user"\} 1$/m);
    expect(metrics).toMatch(/^corral_scheduler_over_limit_pods\{limit="user"\} 1$/m);
    const reported = (await rest<ShimApp[]>("/ws/v1/scheduler/shim/applications")).flatMap((a) => a.overLimitAllocations);
    expect(reported).toEqual([
      expect.objectContaining({
        pod: `${NS_A}/np-2`,
        limits: [
          {
            kind: "user",
            name: "alice",
            path: "root",
            wildcard: false,
            max: { vcore: 2000 },
            used: expect.objectContaining({ vcore: 4150 }),
          },
        ],
      }),
    ]);

    // with the webhook back, alice's own pod is stamped with her identity and held by the usage she is charged
    adm = await startAdm();
    await create("alice", NS_A, pod("later", { cpu: "100m" }));
    const held = await waitFor("alice's pod held", () => eventOf(NS_A, "later", "PodUnschedulable"));
    expect(held.message).toContain("user alice quota reached on root");
    expect(await nodeOf(NS_A, "later")).toBeUndefined();
  });
});

describe("attack: joining another user's application, plugin mode (kube-scheduler v1.20.2 with corral as its extender)", () => {
  let ks: KubeSchedulerProcess | undefined;
  afterAll(async () => {
    await ks?.stop();
  });

  it("alice reuses bob's applicationId spark-bob-1: the extender answers for her own application, held by her limit", async () => {
    await sched!.corral.stop();
    sched = await startSched(["--mode", "plugin"]);
    adm ??= await startAdm(); // (the test before stops it, and may have failed before starting it again)
    ks = await startPluginKubeScheduler(tb, "kube-scheduler-trust", sched.port, { qps: "default" });
    await reuseBobsApplicationId();
  });

  it("attack: alice calls the extender's bind verb herself for her pod held by her limit: refused, the pod stays unbound", async () => {
    // (runs after the test above: kube-scheduler with corral in plugin mode)
    const held = await create("alice", NS_A, pod("alice-bind", { cpu: "3" }));
    expect(await outcome(NS_A, "alice-bind")).toBe("held");
    const node = (await core().listNode()).items.map((n) => n.metadata!.name!).find((n) => n.startsWith(NODES))!;
    const bind = async (uid: string) => {
      const r = await fetch(`http://127.0.0.1:${sched!.port}/scheduler/bind`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ PodName: "alice-bind", PodNamespace: NS_A, PodUID: uid, Node: node }),
      });
      return ((await r.json()) as { Error: string }).Error;
    };
    expect(await bind(held.metadata!.uid!)).toContain(`pod ${NS_A}/alice-bind has no allocation on node ${node}`);
    expect(await bind("00000000-0000-0000-0000-000000000000")).toContain("is not known to the scheduler");
    // a made-up filter body first (same name, a uid of its own, 100m, bob's identity), so that a task would exist
    const forged = {
      ...held,
      metadata: {
        ...held.metadata,
        uid: "11111111-1111-1111-1111-111111111111",
        annotations: { ...held.metadata!.annotations, "yunikorn.apache.org/user.info": '{"user":"bob"}' },
      },
      spec: { ...held.spec, containers: [{ name: "c", image: "x", resources: { requests: { cpu: "100m" } } }] },
    };
    const f = await fetch(`http://127.0.0.1:${sched!.port}/scheduler/filter`, {
      method: "POST",
      body: JSON.stringify({ Pod: forged, NodeNames: [node] }),
    });
    expect(((await f.json()) as { NodeNames: string[] }).NodeNames).toEqual([]);
    expect(await bind("11111111-1111-1111-1111-111111111111")).toContain("is not known to the scheduler");
    await new Promise((r) => setTimeout(r, 1000));
    expect(await nodeOf(NS_A, "alice-bind")).toBeUndefined();
    expect(await rootUsage("alice")).toBe(0);
  });
});
