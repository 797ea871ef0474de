/**
 * Gang scheduling through ShimContext and a real SchedulerCore: pods with task groups in, placeholder creates,
 * replacements, deletes and pod status out. The API server is played by the test: created placeholders are fed
 * back as pods, binds as bound pods.
 */
import type { V1Pod } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { SchedulerCore } from "../../../../src/scheduler/core/scheduler.js";
import { GANG_HOLD_REPORT_MS, type NodeObject, type ShimAction, ShimContext } from "../../../../src/scheduler/shim/context.js";
import { DEFAULT_GANG_CONFIG } from "../../../../src/scheduler/shim/gang/config.js";
import type { PodObject } from "../../../../src/scheduler/shim/translate.js";
import { providedQueues } from "../../../fixtures/queues.js";
import { T0, fakeNode, shimPod } from "../fixtures.js";

const CFG = providedQueues(["{name: spark, resources: {max: {memory: 64Gi}}}"]);
/** The default `service.schedulerUser` (deploy/scheduler's ServiceAccount). */
const SCHEDULER_USER = "system:serviceaccount:corral:corral-scheduler";
const TASK_GROUPS = JSON.stringify([
  { name: "driver", minMember: 1, minResource: { cpu: "1", memory: "1Gi" } },
  { name: "executor", minMember: 4, minResource: { cpu: "1", memory: "1Gi" } },
]);

let uids = 0;
function pod(
  name: string,
  o: { group?: string; groups?: string; params?: string; memory?: string; node?: string; created?: number } = {},
): PodObject {
  const annotations: Record<string, string> = {};
  if (o.groups) annotations["yunikorn.apache.org/task-groups"] = o.groups;
  if (o.group) annotations["yunikorn.apache.org/task-group-name"] = o.group;
  if (o.params) annotations["yunikorn.apache.org/schedulingPolicyParameters"] = o.params;
  return shimPod(name, {
    namespace: "ns",
    uid: `uid-${name}-${uids++}`,
    labels: { "yunikorn.apache.org/app-id": "spark-1", "yunikorn.apache.org/queue": "root.spark" },
    annotations,
    created: new Date(o.created ?? T0).toISOString(),
    requests: { cpu: "1", memory: o.memory ?? "1Gi" },
    node: o.node,
    phase: "Pending",
  });
}
const node = (name: string): NodeObject => fakeNode(name, { cpu: "8" });

function world(o: { params?: string; stampUser?: string; failCreates?: number } = {}) {
  let failing = o.failCreates ?? 0;
  const clock = { now: T0 };
  const core = new SchedulerCore(() => clock.now, CFG);
  let r = 0;
  const ctx = new ShimContext(core, { now: () => clock.now, random: () => (r = (r + 0.37) % 1) });
  ctx.syncNode(node("n1"));
  ctx.syncNode(node("n2"));
  const pods = new Map<string, PodObject>();
  /** Plays the API server for the actions: placeholders created, binds applied, deletes and status patches done. */
  const apply = (actions: ShimAction[]): ShimAction[] => {
    const next: ShimAction[] = [];
    for (const a of actions) {
      if (a.kind === "createPod" && failing > 0) {
        // the API server refuses the create (a ResourceQuota, a PodSecurity admission…)
        failing--;
        next.push(...ctx.placeholderCreateFailed(a.pod.metadata!.labels!["yunikorn.apache.org/app-id"]!));
      } else if (a.kind === "createPod") {
        const p = structuredClone(a.pod) as V1Pod as PodObject;
        p.metadata!.uid = `uid-${p.metadata!.name}`;
        p.metadata!.creationTimestamp = new Date(clock.now).toISOString();
        // as the admission controller: the creator's identity on the pod
        p.metadata!.annotations!["yunikorn.apache.org/user.info"] = JSON.stringify({ user: o.stampUser ?? SCHEDULER_USER, groups: [] });
        pods.set(p.metadata!.uid!, p);
        next.push(...ctx.syncPod(p));
      } else if (a.kind === "bind") {
        if (a.replaces) {
          const ph = pods.get(a.replaces.uid)!;
          pods.delete(a.replaces.uid);
          ctx.deletePod(ph);
        }
        const p = pods.get(a.pod.uid)!;
        p.spec!.nodeName = a.node;
        next.push(...ctx.bindSucceeded(a.pod.uid, a.node), ...ctx.syncPod(p));
      } else if (a.kind === "deletePod") {
        const p = pods.get(a.pod.uid);
        if (p) {
          pods.delete(a.pod.uid);
          ctx.deletePod(p);
        }
      } else if (a.kind === "podStatus") {
        const p = pods.get(a.pod.uid)!;
        p.status = { phase: a.phase };
        next.push(...ctx.syncPod(p));
      }
    }
    return next;
  };
  /** Feeds a pod in and schedules until nothing changes; returns every action seen. */
  const run = (...add: PodObject[]): ShimAction[] => {
    const all: ShimAction[] = [];
    let actions: ShimAction[] = [];
    for (const p of add) {
      pods.set(p.metadata!.uid!, p);
      actions.push(...ctx.syncPod(p));
    }
    for (let i = 0; i < 20; i++) {
      actions.push(...ctx.schedule());
      if (actions.length === 0) break;
      all.push(...actions);
      actions = apply(actions);
    }
    return all;
  };
  const placeholders = () =>
    [...pods.values()].filter((p) => p.metadata?.annotations?.["internal.yunikorn.apache.org/placeholder"] === "true");
  return { clock, core, ctx, pods, run, placeholders, o };
}

