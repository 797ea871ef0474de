/**
 * ShimContext against a real SchedulerCore: Kubernetes pods and nodes in (shaped as the API server returns them),
 * core state and ShimAction[] out.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SchedulerCore } from "../../../src/scheduler/core/scheduler.js";
import { type NodeObject, type ShimAction, ShimContext, type ShimOptions } from "../../../src/scheduler/shim/context.js";
import type { PodObject } from "../../../src/scheduler/shim/translate.js";
import { providedQueues } from "../../fixtures/queues.js";
import { TRUST_QUEUES } from "../../fixtures/trust-queues.js";
import { T0, fakeNode, ofKind, shimPod } from "./fixtures.js";
import { derivedApplicationId } from "../../../src/scheduler/shim/app-keys.js";

const GI = 2 ** 30;
const USER_INFO = JSON.stringify({ user: "alice", groups: ["devops"] });

/** A root with one leaf `q` capped at 2 cores; apps are placed only by their provided queue. */
const QUOTA_Q = "{name: q, resources: {max: {vcore: 2}}}";
const QUOTA_CFG = providedQueues([QUOTA_Q]);

interface PodOpts {
  ns?: string;
  uid?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  cpu?: string;
  memory?: string;
  node?: string;
  phase?: string;
  scheduler?: string;
}

function pod(name: string, o: PodOpts = {}): PodObject {
  return shimPod(name, {
    namespace: o.ns ?? "team-a",
    uid: o.uid,
    labels: o.labels,
    annotations: { "yunikorn.apache.org/user.info": USER_INFO, ...(o.annotations ?? {}) },
    created: "2026-01-05T09:00:00Z",
    requests: { cpu: o.cpu ?? "1", memory: o.memory ?? "1Gi" },
    container: "main",
    node: o.node,
    phase: o.phase,
    scheduler: o.scheduler,
  });
}

/** The same pod as the API server shows it after a binding (and optionally a phase change). */
function boundTo(p: PodObject, node: string, phase = "Running"): PodObject {
  return { ...p, spec: { ...p.spec!, nodeName: node }, status: { ...p.status, phase } };
}

const node = (name: string, cpu?: string, memory?: string, unschedulable?: boolean): NodeObject =>
  fakeNode(name, { cpu, memory, unschedulable });

function setup(cfg?: string, opts?: ShimOptions) {
  const clock = { now: T0 };
  const core = new SchedulerCore(() => clock.now, cfg);
  const ctx = new ShimContext(core, opts);
  const part = core.partitions.get("default")!;
  /** vcore millis allocated by the core on a node (0 when none). */
  const used = (n: string) => part.nodes.get(n)?.allocated.vcore ?? 0;
  return { clock, core, ctx, part, used };
}

const uidOf = (p: PodObject) => p.metadata!.uid!;
const binds = (a: ShimAction[]) => ofKind(a, "bind");
const kinds = (a: ShimAction[]) => a.map((x) => x.kind);

// ---------------------------------------------------------------------------------------------------------------

describe("ShimContext standalone scheduling", () => {
  it("nodes then pods: bind actions, never more pods on a node than it holds", () => {
    const { ctx, used, part } = setup();
    // upstream registerNodes: NodeAccepted on each new node, nothing when it is seen again
    const accepted = (name: string) => ({
      kind: "event",
      object: { kind: "Node", name, uid: `node-uid-${name}` },
      type: "Normal",
      reason: "NodeAccepted",
      message: `node ${name} is accepted by the scheduler`,
    });
    expect(ctx.syncNode(node("n1"))).toEqual([accepted("n1")]);
    expect(ctx.syncNode(node("n2"))).toEqual([accepted("n2")]);
    expect(ctx.syncNode(node("n2"))).toEqual([]);
    const pods = Array.from({ length: 10 }, (_, i) => pod(`p${i}`));
    for (const p of pods) expect(ctx.syncPod(p)).toEqual([]);
    expect(ctx.stats()).toMatchObject({ nodes: 2, Asked: 10, applications: 1 });

    const actions = ctx.schedule();
    expect(new Set(kinds(actions))).toEqual(new Set(["bind"]));
    const b = binds(actions);
    expect(b).toHaveLength(8);
    expect(new Set(b.map((x) => x.pod.uid)).size).toBe(8);
    const perNode = new Map<string, number>();
    for (const x of b) perNode.set(x.node, (perNode.get(x.node) ?? 0) + 1);
    expect(Object.fromEntries(perNode)).toEqual({ n1: 4, n2: 4 });
    expect(used("n1")).toBe(4000);
    expect(used("n2")).toBe(4000);
    expect(part.nodes.get("n1")!.allocated.memory).toBe(4 * GI);
    for (const x of b) {
      expect(x.pod).toEqual({ namespace: "team-a", name: x.pod.name, uid: `uid-${x.pod.name}` });
      expect(ctx.tasks.get(x.pod.uid)).toMatchObject({ state: "Allocated", node: x.node, appId: "yunikorn-team-a-autogen" });
    }
    expect(ctx.stats()).toMatchObject({ Allocated: 8, Asked: 2 });
    // nothing more fits: a second pass allocates nothing
    expect(ctx.schedule()).toEqual([]);
    // the app is placed by namespace (DEFAULT_CONFIG tag rule) and carries the user.info identity
    const app = part.apps.get("yunikorn-team-a-autogen")!;
    expect(app.queue.path).toBe("root.team-a");
    expect(app.user).toBe("alice");
    expect(app.groups).toEqual(["devops"]);
  });

  it("bindSucceeded emits Scheduled and marks the task Bound; re-syncing the bound pod does not allocate twice", () => {
    const { ctx, used, part } = setup();
    ctx.syncNode(node("n1"));
    const p = pod("web");
    ctx.syncPod(p);
    const [b] = binds(ctx.schedule());
    expect(b).toEqual({ kind: "bind", pod: { namespace: "team-a", name: "web", uid: "uid-web" }, node: "n1" });

    // a bind result for another node or an unknown pod is ignored
    expect(ctx.bindSucceeded("uid-web", "n2")).toEqual([]);
    expect(ctx.bindSucceeded("uid-nope", "n1")).toEqual([]);

    expect(ctx.bindSucceeded("uid-web", "n1")).toEqual([
      {
        kind: "event",
        object: { kind: "Pod", namespace: "team-a", name: "web", uid: "uid-web" },
        type: "Normal",
        reason: "Scheduled",
        message: "Successfully assigned team-a/web to node n1",
      },
    ]);
    expect(ctx.tasks.get("uid-web")!.state).toBe("Bound");
    // reported once only
    expect(ctx.bindSucceeded("uid-web", "n1")).toEqual([]);

    const before = { ...part.nodes.get("n1")!.allocated };
    expect(before).toEqual({ vcore: 1000, memory: GI, pods: 1 });
    for (let i = 0; i < 3; i++) expect(ctx.syncPod(boundTo(p, "n1"))).toEqual([]);
    expect(part.nodes.get("n1")!.allocated).toEqual(before);
    expect(used("n1")).toBe(1000);
    expect(ctx.tasks.get("uid-web")!.state).toBe("Bound");
    expect(ctx.schedule()).toEqual([]);
    expect(ctx.stats()).toMatchObject({ Bound: 1, nodes: 1, foreignPods: 0, applications: 1 });
  });

  it("the informer seeing the binding before bindSucceeded also settles the task as Bound without a second allocation", () => {
    const { ctx, used } = setup();
    ctx.syncNode(node("n1"));
    const p = pod("web");
    ctx.syncPod(p);
    ctx.schedule();
    expect(ctx.syncPod(boundTo(p, "n1"))).toEqual([]);
    expect(ctx.tasks.get("uid-web")!.state).toBe("Bound");
    expect(used("n1")).toBe(1000);
    expect(ctx.holdReasons()).toEqual([]);
  });

  it("syncPod is idempotent before scheduling: the same pending pod seen many times is one ask", () => {
    const { ctx, part } = setup();
    ctx.syncNode(node("n1"));
    const p = pod("p");
    for (let i = 0; i < 5; i++) expect(ctx.syncPod(p)).toEqual([]);
    expect(ctx.stats()).toMatchObject({ Asked: 1 });
    expect(part.apps.get("yunikorn-team-a-autogen")!.asks.size).toBe(1);
    expect(binds(ctx.schedule())).toHaveLength(1);
  });

  it("pods without uid, nodes without name and pods with malformed requests are not scheduled", () => {
    const { ctx } = setup();
    expect(ctx.syncNode({ metadata: {}, status: { allocatable: { cpu: "4" } } })).toEqual([]);
    expect(ctx.nodes.size).toBe(0);
    const noUid = pod("x");
    delete noUid.metadata!.uid;
    expect(ctx.syncPod(noUid)).toEqual([]);
    const bad = pod("bad", { cpu: "lots" });
    const actions = ctx.syncPod(bad);
    expect(actions).toEqual([
      {
        kind: "event",
        object: { kind: "Pod", namespace: "team-a", name: "bad", uid: "uid-bad" },
        type: "Warning",
        reason: "FailedScheduling",
        message: expect.stringContaining("team-a/bad cannot be scheduled"),
      },
    ]);
    expect(ctx.tasks.size).toBe(0);
  });

  it("a cordoned node gets nothing until it is uncordoned", () => {
    const { ctx, used } = setup();
    ctx.syncNode(node("n1", "4", "8Gi", true));
    ctx.syncPod(pod("a"));
    expect(ctx.schedule()).toEqual([]);
    ctx.syncNode(node("n1", "4", "8Gi", false));
    expect(binds(ctx.schedule())).toEqual([expect.objectContaining({ node: "n1" })]);
    expect(used("n1")).toBe(1000);
    // cordon again: the existing allocation stays, new pods are not placed there
    ctx.syncNode(node("n1", "4", "8Gi", true));
    ctx.syncPod(pod("b"));
    expect(ctx.schedule()).toEqual([]);
    expect(used("n1")).toBe(1000);
  });

  it("property: binds never exceed any node's allocatable, each pod is bound at most once, re-syncs change nothing", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 8 }), { minLength: 1, maxLength: 4 }),
        fc.array(fc.record({ cpu: fc.constantFrom("250m", "500m", "1", "1500m", "2", "3"), mem: fc.constantFrom("256Mi", "1Gi", "2Gi") }), {
          maxLength: 24,
        }),
        (nodeCpus, podSpecs) => {
          const { ctx, part } = setup();
          nodeCpus.forEach((c, i) => ctx.syncNode(node(`n${i}`, String(c), "8Gi")));
          const pods = podSpecs.map((s, i) => pod(`p${i}`, { cpu: s.cpu, memory: s.mem }));
          for (const p of pods) ctx.syncPod(p);
          const b = binds(ctx.schedule());
          expect(new Set(b.map((x) => x.pod.uid)).size).toBe(b.length);
          const cpuOf = (c: string) => (c.endsWith("m") ? Number(c.slice(0, -1)) : Number(c) * 1000);
          const sum = new Map<string, number>();
          for (const x of b) {
            const spec = podSpecs[Number(x.pod.name.slice(1))]!;
            sum.set(x.node, (sum.get(x.node) ?? 0) + cpuOf(spec.cpu));
          }
          nodeCpus.forEach((c, i) => {
            expect(sum.get(`n${i}`) ?? 0).toBeLessThanOrEqual(c * 1000);
            expect(part.nodes.get(`n${i}`)!.allocated.vcore ?? 0).toBe(sum.get(`n${i}`) ?? 0);
            expect(part.nodes.get(`n${i}`)!.allocated.memory ?? 0).toBeLessThanOrEqual(8 * GI);
          });
          for (const x of b) ctx.bindSucceeded(x.pod.uid, x.node);
          const snapshot = nodeCpus.map((_, i) => ({ ...part.nodes.get(`n${i}`)!.allocated }));
          for (const x of b) ctx.syncPod(boundTo(pods[Number(x.pod.name.slice(1))]!, x.node));
          for (const p of pods) if (ctx.tasks.get(uidOf(p))?.state === "Asked") ctx.syncPod(p);
          expect(ctx.schedule()).toEqual([]);
          expect(nodeCpus.map((_, i) => ({ ...part.nodes.get(`n${i}`)!.allocated }))).toEqual(snapshot);
          // a pod bigger than every node is Rejected at once; every other pod is Bound or still Asked
          const biggest = Math.max(...nodeCpus) * 1000;
          const tooBig = podSpecs.filter((s) => cpuOf(s.cpu) > biggest).length;
          const st = ctx.stats();
          expect(st.Rejected ?? 0).toBe(tooBig);
          expect((st.Bound ?? 0) + (st.Asked ?? 0)).toBe(pods.length - tooBig);
        },
      ),
      { numRuns: 60, seed: 20260105 },
    );
  });
});

