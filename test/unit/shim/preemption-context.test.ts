/**
 * Preemption through the shim (ShimContext against a real SchedulerCore): the pod flags reach the core's asks
 * (`allow-preemption` on the pod or its PriorityClass, `preemptionPolicy: Never`, originator), a preemption becomes
 * evictions with the `Preempted` text naming the preemptor, its queue and the rules, a refused eviction ends the
 * preemption, and the preemptor is bound to the reserved node once the victims are gone.
 */
import { describe, expect, it } from "vitest";
import { SchedulerCore } from "../../../src/scheduler/core/scheduler.js";
import { type NodeObject, ShimContext } from "../../../src/scheduler/shim/context.js";
import type { PodObject } from "../../../src/scheduler/shim/translate.js";
import { providedQueues } from "../../fixtures/queues.js";
import { T0, fakeNode, ofKind, shimPod } from "./fixtures.js";

const CFG = providedQueues(["{name: a, resources: {guaranteed: {vcore: 2}}, properties: {preemption.delay: 1s}}", "{name: b}"]);

function pod(
  name: string,
  o: {
    queue: string;
    app: string;
    created: number;
    node?: string;
    annotations?: Record<string, string>;
    priorityClassName?: string;
    preemptionPolicy?: string;
    owners?: { kind: string; uid: string }[];
  },
): PodObject {
  return shimPod(name, {
    namespace: "ns",
    labels: { queue: o.queue, applicationId: o.app },
    annotations: { "yunikorn.apache.org/user.info": JSON.stringify({ user: "u", groups: [] }), ...(o.annotations ?? {}) },
    created: new Date(T0 + o.created * 1000).toISOString(),
    requests: { cpu: "1" },
    node: o.node,
    metadata: o.owners ? { ownerReferences: o.owners.map((x) => ({ apiVersion: "v1", kind: x.kind, name: x.uid, uid: x.uid })) } : {},
    spec: {
      ...(o.priorityClassName ? { priorityClassName: o.priorityClassName } : {}),
      ...(o.preemptionPolicy ? { preemptionPolicy: o.preemptionPolicy } : {}),
    },
  });
}
const node = (name: string, cpu: string): NodeObject => fakeNode(name, { cpu });

function setup() {
  const clock = { now: T0 + 100_000 };
  const core = new SchedulerCore(() => clock.now, CFG);
  const ctx = new ShimContext(core, {
    now: () => clock.now,
    priorityClassAnnotations: (n): Record<string, string> | undefined =>
      n === "batch-low" ? { "yunikorn.apache.org/allow-preemption": "false" } : n === "plain" ? {} : undefined,
  });
  ctx.syncNode(node("n1", "2"));
  return { clock, core, ctx };
}