describe("gang scheduling in the shim", () => {
  it("a Spark-shaped job: placeholders created and bound first, then the driver and executors take their places", () => {
    const w = world();
    const driver = pod("driver", { groups: TASK_GROUPS, group: "driver" });
    const first = w.run(driver);
    expect(first.filter((a) => a.kind === "createPod")).toHaveLength(5);
    expect(first.find((a) => a.kind === "event" && a.message.includes("creating placeholders"))).toBeDefined();
    // application.go onReservationStateChange: PlaceholderAllocated on the driver, once for its five placeholders
    const allocated = first.filter((a) => a.kind === "event" && a.message === "Application spark-1 placeholder has been allocated.");
    expect(allocated).toEqual([
      expect.objectContaining({
        type: "Normal",
        reason: "GangScheduling",
        object: expect.objectContaining({ kind: "Pod", name: "driver" }),
      }),
    ]);
    expect(w.core.applicationState("spark-1")).toBe("Running");
    // the driver took the driver placeholder's node; its placeholder was deleted before the bind
    const bindDriver = first.find((a) => a.kind === "bind" && a.pod.name === "driver") as Extract<ShimAction, { kind: "bind" }>;
    expect(bindDriver.replaces?.name).toMatch(/^tg-spark-1-driver-[a-z0-9]{10}$/);
    expect(w.placeholders()).toHaveLength(4);
    const phNodes = w
      .placeholders()
      .map((p) => p.spec!.nodeName)
      .sort();
    const execs = [0, 1, 2, 3].map((i) => pod(`exec-${i}`, { group: "executor" }));
    const second = w.run(...execs);
    const binds = second.filter((a): a is Extract<ShimAction, { kind: "bind" }> => a.kind === "bind");
    expect(binds.map((b) => b.node).sort()).toEqual(phNodes);
    expect(binds.every((b) => b.replaces)).toBe(true);
    expect(w.placeholders()).toHaveLength(0);
    const view = w.core.applicationView("spark-1")!;
    expect(view.allocations.map((a) => a.placeholder ?? false)).toEqual([false, false, false, false, false]);
    expect(view.placeholderData.map((d) => [d.taskGroupName, d.count, d.replaced])).toEqual([
      ["driver", 1, 1],
      ["executor", 4, 4],
    ]);
    expect(w.ctx.stats()).toMatchObject({ Bound: 5 });
  });

  it("bindWanted: a binding still queued when its placeholder was replaced is not to be sent; the replacement's is", () => {
    const w = world();
    w.run(pod("driver", { groups: TASK_GROUPS, group: "driver" }));
    const exec = pod("exec-0", { group: "executor" });
    w.pods.set(exec.metadata!.uid!, exec);
    const actions = [...w.ctx.syncPod(exec), ...w.ctx.schedule()];
    const bind = actions.find((a): a is Extract<ShimAction, { kind: "bind" }> => a.kind === "bind")!;
    expect(bind.pod.name).toBe("exec-0");
    const ph = w.ctx.tasks.get(bind.replaces!.uid)!;
    expect(ph.state).toBe("Releasing");
    expect(w.ctx.bindWanted(bind.replaces!.uid, ph.node!)).toBe(false);
    expect(w.ctx.bindWanted(bind.pod.uid, bind.node)).toBe(true);
    expect(w.ctx.bindWanted(bind.pod.uid, bind.node === "n1" ? "n2" : "n1")).toBe(false);
    expect(w.ctx.bindWanted("uid-unknown", bind.node)).toBe(false);
  });

  it("an invalid task-groups annotation: a Warning event and normal scheduling", () => {
    const w = world();
    const out = w.run(pod("driver", { groups: '[{"name": "x", "minMember": -1}]', group: "x" }));
    expect(
      out.find(
        (a) =>
          a.kind === "event" &&
          a.type === "Warning" &&
          a.message.startsWith("unable to get taskGroups for pod, reason: yunikorn.apache.org/task-groups"),
      ),
    ).toBeDefined();
    expect(out.filter((a) => a.kind === "createPod")).toHaveLength(0);
    expect(out.filter((a) => a.kind === "bind")).toHaveLength(1);
  });

  it("Hard timeout: placeholders deleted, the waiting real pods failed with ResourceReservationTimeout", () => {
    const w = world();
    // executors need 4 × 1Gi placeholders on top of the driver's; nodes are cordoned after the driver placeholder binds
    const groups = JSON.stringify([
      { name: "driver", minMember: 1, minResource: { memory: "1Gi" } },
      { name: "executor", minMember: 4, minResource: { memory: "7Gi" } },
    ]);
    const out = w.run(pod("driver", { groups, group: "driver", params: "placeholderTimeoutInSeconds=60 gangSchedulingStyle=Hard" }));
    expect(out.filter((a) => a.kind === "createPod")).toHaveLength(5);
    expect(w.core.applicationState("spark-1")).toBe("Reserving"); // 4 × 7Gi do not fit two 8Gi nodes
    w.clock.now += 60_000;
    const after = w.run();
    expect(after.filter((a) => a.kind === "deletePod")).toHaveLength(5);
    expect(after.find((a) => a.kind === "podStatus")).toMatchObject({
      pod: { name: "driver" },
      phase: "Failed",
      reason: "ResourceReservationTimeout",
    });
    expect(w.placeholders()).toHaveLength(0);
    expect(w.core.applicationView("spark-1")!.state).toBe("Failed");
  });

  it("Soft timeout: placeholders deleted and the job scheduled normally", () => {
    const w = world();
    const groups = JSON.stringify([
      { name: "driver", minMember: 1, minResource: { memory: "1Gi" } },
      { name: "executor", minMember: 4, minResource: { memory: "7Gi" } },
    ]);
    w.run(pod("driver", { groups, group: "driver", params: "placeholderTimeoutInSeconds=60" }));
    w.clock.now += 60_000;
    const after = w.run();
    expect(after.find((a) => a.kind === "event" && a.message.includes("resuming as non-gang application (SOFT)"))).toBeDefined();
    const bind = after.find((a) => a.kind === "bind" && a.pod.name === "driver") as Extract<ShimAction, { kind: "bind" }>;
    expect(bind).toBeDefined();
    expect(bind.replaces).toBeUndefined();
    expect(w.placeholders()).toHaveLength(0);
  });

  // application.go onReserving: a failed placeholder create cleans up and runs the application (RunApplicationEvent)
  it("placeholders that cannot be created: the gang runs as a normal application, Hard too; one Warning", () => {
    const w = world({ params: "gangSchedulingStyle=Hard", failCreates: 2 });
    const out = w.run(pod("driver", { groups: TASK_GROUPS, group: "driver" }));
    const warnings = out.filter((a) => a.kind === "event" && a.message.endsWith("fall back to normal scheduling"));
    expect(warnings).toHaveLength(1);
    expect(out.some((a) => a.kind === "event" && a.message.includes("resuming as non-gang"))).toBe(false);
    // the placeholders that were created are deleted, the driver is placed without one
    expect(w.placeholders()).toHaveLength(0);
    const bind = out.find((a) => a.kind === "bind" && a.pod.name === "driver") as Extract<ShimAction, { kind: "bind" }>;
    expect(bind).toBeDefined();
    expect(bind.replaces).toBeUndefined();
    expect(w.core.applicationState("spark-1")).not.toBe("Reserving");
    expect(w.core.applicationState("spark-1")).not.toBe("Failing");
  });

  it("restart while Reserving: bound placeholders recovered as allocations, only the missing ones created", () => {
    const w = world();
    const groups = JSON.stringify([
      { name: "driver", minMember: 1, minResource: { memory: "1Gi" } },
      { name: "executor", minMember: 4, minResource: { memory: "7Gi" } },
    ]);
    const driver = pod("driver", { groups, group: "driver" });
    w.run(driver);
    const before = w
      .placeholders()
      .map((p) => p.metadata!.name)
      .sort();
    expect(before).toHaveLength(5);
    // a new scheduler sees the same pods
    const core = new SchedulerCore(() => w.clock.now, CFG);
    const ctx = new ShimContext(core, { now: () => w.clock.now, random: Math.random });
    const out = ctx.syncAll([node("n1"), node("n2")], [...w.pods.values()]);
    out.push(...ctx.schedule());
    expect(out.filter((a) => a.kind === "createPod")).toHaveLength(0);
    const view = core.applicationView("spark-1")!;
    expect(view.state).toBe("Reserving");
    const boundBefore = w.placeholders().filter((p) => p.spec?.nodeName).length;
    expect(view.allocations.filter((a) => a.placeholder)).toHaveLength(boundBefore);
    // usage equals what the bound placeholders hold: nothing counted twice
    expect(core.queueView("root.spark")!.allocated.memory).toBe(w.core.queueView("root.spark")!.allocated.memory);
  });

  // application_test.go TestOnReservingWithExistingPlaceholders: "missing placeholders should still be created during
  // recovery" (onReserving falls through to createAppPlaceholders, which counts the existing ones)
  it("restart while Reserving with a placeholder missing: only that one is created, without CreatingPlaceholders", () => {
    const w = world();
    const groups = JSON.stringify([
      { name: "driver", minMember: 1, minResource: { memory: "1Gi" } },
      { name: "executor", minMember: 4, minResource: { memory: "7Gi" } },
    ]);
    w.run(pod("driver", { groups, group: "driver" }));
    // one executor placeholder is lost while the scheduler is down
    const lost = w.placeholders().find((p) => p.metadata!.annotations!["yunikorn.apache.org/task-group-name"] === "executor")!;
    w.pods.delete(lost.metadata!.uid!);
    const core = new SchedulerCore(() => w.clock.now, CFG);
    const ctx = new ShimContext(core, { now: () => w.clock.now, random: Math.random });
    const out = ctx.syncAll([node("n1"), node("n2")], [...w.pods.values()]);
    out.push(...ctx.schedule());
    const created = out.filter((a): a is Extract<ShimAction, { kind: "createPod" }> => a.kind === "createPod");
    expect(created.map((a) => a.pod.metadata!.annotations!["yunikorn.apache.org/task-group-name"])).toEqual(["executor"]);
    expect(out.some((a) => a.kind === "event" && a.reason === "CreatingPlaceholders")).toBe(false);
  });
});

