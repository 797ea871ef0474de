/**
 * Gang scheduling on the real control plane (docs/gang-scheduling.md): Spark-shaped jobs with YuniKorn's task-group
 * annotations, placeholders created by the scheduler through the API server, bound to fake nodes and deleted when a
 * real pod takes their place. Bound pods never run (no kubelet): completion is a status patch to Succeeded.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
import { providedQueues } from "../fixtures/queues.js";
import { applyQueuesConfig, clearPods, deleteAllPods, resetCluster, startPluginKubeScheduler, startScheduler, testbed } from "./harness.js";

const CONF_NS = "corral-gang";
const NS = "gang";
const NODES = "e2e-gang";

let tb: Testbed;
let admin: k8s.KubeConfig;
let sched: { corral: CorralProcess; port: number } | undefined;
const core = () => kubeConfigFor(tb, "admin").makeApiClient(k8s.CoreV1Api);

const QUEUES = providedQueues([
  "{name: spark, resources: {max: {vcore: 5, memory: 10Gi}}}",
  "{name: one, resources: {max: {vcore: 3, memory: 3Gi}}}",
  "{name: open}",
]);

interface Group {
  name: string;
  minMember: number;
  cpu: string;
  memory?: string;
}

/** A pod of application `app` in `queue`, member of `group`; with `groups`, it carries the task-groups annotation. */
function pod(
  name: string,
  o: { app: string; queue: string; group: string; groups?: Group[]; params?: string; cpu?: string; memory?: string },
): k8s.V1Pod {
  const annotations: Record<string, string> = { "yunikorn.apache.org/task-group-name": o.group };
  if (o.groups)
    annotations["yunikorn.apache.org/task-groups"] = JSON.stringify(
      o.groups.map((g) => ({ name: g.name, minMember: g.minMember, minResource: { cpu: g.cpu, memory: g.memory ?? "1Gi" } })),
    );
  if (o.params) annotations["yunikorn.apache.org/schedulingPolicyParameters"] = o.params;
  return {
    metadata: { name, labels: { "yunikorn.apache.org/app-id": o.app, "yunikorn.apache.org/queue": o.queue }, annotations },
    spec: {
      schedulerName: "yunikorn",
      containers: [
        { name: "c", image: "registry.example.com/spark:3", resources: { requests: { cpu: o.cpu ?? "1", memory: o.memory ?? "1Gi" } } },
      ],
    },
  };
}
const SPARK: Group[] = [
  { name: "driver", minMember: 1, cpu: "1" },
  { name: "executor", minMember: 4, cpu: "1" },
];

const list = async () => (await core().listNamespacedPod({ namespace: NS })).items;
const placeholdersOf = async (app: string) => (await list()).filter((p) => p.metadata!.name!.startsWith(`tg-${app}-`));
const isBound = (p: k8s.V1Pod) => !!p.spec?.nodeName;
async function create(pods: k8s.V1Pod[]): Promise<void> {
  for (const p of pods) await core().createNamespacedPod({ namespace: NS, body: p });
}
async function succeed(name: string): Promise<void> {
  await core().patchNamespacedPodStatus(
    { name, namespace: NS, body: { status: { phase: "Succeeded" } } },
    k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch),
  );
}
const clear = () => clearPods(tb, NS);
async function rest<T>(path: string): Promise<T> {
  const r = await fetch(`http://127.0.0.1:${sched!.port}${path}`, { headers: { accept: "application/json" } });
  return (await r.json()) as T;
}
interface AppDao {
  applicationID: string;
  applicationState: string;
  allocations?: { allocationKey: string; nodeId: string; placeholder?: boolean; taskGroupName?: string }[];
  placeholderData?: { taskGroupName: string; count: number; replaced: number; timedout: number }[];
}
const app = (id: string) => rest<AppDao>(`/ws/v1/partition/default/application/${id}`).catch(() => undefined);
/** The node each placeholder was bound to, from the Scheduled events (they outlive the deleted placeholders). */
async function placeholderNodes(app: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const e of (await core().listNamespacedEvent({ namespace: NS })).items) {
    const m = e.reason === "Scheduled" && /^Successfully assigned \S+\/(tg-\S+) to node (\S+)$/.exec(e.message ?? "");
    if (m && m[1]!.startsWith(`tg-${app}-`)) out.set(m[1]!, m[2]!);
  }
  return out;
}
/** Samples a queue's allocated vcore (REST) every 50 ms until stopped; returns the largest value seen. */
function sampleQueue(queue: string): { stop: () => Promise<number> } {
  let max = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const q = await rest<{ allocatedResource?: { vcore?: number } }>(`/ws/v1/partition/default/queue/${queue}`).catch(() => undefined);
      max = Math.max(max, q?.allocatedResource?.vcore ?? 0);
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return max;
    },
  };
}

