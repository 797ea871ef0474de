/** The events the scheduling core emits from its results (YuniKorn's pkg/scheduler/objects/events), and the history it keeps. */
import { describe, expect, it } from "vitest";
import { SchedulerCore } from "../../../src/scheduler/core/scheduler.js";
import { ChangeDetail as D, ChangeType as C, type EventRecord, EventType as T } from "../../../src/scheduler/events/record.js";

const CFG = `partitions:
  - name: default
    placementrules:
      - {name: provided, create: false}
      - {name: tag, value: namespace, create: true}
    queues:
      - name: root
        submitacl: '*'
        queues:
          - name: a
          - name: small
            resources: {max: {vcore: 1}}
`;
const G = 1024 ** 3;
const short = (e: EventRecord) => [e.type, e.objectID, e.referenceID, e.eventChangeType, e.eventChangeDetail];

/**
 * A core recording its events: node n1 (4 cpu), application `s` of user `u` in `queue` asking `k1` and `k2` of `vcore`
 * millicores each, scheduled once (k1 placed, k2 held by the queue or the user's limit); the records so far dropped.
 */
function secondAskHeld(cfg: string, queue: string, vcore: number) {
  const ev: EventRecord[] = [];
  const core = new SchedulerCore(() => 0, cfg, { events: (e) => ev.push(e) });
  core.updateNode([{ nodeID: "n1", action: "CREATE", schedulableResource: { vcore: 4000 } }]);
  core.updateApplication({ new: [{ applicationID: "s", queueName: queue, ugi: { user: "u" } }] });
  core.updateAllocation({
    allocations: ["k1", "k2"].map((allocationKey) => ({ allocationKey, applicationID: "s", resourcePerAlloc: { vcore } })),
  });
  core.schedule();
  ev.length = 0;
  return { core, ev };
}