describe("gang scheduling in the shim: placeholders and application keying", () => {
  it("placeholders stamped with the scheduler's identity join their driver's application (charged to the driver's user)", () => {
    const w = world({ stampUser: SCHEDULER_USER });
    const driver = pod("driver", { groups: TASK_GROUPS, group: "driver" });
    driver.metadata!.annotations!["yunikorn.apache.org/user.info"] = JSON.stringify({ user: "alice", groups: [] });
    const out = w.run(driver);
    expect(out.filter((a) => a.kind === "createPod")).toHaveLength(5);
    expect(w.core.applicationViews().map((a) => [a.id, a.user, a.state])).toEqual([["spark-1", "alice", "Running"]]);
    expect(out.some((a) => a.kind === "event" && a.reason === "ApplicationNotJoined")).toBe(false);
  });
});

describe("gang scheduling in the shim: only the scheduler's own placeholders are trusted", () => {
  /** A pod alice made to look like a placeholder of bob's driver (owner reference, bob's application id). */
  function forged(driver: PodObject, user: string): PodObject {
    const p = pod("forged", { group: "executor", memory: "3Gi" });
    p.metadata!.annotations!["internal.yunikorn.apache.org/placeholder"] = "true";
    p.metadata!.annotations!["yunikorn.apache.org/user.info"] = JSON.stringify({ user, groups: [] });
    p.metadata!.ownerReferences = [
      {
        apiVersion: "v1",
        kind: "Pod",
        name: driver.metadata!.name!,
        uid: driver.metadata!.uid!,
        controller: false,
        blockOwnerDeletion: true,
      },
    ];
    return p;
  }

  it("a placeholder flagged by another user is charged to that user, joins nothing and takes no gang slot", () => {
    const w = world();
    const driver = pod("driver", { groups: TASK_GROUPS, group: "driver" });
    driver.metadata!.annotations!["yunikorn.apache.org/user.info"] = JSON.stringify({ user: "bob", groups: [] });
    w.run(driver);
    const bobsBefore = w.core.applicationView("spark-1")!.allocations.length;
    const out = w.run(forged(driver, "alice"));
    const apps = w.core.applicationViews().map((a) => [a.user, a.allocations.some((x) => x.placeholder)]);
    expect(apps).toEqual(
      expect.arrayContaining([
        ["bob", true],
        ["alice", false],
      ]),
    );
    expect(w.core.applicationView("spark-1")!.allocations).toHaveLength(bobsBefore);
    expect(out.find((a) => a.kind === "event" && a.reason === "PlaceholderNotTrusted")).toMatchObject({
      type: "Warning",
      object: { name: "forged" },
    });
    expect(out.some((a) => a.kind === "deletePod" && a.pod.name === "forged")).toBe(false);
  });

  it("a forged placeholder with task groups gets placeholders of its own, owned by it, charged to its user", () => {
    const w = world();
    const driver = pod("driver", { groups: TASK_GROUPS, group: "driver" });
    driver.metadata!.annotations!["yunikorn.apache.org/user.info"] = JSON.stringify({ user: "bob", groups: [] });
    w.run(driver);
    const bobs = new Set(w.placeholders().map((p) => p.metadata!.uid));
    const f = forged(driver, "alice");
    f.metadata!.annotations!["yunikorn.apache.org/task-groups"] = TASK_GROUPS;
    f.spec!.containers[0]!.resources!.requests!.memory = "1Gi";
    const out = w.run(f);
    const created = out.filter((a) => a.kind === "createPod").map((a) => (a as Extract<ShimAction, { kind: "createPod" }>).pod);
    expect(created.length).toBeGreaterThan(0);
    for (const p of created) expect(p.metadata!.ownerReferences!.map((r) => r.uid)).toEqual([f.metadata!.uid]);
    const byUser = Object.fromEntries(w.core.applicationViews().map((a) => [a.user, a.allocations.filter((x) => x.placeholder).length]));
    // the forged pod (group executor) took one of its own placeholders' places
    expect(byUser).toEqual({ bob: bobs.size, alice: created.length - 1 });
  });

  it("the same pod stamped with the scheduler's identity joins the driver's application", () => {
    const w = world();
    const driver = pod("driver", { groups: TASK_GROUPS, group: "driver" });
    driver.metadata!.annotations!["yunikorn.apache.org/user.info"] = JSON.stringify({ user: "bob", groups: [] });
    w.run(driver);
    const out = w.run(forged(driver, SCHEDULER_USER));
    expect(w.core.applicationViews().map((a) => a.user)).toEqual(["bob"]);
    expect(out.some((a) => a.kind === "event" && a.reason === "PlaceholderNotTrusted")).toBe(false);
  });

  it("service.schedulerUser names whose placeholders are trusted", () => {
    const w = world({ stampUser: "system:serviceaccount:batch:sched" });
    w.ctx.setGangConfig({ ...DEFAULT_GANG_CONFIG, schedulerUser: "system:serviceaccount:batch:sched" });
    const out = w.run(pod("driver", { groups: TASK_GROUPS, group: "driver" }));
    expect(out.filter((a) => a.kind === "createPod")).toHaveLength(5);
    expect(w.core.applicationViews().map((a) => [a.id, a.state])).toEqual([["spark-1", "Running"]]);
  });
});

