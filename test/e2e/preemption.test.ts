/**
 * Preemption on the real control plane: two fake 4-cpu nodes (no kubelet), queues from the `yunikorn-configs`
 * ConfigMap, the scheduler running under the deploy/scheduler ServiceAccount and RBAC (so the audit log shows the
 * eviction calls are allowed and used). Queue a (guaranteed 4 cpu) is idle while queue b (guaranteed 4 cpu) fills the
 * cluster; a then asks 5 cpu. Victims are evicted through the Eviction API in the version discovery chose
 * (policy/v1beta1 on 1.20). With no kubelet, the test finishes the evicted pods' termination (as a kubelet would, at
 * once) by deleting pods that carry a deletionTimestamp. Further cases: opted-out pods and a PodDisruptionBudget; a
 * `preemption.policy: fence` queue takes victims only inside its subtree; a `preemptionPolicy: Never` pod waits;
 * lowering a queue's max in the hot-reloaded ConfigMap evicts the excess after its `quota.preemption.delay`.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { parseAllDocuments } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { k8s } from "../../src/kube/client.js";
import { type CorralProcess, type Testbed, createFakeNodes, kubeConfigFor, prepareNamespace, waitFor } from "../../src/testbed/testbed.js";
import {
  applyQueuesConfig,
  clearPods,
  auditedCalls,
  batchPod,
  deleteAllPods,
  finishTerminations,
  renderDeploy,
  resetCluster,
  serviceAccountKubeconfig,
  startScheduler,
  testbed,
  podsByPrefix,
} from "./harness.js";

const CONF_NS = "corral-preempt";
const NS = "preempt";
const NODES = "e2e-preempt";

let tb: Testbed;
let admin: k8s.KubeConfig;
let sched: { corral: CorralProcess; port: number } | undefined;
let stopKubelet: (() => void) | undefined;

const core = () => kubeConfigFor(tb, "admin").makeApiClient(k8s.CoreV1Api);

const QUEUES = `partitions:
  - name: default
    preemption: {quotapreemptionenabled: true}
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
          - name: f
            properties: {preemption.policy: fence}
            queues:
              - name: x
                resources: {guaranteed: {vcore: 4}}
                properties: {preemption.delay: 1s}
              - name: y
                properties: {preemption.delay: 1s}
          - name: c
            resources: {max: {vcore: 8}}
            properties: {quota.preemption.delay: 5s}
`;

/** Deletes every pod of the test namespace and waits until it is empty. */
const clear = () => clearPods(tb, NS);

/** Creates the PriorityClass unless it exists. */
async function priorityClass(body: k8s.V1PriorityClass): Promise<void> {
  await kubeConfigFor(tb, "admin")
    .makeApiClient(k8s.SchedulingV1Api)
    .createPriorityClass({ body })
    .catch((err: { code?: number }) => {
      if (err.code !== 409) throw err;
    });
}

/** Creates the pods in order and waits until all are bound. */
async function runPods(pods: k8s.V1Pod[]): Promise<void> {
  for (const p of pods) await core().createNamespacedPod({ namespace: NS, body: p });
  const names = pods.map((p) => p.metadata!.name!);
  await waitFor(
    `${names.join(", ")} bound`,
    async () => bound(await list("")).filter((x) => names.includes(x.metadata!.name!)).length === names.length,
  );
}

/** Creates the pods at once, early in a wall-clock second (creation timestamps have 1 s resolution). */
async function createInOneSecond(pods: k8s.V1Pod[]): Promise<void> {
  await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 20));
  await Promise.all(pods.map((body) => core().createNamespacedPod({ namespace: NS, body })));
  const seconds = new Set(
    (await list(""))
      .filter((p) => pods.some((x) => x.metadata!.name === p.metadata!.name))
      .map((p) => String(p.metadata!.creationTimestamp)),
  );
  expect(seconds.size, "the pods were created within one second").toBe(1);
}

const names = (ps: k8s.V1Pod[]) => ps.map((x) => x.metadata!.name!).sort();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const rest = async <T>(path: string): Promise<T> => (await (await fetch(`http://127.0.0.1:${sched!.port}${path}`)).json()) as T;

const pod = (name: string, queue: string, app: string) => batchPod(name, { queue, app, schedulerName: "yunikorn" });

const list = (prefix: string) => podsByPrefix(tb, NS, prefix);
const live = (ps: k8s.V1Pod[]) => ps.filter((p) => !p.metadata?.deletionTimestamp);
const bound = (ps: k8s.V1Pod[]) => live(ps).filter((p) => p.spec?.nodeName);

