import { pino } from "pino";
import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { runActions } from "../../../src/scheduler/controllers/actions.js";
import { schedulerMetrics } from "../../../src/scheduler/controllers/metrics.js";
import type { PodCalls } from "../../../src/kube/pod-calls.js";
import type { ShimAction } from "../../../src/scheduler/shim/context.js";
import { FakeClock, flush as settle } from "../../helpers/fake-clock.js";
import { apiError, fakeApi } from "./fake-api.js";

const pod = (name: string) => ({ namespace: "ns", name, uid: `uid-${name}` });

/** The controllers over a fake API and a fake clock; what they hand back to the shim is logged. */
function harness(
  answers: Parameters<typeof fakeApi>[0] = {},
  o: { bindAttempts?: number; eventQueueLimit?: number; unwanted?: Map<string, string> } = {},
) {
  const clock = new FakeClock();
  const f = fakeApi(answers);
  const shimCalls: string[] = [];
  let kicks = 0;
  const registry = new Registry();
  const metrics = schedulerMetrics(registry, { stats: () => ({}), overLimitCounts: () => ({}) });
  const actions = runActions({
    api: f.api as PodCalls,
    shim: {
      bindSucceeded: (uid, node) => (shimCalls.push(`bound ${uid} ${node}`), []),
      bindFailed: (uid, node, error, gone) => (shimCalls.push(`failed ${uid} ${node} ${error}${gone ? " gone" : ""}`), []),
      placeholderCreateFailed: (app) => (shimCalls.push(`create failed ${app}`), []),
      evictionRefused: (a, error) => (shimCalls.push(`refused ${a.pod.uid} ${error}`), []),
      // `unwanted`: uid → task state of allocations gone before their binding's turn
      bindWanted: (uid) => !o.unwanted?.has(uid),
      isReleasing: (uid) => o.unwanted?.get(uid) === "Releasing",
    },
    kick: () => kicks++,
    liveNode: () => undefined,
    evictionApiVersion: async () => "policy/v1",
    metrics,
    log: pino({ level: "silent" }),
    component: "yunikorn",
    identity: "replica-1",
    bindConcurrency: 2,
    bindAttempts: o.bindAttempts ?? 3,
    eventQueueLimit: o.eventQueueLimit ?? 100,
    clock,
  });
  const metric = async (name: string) =>
    Object.fromEntries((await registry.getSingleMetric(name)!.get()).values.map((v) => [Object.values(v.labels).join(","), v.value]));
  return { clock, f, actions, shimCalls, kicks: () => kicks, metric };
}

const bind = (name: string, node: string, replaces?: string): ShimAction => ({
  kind: "bind",
  pod: pod(name),
  node,
  ...(replaces ? { replaces: pod(replaces) } : {}),
});

/** A member replacing the bound placeholder `ph`: the placeholder deleted, then the member bound. */
const DELETE_THEN_BIND = ["deleteNamespacedPod ns/ph", "createNamespacedPodBinding ns/member"];