describe("preemption through the shim", () => {
  it("sends the pod flags with each ask", () => {
    const { ctx } = setup();
    ctx.syncPod(pod("driver", { queue: "root.b", app: "spark", created: 0 }));
    ctx.syncPod(pod("exec", { queue: "root.b", app: "spark", created: 1, owners: [{ kind: "Pod", uid: "uid-driver" }] }));
    ctx.syncPod(pod("job-0", { queue: "root.b", app: "job", created: 0, owners: [{ kind: "Job", uid: "job-uid" }] }));
    ctx.syncPod(pod("pc-optout", { queue: "root.b", app: "x", created: 0, priorityClassName: "batch-low" }));
    ctx.syncPod(
      pod("pod-says-true", {
        queue: "root.b",
        app: "y",
        created: 0,
        priorityClassName: "batch-low",
        annotations: { "yunikorn.apache.org/allow-preemption": "true" },
      }),
    );
    ctx.syncPod(pod("never", { queue: "root.a", app: "z", created: 0, preemptionPolicy: "Never" }));
    // a pod of user u carrying the placeholder flag is an ordinary pod of u: its application's originator
    ctx.syncPod(
      pod("forged", { queue: "root.b", app: "f", created: 0, annotations: { "internal.yunikorn.apache.org/placeholder": "true" } }),
    );
    const ask = (n: string) => ctx.tasks.get(`uid-${n}`)!.ask;
    expect(ask("driver")).toMatchObject({ originator: true, preemptionPolicy: { allowPreemptSelf: true, allowPreemptOther: true } });
    expect(ask("exec").originator).toBeUndefined();
    expect(ask("job-0").originator).toBeUndefined();
    expect(ask("pc-optout").preemptionPolicy).toEqual({ allowPreemptSelf: false, allowPreemptOther: true });
    expect(ask("pod-says-true").preemptionPolicy).toEqual({ allowPreemptSelf: true, allowPreemptOther: true });
    expect(ask("never").preemptionPolicy).toEqual({ allowPreemptSelf: true, allowPreemptOther: false });
    expect(ask("forged")).toMatchObject({ originator: true });
    expect(ask("forged").placeholder).toBeUndefined();
  });

  it("evicts the victim with the rule in the Preempted text, binds the preemptor once the victim is gone", () => {
    const { clock, ctx } = setup();
    const b0 = pod("b-0", { queue: "root.b", app: "b", created: 0, node: "n1" });
    const b1 = pod("b-1", { queue: "root.b", app: "b", created: 5, node: "n1" });
    ctx.syncPod(b0);
    ctx.syncPod(b1);
    const a0 = pod("a-0", { queue: "root.a", app: "a", created: 100 });
    ctx.syncPod(a0);
    expect(ofKind(ctx.schedule(), "evict")).toEqual([]); // the delay (1 s) has not passed
    clock.now += 1000;
    const actions = ctx.schedule();
    const [evict] = ofKind(actions, "evict");
    expect(evict).toMatchObject({
      pod: { name: "b-1" },
      queue: "root.b",
      preemptor: { pod: { name: "a-0" }, queue: "root.a", applicationId: expect.any(String) },
    });
    expect(evict!.message).toBe(
      "Preempted by pod ns/a-0 of application a for queue root.a: queue root.b is above its guarantee (no guarantee of " +
        "its own, used cpu 2, pods 2) " +
        "and stays at or above it; priority 0 is not above the preemptor's 0; frees room on node n1",
    );
    expect(ofKind(actions, "event").map((e) => [e.object.name, e.reason])).toEqual([["a-0", "Preempting"]]);
    expect(ofKind(actions, "preempting")).toEqual([
      { kind: "preempting", applicationId: "a", allocationKey: "uid-a-0", queue: "root.a", nodeId: "n1", victims: ["uid-b-1"] },
    ]);
    expect(ofKind(ctx.schedule(), "bind")).toEqual([]);
    // the eviction went through: the pod is deleted
    ctx.deletePod(b1);
    expect(ofKind(ctx.schedule(), "bind")).toMatchObject([{ pod: { name: "a-0" }, node: "n1" }]);
  });

  it("a refused eviction releases the reservation and warns on the preemptor", () => {
    const { clock, core, ctx } = setup();
    ctx.syncPod(pod("b-0", { queue: "root.b", app: "b", created: 0, node: "n1" }));
    ctx.syncPod(pod("b-1", { queue: "root.b", app: "b", created: 5, node: "n1" }));
    ctx.syncPod(pod("a-0", { queue: "root.a", app: "a", created: 100 }));
    clock.now += 1000;
    const [evict] = ofKind(ctx.schedule(), "evict");
    const out = ctx.evictionRefused(evict!, "429 Cannot evict pod as it would violate the pod's disruption budget.");
    expect(out).toEqual([
      {
        kind: "event",
        object: { kind: "Pod", namespace: "ns", name: "a-0", uid: "uid-a-0" },
        type: "Warning",
        reason: "PreemptionBlocked",
        message:
          "Eviction of ns/b-1 was refused (429 Cannot evict pod as it would violate the pod's disruption budget.); the " +
          "node reservation is released and preemption is tried again later without that pod",
      },
    ]);
    expect(core.partitions.get("default")!.reservationList()).toEqual([]);
    clock.now += 15_000;
    expect(ofKind(ctx.schedule(), "evict").map((e) => e.pod.name)).toEqual(["b-0"]);
  });

  it("quota-change preemption: the excess is evicted with the rule in the Preempted text; a refused eviction warns on the pod", () => {
    const qcfg = (max: number) =>
      providedQueues([`{name: c, resources: {max: {vcore: ${max}}}, properties: {quota.preemption.delay: 5s}}`], {
        partition: ["preemption: {quotapreemptionenabled: true}"],
      });
    const clock = { now: T0 + 100_000 };
    const core = new SchedulerCore(() => clock.now, qcfg(4));
    const ctx = new ShimContext(core, { now: () => clock.now });
    ctx.syncNode(node("n1", "4"));
    for (let i = 0; i < 4; i++) ctx.syncPod(pod(`c-${i}`, { queue: "root.c", app: "c", created: i, node: "n1" }));
    ctx.schedule();
    expect(core.updateConfiguration(qcfg(2))).toEqual({ ok: true });
    clock.now += 4_000;
    expect(ofKind(ctx.schedule(), "evict")).toEqual([]);
    clock.now += 1_000;
    const actions = ctx.schedule();
    expect(ofKind(actions, "quotaPreempting")).toEqual([{ kind: "quotaPreempting", queue: "root.c", victims: ["uid-c-3", "uid-c-2"] }]);
    const evicts = ofKind(actions, "evict");
    expect(evicts.map((e) => [e.pod.name, e.queue, e.quota, e.preemptor])).toEqual([
      ["c-3", "root.c", { queue: "root.c" }, undefined],
      ["c-2", "root.c", { queue: "root.c" }, undefined],
    ]);
    expect(evicts[0]!.message).toBe(
      "Preempted to enforce the lowered max of queue root.c: usage of queue root.c (cpu 4) is above its lowered max (cpu 2) " +
        "and its quota.preemption.delay 5s has passed; queue root.c (no guarantee of its own) stays at or above its guarantee",
    );
    // c-3's eviction is refused: the pod stays, a warning on it; c-2 goes; 15 s later c-1 is taken instead of c-3
    expect(ctx.evictionRefused(evicts[0]!, "429 Cannot evict pod as it would violate the pod's disruption budget.")).toEqual([
      {
        kind: "event",
        object: { kind: "Pod", namespace: "ns", name: "c-3", uid: "uid-c-3" },
        type: "Warning",
        reason: "PreemptionBlocked",
        message:
          "Eviction to enforce the lowered max of queue root.c was refused (429 Cannot evict pod as it would violate " +
          "the pod's disruption budget.); the pod is kept and the queue's quota preemption is tried again in 15s without it",
      },
    ]);
    ctx.deletePod(pod("c-2", { queue: "root.c", app: "c", created: 2, node: "n1" }));
    clock.now += 14_000;
    expect(ofKind(ctx.schedule(), "evict")).toEqual([]);
    clock.now += 1_000;
    expect(ofKind(ctx.schedule(), "evict").map((e) => e.pod.name)).toEqual(["c-1"]);
  });
});