beforeAll(async () => {
  tb = await testbed();
  admin = kubeConfigFor(tb, "admin");
  await deleteAllPods(tb);
  await prepareNamespace(admin, CONF_NS, []);
  await prepareNamespace(admin, NS, []);
  await applyQueuesConfig(tb, CONF_NS, QUEUES);
  await createFakeNodes(admin, NODES, 2, { cpu: "4", memory: "16Gi", pods: "110" });
  // the deploy/scheduler ServiceAccount and RBAC, rendered into this file's namespace
  const rendered = await renderDeploy(tb, "scheduler", CONF_NS);
  const rbac = parseAllDocuments(rendered)
    .map((d) => d.toJS() as { kind: string })
    .filter((o) => ["ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"].includes(o.kind));
  const p = promisify(execFile)("kubectl", ["--kubeconfig", tb.kubeconfig.admin, "apply", "-f", "-"], { maxBuffer: 10 << 20 });
  p.child.stdin!.end(rbac.map((o) => JSON.stringify(o)).join("\n"));
  await p;
  const kubeconfig = await serviceAccountKubeconfig(tb, CONF_NS, "corral-scheduler");
  sched = await startScheduler(tb, { namespace: CONF_NS, name: "preempt", kubeconfig });
  // the kubelet's part: a pod being deleted (evicted) finishes terminating at once
  stopKubelet = finishTerminations(tb, NS);
}, 300_000);

afterAll(async () => {
  stopKubelet?.();
  await sched?.corral.stop();
  await resetCluster(tb);
});