describe("SchedulerCore events", () => {
  it("node, application, ask, allocation, user and queue records in the order the calls made them", () => {
    let now = 1_000;
    const ev: EventRecord[] = [];
    const core = new SchedulerCore(() => now, CFG, { events: (e) => ev.push(e) });
    // the configured queues are announced at start, root first
    expect(ev.map(short)).toEqual([
      [T.QUEUE, "root", "", C.ADD, D.DETAILS_NONE],
      [T.QUEUE, "root.a", "", C.ADD, D.DETAILS_NONE],
      [T.QUEUE, "root.small", "", C.ADD, D.DETAILS_NONE],
    ]);
    ev.length = 0;
    core.updateNode([{ nodeID: "n1", action: "CREATE", schedulableResource: { vcore: 4000, memory: 8 * G } }]);
    core.updateApplication({ new: [{ applicationID: "app-1", queueName: "root.a", ugi: { user: "alice", groups: ["dev"] } }] });
    core.updateAllocation({
      allocations: [
        {
          allocationKey: "pod-1",
          applicationID: "app-1",
          resourcePerAlloc: { vcore: 1000, memory: G },
          allocationTags: { "kubernetes.io/meta/podName": "p1" },
        },
      ],
    });
    now = 2_000;
    expect(core.schedule()).toHaveLength(1);
    core.updateAllocation({ releases: [{ applicationID: "app-1", allocationKey: "pod-1" }] });
    // upstream's order (pkg/scheduler/tests/application_tracking_test.go TestApplicationHistoryTracking)
    expect(ev.map(short)).toEqual([
      [T.NODE, "n1", "", C.SET, D.NODE_SCHEDULABLE],
      // root's max is the cluster size
      [T.QUEUE, "root", "", C.SET, D.QUEUE_MAX],
      [T.NODE, "n1", "", C.ADD, D.DETAILS_NONE],
      [T.APP, "app-1", "", C.ADD, D.APP_NEW],
      [T.QUEUE, "root.a", "app-1", C.ADD, D.QUEUE_APP],
      [T.APP, "app-1", "", C.SET, D.APP_ACCEPTED],
      [T.APP, "app-1", "pod-1", C.ADD, D.APP_REQUEST],
      [T.NODE, "n1", "pod-1", C.ADD, D.NODE_ALLOC],
      // Starting (corral's pre-1.6 state) has no upstream detail: nothing for it
      [T.USERGROUP, "alice", "root.a", C.ADD, D.UG_USER_RESOURCE],
      [T.APP, "app-1", "pod-1", C.ADD, D.APP_ALLOC],
      [T.USERGROUP, "alice", "root.a", C.REMOVE, D.UG_USER_RESOURCE],
      [T.APP, "app-1", "", C.SET, D.APP_COMPLETING],
      [T.APP, "app-1", "pod-1", C.REMOVE, D.ALLOC_CANCEL],
      [T.NODE, "n1", "pod-1", C.REMOVE, D.NODE_ALLOC],
      [T.APP, "app-1", "pod-1", C.REMOVE, D.REQUEST_CANCEL],
    ]);
    expect(ev[2]!.message).toBe("Node added to the scheduler");
    expect(ev[2]!.resource).toEqual({ vcore: 4000, memory: 8 * G });
    expect(ev[0]!.message).toBe("schedulable: true");
    expect(ev[1]!.resource).toEqual({ vcore: 4000, memory: 8 * G });
    expect(ev[7]!.timestampNano).toBe(2_000_000_000);
    expect(core.maxUsedResource("app-1")).toEqual({ vcore: 1000, memory: G });
    expect(core.allocationTags("app-1", "pod-1")).toBeUndefined(); // released: forgotten
    now = 40_000;
    core.schedule();
    // upstream moveTerminatedApp: APP_COMPLETED, then the application leaves its queue (QUEUE_APP, APP REMOVE)
    expect(ev.slice(-3).map(short)).toEqual([
      [T.APP, "app-1", "", C.SET, D.APP_COMPLETED],
      [T.QUEUE, "root.a", "app-1", C.REMOVE, D.QUEUE_APP],
      [T.APP, "app-1", "", C.REMOVE, D.DETAILS_NONE],
    ]);
    // the shim's UpdatedApplication feed still gets every change
    expect(core.stateChanges().map((c) => c.to)).toEqual(["Accepted", "Starting", "Completing", "Completed"]);
  });

  it("an application id run twice in two queues: each completion's QUEUE_APP removal names that run's queue", () => {
    let now = 1_000;
    const ev: EventRecord[] = [];
    const core = new SchedulerCore(() => now, CFG, { events: (e) => ev.push(e) });
    core.updateNode([{ nodeID: "n1", action: "CREATE", schedulableResource: { vcore: 4000, memory: 8 * G } }]);
    const run = (queue: string, pod: string) => {
      core.updateApplication({ new: [{ applicationID: "job", queueName: queue, ugi: { user: "alice", groups: [] } }] });
      core.updateAllocation({ allocations: [{ allocationKey: pod, applicationID: "job", resourcePerAlloc: { vcore: 100 } }] });
      expect(core.schedule()).toHaveLength(1);
      core.updateAllocation({ releases: [{ applicationID: "job", allocationKey: pod }] });
      core.schedule(); // Completing
      now += 40_000; // past the 30 s Completing timeout
      core.schedule(); // Completed
    };
    run("root.a", "p1");
    run("root.small", "p2");
    const removals = ev.filter((e) => e.type === T.QUEUE && e.eventChangeType === C.REMOVE && e.eventChangeDetail === D.QUEUE_APP);
    expect(removals.map((e) => [e.objectID, e.referenceID])).toEqual([
      ["root.a", "job"],
      ["root.small", "job"],
    ]);
    expect(core.stateChanges().filter((c) => c.to === "Completed")).toHaveLength(2);
  });

  it("a rejected application: APP_NEW then APP_REJECT with the reason, history Rejected; a dynamic queue is announced once", () => {
    const ev: EventRecord[] = [];
    const core = new SchedulerCore(() => 5, CFG, { events: (e) => ev.push(e) });
    ev.length = 0;
    core.updateApplication({ new: [{ applicationID: "bad", queueName: "", ugi: { user: "" } }] });
    expect(ev.map(short)).toEqual([
      [T.APP, "bad", "", C.ADD, D.APP_NEW],
      [T.APP, "bad", "", C.SET, D.APP_REJECT],
    ]);
    expect(ev[1]!.message).toBe("empty user cannot resolve");
    expect(core.applicationView("bad")?.state).toBe("Rejected");
    ev.length = 0;
    for (const id of ["x", "y"])
      core.updateApplication({ new: [{ applicationID: id, queueName: "", ugi: { user: "u" }, tags: { namespace: "team" } }] });
    expect(ev.filter((e) => e.type === T.QUEUE).map(short)).toEqual([
      [T.QUEUE, "root.team", "", C.ADD, D.QUEUE_DYNAMIC],
      [T.QUEUE, "root.team", "x", C.ADD, D.QUEUE_APP],
      [T.QUEUE, "root.team", "y", C.ADD, D.QUEUE_APP],
    ]);
  });

  it("REQUEST records when an ask's hold reason changes; node removal releases with ALLOC_NODEREMOVED", () => {
    const { core, ev } = secondAskHeld(CFG, "root.small", 1000);
    expect(core.pendingReason("s", "k2")?.state).toBe("Skipped");
    core.pendingReason("s", "k2"); // same reason: no second record
    expect(ev.map(short)).toEqual([[T.REQUEST, "k2", "s", C.NONE, D.DETAILS_NONE]]);
    // upstream ask_events.go SendRequestExceedsQueueHeadroom
    expect(ev[0]!.message).toBe("Request 'k2' does not fit in queue 'root.small' (requested map[vcore:1000], available map[vcore:0])");
    ev.length = 0;
    // room again (k1 gone): SendRequestFitsInQueue
    core.updateAllocation({ releases: [{ applicationID: "s", allocationKey: "k1" }] });
    core.updateAllocation({ allocations: [{ allocationKey: "k1", applicationID: "s", resourcePerAlloc: { vcore: 1000 }, nodeID: "n1" }] });
    ev.length = 0;
    core.updateAllocation({ releases: [{ applicationID: "s", allocationKey: "k1" }] });
    ev.length = 0;
    expect(core.pendingReason("s", "k2")).toBeUndefined();
    expect(ev.map((e) => e.message)).toEqual(["Request 'k2' has become schedulable in queue 'root.small'"]);
    core.updateAllocation({ allocations: [{ allocationKey: "k1", applicationID: "s", resourcePerAlloc: { vcore: 1000 }, nodeID: "n1" }] });
    ev.length = 0;
    core.updateNode([{ nodeID: "n1", action: "DECOMISSION" }]);
    expect(ev.map(short)).toEqual([
      // upstream context.go: unschedulable first
      [T.NODE, "n1", "", C.SET, D.NODE_SCHEDULABLE],
      [T.APP, "s", "k1", C.REMOVE, D.ALLOC_NODEREMOVED],
      [T.NODE, "n1", "k1", C.REMOVE, D.NODE_ALLOC],
      // the partition's changes of the call: queues (root's max, no nodes left: none), then users and groups
      [T.QUEUE, "root", "", C.SET, D.QUEUE_MAX],
      [T.USERGROUP, "u", "root.small", C.REMOVE, D.UG_USER_RESOURCE],
      [T.NODE, "n1", "", C.REMOVE, D.NODE_DECOMISSION],
    ]);
    expect(ev[0]!.message).toBe("schedulable: false");
    expect(ev[3]!.resource).toEqual({});
  });

  it("a user or group quota: upstream's 'exceeds the available user quota', then 'fits in the available user quota'", () => {
    const cfg =
      "partitions:\n  - name: default\n    queues:\n      - name: root\n        submitacl: '*'\n        queues:\n" +
      "          - name: a\n            limits: [{users: [u], maxresources: {vcore: 1}}]\n";
    const { core, ev } = secondAskHeld(cfg, "root.a", 600);
    core.checkHold("s", "k2");
    expect(ev.map((e) => e.message)).toEqual([
      "Request 'k2' exceeds the available user quota (requested map[vcore:600], available map[vcore:400])",
    ]);
    core.updateAllocation({ releases: [{ applicationID: "s", allocationKey: "k1" }] });
    ev.length = 0;
    core.checkHold("s", "k2");
    expect(ev.map((e) => e.message)).toEqual(["Request 'k2' fits in the available user quota"]);
  });

  // upstream application_test.go TestUpdateRunnableStatus (queue.go TryAllocate → updateRunnableStatus)
  it("an application kept from running by maxapplications: APP_CANNOTRUN_QUEUE / _QUOTA, then APP_RUNNABLE_* when room is back", () => {
    const ev: EventRecord[] = [];
    const cfg =
      "partitions:\n  - name: default\n    queues:\n      - name: root\n        submitacl: '*'\n        queues:\n" +
      "          - name: q\n            maxapplications: 1\n" +
      "          - name: u\n            limits: [{users: [bob], maxapplications: 1}]\n";
    const core = new SchedulerCore(() => 0, cfg, { events: (e) => ev.push(e) });
    core.updateNode([{ nodeID: "n1", action: "CREATE", schedulableResource: { vcore: 8000 } }]);
    const run = (id: string, queue: string, user: string) => {
      core.updateApplication({ new: [{ applicationID: id, queueName: queue, ugi: { user } }] });
      core.updateAllocation({ allocations: [{ allocationKey: `${id}-k`, applicationID: id, resourcePerAlloc: { vcore: 1000 } }] });
      core.schedule();
    };
    const runnable = () =>
      ev
        .filter((e) => e.eventChangeDetail >= D.APP_CANNOTRUN_QUEUE && e.eventChangeDetail <= D.APP_RUNNABLE_QUOTA)
        .map((e) => [e.objectID, e.eventChangeType, e.eventChangeDetail]);
    for (const [id, queue, user] of [
      ["q1", "root.q", "alice"],
      ["q2", "root.q", "alice"],
      ["u1", "root.u", "bob"],
      ["u2", "root.u", "bob"],
    ] as const)
      run(id, queue, user);
    core.schedule(); // walked again: no change, no record
    expect(runnable()).toEqual([
      ["q2", C.NONE, D.APP_CANNOTRUN_QUEUE],
      ["u2", C.NONE, D.APP_CANNOTRUN_QUOTA],
    ]);
    ev.length = 0;
    core.updateApplication({ remove: [{ applicationID: "q1" }, { applicationID: "u1" }] });
    expect(
      core
        .schedule()
        .map((a) => a.appId)
        .sort(),
    ).toEqual(["q2", "u2"]);
    expect(runnable()).toEqual([
      ["q2", C.NONE, D.APP_RUNNABLE_QUEUE],
      ["u2", C.NONE, D.APP_RUNNABLE_QUOTA],
    ]);
  });

  it("timestamps never go back in the order records are emitted, even with a clock that moves during a call", () => {
    let t = 0;
    const ev: EventRecord[] = [];
    const core = new SchedulerCore(() => (t += 7), CFG, { events: (e) => ev.push(e) });
    core.updateNode([
      { nodeID: "n1", action: "CREATE", schedulableResource: { vcore: 4000 } },
      { nodeID: "n2", action: "CREATE", schedulableResource: { vcore: 4000 } },
    ]);
    core.updateApplication({ new: [{ applicationID: "a", queueName: "root.a", ugi: { user: "u" } }] });
    core.updateAllocation({
      allocations: [1, 2, 3, 4].map((i) => ({ allocationKey: `k${i}`, applicationID: "a", resourcePerAlloc: { vcore: 1000 } })),
    });
    core.schedule();
    core.updateAllocation({ releases: [{ applicationID: "a" }] });
    core.updateNode([{ nodeID: "n2", action: "DECOMISSION" }]);
    const times = ev.map((e) => e.timestampNano);
    expect(ev.length).toBeGreaterThan(20);
    expect(times).toEqual([...times].sort((x, y) => x - y));
  });
});

