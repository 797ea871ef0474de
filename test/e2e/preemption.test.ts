/**
 * Preemption on the real control plane: two fake 4-cpu nodes (no kubelet), queues from the `yunikorn-configs`
 * ConfigMap, the scheduler running under the deploy/scheduler ServiceAccount and RBAC (so the audit log shows the
 * eviction calls are allowed and used). Queue a (guaranteed 4 cpu) is idle while queue b (guaranteed 4 cpu) fills the
 * cluster; a then asks 5 cpu. Victims are evicted through the Eviction API in the version discovery chose
 * (policy/v1beta1 on 1.20). With no kubelet, the test finishes the evicted pods' termination (as a kubelet would, at
 * once) by deleting pods that carry a deletionTimestamp.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { parseAllDocuments } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { k8s } from "../../src/kube/client.js";
import {
  type CorralProcess,
  type Testbed,
  createFakeNodes,
  deleteFakeNodes,
  kubeConfigFor,
  prepareNamespace,
  waitFor,
} from "../../src/testbed/testbed.js";
import {
  GUARANTEED_QUEUES,
  applyQueuesConfig,
  auditedCalls,
  batchPod,
  deleteAllPods,
  finishTerminations,
  renderDeploy,
  resetCluster,
  serviceAccountKubeconfig,
  startScheduler,
  testbed,
} from "./harness.js";

const CONF_NS = "corral-preempt";
const NS = "preempt";
const NODES = "e2e-preempt";

let tb: Testbed;
let admin: k8s.KubeConfig;
let sched: { corral: CorralProcess; port: number } | undefined;
let stopKubelet: (() => void) | undefined;

const core = () => kubeConfigFor(tb, "admin").makeApiClient(k8s.CoreV1Api);

const pod = (name: string, queue: string, app: string) => batchPod(name, { queue, app, schedulerName: "yunikorn" });

async function list(prefix: string): Promise<k8s.V1Pod[]> {
  return (await core().listNamespacedPod({ namespace: NS })).items.filter((p) => p.metadata!.name!.startsWith(prefix));
}
const live = (ps: k8s.V1Pod[]) => ps.filter((p) => !p.metadata?.deletionTimestamp);
const bound = (ps: k8s.V1Pod[]) => live(ps).filter((p) => p.spec?.nodeName);

beforeAll(async () => {
  tb = await testbed();
  admin = kubeConfigFor(tb, "admin");
  await deleteAllPods(tb);
  await prepareNamespace(admin, CONF_NS, []);
  await prepareNamespace(admin, NS, []);
  await applyQueuesConfig(tb, CONF_NS, GUARANTEED_QUEUES);
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
  const l = await core()
    .listNamespacedPod({ namespace: NS })
    .catch(() => undefined);
  await Promise.all(
    (l?.items ?? []).map((x) =>
      core()
        .deleteNamespacedPod({ name: x.metadata!.name!, namespace: NS, gracePeriodSeconds: 0 })
        .catch(() => undefined),
    ),
  );
  await deleteFakeNodes(admin, NODES).catch(() => undefined);
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

    // a asks 5 cpu: only its guarantee (4) is taken back
    for (let i = 0; i < 5; i++) await core().createNamespacedPod({ namespace: NS, body: pod(`a-${i}`, "root.a", "a") });
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

    // the evictions went through the Eviction API under the deploy RBAC: allowed and used
    const { forbidden, used } = await auditedCalls(tb, `system:serviceaccount:${CONF_NS}:corral-scheduler`);
    expect(forbidden).toEqual([]);
    expect(used.has("/pods/eviction/create")).toBe(true);
  }, 180_000);

  it("an opted-out pod (PriorityClass) survives while ordinary ones are chosen; a PodDisruptionBudget blocks a victim, another is taken", async () => {
    const all = await core().listNamespacedPod({ namespace: NS });
    await Promise.all(
      all.items.map((x) =>
        core()
          .deleteNamespacedPod({ name: x.metadata!.name!, namespace: NS, gracePeriodSeconds: 0 })
          .catch(() => undefined),
      ),
    );
    await waitFor("namespace empty", async () => (await core().listNamespacedPod({ namespace: NS })).items.length === 0);
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
});