describe("runActions: bindings", () => {
  it("retries a binding after 250 ms, then 500 ms, and hands the success to the shim", async () => {
    const h = harness({ createNamespacedPodBinding: [apiError(500), apiError(503)] });
    h.actions.run([bind("a", "n1")]);
    await settle();
    h.clock.advance(250);
    await settle();
    expect(h.f.calls).toHaveLength(2);
    h.clock.advance(500);
    await settle();
    expect(h.f.calls).toEqual(Array(3).fill("createNamespacedPodBinding ns/a"));
    expect(h.shimCalls).toEqual(["bound uid-a n1"]);
    expect(await h.metric("corral_scheduler_binds_total")).toEqual({ bound: 1 });
    expect(h.actions.queued().binds).toBe(0);
  });

  it("after `bindAttempts` failures the allocation is rolled back and a cycle asked for", async () => {
    const h = harness({ createNamespacedPodBinding: [apiError(500), apiError(500)] }, { bindAttempts: 2 });
    h.actions.run([bind("a", "n1")]);
    await settle();
    h.clock.advance(250);
    await settle();
    expect(h.shimCalls).toEqual(["failed uid-a n1 500 status 500"]);
    expect(h.kicks()).toBe(1);
    expect(await h.metric("corral_scheduler_binds_total")).toEqual({ failed: 1 });
  });

  it("a deleted pod is not retried: the rollback says it is gone", async () => {
    const h = harness({ createNamespacedPodBinding: [apiError(404)] });
    h.actions.run([bind("a", "n1")]);
    await settle();
    expect(h.shimCalls).toEqual(["failed uid-a n1 404 status 404 gone"]);
    expect(await h.metric("corral_scheduler_binds_total")).toEqual({ "pod-gone": 1 });
  });

  it("a gang member waits for its placeholder's binding, deletes the placeholder, then binds", async () => {
    const h = harness({ createNamespacedPodBinding: [apiError(500)] });
    h.actions.run([bind("ph", "n1"), bind("member", "n1", "ph")]);
    await settle();
    expect(h.f.calls).toEqual(["createNamespacedPodBinding ns/ph"]);
    h.clock.advance(250);
    await settle();
    expect(h.f.calls).toEqual(["createNamespacedPodBinding ns/ph", "createNamespacedPodBinding ns/ph", ...DELETE_THEN_BIND]);
    expect(h.shimCalls).toEqual(["bound uid-ph n1", "bound uid-member n1"]);
    expect(await h.metric("corral_scheduler_placeholder_calls_total")).toEqual({ "delete,done": 1 });
  });

  it("a bound placeholder's delete does not wait behind the placeholder creates queued before it", async () => {
    const h = harness({ createNamespacedPod: ["hang", "hang"] });
    const placeholder = (name: string): ShimAction => ({
      kind: "createPod",
      pod: { metadata: { name, namespace: "ns", labels: { "yunikorn.apache.org/app-id": "app-2" } } },
      owner: pod("owner-2"),
    });
    // another gang's creates fill the placeholder workers (one here) and wait; this gang's member replaces a bound one
    h.actions.run([placeholder("tg-b-1"), placeholder("tg-b-2"), bind("ph", "n1")]);
    await settle();
    h.actions.run([bind("member", "n1", "ph")]);
    await settle();
    expect(h.f.calls).toEqual(["createNamespacedPod ns/tg-b-1", "createNamespacedPodBinding ns/ph", ...DELETE_THEN_BIND]);
    expect(h.shimCalls).toEqual(["bound uid-ph n1", "bound uid-member n1"]);
    h.f.release("createNamespacedPod ns/tg-b-1");
    await settle();
    h.f.release("createNamespacedPod ns/tg-b-2");
    await settle();
    expect(h.actions.queued()).toEqual({ binds: 0, status: 0, placeholders: 0 });
  });

  it("a placeholder replaced before its binding's turn is not bound: deleted unbound, its replacement bound at once", async () => {
    const h = harness({}, { unwanted: new Map([["uid-ph", "Releasing"]]) });
    h.actions.run([bind("ph", "n1"), bind("member", "n1", "ph")]);
    await settle();
    expect(h.f.calls.filter((c) => c.startsWith("createNamespacedPodBinding"))).toEqual(["createNamespacedPodBinding ns/member"]);
    expect(h.f.calls).toContain("deleteNamespacedPod ns/ph");
    expect(h.shimCalls).toEqual(["bound uid-member n1"]);
    expect(await h.metric("corral_scheduler_binds_total")).toMatchObject({ skipped: 1, bound: 1 });
  });

  it("a binding whose allocation is gone is not sent; plugin mode's bind verb is always sent", async () => {
    const h = harness({}, { unwanted: new Map([["uid-a", "Completed"]]) });
    h.actions.run([bind("a", "n1")]);
    await settle();
    expect(h.f.calls).toEqual([]);
    expect(await h.actions.bind(pod("a"), "n1")).toEqual({});
    expect(h.f.calls).toEqual(["createNamespacedPodBinding ns/a"]);
  });

  it("bind (plugin mode) resolves with the result after reporting it", async () => {
    const h = harness({ createNamespacedPodBinding: [apiError(403, "forbidden")] });
    expect(await h.actions.bind(pod("a"), "n1")).toEqual({ error: "403 forbidden" });
    expect(h.shimCalls).toEqual(["failed uid-a n1 403 forbidden"]);
  });
});