// ---------------------------------------------------------------------------------------------------------------

// k8shim context.go updateYuniKornPod: a pod with scheduling gates is cached without application or task
describe("ShimContext scheduling gates", () => {
  const gated = (p: PodObject, ...names: string[]): PodObject => ({
    ...p,
    spec: { ...p.spec!, schedulingGates: names.map((name) => ({ name })) },
  });

  it("a gated pod is not asked for (no quota, no node) until its gates are removed; one Normal Scheduling event", () => {
    const { ctx, used } = setup();
    ctx.syncNode(node("n1", "1"));
    const p = pod("web");
    expect(ctx.syncPod(gated(p, "quota.example.com/wait", "data-ready"))).toEqual([
      {
        kind: "event",
        object: expect.objectContaining({ kind: "Pod", namespace: "team-a", name: "web" }),
        type: "Normal",
        reason: "Scheduling",
        message: "waiting for scheduling gates: quota.example.com/wait,data-ready",
      },
    ]);
    expect(ctx.tasks.has(uidOf(p))).toBe(false);
    // the node's only cpu stays free for another pod
    ctx.syncPod(pod("other"));
    expect(binds(ctx.schedule()).map((b) => b.pod.name)).toEqual(["other"]);
    expect(used("n1")).toBe(1000);
    // seen again with one gate left: no second event, still no task
    expect(ctx.syncPod(gated(p, "data-ready"))).toEqual([]);
    expect(ctx.tasks.has(uidOf(p))).toBe(false);
    // gates gone: asked for like any pod
    ctx.deletePod(boundTo(pod("other"), "n1"));
    ctx.syncPod(p);
    expect(binds(ctx.schedule()).map((b) => b.pod.name)).toEqual(["web"]);
  });

  it("a gated pod deleted before its gates go leaves nothing behind, whether its delete or a relist shows it", () => {
    const { ctx } = setup();
    ctx.syncNode(node("n1"));
    const p = gated(pod("web"), "g");
    ctx.syncPod(p);
    ctx.deletePod(p);
    // the same pod object seen again is a new sighting: its event again
    expect(kinds(ctx.syncPod(p))).toEqual(["event"]);
    // a delete missed by the watch: the relist without it forgets it too (else the event would not come again)
    ctx.syncAll([node("n1")], []);
    expect(kinds(ctx.syncPod(p))).toEqual(["event"]);
    // a relist that still holds it is no new sighting
    expect(kinds(ctx.syncAll([node("n1")], [p]))).toEqual([]);
  });
});

// k8shim task.go SetTaskPod: a pod whose resources changed sends its allocation again with the new size
describe("ShimContext in-place resize", () => {
  const resizedTo = (p: PodObject, cpu: string): PodObject => {
    const r = structuredClone(p);
    r.spec!.containers[0]!.resources!.requests = { cpu, memory: "1Gi" };
    r.status = { ...r.status, containerStatuses: [{ name: "main", allocatedResources: { cpu, memory: "1Gi" } } as never] };
    return r;
  };

  it("a bound pod resized in place moves its node's, queue's and user's usage with it, up and down", () => {
    const { ctx, core, part, used } = setup();
    ctx.syncNode(node("n1", "4"));
    const p = pod("web");
    ctx.syncPod(p);
    expect(binds(ctx.schedule())).toHaveLength(1);
    const bound = boundTo(p, "n1");
    ctx.syncPod(bound);
    expect(used("n1")).toBe(1000);
    expect(ctx.syncPod(resizedTo(bound, "3"))).toEqual([]);
    expect(used("n1")).toBe(3000);
    expect(part.root.allocated.vcore).toBe(3000);
    expect(core.usageViews("users")[0]!.queues[0]!.resourceUsage.vcore).toBe(3000);
    ctx.syncPod(resizedTo(bound, "500m"));
    expect(used("n1")).toBe(500);
    // a malformed quantity keeps the last size
    const broken = resizedTo(bound, "lots");
    expect(ctx.syncPod(broken)).toEqual([]);
    expect(used("n1")).toBe(500);
  });

  it("a bound pod's new size is the kubelet's truth: recorded on its node even beyond the node's free room", () => {
    const { ctx, used } = setup();
    ctx.syncNode(node("n1", "4"));
    const [a, b] = [pod("a", { cpu: "2" }), pod("b", { cpu: "2" })];
    ctx.syncPod(a);
    ctx.syncPod(b);
    expect(binds(ctx.schedule())).toHaveLength(2);
    ctx.syncPod(boundTo(a, "n1"));
    ctx.syncPod(boundTo(b, "n1"));
    ctx.syncPod(resizedTo(boundTo(a, "n1"), "3"));
    expect(used("n1")).toBe(5000);
  });

  it("a waiting pod resized asks for its new size", () => {
    const { ctx, used } = setup();
    ctx.syncNode(node("n1", "2"));
    ctx.syncPod(pod("first"));
    expect(binds(ctx.schedule())).toHaveLength(1);
    const p = pod("web", { cpu: "2" });
    ctx.syncPod(p);
    expect(binds(ctx.schedule())).toEqual([]); // 1 cpu free
    expect(ctx.tasks.get(uidOf(p))!.state).toBe("Asked");
    ctx.syncPod(resizedTo(p, "1"));
    expect(binds(ctx.schedule()).map((b) => b.pod.name)).toEqual(["web"]);
    expect(used("n1")).toBe(2000);
  });
});