/** The records of preemption and of placeholders leaving (apache/yunikorn-core preemption.go, application.go). */
describe("SchedulerCore events: preemption and placeholders", () => {
  const ofKinds = (ev: EventRecord[], ...types: T[]) => ev.filter((e) => types.includes(e.type)).map(short);
  /** A core with one leaf `root.g`, recording its events. */
  const gangCore = (now: () => number) => {
    const ev: EventRecord[] = [];
    const cfg =
      "partitions:\n  - name: default\n    queues:\n      - name: root\n        submitacl: '*'\n        queues:\n          - name: g\n";
    return { ev, core: new SchedulerCore(now, cfg, { events: (e) => ev.push(e) }) };
  };

  /** root.b's pod `v` fills node n1; root.a's `p`, under a's guarantee, preempts it at 2 s. */
  const preempted = () => {
    const clock = { now: 0 };
    const ev: EventRecord[] = [];
    const cfg =
      "partitions:\n  - name: default\n    queues:\n      - name: root\n        submitacl: '*'\n        queues:\n" +
      "          - name: a\n            resources: {guaranteed: {vcore: 1}}\n            properties: {preemption.delay: 1s}\n" +
      "          - name: b\n";
    const core = new SchedulerCore(() => clock.now, cfg, { events: (e) => ev.push(e) });
    core.updateNode([{ nodeID: "n1", action: "CREATE", schedulableResource: { vcore: 1000 } }]);
    core.updateApplication({ new: [{ applicationID: "low", queueName: "root.b", ugi: { user: "u" } }] });
    core.updateAllocation({ allocations: [{ allocationKey: "v", applicationID: "low", resourcePerAlloc: { vcore: 1000 } }] });
    core.schedule();
    core.updateApplication({ new: [{ applicationID: "high", queueName: "root.a", ugi: { user: "u" } }] });
    core.updateAllocation({ allocations: [{ allocationKey: "p", applicationID: "high", resourcePerAlloc: { vcore: 1000 } }] });
    ev.length = 0;
    clock.now = 2_000;
    expect(core.scheduleResults().map((r) => r.kind)).toEqual(["preempting"]);
    return { core, ev };
  };

  it("a preemption: a REQUEST record on each victim, the node reserved; the victim's release is ALLOC_PREEMPT", () => {
    const { core, ev } = preempted();
    expect(ofKinds(ev, T.REQUEST, T.NODE)).toEqual([
      [T.REQUEST, "v", "low", C.NONE, D.DETAILS_NONE],
      [T.NODE, "n1", "p", C.ADD, D.NODE_RESERVATION],
    ]);
    expect(ev.find((e) => e.type === T.REQUEST)!.message).toBe("Preempted by p from application high in root.a");
    ev.length = 0;
    core.updateAllocation({ releases: [{ applicationID: "low", allocationKey: "v" }] });
    expect(ofKinds(ev, T.APP, T.NODE).filter(([, id]) => id === "low" || id === "n1")).toEqual([
      [T.APP, "low", "", C.SET, D.APP_COMPLETING],
      [T.APP, "low", "v", C.REMOVE, D.ALLOC_PREEMPT],
      [T.NODE, "n1", "v", C.REMOVE, D.NODE_ALLOC],
      [T.APP, "low", "v", C.REMOVE, D.REQUEST_CANCEL],
    ]);
  });

  it("every reservation that ends is recorded, whichever way it ends: an eviction refused, the waiting ask removed", () => {
    const blocked = preempted();
    blocked.ev.length = 0;
    expect(blocked.core.preemptionBlocked("high", "p", { appId: "low", key: "v" })).toBe(true);
    expect(ofKinds(blocked.ev, T.NODE)).toEqual([[T.NODE, "n1", "p", C.REMOVE, D.NODE_RESERVATION]]);
    const removed = preempted();
    removed.ev.length = 0;
    removed.core.updateAllocation({ releases: [{ applicationID: "high", allocationKey: "p" }] });
    expect(ofKinds(removed.ev, T.NODE)).toEqual([[T.NODE, "n1", "p", C.REMOVE, D.NODE_RESERVATION]]);
  });

  it("placeholders leaving: replaced (ALLOC_REPLACED), too small for their pod (a REQUEST record, ALLOC_TIMEOUT)", () => {
    const { core, ev } = gangCore(() => 1_000);
    core.updateNode([{ nodeID: "n1", action: "CREATE", schedulableResource: { vcore: 3000 } }]);
    core.updateApplication({
      new: [
        { applicationID: "gang", queueName: "root.g", ugi: { user: "u" }, placeholderAsk: { vcore: 2000 }, gangSchedulingStyle: "Soft" },
      ],
    });
    const ask = (key: string, vcore: number, placeholder = false) => ({
      allocationKey: key,
      applicationID: "gang",
      resourcePerAlloc: { vcore },
      placeholder,
      taskGroupName: "tg",
      allocationTags: { "kubernetes.io/meta/podName": key },
    });
    core.updateAllocation({ allocations: [ask("ph-1", 1000, true), ask("ph-2", 1000, true)] });
    core.schedule();
    ev.length = 0;
    // a real pod of the group's size takes ph-1's place
    core.updateAllocation({ allocations: [ask("real-1", 1000)] });
    expect(core.scheduleResults().map((r) => r.kind)).toEqual(["replaced"]);
    expect(ofKinds(ev, T.APP, T.NODE).filter(([, , ref]) => ref === "ph-1")).toEqual([
      [T.APP, "gang", "ph-1", C.REMOVE, D.ALLOC_REPLACED],
      [T.NODE, "n1", "ph-1", C.REMOVE, D.NODE_ALLOC],
    ]);
    expect(core.allocationTags("gang", "ph-1")).toBeUndefined();
    // forgotten without an event sink too
    const quiet = new SchedulerCore(
      () => 1_000,
      "partitions:\n  - name: default\n    queues:\n      - name: root\n        submitacl: '*'\n        queues:\n          - name: g\n",
    );
    quiet.updateNode([{ nodeID: "n1", action: "CREATE", schedulableResource: { vcore: 3000 } }]);
    quiet.updateApplication({ new: [{ applicationID: "gang", queueName: "root.g", ugi: { user: "u" }, placeholderAsk: { vcore: 2000 } }] });
    quiet.updateAllocation({ allocations: [ask("ph-1", 1000, true), ask("ph-2", 1000, true)] });
    quiet.schedule();
    quiet.updateAllocation({ allocations: [ask("real-1", 1000)] });
    expect(quiet.scheduleResults().map((r) => r.kind)).toEqual(["replaced"]);
    expect(quiet.allocationTags("gang", "ph-1")).toBeUndefined();
    ev.length = 0;
    // a real pod larger than the placeholders: ph-2 goes with the REQUEST record naming both sizes
    core.updateAllocation({ allocations: [ask("real-2", 1500)] });
    core.scheduleResults();
    expect(ofKinds(ev, T.REQUEST, T.APP, T.NODE).filter(([, , ref]) => ref === "ph-2" || ref === "gang")).toEqual([
      [T.REQUEST, "ph-2", "gang", C.NONE, D.DETAILS_NONE],
      [T.APP, "gang", "ph-2", C.REMOVE, D.ALLOC_TIMEOUT],
      [T.NODE, "n1", "ph-2", C.REMOVE, D.NODE_ALLOC],
    ]);
    expect(ev.find((e) => e.type === T.REQUEST)!.message).toMatch(/allocation resources 'map\[vcore:1500\]' are not matching placeholder/);
    expect(ev.find((e) => e.type === T.REQUEST)!.resource).toEqual({ vcore: 1500 });
    expect(core.allocationTags("gang", "ph-2")).toBeUndefined();
    expect(core.releases().map((r) => [r.allocation.key, r.cause])).toEqual([["ph-2", "tooLarge"]]);
  });

  it("a gang's pending placeholders timing out are REQUEST_TIMEOUT; the state change carries its reason", () => {
    let now = 1_000;
    const { core, ev } = gangCore(() => now);
    core.updateNode([{ nodeID: "n1", action: "CREATE", schedulableResource: { vcore: 1000 } }]);
    core.updateApplication({
      new: [
        {
          applicationID: "gang",
          queueName: "root.g",
          ugi: { user: "u" },
          placeholderAsk: { vcore: 2000 },
          gangSchedulingStyle: "Hard",
          executionTimeoutMilliSeconds: 60_000,
        },
      ],
    });
    const ph = (key: string) => ({
      allocationKey: key,
      applicationID: "gang",
      resourcePerAlloc: { vcore: 1000 },
      placeholder: true,
      taskGroupName: "tg",
    });
    core.updateAllocation({ allocations: [ph("ph-1"), ph("ph-2")] });
    core.schedule(); // ph-1 placed, ph-2 waits for room
    ev.length = 0;
    now += 61_000;
    core.schedule();
    expect(ofKinds(ev, T.APP).filter(([, , ref]) => ref !== "")).toEqual([
      [T.APP, "gang", "ph-1", C.REMOVE, D.ALLOC_TIMEOUT],
      [T.APP, "gang", "ph-2", C.REMOVE, D.REQUEST_TIMEOUT],
    ]);
    expect(ev.find((e) => e.eventChangeDetail === D.APP_FAILING)?.message).toBe("ResourceReservationTimeout");
    // the state change first, then the placeholders it let go
    const details = ev.map((e) => e.eventChangeDetail);
    expect(details.indexOf(D.APP_FAILING)).toBeLessThan(details.indexOf(D.ALLOC_TIMEOUT));
  });
});