describe("runActions: events and status writes", () => {
  const event = (n: number): ShimAction => ({
    kind: "event",
    object: { kind: "Pod", namespace: "ns", name: `p${n}` },
    type: "Normal",
    reason: "Scheduled",
    message: `m${n}`,
  });

  it("use one connection while a binding is pending, four otherwise", async () => {
    const h = harness({ createNamespacedPodBinding: ["hang"], createNamespacedEvent: Array(6).fill("hang") });
    h.actions.run([bind("a", "n1"), ...[1, 2, 3, 4, 5, 6].map(event)]);
    await settle();
    expect(h.f.calls.filter((c) => c.startsWith("createNamespacedEvent"))).toEqual(["createNamespacedEvent ns/p1."]);
    h.f.release("createNamespacedPodBinding ns/a");
    await settle();
    h.clock.advance(0);
    await settle();
    expect(h.f.calls.filter((c) => c.startsWith("createNamespacedEvent"))).toHaveLength(4);
  });

  it("drop the oldest beyond the queue limit and count it", async () => {
    const h = harness({ createNamespacedPodBinding: ["hang"], createNamespacedEvent: ["hang"] }, { eventQueueLimit: 2 });
    h.actions.run([bind("a", "n1"), ...[1, 2, 3, 4].map(event)]);
    await settle();
    expect(h.actions.queued().status).toBe(3);
    expect(await h.metric("corral_scheduler_events_total")).toEqual({ dropped: 1 });
    h.f.release("createNamespacedPodBinding ns/a");
    h.f.release("createNamespacedEvent ns/p1.");
    await settle();
    expect(h.f.calls.filter((c) => c.startsWith("createNamespacedEvent"))).toEqual([
      "createNamespacedEvent ns/p1.",
      "createNamespacedEvent ns/p3.",
      "createNamespacedEvent ns/p4.",
    ]);
  });

  it("a condition is a strategic-merge patch of PodScheduled=False at the clock's time", async () => {
    const h = harness();
    h.clock.t = Date.UTC(2026, 0, 2);
    h.actions.run([{ kind: "condition", pod: pod("a"), reason: "Unschedulable", message: "no node fits" }]);
    await settle();
    expect(h.f.bodies).toEqual([
      {
        status: {
          conditions: [
            {
              type: "PodScheduled",
              status: "False",
              reason: "Unschedulable",
              message: "no node fits",
              lastTransitionTime: "2026-01-02T00:00:00.000Z",
            },
          ],
        },
      },
    ]);
  });
});

describe("runActions: placeholders and evictions", () => {
  it("a placeholder create refused with 403 is not retried; the gang is told", async () => {
    const h = harness({ createNamespacedPod: [apiError(403)] });
    const placeholder = { metadata: { name: "tg-ph-1", namespace: "ns", labels: { "yunikorn.apache.org/app-id": "app-1" } } };
    h.actions.run([{ kind: "createPod", pod: placeholder, owner: pod("owner") }]);
    await settle();
    expect(h.f.calls).toEqual(["createNamespacedPod ns/tg-ph-1"]);
    expect(h.shimCalls).toEqual(["create failed app-1"]);
    expect(await h.metric("corral_scheduler_placeholder_calls_total")).toEqual({ "create,failed": 1 });
  });

  it("an eviction refused by a PodDisruptionBudget goes back to the shim; an evicted victim gets a Preempted event", async () => {
    const h = harness({ createNamespacedPodEviction: [apiError(429, "budget")] });
    const evict = (name: string): ShimAction => ({
      kind: "evict",
      pod: pod(name),
      queue: "root.low",
      message: `preempted ${name}`,
      preemptor: { applicationId: "app", allocationKey: "k", queue: "root.high" },
    });
    h.actions.run([evict("v1"), evict("v2")]);
    await settle();
    expect(h.shimCalls).toEqual(["refused uid-v1 429 budget"]);
    expect(h.kicks()).toBe(1);
    expect(h.f.calls).toEqual(["createNamespacedPodEviction ns/v1", "createNamespacedPodEviction ns/v2", "createNamespacedEvent ns/v2."]);
    expect(await h.metric("corral_scheduler_preemption_evictions_total")).toEqual({ "refused,root.low": 1, "evicted,root.low": 1 });
  });
});