describe("preemption on kube-apiserver v1.20.2", () => {
  it("queue a under its guarantee evicts b's youngest pods: a gets exactly its guarantee, b keeps its own", async () => {
    // b fills the 8-cpu cluster: four older pods, then (a second later: creation times have 1 s resolution) four younger
    for (let i = 0; i < 4; i++) await core().createNamespacedPod({ namespace: NS, body: pod(`b-old-${i}`, "root.b", "b") });
    await waitFor("4 old b pods bound", async () => bound(await list("b-old-")).length === 4);
    await new Promise((r) => setTimeout(r, 1100));
    for (let i = 0; i < 4; i++) await core().createNamespacedPod({ namespace: NS, body: pod(`b-young-${i}`, "root.b", "b") });
    await waitFor("8 b pods bound", async () => bound(await list("b-")).length === 8);

    // a asks 5 cpu: only its guarantee (4) is taken back. The five pods share one creation second, so their preemption
    // delays end in the same cycle and each wave takes one victim per node (a preemptor that tried alone after an
    // earlier one bound could find an old pod as the only victim on the first node: a tie upstream breaks by node id)
    await createInOneSecond(Array.from({ length: 5 }, (_, i) => pod(`a-${i}`, "root.a", "a")));
    // one preemption per node at a time: two victims after the 1 s delay, two more after the 15 s retry interval
    await waitFor("4 a pods bound", async () => bound(await list("a-")).length === 4, 60_000);

    const b = live(await list("b-"));
    expect(b.map((x) => x.metadata!.name).sort()).toEqual(["b-old-0", "b-old-1", "b-old-2", "b-old-3"]);
    expect(bound(await list("a-"))).toHaveLength(4);

    // events: Preempted on each victim naming the preemptor, its queue and the rules; Preempting on the preemptors
    const events = (await core().listNamespacedEvent({ namespace: NS })).items;
    const preempted = events.filter((e) => e.reason === "Preempted");
    expect(preempted.map((e) => e.involvedObject.name).sort()).toEqual(["b-young-0", "b-young-1", "b-young-2", "b-young-3"]);
    for (const e of preempted) {
      expect(e.type).toBe("Normal");
      expect(e.message).toMatch(
        /^Preempted by pod preempt\/a-\d of application a for queue root\.a: queue root\.b is above its guarantee \(guaranteed cpu 4, used cpu [5-8], memory [^,]+, pods [5-8]\) and stays at or above it; priority 0 is not above the preemptor's 0; frees room on node e2e-preempt-\d$/,
      );
    }
    expect(events.filter((e) => e.reason === "Preempting").length).toBeGreaterThanOrEqual(4);

    // the fifth a pod waits: a is at its guarantee, b at its own; nothing more is evicted after the retry interval
    await new Promise((r) => setTimeout(r, 17_000));
    expect(live(await list("b-"))).toHaveLength(4);
    expect(bound(await list("a-"))).toHaveLength(4);

    // REST: preemption on for the partition and the queues; metrics count the preemptions and evictions
    const parts = (await (await fetch(`http://127.0.0.1:${sched!.port}/ws/v1/partitions`)).json()) as { preemptionEnabled: boolean }[];
    expect(parts[0]!.preemptionEnabled).toBe(true);
    const qb = (await (await fetch(`http://127.0.0.1:${sched!.port}/ws/v1/partition/default/queue/root.b`)).json()) as Record<
      string,
      unknown
    >;
    expect(qb).toMatchObject({ preemptionEnabled: true, allocatedResource: { vcore: 4000 } });
    const metrics = await (await fetch(`http://127.0.0.1:${sched!.port}/ws/v1/metrics`)).text();
    expect(metrics).toMatch(/corral_scheduler_preemptions_total\{queue="root\.a"\} 4/);
    expect(metrics).toMatch(/corral_scheduler_preemption_evictions_total\{result="evicted",queue="root\.b"\} 4/);
    // YuniKorn's metrics of the running process: each allocation and release counted once, on its queue too; the
    // core's cycles and preemption decisions timed
    expect(metrics).toMatch(/^yunikorn_scheduler_container_allocation_attempt_total\{state="allocated"\} 12$/m);
    expect(metrics).toMatch(/^yunikorn_scheduler_container_allocation_attempt_total\{state="released"\} 4$/m);
    expect(metrics).toMatch(/^yunikorn_root_b_queue_container\{state="released"\} 4$/m);
    expect(metrics).toMatch(/^yunikorn_root_a_queue_container\{state="allocated"\} 4$/m);
    const observed = (histogram: string) => Number(new RegExp(`^yunikorn_scheduler_${histogram}_count (\\d+)$`, "m").exec(metrics)?.[1]);
    expect(observed("trypreemption_latency_milliseconds")).toBeGreaterThanOrEqual(4);
    expect(observed("scheduling_latency_milliseconds")).toBeGreaterThan(0);
    expect(observed("scheduling_cycle_milliseconds")).toBeGreaterThan(0);
    // b's 8 pods found their nodes by a node search (a's went to the nodes their preemptions reserved)
    expect(observed("trynode_latency_milliseconds")).toBeGreaterThanOrEqual(8);
    expect(observed("trynode_evaluation_milliseconds")).toBeGreaterThanOrEqual(observed("trynode_latency_milliseconds"));

    // the evictions went through the Eviction API under the deploy RBAC: allowed and used
    const { forbidden, used } = await auditedCalls(tb, `system:serviceaccount:${CONF_NS}:corral-scheduler`);
    expect(forbidden).toEqual([]);
    expect(used.has("/pods/eviction/create")).toBe(true);
  }, 180_000);

  it("an opted-out pod (PriorityClass) survives while ordinary ones are chosen; a PodDisruptionBudget blocks a victim, another is taken", async () => {
    await clear();
    const scheduling = kubeConfigFor(tb, "admin").makeApiClient(k8s.SchedulingV1Api);
    await scheduling
      .createPriorityClass({
        body: { metadata: { name: "corral-e2e-optout", annotations: { "yunikorn.apache.org/allow-preemption": "false" } }, value: 0 },
      })
      .catch((err: { code?: number }) => {
        if (err.code !== 409) throw err;
      });
    // Kubernetes 1.20 serves PodDisruptionBudget as policy/v1beta1 only
    const pdb = promisify(execFile)("kubectl", ["--kubeconfig", tb.kubeconfig.admin, "apply", "-f", "-"]);
    pdb.child.stdin!.end(
      JSON.stringify({
        apiVersion: "policy/v1beta1",
        kind: "PodDisruptionBudget",
        metadata: { name: "guard", namespace: NS },
        spec: { maxUnavailable: 0, selector: { matchLabels: { pdb: "guard" } } },
      }),
    );
    await pdb;

    // b fills the cluster: 4 old pods, then a guarded and an ordinary younger pod, then two opted-out pods (the youngest)
    const batch = async (names: string[], extra: (p: k8s.V1Pod) => void = () => {}) => {
      for (const n of names) {
        const p = pod(n, "root.b", "b2");
        extra(p);
        await core().createNamespacedPod({ namespace: NS, body: p });
      }
      await waitFor(
        `${names.join(", ")} bound`,
        async () => bound(await list("")).filter((x) => names.includes(x.metadata!.name!)).length === names.length,
      );
      // the kubelet's part: the pods run (the Eviction API ignores PodDisruptionBudgets for Pending pods)
      for (const n of names) {
        await core().patchNamespacedPodStatus(
          { name: n, namespace: NS, body: { status: { phase: "Running" } } },
          k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch),
        );
      }
      await new Promise((r) => setTimeout(r, 1100));
    };
    await batch(["old-0", "old-1", "old-2", "old-3"]);
    await batch(["guarded"], (p) => (p.metadata!.labels!.pdb = "guard"));
    await batch(["young"]);
    await batch(["optout-0", "optout-1"], (p) => (p.spec!.priorityClassName = "corral-e2e-optout"));

    for (let i = 0; i < 4; i++) await core().createNamespacedPod({ namespace: NS, body: pod(`q-${i}`, "root.a", "a2") });
    await waitFor("4 pods of a bound", async () => bound(await list("q-")).length === 4, 120_000);

    const survivors = live(await list(""))
      .filter((x) => !x.metadata!.name!.startsWith("q-"))
      .map((x) => x.metadata!.name!)
      .sort();
    // b keeps its guarantee (4): the guarded pod and both opted-out pods among them, the young ordinary pod evicted
    expect(survivors).toHaveLength(4);
    expect(survivors).toEqual(expect.arrayContaining(["guarded", "optout-0", "optout-1"]));
    expect(survivors).not.toContain("young");
    const events = (await core().listNamespacedEvent({ namespace: NS })).items;
    const preempted = events.filter((e) => e.reason === "Preempted").map((e) => e.involvedObject.name);
    expect(preempted).toContain("young");
    expect(preempted).not.toContain("guarded");
    const blocked = events.filter((e) => e.reason === "PreemptionBlocked");
    expect(blocked.length).toBeGreaterThanOrEqual(1);
    expect(blocked[0]!.type).toBe("Warning");
    expect(blocked[0]!.message).toMatch(
      /^Eviction of preempt\/guarded was refused \(429 .*disruption budget.*\); the node reservation is released/,
    );
  }, 240_000);

  it("a fenced queue takes no victims outside its subtree: its sibling's pods go, not the younger pods of b", async () => {
    await clear();
    // f.y (inside the fence root.f, no guarantee) runs one pod per node; b (guaranteed 4) fills the rest with younger pods
    await runPods([pod("fy-0", "root.f.y", "fy"), pod("fy-1", "root.f.y", "fy")]);
    await sleep(1100);
    await runPods(Array.from({ length: 6 }, (_, i) => pod(`fb-${i}`, "root.b", "fb")));
    // f.x (guaranteed 4) asks 2 cpu: without the fence b's younger pods would be the victims
    for (let i = 0; i < 2; i++) await core().createNamespacedPod({ namespace: NS, body: pod(`fx-${i}`, "root.f.x", "fx") });
    await waitFor("2 pods of f.x bound", async () => bound(await list("fx-")).length === 2, 60_000);
    await sleep(3000);
    expect(names(live(await list("fb-")))).toEqual(["fb-0", "fb-1", "fb-2", "fb-3", "fb-4", "fb-5"]);
    expect(live(await list("fy-"))).toEqual([]);
    const preempted = (await core().listNamespacedEvent({ namespace: NS })).items.filter(
      (e) => e.reason === "Preempted" && /^f[bxy]-/.test(e.involvedObject.name!),
    );
    expect(preempted.map((e) => e.involvedObject.name).sort()).toEqual(["fy-0", "fy-1"]);
    for (const e of preempted)
      expect(e.message).toMatch(/^Preempted by pod preempt\/fx-\d of application fx for queue root\.f\.x: queue root\.f\.y /);
  }, 120_000);

  it("a pod with preemptionPolicy: Never waits; an ordinary pod of the same queue preempts", async () => {
    await clear();
    await priorityClass({ metadata: { name: "corral-e2e-never" }, value: 0, preemptionPolicy: "Never" });
    await runPods(Array.from({ length: 8 }, (_, i) => pod(`nb-${i}`, "root.b", "nb")));
    const never = pod("na-never", "root.a", "na");
    never.spec!.priorityClassName = "corral-e2e-never";
    never.spec!.preemptionPolicy = "Never";
    await core().createNamespacedPod({ namespace: NS, body: never });
    expect((await core().readNamespacedPod({ name: "na-never", namespace: NS })).spec?.preemptionPolicy).toBe("Never");
    // queue a is under its guarantee and the 1 s delay passes several times over: nothing is evicted
    await sleep(6000);
    expect(live(await list("nb-"))).toHaveLength(8);
    expect(bound(await list("na-"))).toEqual([]);
    const preemptedNb = async () =>
      (await core().listNamespacedEvent({ namespace: NS })).items.filter(
        (e) => e.reason === "Preempted" && e.involvedObject.name!.startsWith("nb-"),
      );
    expect(await preemptedNb()).toEqual([]);
    // the same pod without Never preempts one of b's pods (the setup would have preempted)
    await core().createNamespacedPod({ namespace: NS, body: pod("na-ordinary", "root.a", "na") });
    await waitFor("the ordinary pod of a bound", async () => bound(await list("na-ordinary")).length === 1, 60_000);
    expect(live(await list("nb-"))).toHaveLength(7);
    expect(bound(await list("na-never"))).toEqual([]);
    expect((await preemptedNb()).map((e) => e.message)).toEqual([expect.stringMatching(/^Preempted by pod preempt\/na-ordinary /)]);
  }, 120_000);

  it("quota-change preemption: lowering c's max in the hot-reloaded ConfigMap evicts the excess after quota.preemption.delay", async () => {
    await clear();
    await priorityClass({ metadata: { name: "corral-e2e-high" }, value: 10 });
    // c (max 8) runs 8 pods: five of a higher priority, three ordinary (the victims, lower priority first)
    const high = Array.from({ length: 5 }, (_, i) => {
      const p = pod(`c-high-${i}`, "root.c", "c");
      p.spec!.priorityClassName = "corral-e2e-high";
      return p;
    });
    await runPods([...high, ...Array.from({ length: 3 }, (_, i) => pod(`c-low-${i}`, "root.c", "c"))]);
    expect((await rest<{ quotaPreemptionEnabled: boolean }[]>("/ws/v1/partitions"))[0]!.quotaPreemptionEnabled).toBe(true);

    // the max goes to 5: once the scheduler shows it, nothing is evicted before the 5 s delay
    await applyQueuesConfig(tb, CONF_NS, QUEUES.replace("max: {vcore: 8}", "max: {vcore: 5}"));
    await waitFor(
      "root.c max 5 applied",
      async () => (await rest<{ maxResource?: { vcore?: number } }>("/ws/v1/partition/default/queue/root.c")).maxResource?.vcore === 5000,
      20_000,
      100,
    );
    const applied = Date.now();
    await sleep(2500);
    expect(live(await list("c-"))).toHaveLength(8);
    await waitFor("3 pods of c evicted", async () => live(await list("c-")).length === 5, 30_000, 100);
    expect(Date.now() - applied).toBeGreaterThanOrEqual(4000);
    // the rest are kept, also after further checks
    await sleep(3000);
    expect(names(live(await list("c-")))).toEqual(["c-high-0", "c-high-1", "c-high-2", "c-high-3", "c-high-4"]);
    expect(bound(await list("c-"))).toHaveLength(5);

    const events = (await core().listNamespacedEvent({ namespace: NS })).items.filter(
      (e) => e.reason === "Preempted" && e.involvedObject.name!.startsWith("c-"),
    );
    expect(events.map((e) => e.involvedObject.name).sort()).toEqual(["c-low-0", "c-low-1", "c-low-2"]);
    for (const e of events) {
      expect(e.type).toBe("Normal");
      expect(e.message).toBe(
        "Preempted to enforce the lowered max of queue root.c: usage of queue root.c (cpu 8) is above its lowered max (cpu 5) " +
          "and its quota.preemption.delay 5s has passed; queue root.c (no guarantee of its own) stays at or above its guarantee",
      );
    }
    const metrics = await (await fetch(`http://127.0.0.1:${sched!.port}/ws/v1/metrics`)).text();
    expect(metrics).toMatch(/corral_scheduler_quota_preemptions_total\{queue="root\.c"\} 1\n/);
    expect(metrics).toMatch(/corral_scheduler_preemption_evictions_total\{result="evicted",queue="root\.c"\} 3\n/);
    expect(await rest<Record<string, unknown>>("/ws/v1/partition/default/queue/root.c")).toMatchObject({
      allocatedResource: { vcore: 5000 },
    });
  }, 120_000);
});