describe("gang scheduling in the shim: a pod larger than its placeholder", () => {
  it("releases the placeholders it can never use (deleted, Warning on the driver) and is scheduled normally", () => {
    const w = world();
    w.run(pod("driver", { groups: TASK_GROUPS, group: "driver" }));
    expect(w.placeholders()).toHaveLength(4);
    const out = w.run(pod("big-exec", { group: "executor", memory: "2Gi" }));
    expect(out.filter((a) => a.kind === "deletePod")).toHaveLength(4);
    expect(out.find((a) => a.kind === "event" && a.type === "Warning" && a.message.includes("are not matching placeholder"))).toMatchObject(
      { object: { name: "driver" } },
    );
    const bind = out.find((a) => a.kind === "bind" && a.pod.name === "big-exec") as Extract<ShimAction, { kind: "bind" }>;
    expect(bind.replaces).toBeUndefined();
    expect(w.placeholders()).toHaveLength(0);
  });
});

describe("gang scheduling in the shim: real pods waiting for their gang", () => {
  it("the wait is written on the pod only after GANG_HOLD_REPORT_MS, once, not again as placeholders get allocated", () => {
    const w = world();
    const driver = pod("driver", { groups: TASK_GROUPS, group: "driver" });
    w.pods.set(driver.metadata!.uid!, driver);
    w.ctx.syncPod(driver);
    // the placeholders are asked for but not created yet: the application is Reserving, the driver waits
    const creates = w.ctx.schedule().filter((a) => a.kind === "createPod");
    expect(creates).toHaveLength(5);
    expect(w.core.applicationState("spark-1")).toBe("Reserving");
    expect(w.ctx.holdReasons()).toEqual([]);
    w.clock.now += GANG_HOLD_REPORT_MS - 1;
    expect(w.ctx.holdReasons()).toEqual([]);
    w.clock.now += 1;
    const held = w.ctx.holdReasons();
    expect(held).toEqual([
      {
        kind: "condition",
        pod: { namespace: "ns", name: "driver", uid: driver.metadata!.uid },
        reason: "SchedulingSkipped",
        message:
          "application spark-1 is reserving resources for its gang: placeholders hold map[] of map[memory:5368709120 pods:5 vcore:5000]",
      },
      expect.objectContaining({ kind: "event", type: "Normal", reason: "PodUnschedulable" }),
    ]);
    // two placeholders created and allocated: the hold's numbers change, nothing is written again
    const p = creates[0]!.pod as PodObject;
    p.metadata!.uid = "uid-ph-0";
    p.metadata!.annotations!["yunikorn.apache.org/user.info"] = JSON.stringify({ user: SCHEDULER_USER, groups: [] });
    w.ctx.syncPod(p);
    expect(w.ctx.schedule().filter((a) => a.kind === "bind")).toHaveLength(1);
    expect(w.core.holdReason("spark-1", driver.metadata!.uid!)).toMatchObject({ kind: "gangReservation" });
    w.clock.now += GANG_HOLD_REPORT_MS;
    expect(w.ctx.holdReasons()).toEqual([]);
  });

  it("a gang that completes within GANG_HOLD_REPORT_MS writes nothing on its real pods", () => {
    const w = world();
    const all = w.run(pod("driver", { groups: TASK_GROUPS, group: "driver" }));
    expect(w.core.applicationState("spark-1")).toBe("Running");
    expect(all.filter((a) => a.kind === "condition" || (a.kind === "event" && a.reason === "PodUnschedulable"))).toEqual([]);
    expect(w.ctx.holdReasons()).toEqual([]);
  });
});