describe("ShimContext recovery", () => {
  it("a pod already bound is recorded as an allocation and counts against the node before new pods are placed", () => {
    const { ctx, used, part } = setup();
    ctx.syncNode(node("n1"));
    const old = pod("old", { cpu: "3", node: "n1" });
    expect(ctx.syncPod(old)).toEqual([]);
    expect(ctx.tasks.get("uid-old")).toMatchObject({ state: "Bound", node: "n1" });
    expect(used("n1")).toBe(3000);
    // the recovered application is forced in (create.force), placed by its namespace
    expect(part.apps.get("yunikorn-team-a-autogen")!.tags["application.create.force"]).toBe("true");

    for (const n of ["a", "b", "c"]) ctx.syncPod(pod(n));
    const b = binds(ctx.schedule());
    expect(b).toHaveLength(1);
    expect(b[0]!.node).toBe("n1");
    expect(used("n1")).toBe(4000);
    expect(ctx.stats()).toMatchObject({ Bound: 1, Allocated: 1, Asked: 2 });
    // the recovered pod's re-sync is a no-op
    ctx.syncPod(old);
    expect(used("n1")).toBe(4000);
  });

  it("an application whose only pods were orphans or rejected, all deleted, leaves the core (never left New)", () => {
    const { core, ctx, part } = setup();
    const orphan = pod("early", { cpu: "2", node: "n9" });
    ctx.syncPod(orphan);
    const appId = ctx.tasks.get("uid-early")!.appId;
    expect(core.applicationState(appId)).toBe("New");
    ctx.deletePod(orphan);
    // upstream makes no application for an orphan pod: nothing is left behind, and its queue can be cleaned up
    expect(core.applicationState(appId)).toBeUndefined();
    expect(ctx.stats()).toMatchObject({ applications: 0 });
    // an application with a pod whose ask was rejected (larger than any node), then deleted, goes the same way
    ctx.syncNode(node("n1"));
    const big = pod("big", { cpu: "64" });
    ctx.syncPod(big);
    expect(ctx.tasks.get("uid-big")!.state).toBe("Rejected");
    expect(core.applicationState(appId)).toBe("New");
    ctx.deletePod(big);
    expect(core.applicationState(appId)).toBeUndefined();
    expect(part.apps.size).toBe(0);
    // a pod of it coming back later makes the application again
    ctx.syncPod(pod("again"));
    expect(core.applicationState(appId)).toBe("Accepted");
  });

  it("a bound pod whose node is unknown is an Orphan until the node is synced, then Bound", () => {
    const { ctx, used, part } = setup();
    const p = pod("early", { cpu: "2", node: "n9" });
    expect(ctx.syncPod(p)).toEqual([]);
    expect(ctx.tasks.get("uid-early")).toMatchObject({ state: "Orphan", node: "n9" });
    expect(ctx.stats()).toMatchObject({ Orphan: 1 });
    ctx.syncPod(p);
    expect(ctx.tasks.get("uid-early")!.state).toBe("Orphan");

    ctx.syncNode(node("n1"));
    expect(ctx.tasks.get("uid-early")!.state).toBe("Orphan");
    expect(used("n1")).toBe(0);

    ctx.syncNode(node("n9", "2"));
    expect(ctx.tasks.get("uid-early")!.state).toBe("Bound");
    expect(used("n9")).toBe(2000);
    expect(part.nodes.get("n9")!.allocations.size).toBe(1);
    // n9 is full now: a new pod goes to n1
    ctx.syncPod(pod("next"));
    expect(binds(ctx.schedule()).map((x) => x.node)).toEqual(["n1"]);
  });

  it("an orphan that terminates before its node appears is forgotten and never allocated", () => {
    const { ctx, used } = setup();
    const p = pod("gone", { node: "n9" });
    ctx.syncPod(p);
    ctx.syncPod(boundTo(p, "n9", "Succeeded"));
    expect(ctx.tasks.size).toBe(0);
    ctx.syncNode(node("n9"));
    expect(used("n9")).toBe(0);
  });

  it("deleting a node turns its bound pods into orphans and its unbound allocations back into asks", () => {
    const { ctx, used } = setup();
    ctx.syncNode(node("n1"));
    ctx.syncPod(pod("b", { node: "n1" }));
    const a = pod("a");
    ctx.syncPod(a);
    expect(binds(ctx.schedule())).toEqual([expect.objectContaining({ node: "n1", pod: expect.objectContaining({ name: "a" }) })]);
    // upstream deleteNodeInternal: NodeDeleted on the node, once
    expect(ctx.deleteNode("n1")).toEqual([
      {
        kind: "event",
        object: { kind: "Node", name: "n1", uid: "node-uid-n1" },
        type: "Normal",
        reason: "NodeDeleted",
        message: "node n1 is deleted from the scheduler",
      },
    ]);
    expect(ctx.deleteNode("n1")).toEqual([]);
    expect(ctx.tasks.get("uid-b")!.state).toBe("Orphan");
    expect(ctx.tasks.get("uid-a")).toMatchObject({ state: "Asked", node: undefined });
    // the in-flight bind of `a` to n1 reports back late: ignored
    expect(ctx.bindSucceeded("uid-a", "n1")).toEqual([]);
    ctx.syncNode(node("n1"));
    expect(ctx.tasks.get("uid-b")!.state).toBe("Bound");
    expect(used("n1")).toBe(1000);
    expect(binds(ctx.schedule())).toEqual([expect.objectContaining({ node: "n1", pod: expect.objectContaining({ name: "a" }) })]);
    expect(used("n1")).toBe(2000);
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe("ShimContext foreign pods", () => {
  const foreign = (name: string, n: string, cpu = "3") => pod(name, { scheduler: "default-scheduler", node: n, cpu });

  it("pods of another scheduler bound to a node reduce what the core places there; deleting them frees it", () => {
    const { ctx, used, part } = setup();
    ctx.syncNode(node("n1"));
    const f = foreign("f", "n1");
    expect(ctx.syncPod(f)).toEqual([]);
    expect(ctx.tasks.size).toBe(0);
    expect(ctx.stats()).toMatchObject({ foreignPods: 1 });
    expect(part.nodes.get("n1")!.occupied).toEqual({ vcore: 3000, memory: GI, pods: 1 });
    // idempotent
    ctx.syncPod(f);
    expect(part.nodes.get("n1")!.occupied.vcore).toBe(3000);

    for (const n of ["a", "b", "c"]) ctx.syncPod(pod(n));
    expect(binds(ctx.schedule())).toHaveLength(1);
    expect(used("n1")).toBe(1000);

    ctx.deletePod(f);
    expect(ctx.stats()).toMatchObject({ foreignPods: 0 });
    expect(part.nodes.get("n1")!.occupied.vcore).toBe(0);
    expect(binds(ctx.schedule())).toHaveLength(2);
    expect(used("n1")).toBe(3000);
  });

  it("a foreign pod seen before its node is counted when the node arrives; a finished one is dropped", () => {
    const { ctx, part } = setup();
    const f = foreign("f", "n1", "4");
    ctx.syncPod(f);
    ctx.syncNode(node("n1"));
    expect(part.nodes.get("n1")!.occupied.vcore).toBe(4000);
    ctx.syncPod(pod("a"));
    expect(ctx.schedule()).toEqual([]);
    ctx.syncPod(boundTo(f, "n1", "Succeeded"));
    expect(ctx.stats()).toMatchObject({ foreignPods: 0 });
    expect(binds(ctx.schedule())).toHaveLength(1);
  });

  it("a foreign pod that moves to another node moves its occupied resources; unbound foreign pods count nowhere", () => {
    const { ctx, part } = setup();
    ctx.syncNode(node("n1"));
    ctx.syncNode(node("n2"));
    const pending = pod("f", { scheduler: "default-scheduler", cpu: "2" });
    ctx.syncPod(pending);
    expect(ctx.stats()).toMatchObject({ foreignPods: 0 });
    ctx.syncPod(boundTo(pending, "n1"));
    expect(part.nodes.get("n1")!.occupied.vcore).toBe(2000);
    ctx.syncPod(boundTo(pending, "n2"));
    expect(part.nodes.get("n1")!.occupied.vcore).toBe(0);
    expect(part.nodes.get("n2")!.occupied.vcore).toBe(2000);
    expect(ctx.stats()).toMatchObject({ foreignPods: 1 });
  });

  it("lists a node's foreign pods for the REST API as upstream 1.6's foreign allocations (si_helper.go CreateAllocationForForeignPod)", () => {
    const { ctx } = setup();
    ctx.syncNode(node("n1"));
    const f = foreign("f", "n1", "2");
    ctx.syncPod({ ...f, spec: { ...f.spec!, priority: 1000 } });
    // a static pod (owned by its Node) is not preemptable
    const s = foreign("s", "n1", "1");
    ctx.syncPod({ ...s, metadata: { ...s.metadata, ownerReferences: [{ apiVersion: "v1", kind: "Node", name: "n1", uid: "node-uid" }] } });
    ctx.syncPod(foreign("other", "n2"));
    // tags: the pod's (CreateTagsForTask) with `foreign` set to the pod's type, `static` for a static pod
    const tags = (name: string, type: string) => ({
      "kubernetes.io/meta/namespace": "team-a",
      "kubernetes.io/meta/podName": name,
      creationTime: String(Date.parse("2026-01-05T09:00:00Z") / 1000),
      foreign: type,
    });
    expect(ctx.foreignPods("n1")).toEqual([
      {
        uid: "uid-f",
        node: "n1",
        resource: { vcore: 2000, memory: GI, pods: 1 },
        priority: 1000,
        createdMs: Date.parse("2026-01-05T09:00:00Z"),
        preemptable: true,
        tags: tags("f", "default"),
      },
      {
        uid: "uid-s",
        node: "n1",
        resource: { vcore: 1000, memory: GI, pods: 1 },
        priority: 0,
        createdMs: Date.parse("2026-01-05T09:00:00Z"),
        preemptable: false,
        tags: tags("s", "static"),
      },
    ]);
    // a change of priority alone is seen, and of labels; a moved pod leaves the list of its old node
    ctx.syncPod({ ...f, spec: { ...f.spec!, priority: 5 } });
    expect(ctx.foreignPods("n1")[0]!.priority).toBe(5);
    ctx.syncPod({ ...f, metadata: { ...f.metadata, labels: { app: "db" } }, spec: { ...f.spec!, priority: 5 } });
    expect(ctx.foreignPods("n1")[0]!.tags).toEqual({ ...tags("f", "default"), "kubernetes.io/label/app": "db" });
    ctx.syncPod(boundTo(f, "n2"));
    expect(ctx.foreignPods("n1").map((x) => x.uid)).toEqual(["uid-s"]);
    expect(ctx.foreignPods("n2").map((x) => x.uid)).toEqual(["uid-f", "uid-other"]);
    ctx.deletePod(s);
    expect(ctx.foreignPods("n1")).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe("ShimContext hold reasons", () => {
  const inQ = (name: string) => pod(name, { labels: { "yunikorn.apache.org/queue": "root.q", applicationId: "job-1" } });

  it("queue max reached: SchedulingSkipped condition and event naming the queue, reported once; a finished pod frees room", () => {
    const { ctx, part, used } = setup(QUOTA_CFG);
    ctx.syncNode(node("n1"));
    ctx.syncNode(node("n2"));
    const [p1, p2, p3] = [inQ("p1"), inQ("p2"), inQ("p3")];
    for (const p of [p1, p2, p3]) ctx.syncPod(p);
    expect(part.apps.get("job-1")!.queue.path).toBe("root.q");

    const b = binds(ctx.schedule());
    expect(b.map((x) => x.pod.name)).toEqual(["p1", "p2"]);
    for (const x of b) ctx.bindSucceeded(x.pod.uid, x.node);
    expect(ctx.tasks.get("uid-p3")!.state).toBe("Asked");

    const held = ctx.holdReasons();
    expect(held).toEqual([
      {
        kind: "condition",
        pod: { namespace: "team-a", name: "p3", uid: "uid-p3" },
        reason: "SchedulingSkipped",
        message: expect.stringContaining("queue root.q maximum"),
      },
      {
        kind: "event",
        object: { kind: "Pod", namespace: "team-a", name: "p3", uid: "uid-p3" },
        type: "Normal",
        reason: "PodUnschedulable",
        message: expect.stringMatching(/^Task team-a\/p3 is skipped from scheduling because the queue quota has been exceeded: .*root\.q/),
      },
    ]);
    // reported on change only
    expect(ctx.holdReasons()).toEqual([]);
    expect(ctx.schedule()).toEqual([]);
    expect(ctx.holdReasons()).toEqual([]);

    // p1 finishes: its allocation is released and p3 goes on the next pass
    const n1 = b[0]!.node;
    expect(ctx.syncPod(boundTo(p1, n1, "Succeeded"))).toEqual([]);
    expect(ctx.tasks.has("uid-p1")).toBe(false);
    expect(used("n1") + used("n2")).toBe(1000);
    const next = binds(ctx.schedule());
    expect(next).toEqual([expect.objectContaining({ pod: expect.objectContaining({ name: "p3" }) })]);
    expect(used("n1") + used("n2")).toBe(2000);
    expect(ctx.tasks.get("uid-p3")).toMatchObject({ state: "Allocated", held: undefined });
    expect(ctx.holdReasons()).toEqual([]);
    // a finished pod seen again (resync) is not re-created
    expect(ctx.syncPod(boundTo(p1, n1, "Succeeded"))).toEqual([]);
    expect(ctx.tasks.has("uid-p1")).toBe(false);
  });

  it("no node has room: Unschedulable condition and a pending event, once", () => {
    const { ctx } = setup();
    ctx.syncNode(node("n1", "2"));
    for (const n of ["a", "b", "c"]) ctx.syncPod(pod(n));
    expect(binds(ctx.schedule())).toHaveLength(2);
    const held = ctx.holdReasons();
    expect(kinds(held)).toEqual(["condition", "event"]);
    expect(held[0]).toMatchObject({ kind: "condition", pod: { name: "c" }, reason: "Unschedulable" });
    expect(held[1]).toMatchObject({
      kind: "event",
      type: "Normal",
      reason: "PodUnschedulable",
      message: expect.stringMatching(/^Task team-a\/c is pending for the requested resources become available: /),
    });
    expect(ctx.holdReasons()).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe("ShimContext bind failures", () => {
  it("bindFailed rolls the allocation back to an ask, warns, frees the node, and the next pass allocates again", () => {
    const { ctx, used, part } = setup();
    ctx.syncNode(node("n1"));
    ctx.syncPod(pod("p"));
    const [b] = binds(ctx.schedule());
    expect(used("n1")).toBe(1000);
    // a failure for a node the task is not allocated on is ignored
    expect(ctx.bindFailed("uid-p", "n2", "x")).toEqual([]);
    expect(used("n1")).toBe(1000);

    const out = ctx.bindFailed("uid-p", b!.node, "Internal error occurred: boom");
    expect(out).toEqual([
      {
        kind: "event",
        object: { kind: "Pod", namespace: "team-a", name: "p", uid: "uid-p" },
        type: "Warning",
        reason: "PodBindFailure",
        message: "Failed to bind team-a/p to node n1, it will be retried: Internal error occurred: boom",
      },
    ]);
    expect(ctx.tasks.get("uid-p")).toMatchObject({ state: "Asked", node: undefined });
    expect(used("n1")).toBe(0);
    expect(part.nodes.get("n1")!.allocations.size).toBe(0);
    // a second report for the same bind is ignored
    expect(ctx.bindFailed("uid-p", "n1", "again")).toEqual([]);

    expect(binds(ctx.schedule())).toEqual([{ kind: "bind", pod: { namespace: "team-a", name: "p", uid: "uid-p" }, node: "n1" }]);
    expect(used("n1")).toBe(1000);
    expect(ctx.bindSucceeded("uid-p", "n1")).toHaveLength(1);
    expect(ctx.tasks.get("uid-p")!.state).toBe("Bound");
  });

  it("bindFailed with gone=true drops the task and frees the node", () => {
    const { ctx, used } = setup();
    ctx.syncNode(node("n1"));
    ctx.syncPod(pod("p"));
    ctx.schedule();
    expect(ctx.bindFailed("uid-p", "n1", 'pods "p" not found', true)).toEqual([]);
    expect(ctx.tasks.has("uid-p")).toBe(false);
    expect(used("n1")).toBe(0);
    expect(ctx.schedule()).toEqual([]);
    expect(ctx.stats()).toMatchObject({ nodes: 1, foreignPods: 0 });
  });

  it("a pod deleted between the ask and the allocation gives its resources back", () => {
    const { ctx, used } = setup();
    ctx.syncNode(node("n1"));
    const p = pod("p");
    ctx.syncPod(p);
    ctx.deletePod(p);
    expect(ctx.tasks.size).toBe(0);
    expect(ctx.schedule()).toEqual([]);
    expect(used("n1")).toBe(0);
  });

  it("a pod bound elsewhere by someone else: its placement is the truth", () => {
    const { ctx, used } = setup();
    ctx.syncNode(node("n1"));
    ctx.syncNode(node("n2"));
    const p = pod("p");
    ctx.syncPod(p);
    const [b] = binds(ctx.schedule());
    const other = b!.node === "n1" ? "n2" : "n1";
    ctx.syncPod(boundTo(p, other));
    expect(ctx.tasks.get("uid-p")).toMatchObject({ state: "Bound", node: other });
    expect(used(b!.node)).toBe(0);
    expect(used(other)).toBe(1000);
    expect(ctx.bindSucceeded("uid-p", b!.node)).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe("ShimContext rejected asks", () => {
  it("a pod no node can hold is Rejected with TaskRejected + condition; a bigger node makes it schedulable", () => {
    const { ctx, used } = setup();
    ctx.syncNode(node("n1"));
    const out = ctx.syncPod(pod("big", { cpu: "16" }));
    const ref = { namespace: "team-a", name: "big", uid: "uid-big" };
    expect(out).toEqual([
      {
        kind: "event",
        object: { kind: "Pod", ...ref },
        type: "Warning",
        reason: "TaskRejected",
        message: expect.stringMatching(/^Task team-a\/big is rejected by the scheduler: .*more than any node provides/),
      },
      { kind: "condition", pod: ref, reason: "Unschedulable", message: (out[0] as { message: string }).message },
    ]);
    expect(ctx.tasks.get("uid-big")!.state).toBe("Rejected");
    expect(ctx.stats()).toMatchObject({ Rejected: 1 });
    expect(ctx.schedule()).toEqual([]);
    expect(ctx.holdReasons()).toEqual([]);
    // nothing changed: a retry stays rejected and says nothing new
    expect(ctx.retryRejected()).toEqual([]);
    expect(ctx.tasks.get("uid-big")!.state).toBe("Rejected");

    expect(ctx.syncNode(node("huge", "32", "64Gi")).filter((a) => a.kind !== "event" || a.reason !== "NodeAccepted")).toEqual([]);
    expect(ctx.tasks.get("uid-big")).toMatchObject({ state: "Asked", rejection: undefined });
    expect(binds(ctx.schedule())).toEqual([{ kind: "bind", pod: ref, node: "huge" }]);
    expect(used("huge")).toBe(16000);
  });

  it("a node growing its allocatable also retries rejected asks", () => {
    const { ctx, used } = setup();
    ctx.syncNode(node("n1"));
    ctx.syncPod(pod("big", { cpu: "6" }));
    expect(ctx.tasks.get("uid-big")!.state).toBe("Rejected");
    // same node, same capacity: nothing
    expect(ctx.syncNode(node("n1"))).toEqual([]);
    expect(ctx.tasks.get("uid-big")!.state).toBe("Rejected");
    ctx.syncNode(node("n1", "8"));
    expect(ctx.nodes.get("n1")!.capacity.vcore).toBe(8000);
    expect(ctx.tasks.get("uid-big")!.state).toBe("Asked");
    expect(binds(ctx.schedule())).toEqual([expect.objectContaining({ node: "n1" })]);
    expect(used("n1")).toBe(6000);
  });

  it("an application no placement rule accepts is rejected; a config that adds its queue lets retryRejected admit it", () => {
    const { ctx, core, used } = setup(QUOTA_CFG);
    ctx.syncNode(node("n1"));
    const p = pod("x", { labels: { "yunikorn.apache.org/queue": "root.missing", applicationId: "app-x" } });
    const out = ctx.syncPod(p);
    expect(kinds(out)).toEqual(["event", "condition"]);
    expect(out[0]).toMatchObject({
      type: "Warning",
      reason: "ApplicationRejected",
      message: expect.stringContaining("application app-x is rejected by the scheduler"),
    });
    expect(out[1]).toMatchObject({ reason: "Unschedulable" });
    expect(ctx.tasks.get("uid-x")!.state).toBe("Rejected");
    expect(ctx.apps.has("app-x")).toBe(false);
    expect(ctx.retryRejected()).toEqual([]);

    expect(core.updateConfiguration(providedQueues(["{name: missing}", QUOTA_Q]))).toEqual({ ok: true });
    expect(ctx.retryRejected()).toEqual([]);
    expect(ctx.tasks.get("uid-x")!.state).toBe("Asked");
    expect(ctx.apps.get("app-x")!.has("uid-x")).toBe(true);
    expect(core.applicationQueue("app-x")).toBe("root.missing");
    expect(binds(ctx.schedule())).toHaveLength(1);
    expect(used("n1")).toBe(1000);
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe("ShimContext application lifecycle", () => {
  it("an application whose pods all finished is forgotten once Completed, and its id can run again", () => {
    const { ctx, clock, core } = setup();
    ctx.syncNode(node("n1"));
    const p = pod("p", { labels: { applicationId: "job" } });
    ctx.syncPod(p);
    const [b] = binds(ctx.schedule());
    ctx.bindSucceeded("uid-p", b!.node);
    ctx.syncPod(boundTo(p, b!.node, "Succeeded"));
    expect(core.applicationView("job")!.state).toBe("Completing");
    expect(ctx.apps.has("job")).toBe(true);
    clock.now += 31_000;
    ctx.schedule();
    expect(core.applicationView("job")!.state).toBe("Completed");
    expect(ctx.apps.has("job")).toBe(false);
    expect(ctx.stats()).toMatchObject({ applications: 0 });

    ctx.syncPod(pod("p2", { labels: { applicationId: "job" } }));
    expect(ctx.tasks.get("uid-p2")!.state).toBe("Asked");
    expect(binds(ctx.schedule())).toHaveLength(1);
    expect(core.applicationView("job")!.state).toBe("Starting");
  });

  // BUG (src/scheduler/shim/context.ts schedule(), the stateChanges loop: an application is forgotten only when its
  // live-task set is empty; together with src/scheduler/core/partition.ts addAsk, which accepts an ask for a Completed
  // application without reopening it, while tick() already removed that application from its queue's `apps`).
  // A job with one pod running and one pod Rejected (bigger than any node): the running pod finishes, the core moves
  // the application Completing → Completed after 30 s, but the shim keeps the application because the Rejected task
  // is still in its set. When a node big enough appears, retryRejected re-submits the ask: the core accepts it on the
  // Completed application, which is in no queue any more, so it is never allocated (and holdReasons reports nothing)
  // although 32 cores are free. Expected: the ask is scheduled on the big node.
  it("a rejected pod retried after its application completed in the core is scheduled", () => {
    const { ctx, clock, core } = setup();
    ctx.syncNode(node("n1"));
    const small = pod("a", { labels: { applicationId: "job" } });
    ctx.syncPod(small);
    ctx.syncPod(pod("b", { cpu: "16", labels: { applicationId: "job" } }));
    expect(ctx.tasks.get("uid-b")!.state).toBe("Rejected");
    const [bind] = binds(ctx.schedule());
    ctx.bindSucceeded("uid-a", bind!.node);
    ctx.syncPod(boundTo(small, bind!.node, "Succeeded"));
    clock.now += 31_000;
    ctx.schedule();
    expect(core.applicationView("job")!.state).toBe("Completed");
    ctx.syncNode(node("big", "32", "64Gi"));
    expect(ctx.tasks.get("uid-b")!.state).toBe("Asked");
    // fails here: schedule() returns [] (and keeps doing so)
    expect(binds(ctx.schedule())).toEqual([expect.objectContaining({ node: "big", pod: expect.objectContaining({ name: "b" }) })]);
  });

  // BUG, same root cause as above, through an orphan: a bound pod whose node is deleted becomes an Orphan (its core
  // allocation is released, the application goes Completing → Completed 30 s later) but keeps the application alive in
  // the shim. A new pod of that application is then submitted to the Completed core application and never scheduled,
  // although its node is back and has room. Expected: the new pod is bound.
  it("a new pod of an application kept alive by an orphan is scheduled after the core completed it", () => {
    const { ctx, clock, core } = setup();
    ctx.syncNode(node("n1"));
    ctx.syncPod(pod("a", { node: "n1", labels: { applicationId: "job" } }));
    ctx.deleteNode("n1");
    expect(ctx.tasks.get("uid-a")!.state).toBe("Orphan");
    clock.now += 31_000;
    ctx.schedule();
    expect(core.applicationView("job")!.state).toBe("Completed");
    ctx.syncNode(node("n1"));
    expect(ctx.tasks.get("uid-a")!.state).toBe("Bound");
    ctx.syncPod(pod("c", { labels: { applicationId: "job" } }));
    expect(ctx.tasks.get("uid-c")!.state).toBe("Asked");
    // fails here: schedule() returns []
    expect(binds(ctx.schedule())).toEqual([expect.objectContaining({ node: "n1", pod: expect.objectContaining({ name: "c" }) })]);
  });
});

describe("ShimContext options", () => {
  it("a pod without spec.priority gets its PriorityClass value and is allocated first", () => {
    const { ctx, part } = setup(undefined, { priorityClassValue: (n) => (n === "high" ? 1000 : undefined) });
    ctx.syncNode(node("n1", "1"));
    const low = pod("low", { labels: { applicationId: "job" } });
    const high = pod("high", { labels: { applicationId: "job" } });
    high.spec!.priorityClassName = "high";
    const unknown = pod("unknown", { labels: { applicationId: "job" } });
    unknown.spec!.priorityClassName = "nope";
    ctx.syncPod(low);
    ctx.syncPod(unknown);
    ctx.syncPod(high);
    expect(ctx.tasks.get("uid-high")!.ask.priority).toBe(1000);
    expect(ctx.tasks.get("uid-unknown")!.ask.priority).toBe(0);
    expect(part.apps.get("job")!.asks.get("uid-high")!.priority).toBe(1000);
    expect(binds(ctx.schedule()).map((b) => b.pod.name)).toEqual(["high"]);
  });

  it("namespace annotations become application tags; a custom scheduler name decides which pods are managed", () => {
    const ns = { "yunikorn.apache.org/namespace.quota": '{"cpu": "2"}', "yunikorn.apache.org/parentqueue": "root.tenants", other: "x" };
    const { ctx, part } = setup(undefined, { schedulerName: "corral", namespaceAnnotations: (n) => (n === "team-a" ? ns : undefined) });
    ctx.syncNode(node("n1"));
    expect(ctx.syncPod(pod("ignored"))).toEqual([]);
    expect(ctx.tasks.size).toBe(0);
    ctx.syncPod(pod("mine", { scheduler: "corral" }));
    const app = part.apps.get("yunikorn-team-a-autogen")!;
    expect(app.tags).toMatchObject({
      namespace: "team-a",
      "namespace.resourcequota": '{"resources":{"vcore":{"value":2000}}}',
      "namespace.parentqueue": "root.tenants",
    });
    expect(Object.values(app.tags)).not.toContain("x");
    expect(binds(ctx.schedule())).toHaveLength(1);
  });

  it("a namespace quota caps the namespace's dynamic queue (tag placement); configured queues keep their own max", () => {
    const ns = { "yunikorn.apache.org/namespace.quota": '{"cpu": "2", "memory": "100Gi"}', "yunikorn.apache.org/namespace.maxApps": "5" };
    const { ctx, part } = setup(undefined, { namespaceAnnotations: (n) => (n === "team-a" ? ns : undefined) });
    ctx.syncNode(node("n1"));
    for (const i of [1, 2, 3]) ctx.syncPod(pod(`q${i}`));
    expect(binds(ctx.schedule())).toHaveLength(2);
    const q = part.find("root.team-a")!;
    expect(q.max).toEqual({ vcore: 2000, memory: 100 * GI });
    expect(q.maxApps).toBe(5);
    const held = ctx.holdReasons().find((a) => a.kind === "condition");
    expect(held).toMatchObject({ reason: "SchedulingSkipped", pod: { name: "q3" } });
    expect((held as { message: string }).message).toContain("root.team-a");
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe("ShimContext plugin mode (extender verbs)", () => {
  const ALL = ["n1", "n2", "n3"];
  const managed = (name: string, extra: PodOpts = {}) => pod(name, { ...extra, labels: { applicationId: "a1", ...(extra.labels ?? {}) } });
  const plugin = (cfg?: string) => {
    const s = setup(cfg, { mode: "plugin" });
    for (const n of ALL) s.ctx.syncNode(node(n));
    return s;
  };

  it("a pod without an application id passes with every candidate unchanged", () => {
    const { ctx } = plugin();
    const p = pod("plain");
    expect(ctx.applicationId(p)).toBeUndefined();
    const cands = ["n3", "n1", "zz"];
    const r = ctx.filter(p, cands);
    expect(r).toEqual({
      result: { Nodes: null, NodeNames: ["n3", "n1", "zz"], FailedNodes: {}, FailedAndUnresolvableNodes: {}, Error: "" },
      actions: [],
    });
    expect(r.result.NodeNames).not.toBe(cands);
    expect(ctx.tasks.size).toBe(0);
    // yunikorn.apache.org/ignore-application no longer defers a pod with an application id to default scheduling: YuniKorn
    // removed it (k8shim YUNIKORN-3324, in 1.9), and any tenant could set it to leave her limits
    const ignored = managed("ign", { annotations: { "yunikorn.apache.org/ignore-application": "true" } });
    expect(ctx.applicationId(ignored)).toBe("a1");
    // kube-scheduler asks the bind verb for it: allowed for the pod as the informer holds it
    expect(ctx.bindAllowed("uid-plain", "n2", p)).toBeUndefined();
    // default scheduling binds it: it is a foreign pod then
    ctx.syncPod(boundTo(p, "n2"));
    expect(ctx.stats()).toMatchObject({ foreignPods: 1 });
  });

  it("attack: the bind verb (reachable by anyone who reaches the port) binds no pod kube-scheduler would not have", () => {
    const { ctx } = plugin();
    const p = pod("plain");
    // not (yet) in the informer cache, or another pod's uid
    expect(ctx.bindAllowed("uid-plain", "n1")).toContain("not known to the scheduler");
    expect(ctx.bindAllowed("uid-forged", "n1", p)).toContain("not known to the scheduler");
    // a pod of another scheduler
    expect(ctx.bindAllowed("uid-plain", "n1", pod("plain", { scheduler: "default-scheduler" }))).toContain(
      "names scheduler default-scheduler",
    );
    // already bound
    expect(ctx.bindAllowed("uid-plain", "n1", boundTo(p, "n2"))).toContain("already bound to n2");
    // a managed pod without an allocation (held by its limits): only the node the scheduler allocated
    expect(ctx.bindAllowed("uid-m", "n1", managed("m"))).toContain("has no allocation");
    // a node it does not fit (a taint it does not tolerate) or that does not exist
    ctx.syncNode({ ...node("tainted"), spec: { taints: [{ key: "node-role.kubernetes.io/master", effect: "NoSchedule" }] } });
    expect(ctx.bindAllowed("uid-plain", "tainted", p)).toContain("had taint {node-role.kubernetes.io/master: }");
    expect(ctx.bindAllowed("uid-plain", "nowhere", p)).toContain("unknown node nowhere");
  });

  it("attack: a forged filter body (a made-up uid and user.info) creates no task; a bind of a real pod under a task's uid is refused", () => {
    const { ctx, part } = plugin();
    const real = managed("held", { cpu: "3" });
    // the body names bob and a uid of its own; the informer holds another pod (or none) under that name
    const forged = managed("held", { uid: "uid-forged", cpu: "100m", annotations: { "yunikorn.apache.org/user.info": '{"user":"bob"}' } });
    expect(ctx.filterRequest(forged, ALL, real).result).toMatchObject({ NodeNames: [], Error: "" });
    expect(ctx.filterRequest(forged, ALL, undefined).result.NodeNames).toEqual([]);
    expect(ctx.tasks.size).toBe(0);
    expect(part.apps.size).toBe(0);
    // decided on the informer's pod, not on the body
    const live = managed("ok", { cpu: "100m" });
    const claimed = { ...live, metadata: { ...live.metadata, annotations: { "yunikorn.apache.org/user.info": '{"user":"bob"}' } } };
    expect(ctx.filterRequest(claimed, ALL, live).result.NodeNames).toHaveLength(1);
    expect(ctx.tasks.get("uid-ok")!.user).toBe("alice");
    // a task allocated under uid-ok cannot be used to bind another pod of the same name
    const node = ctx.tasks.get("uid-ok")!.node!;
    const other = managed("ok", { uid: "uid-other", cpu: "3" });
    expect(ctx.bindAllowed("uid-ok", node, other)).toContain("not known to the scheduler");
    expect(ctx.bindAllowed("uid-ok", node, live)).toBeUndefined();
  });

  it("a managed pod: filter runs a cycle and answers its allocated node; a second filter rolls back; bind verb checks", () => {
    const { ctx, used } = plugin();
    const p = managed("m");
    expect(ctx.applicationId(p)).toBe("a1");
    const { result, actions } = ctx.filter(p, ALL);
    expect(actions).toEqual([]);
    const t = ctx.tasks.get("uid-m")!;
    expect(t.state).toBe("InProgress");
    const allocated = t.node!;
    expect(ALL).toContain(allocated);
    expect(Object.keys(result).sort()).toEqual(["Error", "FailedAndUnresolvableNodes", "FailedNodes", "NodeNames", "Nodes"]);
    expect(result).toEqual({
      Nodes: null,
      NodeNames: [allocated],
      FailedNodes: Object.fromEntries(ALL.filter((n) => n !== allocated).map((n) => [n, "Pod is not fit for node"])),
      FailedAndUnresolvableNodes: Object.fromEntries(ALL.filter((n) => n !== allocated).map((n) => [n, "Pod is not fit for node"])),
      Error: "",
    });
    expect(used(allocated)).toBe(1000);

    // the bind verb: only on the in-progress node
    expect(ctx.bindAllowed("uid-m", allocated, p)).toBeUndefined();
    const other = ALL.find((n) => n !== allocated)!;
    expect(ctx.bindAllowed("uid-m", other, p)).toEqual(expect.stringContaining(`has no allocation on node ${other}`));
    expect(ctx.bindAllowed("uid-m", other, p)).toContain(`allocated on ${allocated}`);
    expect(ctx.bindAllowed("uid-unknown", other)).toContain("not known to the scheduler");

    // seen again while in progress: kube-scheduler gave up on it
    const again = ctx.filter(p, ALL);
    expect(again.result).toEqual({
      Nodes: null,
      NodeNames: [],
      Error: "",
      FailedNodes: Object.fromEntries(ALL.map((n) => [n, "Pod is not ready for scheduling"])),
      FailedAndUnresolvableNodes: Object.fromEntries(ALL.map((n) => [n, "Pod is not ready for scheduling"])),
    });
    expect(again.actions).toEqual([expect.objectContaining({ kind: "event", type: "Warning", reason: "PodBindFailure" })]);
    expect(ctx.tasks.get("uid-m")).toMatchObject({ state: "Asked", node: undefined, refused: true });
    expect(used(allocated)).toBe(0);
    expect(ctx.bindAllowed("uid-m", allocated, p)).toEqual(expect.stringContaining("state Asked"));

    // the next attempt gets an allocation again, confirmed by the bind verb
    const third = ctx.filter(p, ALL);
    const node2 = ctx.tasks.get("uid-m")!.node!;
    expect(third.result.NodeNames).toEqual([node2]);
    expect(ctx.tasks.get("uid-m")!.state).toBe("InProgress");
    expect(ctx.bindAllowed("uid-m", node2, p)).toBeUndefined();
    // plugin mode: kube-scheduler reports its own Scheduled event, the shim adds none
    expect(ctx.bindSucceeded("uid-m", node2)).toEqual([]);
    expect(ctx.tasks.get("uid-m")!.state).toBe("Bound");
    ctx.syncPod(boundTo(p, node2));
    expect(used(node2)).toBe(1000);
    expect(ALL.reduce((s, n) => s + used(n), 0)).toBe(1000);
  });

  it("plugin mode never emits bind actions from schedule()", () => {
    const { ctx } = plugin();
    ctx.syncPod(managed("m"));
    expect(ctx.schedule()).toEqual([]);
    expect(ctx.tasks.get("uid-m")!.state).toBe("Allocated");
  });

  it("the allocated node is not among the candidates: reject all, then accept when it is offered", () => {
    const { ctx } = setup(undefined, { mode: "plugin" });
    ctx.syncNode(node("n1"));
    const p = managed("m");
    const r = ctx.filter(p, ["n2", "n3"]);
    expect(r.result).toEqual({
      Nodes: null,
      NodeNames: [],
      FailedNodes: { n2: "Pod is not fit for node", n3: "Pod is not fit for node" },
      FailedAndUnresolvableNodes: { n2: "Pod is not fit for node", n3: "Pod is not fit for node" },
      Error: "",
    });
    expect(ctx.tasks.get("uid-m")).toMatchObject({ state: "Allocated", node: "n1", refused: true });
    expect(ctx.filter(p, ["n2", "n1"]).result).toMatchObject({
      NodeNames: ["n1"],
      FailedAndUnresolvableNodes: { n2: "Pod is not fit for node" },
    });
    expect(ctx.tasks.get("uid-m")!.state).toBe("InProgress");
  });

  it("a refused pod that later gets an allocation is activated", () => {
    const { ctx } = setup(undefined, { mode: "plugin" });
    const p = managed("m");
    const r = ctx.filter(p, ["n1"]);
    expect(r.result.NodeNames).toEqual([]);
    expect(r.result.FailedAndUnresolvableNodes).toEqual({ n1: expect.any(String) });
    expect(ctx.tasks.get("uid-m")).toMatchObject({ state: "Asked", refused: true });
    ctx.syncNode(node("n1"));
    expect(ctx.schedule()).toEqual([{ kind: "activate", pod: { namespace: "team-a", name: "m", uid: "uid-m" }, node: "n1" }]);
    expect(ctx.filter(p, ["n1"]).result.NodeNames).toEqual(["n1"]);
  });

  it('a pod held by its queue quota is refused with "Pod doesn\'t fit within queue"', () => {
    const { ctx } = plugin(QUOTA_CFG);
    const q = (n: string) => managed(n, { labels: { "yunikorn.apache.org/queue": "root.q" } });
    expect(ctx.filter(q("a"), ALL).result.NodeNames).toHaveLength(1);
    expect(ctx.filter(q("b"), ALL).result.NodeNames).toHaveLength(1);
    const r = ctx.filter(q("c"), ALL);
    expect(r.result).toEqual({
      Nodes: null,
      NodeNames: [],
      FailedNodes: Object.fromEntries(ALL.map((n) => [n, "Pod doesn't fit within queue"])),
      Error: "",
      FailedAndUnresolvableNodes: Object.fromEntries(ALL.map((n) => [n, "Pod doesn't fit within queue"])),
    });
    expect(ctx.tasks.get("uid-c")).toMatchObject({ state: "Asked", refused: true });
  });

  it("in plugin mode only an explicit application id makes a pod managed", () => {
    const { ctx } = plugin();
    expect(ctx.applicationId(pod("x", { labels: { "yunikorn.apache.org/app-id": "canon", applicationId: "legacy" } }))).toBe("canon");
    expect(ctx.applicationId(pod("x", { annotations: { "yunikorn.apache.org/app-id": "ann" } }))).toBe("ann");
    expect(ctx.applicationId(pod("x", { labels: { "spark-app-selector": "spark-1" } }))).toBe("spark-1");
    expect(ctx.applicationId(pod("x", { labels: { applicationId: "a" }, scheduler: "default-scheduler" }))).toBeUndefined();
    // standalone generates one
    const { ctx: sa } = setup();
    expect(sa.applicationId(pod("x"))).toBe("yunikorn-team-a-autogen");
    // generateUniqueAppId on (read with the ConfigMaps at start): one application per pod, from its UID
    sa.setGenerateUniqueAppIds(true);
    expect(sa.applicationId(pod("x", { uid: "uid-x" }))).toBe("team-a-uid-x");
    const { ctx: unique } = setup(undefined, { generateUniqueAppIds: true });
    expect(unique.applicationId(pod("y", { uid: "uid-y" }))).toBe("team-a-uid-y");
  });
});

describe("hold-reason sweep", () => {
  it("a large backlog is reported over several calls, each pod once", () => {
    const { ctx } = setup(QUOTA_CFG);
    ctx.syncNode(node("n1"));
    for (let i = 0; i < 7; i++) ctx.syncPod(pod(`h${i}`, { labels: { "yunikorn.apache.org/queue": "root.q" } }));
    ctx.schedule();
    const names = (acts: ShimAction[]) => acts.filter((a) => a.kind === "condition").map((a) => (a as { pod: { name: string } }).pod.name);
    const first = names(ctx.holdReasons(2));
    const second = names(ctx.holdReasons(2));
    const third = names(ctx.holdReasons(2));
    expect(first).toHaveLength(2);
    expect(second).toHaveLength(2);
    expect(third).toHaveLength(1);
    expect(new Set([...first, ...second, ...third]).size).toBe(5);
    expect(names(ctx.holdReasons(2))).toEqual([]);
  });
});

describe("syncAll (recovery and resync)", () => {
  it("bound pods become allocations before anything is asked; what vanished from the lists is removed", () => {
    const { ctx, part } = setup();
    // newest first in the list: sorting by creation makes the bound pod an allocation first
    const bound = pod("old-bound", { node: "n1" });
    bound.metadata!.creationTimestamp = "2026-01-05T08:00:00Z";
    const waiting = pod("new-waiting");
    const foreign = pod("web", { scheduler: "default-scheduler", node: "n1", cpu: "2" });
    ctx.syncAll([node("n1"), node("n2")], [waiting, foreign, bound]);
    expect(ctx.tasks.get("uid-old-bound")).toMatchObject({ state: "Bound", node: "n1" });
    expect(ctx.tasks.get("uid-new-waiting")!.state).toBe("Asked");
    expect(part.nodes.get("n1")!.occupied.vcore).toBe(2000);
    // a resync where the foreign pod, the waiting pod and node n2 are gone (their delete events were missed)
    ctx.syncAll([node("n1")], [bound]);
    expect(ctx.tasks.has("uid-new-waiting")).toBe(false);
    expect(part.nodes.get("n1")!.occupied.vcore ?? 0).toBe(0);
    expect(ctx.nodes.has("n2")).toBe(false);
    expect(ctx.stats()).toMatchObject({ nodes: 1, foreignPods: 0, Bound: 1 });
  });
});

// ---------------------------------------------------------------------------------------------------------------

/** A pod of `user` in `ns` naming application `app` (none: the namespace's generated id). */
function userPod(
  name: string,
  o: { ns: string; user: string; app?: string; queue?: string; cpu?: string; node?: string; created?: string; label?: string },
): PodObject {
  const labels: Record<string, string> = {};
  if (o.app) labels[o.label ?? "applicationId"] = o.app;
  if (o.queue) labels["yunikorn.apache.org/queue"] = o.queue;
  const p = pod(name, {
    ns: o.ns,
    labels,
    cpu: o.cpu,
    node: o.node,
    annotations: { "yunikorn.apache.org/user.info": JSON.stringify({ user: o.user, groups: [] }) },
  });
  if (o.created) p.metadata!.creationTimestamp = o.created;
  return p;
}

const events = (a: ShimAction[]) => ofKind(a, "event");

describe("ShimContext application keying: a pod never joins an application of another namespace or user", () => {
  type Row = { ns: string; user: string; app?: string; queue?: string; label?: string };
  it.each<{ name: string; pods: Row[]; expected: { id: string; user: string; queue: string; event?: "Warning" | "Normal" }[] }>([
    {
      name: "one user's pods in one namespace share the application",
      pods: [
        { ns: "team-b", user: "bob", app: "etl" },
        { ns: "team-b", user: "bob", app: "etl" },
      ],
      expected: [
        { id: "etl", user: "bob", queue: "root.tenants.team-b" },
        { id: "etl", user: "bob", queue: "root.tenants.team-b" },
      ],
    },
    {
      name: "alice reuses bob's applicationId from her namespace",
      pods: [
        { ns: "team-b", user: "bob", app: "spark-bob-1", queue: "root.teamb" },
        { ns: "team-a", user: "alice", app: "spark-bob-1", queue: "root.teamb" },
      ],
      expected: [
        { id: "spark-bob-1", user: "bob", queue: "root.teamb" },
        { id: "spark-bob-1~team-a~alice", user: "alice", queue: "root.tenants.team-a", event: "Warning" },
      ],
    },
    {
      name: "alice names bob's generated id",
      pods: [
        { ns: "team-b", user: "bob" },
        { ns: "team-a", user: "alice", app: "yunikorn-team-b-autogen" },
      ],
      expected: [
        { id: "yunikorn-team-b-autogen", user: "bob", queue: "root.tenants.team-b" },
        { id: "yunikorn-team-b-autogen~team-a~alice", user: "alice", queue: "root.tenants.team-a", event: "Warning" },
      ],
    },
    {
      name: "shared namespace, generated id: each user has an application",
      pods: [
        { ns: "shared", user: "alice" },
        { ns: "shared", user: "bob" },
        { ns: "shared", user: "alice" },
      ],
      expected: [
        { id: "yunikorn-shared-autogen", user: "alice", queue: "root.tenants.shared" },
        { id: "yunikorn-shared-autogen~shared~bob", user: "bob", queue: "root.tenants.shared", event: "Normal" },
        { id: "yunikorn-shared-autogen", user: "alice", queue: "root.tenants.shared" },
      ],
    },
    {
      name: "Spark in a single-user namespace: driver and executors (spark-app-selector) share the application",
      pods: [
        { ns: "team-b", user: "bob", app: "spark-42", label: "spark-app-selector" },
        { ns: "team-b", user: "bob", app: "spark-42", label: "spark-app-selector" },
      ],
      expected: [
        { id: "spark-42", user: "bob", queue: "root.tenants.team-b" },
        { id: "spark-42", user: "bob", queue: "root.tenants.team-b" },
      ],
    },
    {
      name: "Spark executors created by the driver's service account are charged to it",
      pods: [
        { ns: "team-b", user: "bob", app: "spark-42", label: "spark-app-selector" },
        { ns: "team-b", user: "system:serviceaccount:team-b:spark", app: "spark-42", label: "spark-app-selector" },
      ],
      expected: [
        { id: "spark-42", user: "bob", queue: "root.tenants.team-b" },
        {
          id: "spark-42~team-b~system:serviceaccount:team-b:spark",
          user: "system:serviceaccount:team-b:spark",
          queue: "root.tenants.team-b",
          event: "Normal",
        },
      ],
    },
    {
      name: "ids differing only by case are different applications",
      pods: [
        { ns: "team-b", user: "bob", app: "etl" },
        { ns: "team-a", user: "alice", app: "ETL" },
      ],
      expected: [
        { id: "etl", user: "bob", queue: "root.tenants.team-b" },
        { id: "ETL", user: "alice", queue: "root.tenants.team-a" },
      ],
    },
    {
      name: "a very long id (as an annotation can carry) held by another user: alice gets her own, bounded derived id",
      pods: [
        { ns: "team-b", user: "bob", app: "j".repeat(400), label: "yunikorn.apache.org/app-id" },
        { ns: "team-a", user: "alice", app: "j".repeat(400), label: "yunikorn.apache.org/app-id" },
      ],
      expected: [
        { id: "j".repeat(400), user: "bob", queue: "root.tenants.team-b" },
        {
          id: derivedApplicationId({ namespace: "team-a", user: "alice", applicationId: "j".repeat(400) }),
          user: "alice",
          queue: "root.tenants.team-a",
          event: "Warning",
        },
      ],
    },
    {
      name: "an id spelled like another key's derived id does not capture that key",
      pods: [
        { ns: "team-b", user: "bob", app: "x" },
        { ns: "team-a", user: "alice", app: "x~team-c~bob", label: "yunikorn.apache.org/app-id" },
        { ns: "team-c", user: "bob", app: "x" },
      ],
      expected: [
        { id: "x", user: "bob", queue: "root.tenants.team-b" },
        { id: "x~team-c~bob", user: "alice", queue: "root.tenants.team-a" },
        { id: "x~team-c~bob~2", user: "bob", queue: "root.tenants.team-c", event: "Warning" },
      ],
    },
  ])("$name", ({ pods, expected }) => {
    const { ctx, part } = setup(TRUST_QUEUES);
    ctx.syncNode(node("n1", "16", "64Gi"));
    pods.forEach((r, i) => {
      const actions = ctx.syncPod(userPod(`p${i}`, { ...r, cpu: "100m" }));
      const t = ctx.tasks.get(`uid-p${i}`)!;
      const e = expected[i]!;
      expect({ id: t.appId, state: t.state }).toEqual({ id: e.id, state: "Asked" });
      expect(t.podAppId).toBe(r.app ?? `yunikorn-${r.ns}-autogen`);
      const app = part.apps.get(e.id)!;
      expect({ user: app.user, queue: app.queue.path }).toEqual({ user: e.user, queue: e.queue });
      const ev = events(actions);
      if (!e.event) expect(ev).toEqual([]);
      else {
        expect(ev).toHaveLength(1);
        expect(ev[0]).toMatchObject({
          type: e.event,
          reason: "ApplicationNotJoined",
          object: { kind: "Pod", namespace: r.ns, name: `p${i}` },
        });
        expect(ev[0]!.message).toContain(`runs as its own application ${e.id}, charged to user ${r.user}`);
        // the owner of the other application is not named (beyond what the id itself says)
        const owner = part.apps.get(t.podAppId)!;
        const rest = ev[0]!.message.split(t.podAppId).join("<id>");
        if (owner.user !== r.user) expect(rest).not.toContain(owner.user);
        if (owner.tags.namespace !== r.ns) expect(rest).not.toContain(owner.tags.namespace);
        expect(actions).toContainEqual(
          expect.objectContaining({ kind: "notJoined", podApplicationId: t.podAppId, applicationId: e.id, user: r.user }),
        );
      }
    });
    // scheduled: every allocation is charged to the user of its own pod
    ctx.schedule();
    const usage = new Map(part.limits.snapshot("users"));
    for (const [u, byPath] of usage) {
      const mine = pods.filter((r) => r.user === u).length;
      expect(byPath.get("root")?.res.vcore ?? 0).toBe(mine * 100);
    }
  });

  it("attack: a queue annotation naming root.@recovery@ or an ACL-protected queue does not place alice there", () => {
    const { ctx, part } = setup(TRUST_QUEUES);
    ctx.syncNode(node("n1", "16", "64Gi"));
    for (const [name, queue] of [
      ["rec", "root.@recovery@"],
      ["acl", "root.teamb"],
    ] as const) {
      const p = userPod(name, { ns: "team-a", user: "alice", app: name, cpu: "100m" });
      p.metadata!.annotations!["yunikorn.apache.org/queue"] = queue;
      ctx.syncPod(p);
      expect(part.apps.get(name)!.queue.path).toBe("root.tenants.team-a");
    }
    expect(part.find("root.@recovery@")).toBeUndefined();
  });

  it("attack: a pod that arrived bound puts its application in root.@recovery@; pending pods of it are not scheduled there", () => {
    // only `provided` without create: root.nope places nothing, so the bound pod's (forced) application is recovered
    const { ctx, part } = setup(QUOTA_CFG);
    ctx.syncNode(node("n1", "16", "64Gi"));
    const labels = { applicationId: "esc", "yunikorn.apache.org/queue": "root.nope" };
    ctx.syncPod(pod("bound", { labels, node: "n1" }));
    expect(part.apps.get("esc")!.queue.path).toBe("root.@recovery@");
    const actions = ctx.syncPod(pod("more", { labels, cpu: "8" }));
    expect(ctx.tasks.get("uid-more")!.state).toBe("Rejected");
    expect(events(actions)[0]!.message).toContain("root.@recovery@");
    expect(binds(ctx.schedule())).toEqual([]);
  });

  it("attack: alice names team-b's namespace queue from a namespace with a larger quota; team-b's limits stay", () => {
    const quotas: Record<string, Record<string, string>> = {
      "team-a": { "yunikorn.apache.org/namespace.quota": '{"cpu": "10"}', "yunikorn.apache.org/namespace.maxApps": "50" },
      "team-b": { "yunikorn.apache.org/namespace.quota": '{"cpu": "1"}', "yunikorn.apache.org/namespace.maxApps": "1" },
    };
    const { ctx, part } = setup(TRUST_QUEUES, { namespaceAnnotations: (n) => quotas[n] });
    ctx.syncNode(node("n1", "16", "64Gi"));
    ctx.syncPod(userPod("b1", { ns: "team-b", user: "bob", app: "etl", cpu: "1" }));
    ctx.syncPod(userPod("a1", { ns: "team-a", user: "alice", app: "mine", queue: "root.tenants.team-b", cpu: "100m" }));
    expect(part.apps.get("mine")!.queue.path).toBe("root.tenants.team-b");
    const q = part.find("root.tenants.team-b")!;
    expect([q.max, q.maxApps]).toEqual([{ vcore: 1000 }, 1]);
    // bob's second pod is still held by his namespace's 1-cpu quota
    ctx.syncPod(userPod("b2", { ns: "team-b", user: "bob", app: "etl", cpu: "1" }));
    expect(binds(ctx.schedule()).map((b) => b.pod.name)).toEqual(["b1"]);
  });

  it("alice's 3-cpu pod with bob's applicationId is held by her own limit; bob's usage and queue are untouched", () => {
    const { ctx, part } = setup(TRUST_QUEUES);
    ctx.syncNode(node("n1", "8", "64Gi"));
    ctx.syncPod(userPod("driver", { ns: "team-b", user: "bob", app: "spark-bob-1", queue: "root.teamb", cpu: "1" }));
    expect(binds(ctx.schedule())).toHaveLength(1);
    ctx.syncPod(userPod("steal", { ns: "team-a", user: "alice", app: "spark-bob-1", queue: "root.teamb", cpu: "3" }));
    expect(binds(ctx.schedule())).toEqual([]);
    const held = ctx.holdReasons();
    expect(held).toContainEqual(
      expect.objectContaining({ kind: "condition", reason: "SchedulingSkipped", message: "user alice quota reached on root" }),
    );
    expect(part.find("root.teamb")!.allocated.vcore).toBe(1000);
    expect(part.limits.snapshot("users").get("bob")!.get("root")!.res.vcore).toBe(1000);
    expect(part.apps.get("spark-bob-1")!.asks.size).toBe(1);
    expect(ctx.applications()).toEqual([
      {
        applicationID: "spark-bob-1",
        podApplicationID: "spark-bob-1",
        namespace: "team-b",
        user: "bob",
        tasks: 1,
        overLimitAllocations: [],
      },
      {
        applicationID: "spark-bob-1~team-a~alice",
        podApplicationID: "spark-bob-1",
        namespace: "team-a",
        user: "alice",
        tasks: 1,
        overLimitAllocations: [],
      },
    ]);
  });

  it("recovery keeps the owner of a plain id whatever the list order (oldest first, then namespace/name)", () => {
    const pods = [
      userPod("b-1", { ns: "team-b", user: "bob", app: "etl", node: "n1", created: "2026-01-05T08:00:00Z" }),
      userPod("a-1", { ns: "team-a", user: "alice", app: "etl", node: "n1", created: "2026-01-05T08:00:05Z" }),
      userPod("a-0", { ns: "team-a", user: "alice", app: "same-second", node: "n1", created: "2026-01-05T08:00:07Z" }),
      userPod("b-0", { ns: "team-b", user: "bob", app: "same-second", node: "n1", created: "2026-01-05T08:00:07Z" }),
    ];
    const mapping = (order: PodObject[]) => {
      const { ctx } = setup(TRUST_QUEUES);
      ctx.syncAll([node("n1", "16", "64Gi")], order);
      return Object.fromEntries([...ctx.tasks.values()].map((t) => [t.pod.name, t.appId]));
    };
    const expected = { "b-1": "etl", "a-1": "etl~team-a~alice", "a-0": "same-second", "b-0": "same-second~team-b~bob" };
    expect(mapping(pods)).toEqual(expected);
    expect(mapping([...pods].reverse())).toEqual(expected);
  });

  it("a plain id passes to another key only once the core no longer holds the first owner's application", () => {
    const { ctx, clock, part, core } = setup(TRUST_QUEUES);
    ctx.syncNode(node("n1", "16", "64Gi"));
    const b = userPod("b", { ns: "team-b", user: "bob", app: "etl" });
    ctx.syncPod(b);
    ctx.schedule();
    ctx.syncPod(boundTo(b, "n1", "Succeeded"));
    // bob's application is completing: a pod of alice with the same id does not take it over
    ctx.syncPod(userPod("a1", { ns: "team-a", user: "alice", app: "etl" }));
    expect(ctx.tasks.get("uid-a1")!.appId).toBe("etl~team-a~alice");
    ctx.syncPod(boundTo(userPod("a1", { ns: "team-a", user: "alice", app: "etl" }), "n1", "Succeeded"));
    clock.now += 31_000;
    ctx.schedule();
    expect(ctx.apps.has("etl")).toBe(false);
    expect(core.applicationView("etl")?.state).toBe("Completed");
    // both gone: the id goes to the next pod, with its own user
    ctx.syncPod(userPod("a2", { ns: "team-a", user: "alice", app: "etl" }));
    expect(ctx.tasks.get("uid-a2")!.appId).toBe("etl");
    expect(part.apps.get("etl")!.user).toBe("alice");
    expect(ctx.appKeys.size).toBe(1);
  });

  it("plugin mode: the extender's filter uses the same keying", () => {
    const { ctx, part } = setup(TRUST_QUEUES, { mode: "plugin" });
    ctx.syncNode(node("n1", "8", "64Gi"));
    const bob = userPod("driver", { ns: "team-b", user: "bob", app: "spark-bob-1", queue: "root.teamb", cpu: "1" });
    expect(ctx.filter(bob, ["n1"]).result.NodeNames).toEqual(["n1"]);
    const alice = userPod("steal", { ns: "team-a", user: "alice", app: "spark-bob-1", queue: "root.teamb", cpu: "3" });
    const r = ctx.filter(alice, ["n1"]);
    expect(r.result.NodeNames).toEqual([]);
    expect(events(r.actions)).toContainEqual(expect.objectContaining({ type: "Warning", reason: "ApplicationNotJoined" }));
    expect(ctx.tasks.get("uid-steal")!.appId).toBe("spark-bob-1~team-a~alice");
    expect(ctx.core.pendingReason("spark-bob-1~team-a~alice", "uid-steal")).toEqual({
      state: "Skipped",
      reason: "user alice quota reached on root",
    });
    expect(part.apps.get("spark-bob-1")!.asks.size).toBe(1);
  });
});

describe("ShimContext pods bound before the scheduler saw them (preset spec.nodeName)", () => {
  it("are recorded, and those over a limit are reported with the limit and the numbers; further pods are held", () => {
    const { ctx, part } = setup(TRUST_QUEUES);
    ctx.syncNode(node("n1", "8", "64Gi"));
    const preset = (i: number, cpu: string) => userPod(`np-${i}`, { ns: "team-a", user: "alice", app: "direct", node: "n1", cpu });
    expect(ctx.syncPod(preset(0, "1"))).toEqual([]);
    expect(ctx.syncPod(preset(1, "1"))).toEqual([]);
    const over = ctx.syncPod(preset(2, "2150m"));
    expect(ctx.tasks.get("uid-np-2")!.state).toBe("Bound");
    const limit = {
      kind: "user",
      name: "alice",
      path: "root",
      wildcard: false,
      max: { vcore: 2000 },
      used: { vcore: 4150, memory: 3 * GI, pods: 3 },
    };
    expect(over).toEqual([
      {
        kind: "event",
        object: { kind: "Pod", namespace: "team-a", name: "np-2", uid: "uid-np-2" },
        type: "Warning",
        reason: "OverLimitAllocation",
        message:
          "pod team-a/np-2 (cpu 2150m, memory 1Gi, pods 1) was already bound to node n1 when the scheduler saw it, so " +
          "it is recorded without a limit check, over user alice limit on root: cpu 2 allowed, cpu 4150m used",
      },
      {
        kind: "overLimit",
        pod: { namespace: "team-a", name: "np-2", uid: "uid-np-2" },
        applicationId: "direct",
        node: "n1",
        limits: [limit],
      },
    ]);
    expect(part.limits.snapshot("users").get("alice")!.get("root")!.res.vcore).toBe(4150);
    expect(ctx.applications()[0]!.overLimitAllocations).toEqual([
      { allocationKey: "uid-np-2", pod: "team-a/np-2", nodeId: "n1", limits: [limit] },
    ]);
    expect(ctx.overLimitCounts()).toEqual({ queue: 0, user: 1, group: 0 });
    // a pod of alice that corral schedules is held by her limit
    ctx.syncPod(userPod("later", { ns: "team-a", user: "alice", app: "direct", cpu: "100m" }));
    expect(binds(ctx.schedule())).toEqual([]);
    expect(ctx.core.pendingReason("direct", "uid-later")?.state).toBe("Skipped");
    // once the over-limit pod is gone, the count drops
    ctx.deletePod(preset(2, "2150m"));
    expect(ctx.overLimitCounts()).toEqual({ queue: 0, user: 0, group: 0 });
  });

  it("a queue maximum exceeded by a pod bound elsewhere is reported too; recovery of pods within limits reports nothing", () => {
    const { ctx } = setup(QUOTA_CFG);
    ctx.syncNode(node("n1", "8", "64Gi"));
    const q = (name: string, nodeName?: string) => pod(name, { labels: { "yunikorn.apache.org/queue": "root.q" }, node: nodeName });
    expect(ctx.syncAll([node("n1", "8", "64Gi")], [q("r0", "n1"), q("r1", "n1")])).toEqual([]);
    const a = ctx.syncPod(q("r2", "n1"));
    expect(events(a).map((e) => e.message)).toEqual([expect.stringContaining("over queue root.q maximum: cpu 2 allowed, cpu 3 used")]);
  });
});