/** The file's scheduler: placeholders from a private registry's pause image; `extra` arguments after the common ones. */
const startGangScheduler = (extra: string[] = []) =>
  startScheduler(tb, { namespace: CONF_NS, name: "gang", args: ["--placeholder-image", "registry.internal:5000/pause:3.7", ...extra] });

beforeAll(async () => {
  tb = await testbed();
  admin = kubeConfigFor(tb, "admin");
  await deleteAllPods(tb);
  await prepareNamespace(admin, CONF_NS, []);
  await prepareNamespace(admin, NS, []);
  // No admission controller in this file, so no pod carries user.info (user "nobody"): the scheduler is told that
  // its own placeholders are nobody's (service.schedulerUser), as it would otherwise schedule them as ordinary pods.
  await applyQueuesConfig(tb, CONF_NS, QUEUES, { "service.schedulerUser": "nobody" });
  await createFakeNodes(admin, NODES, 4, { cpu: "4", memory: "16Gi", pods: "110" });
  sched = await startGangScheduler();
}, 300_000);

afterAll(async () => {
  await sched?.corral.stop();
  await resetCluster(tb);
});

describe("gang scheduling, standalone, on the real test bed", () => {
  it("a Spark-shaped job: placeholders created and bound first, the driver and executors take their places on the same nodes", async () => {
    const usage = sampleQueue("root.spark");
    await create([pod("sp-driver", { app: "sp1", queue: "root.spark", group: "driver", groups: SPARK })]);
    const phs = await waitFor("5 placeholders created", async () => {
      const p = await placeholdersOf("sp1");
      return p.length >= 4 && p;
    });
    const ph = phs[0]!;
    expect(ph.metadata!.name).toMatch(/^tg-sp1-(driver|executor)-[a-z0-9]{10}$/);
    expect(ph.metadata!.annotations).toMatchObject({ "internal.yunikorn.apache.org/placeholder": "true" });
    expect(ph.metadata!.ownerReferences![0]).toMatchObject({ kind: "Pod", name: "sp-driver", controller: false });
    expect(ph.spec!.containers[0]).toMatchObject({
      image: "registry.internal:5000/pause:3.7",
      resources: { requests: { cpu: "1", memory: "1Gi" }, limits: { cpu: "1", memory: "1Gi" } },
    });
    const driver = await waitFor("driver bound", async () => (await list()).find((p) => p.metadata!.name === "sp-driver" && isBound(p)));
    const execPhs = await waitFor("4 executor placeholders bound", async () => {
      const p = (await placeholdersOf("sp1")).filter((x) => x.metadata!.name!.includes("-executor-") && isBound(x));
      return p.length === 4 && p;
    });
    const nodes = await waitFor("executor placeholders' Scheduled events", async () => {
      const m = await placeholderNodes("sp1");
      return [...m.keys()].filter((n) => n.includes("-executor-")).length === 4 && m;
    });
    // the driver takes its placeholder's place as soon as the gang is complete, sometimes before that placeholder's own
    // binding lands (the binding then fails on the deleted pod): when it was bound, the driver is on its node
    const driverPh = [...nodes.entries()].find(([n]) => n.includes("-driver-"));
    if (driverPh) expect(driver.spec!.nodeName).toBe(driverPh[1]);
    await waitFor(
      "driver placeholder deleted",
      async () => !(await placeholdersOf("sp1")).some((p) => p.metadata!.name!.includes("-driver-")),
    );
    await create([0, 1, 2, 3].map((i) => pod(`sp-exec-${i}`, { app: "sp1", queue: "root.spark", group: "executor" })));
    const execs = await waitFor("4 executors bound", async () => {
      const p = (await list()).filter((x) => x.metadata!.name!.startsWith("sp-exec-") && isBound(x));
      return p.length === 4 && p;
    });
    expect(execs.map((p) => p.spec!.nodeName).sort()).toEqual(execPhs.map((p) => p.spec!.nodeName).sort());
    await waitFor("placeholders deleted", async () => (await placeholdersOf("sp1")).length === 0);
    const dao = await waitFor("REST shows the replacements", async () => {
      const a = await app("sp1");
      return a?.placeholderData?.every((d) => d.replaced === d.count) && a;
    });
    expect(dao.applicationState).toBe("Running");
    // groups in the order their first placeholder reached the scheduler
    expect(dao.placeholderData!.map((d) => [d.taskGroupName, d.count, d.replaced]).sort()).toEqual([
      ["driver", 1, 1],
      ["executor", 4, 4],
    ]);
    expect(dao.allocations!.every((a) => !a.placeholder && (a.taskGroupName === "driver" || a.taskGroupName === "executor"))).toBe(true);
    // queue usage never exceeded what the gang reserved (5 × 1 cpu)
    expect(await usage.stop()).toBeLessThanOrEqual(5000);
    const ev = (await core().listNamespacedEvent({ namespace: NS })).items
      .filter((e) => e.involvedObject.name === "sp-driver" && e.reason === "GangScheduling")
      .map((e) => e.message);
    expect(ev).toEqual(
      expect.arrayContaining([
        "Application sp1 creating placeholders",
        "Application sp1 placeholder has been allocated.",
        "Application sp1 all placeholders are allocated. Transitioning to running state.",
      ]),
    );
    await clear();
  });

  it("two gangs competing for a queue that holds one: the first runs, the second waits whole, then runs", async () => {
    const groups: Group[] = [
      { name: "driver", minMember: 1, cpu: "1" },
      { name: "executor", minMember: 2, cpu: "1" },
    ];
    await create([pod("a-driver", { app: "gang-a", queue: "root.one", group: "driver", groups })]);
    await waitFor("gang-a reserved and its driver bound", async () =>
      (await list()).some((p) => p.metadata!.name === "a-driver" && isBound(p)),
    );
    await create([pod("b-driver", { app: "gang-b", queue: "root.one", group: "driver", groups })]);
    await waitFor("gang-b placeholders created", async () => (await placeholdersOf("gang-b")).length === 3);
    await create([0, 1].map((i) => pod(`a-exec-${i}`, { app: "gang-a", queue: "root.one", group: "executor" })));
    await waitFor(
      "gang-a executors bound",
      async () => (await list()).filter((p) => p.metadata!.name!.startsWith("a-exec-") && isBound(p)).length === 2,
    );
    await new Promise((r) => setTimeout(r, 1500));
    // b holds nothing: no placeholder bound, its driver waits
    expect((await placeholdersOf("gang-b")).filter(isBound)).toHaveLength(0);
    expect((await list()).find((p) => p.metadata!.name === "b-driver")!.spec!.nodeName).toBeUndefined();
    expect((await app("gang-b"))!.applicationState).toBe("Reserving");
    for (const n of ["a-driver", "a-exec-0", "a-exec-1"]) await succeed(n);
    await waitFor(
      "gang-b's driver bound after gang-a completed",
      async () => (await list()).some((p) => p.metadata!.name === "b-driver" && isBound(p)),
      30_000,
    );
    await waitFor("gang-b's executor placeholders bound", async () => (await placeholdersOf("gang-b")).filter(isBound).length === 2);
    await clear();
  });

  it("Soft timeout: the placeholders go and the job is scheduled normally", async () => {
    // 8 executors of 3 cpu can never all be placed on 4 nodes of 4 cpu
    const groups: Group[] = [
      { name: "driver", minMember: 1, cpu: "1" },
      { name: "executor", minMember: 8, cpu: "3" },
    ];
    await create([
      pod("soft-driver", {
        app: "soft",
        queue: "root.open",
        group: "driver",
        groups,
        params: "placeholderTimeoutInSeconds=3 gangSchedulingStyle=Soft",
      }),
    ]);
    await waitFor("placeholders created", async () => (await placeholdersOf("soft")).length === 9);
    await waitFor(
      "driver bound after the timeout",
      async () => (await list()).some((p) => p.metadata!.name === "soft-driver" && isBound(p)),
      30_000,
    );
    await waitFor("placeholders deleted", async () => (await placeholdersOf("soft")).length === 0);
    const ev = (await core().listNamespacedEvent({ namespace: NS })).items
      .filter((e) => e.involvedObject.name === "soft-driver")
      .map((e) => e.message);
    expect(ev).toContain("Application soft resuming as non-gang application (SOFT)");
    await clear();
  });

  it("Hard timeout: the job fails with ResourceReservationTimeout on its pods", async () => {
    const groups: Group[] = [
      { name: "driver", minMember: 1, cpu: "1" },
      { name: "executor", minMember: 8, cpu: "3" },
    ];
    await create([
      pod("hard-driver", {
        app: "hard",
        queue: "root.open",
        group: "driver",
        groups,
        params: "placeholderTimeoutInSeconds=3 gangSchedulingStyle=Hard",
      }),
    ]);
    const failed = await waitFor(
      "driver failed",
      async () => (await list()).find((p) => p.metadata!.name === "hard-driver" && p.status?.phase === "Failed"),
      30_000,
    );
    expect(failed.status).toMatchObject({
      phase: "Failed",
      reason: "ResourceReservationTimeout",
      message: "Scheduling has timed out due to insufficient resources",
    });
    expect(failed.spec!.nodeName).toBeUndefined();
    await waitFor("placeholders deleted", async () => (await placeholdersOf("hard")).length === 0);
    await clear();
  });

  it("scheduler restart while Reserving: bound placeholders recovered, none created twice, none leaked, nothing counted twice", async () => {
    const groups: Group[] = [
      { name: "driver", minMember: 1, cpu: "1" },
      { name: "executor", minMember: 8, cpu: "3" },
    ];
    await create([pod("rs-driver", { app: "rs", queue: "root.open", group: "driver", groups, params: "placeholderTimeoutInSeconds=600" })]);
    await waitFor("9 placeholders, 5 bound", async () => {
      const p = await placeholdersOf("rs");
      return p.length === 9 && p.filter(isBound).length === 5;
    });
    const before = (await placeholdersOf("rs")).map((p) => `${p.metadata!.name}@${p.spec!.nodeName ?? ""}`).sort();
    await sched!.corral.stop();
    sched = await startGangScheduler();
    await waitFor("application recovered", async () => (await app("rs"))?.applicationState === "Reserving");
    await new Promise((r) => setTimeout(r, 3000));
    expect((await placeholdersOf("rs")).map((p) => `${p.metadata!.name}@${p.spec!.nodeName ?? ""}`).sort()).toEqual(before);
    const q = await rest<{ allocatedResource?: { vcore?: number } }>("/ws/v1/partition/default/queue/root.open");
    // the driver placeholder (1 cpu) and four executor placeholders (3 cpu each): once each
    expect(q.allocatedResource?.vcore).toBe(13_000);
    const apps = await rest<AppDao[]>("/ws/v1/partition/default/applications/active");
    const rs = apps.find((a) => a.applicationID === "rs")!;
    expect(rs.applicationState).toBe("Reserving");
    expect(rs.allocations!.filter((a) => a.placeholder)).toHaveLength(5);
    await clear();
    // Completing → Completed takes 30 s (COMPLETING_TIMEOUT_MS) after the last pod is gone: wait longer than that
    await waitFor(
      "application gone after its pods",
      async () => !(await rest<AppDao[]>("/ws/v1/partition/default/applications/active")).some((a) => a.applicationID === "rs"),
      45_000,
    );
  });

  it("scheduler restart while replacing: the rest of the placeholders are replaced, none leaked, queue usage = the bound pods, the job completes", async () => {
    await create([pod("rr-driver", { app: "rr", queue: "root.spark", group: "driver", groups: SPARK })]);
    await waitFor("4 executor placeholders bound, driver bound", async () => {
      const ps = await list();
      return (
        ps.some((p) => p.metadata!.name === "rr-driver" && isBound(p)) &&
        ps.filter((p) => p.metadata!.name!.startsWith("tg-rr-executor-") && isBound(p)).length === 4
      );
    });
    await create([0, 1].map((i) => pod(`rr-exec-${i}`, { app: "rr", queue: "root.spark", group: "executor" })));
    await waitFor("2 executors bound, 2 placeholders left", async () => {
      const ps = await list();
      return (
        ps.filter((p) => p.metadata!.name!.startsWith("rr-exec-") && isBound(p)).length === 2 && (await placeholdersOf("rr")).length === 2
      );
    });
    // half replaced: the scheduler goes down, the last two executors arrive while it is away
    await sched!.corral.stop();
    await create([2, 3].map((i) => pod(`rr-exec-${i}`, { app: "rr", queue: "root.spark", group: "executor" })));
    const left = (await placeholdersOf("rr")).map((p) => p.spec!.nodeName!).sort();
    sched = await startGangScheduler();
    const execs = await waitFor("all 4 executors bound", async () => {
      const p = (await list()).filter((x) => x.metadata!.name!.startsWith("rr-exec-") && isBound(x));
      return p.length === 4 && p;
    });
    // the two late executors took the two placeholders left, on their nodes
    expect(
      execs
        .filter((p) => p.metadata!.name === "rr-exec-2" || p.metadata!.name === "rr-exec-3")
        .map((p) => p.spec!.nodeName!)
        .sort(),
    ).toEqual(left);
    await waitFor("no placeholder left", async () => (await placeholdersOf("rr")).length === 0);
    // queue usage is the bound pods' requests (5 × 1 cpu), nothing counted twice
    const boundCpu = async () => (await list()).filter((p) => isBound(p) && p.status?.phase !== "Succeeded").length * 1000;
    await new Promise((r) => setTimeout(r, 1500));
    const q = await rest<{ allocatedResource?: { vcore?: number } }>("/ws/v1/partition/default/queue/root.spark");
    expect(await boundCpu()).toBe(5000);
    expect(q.allocatedResource?.vcore).toBe(5000);
    const dao = (await app("rr"))!;
    expect(dao.applicationState).toBe("Running");
    expect(dao.allocations!.filter((a) => a.placeholder)).toHaveLength(0);
    expect(dao.allocations!.map((a) => a.nodeId).sort()).toEqual(
      (await list())
        .filter((p) => p.metadata!.name!.startsWith("rr-"))
        .map((p) => p.spec!.nodeName!)
        .sort(),
    );
    // the job completes: every pod succeeded, the queue is empty, the application leaves Running
    for (const n of ["rr-driver", "rr-exec-0", "rr-exec-1", "rr-exec-2", "rr-exec-3"]) await succeed(n);
    await waitFor("queue empty", async () => {
      const qq = await rest<{ allocatedResource?: { vcore?: number } }>("/ws/v1/partition/default/queue/root.spark");
      return (qq.allocatedResource?.vcore ?? 0) === 0;
    });
    await waitFor("application completing", async () => {
      const a = await app("rr");
      return a === undefined || a.applicationState === "Completing" || a.applicationState === "Completed";
    });
    await clear();
  });
});

describe("gang scheduling in plugin mode: kube-scheduler v1.20.2 with corral as its extender", () => {
  let ks: KubeSchedulerProcess | undefined;
  afterAll(async () => {
    await ks?.stop();
  });

  it("placeholders are placed by kube-scheduler through the extender on the core's nodes; the real pods replace them there", async () => {
    await sched?.corral.stop();
    sched = await startGangScheduler(["--mode", "plugin"]);
    ks = await startPluginKubeScheduler(tb, "kube-scheduler-gang", sched.port);
    const usage = sampleQueue("root.spark");
    await create([pod("pl-driver", { app: "pl1", queue: "root.spark", group: "driver", groups: SPARK })]);
    const execPhs = await waitFor(
      "4 executor placeholders bound by kube-scheduler",
      async () => {
        const p = (await placeholdersOf("pl1")).filter((x) => x.metadata!.name!.includes("-executor-") && isBound(x));
        return p.length === 4 && p;
      },
      60_000,
    );
    // each placeholder went where the core allocated it
    const allocs = (await app("pl1"))!.allocations!;
    for (const p of execPhs) expect(allocs.find((a) => a.allocationKey === p.metadata!.uid)?.nodeId).toBe(p.spec!.nodeName);
    await waitFor(
      "driver bound in its placeholder's place",
      async () => (await list()).some((p) => p.metadata!.name === "pl-driver" && isBound(p)),
      60_000,
    );
    await create([0, 1, 2, 3].map((i) => pod(`pl-exec-${i}`, { app: "pl1", queue: "root.spark", group: "executor" })));
    const execs = await waitFor(
      "4 executors bound",
      async () => {
        const p = (await list()).filter((x) => x.metadata!.name!.startsWith("pl-exec-") && isBound(x));
        return p.length === 4 && p;
      },
      90_000,
    );
    expect(execs.map((p) => p.spec!.nodeName).sort()).toEqual(execPhs.map((p) => p.spec!.nodeName).sort());
    await waitFor("placeholders deleted", async () => (await placeholdersOf("pl1")).length === 0);
    const dao = await waitFor("REST shows the replacements", async () => {
      const a = await app("pl1");
      return a?.placeholderData?.every((d) => d.replaced === d.count) && a;
    });
    expect(dao.applicationState).toBe("Running");
    expect(dao.allocations!.every((a) => !a.placeholder)).toBe(true);
    // kube-scheduler placed every pod (corral reports no Scheduled event of its own in plugin mode); the queue never
    // held more than the gang reserved (5 × 1 cpu)
    const binds = (await core().listNamespacedEvent({ namespace: NS })).items.filter(
      (e) => e.reason === "Scheduled" && e.involvedObject.name?.startsWith("pl-"),
    );
    expect(binds.map((e) => e.involvedObject.name).sort()).toEqual(["pl-driver", "pl-exec-0", "pl-exec-1", "pl-exec-2", "pl-exec-3"]);
    expect(await usage.stop()).toBeLessThanOrEqual(5000);
    await clear();
  }, 240_000);
});
