/**
 * A configuration that changes a queue's type while it is in use (apache/yunikorn-core queue.go applyConf: `isLeaf =
 * !conf.Parent`, a parent when it has child queues; partition.go updateQueues marks children left out for removal;
 * Queue.TryAllocate walks only the children of a parent). A leaf that becomes a parent keeps its applications and
 * their allocations, and their asks wait (hold `queueNotLeaf`) instead of being allocated from a parent or breaking the
 * walk; a parent that becomes a leaf serves its draining children until they are gone, then is the leaf the
 * configuration asks for.
 */
import { describe, expect, it } from "vitest";
import { decodeQueuesYaml } from "../../../src/scheduler/core/config.js";
import { Partition } from "../../../src/scheduler/core/partition.js";
import { SchedulerCore } from "../../../src/scheduler/core/scheduler.js";
import { validateSchedulerConfig } from "../../../src/scheduler/core/validate.js";

/** root with the given children (YAML at the indentation of root's children). */
const config = (children: string) => `partitions:
  - name: default
    queues:
      - name: root
        submitacl: '*'
        queues:
${children}`;
const LEAVES = "          - name: a\n          - name: c\n";
const A_PARENT = "          - name: a\n            queues: [{name: b}]\n          - name: c\n";

function setup(children: string) {
  const clock = { now: 1_000 };
  const core = new SchedulerCore(() => clock.now, config(children));
  core.updateNode([{ nodeID: "n1", action: "CREATE", schedulableResource: { memory: 1000, vcore: 1000 } }]);
  const app = (id: string, queue: string) =>
    core.updateApplication({ new: [{ applicationID: id, queueName: queue, ugi: { user: "u", groups: ["g"] } }] });
  const ask = (appId: string, key: string, memory = 10) =>
    core.updateAllocation({ allocations: [{ allocationKey: key, applicationID: appId, resourcePerAlloc: { memory } }] });
  const placed = () => core.schedule().map((a) => `${a.appId}/${a.key}`);
  return { clock, core, app, ask, placed };
}

describe("a configuration changing a queue's type while it is in use", () => {
  it("a leaf made a parent keeps its applications; their asks wait and the walk serves the other queues", () => {
    const { clock, core, app, ask, placed } = setup(LEAVES);
    app("x", "root.a");
    ask("x", "1");
    expect(placed()).toEqual(["x/1"]);
    expect(core.updateConfiguration(config(A_PARENT)).ok).toBe(true);
    expect(core.queueView("root.a")).toMatchObject({ isLeaf: false, childNames: ["root.a.b"], allocated: { memory: 10 } });
    app("y", "root.c");
    ask("y", "1");
    ask("x", "3");
    // the cycle neither breaks nor allocates from the parent: y is placed, x's new ask waits with its reason
    expect(placed()).toEqual(["y/1"]);
    expect(core.holdReason("x", "3")).toEqual({ kind: "queueNotLeaf", queuePath: "root.a" });
    expect(core.applicationView("x")).toMatchObject({ state: "Starting", queue: "root.a" });
    // the new child is served
    app("z", "root.a.b");
    ask("z", "1");
    expect(placed()).toEqual(["z/1"]);
    // the cleanup keeps a parent that still holds applications
    clock.now += 60_000;
    core.schedule();
    expect(core.queueView("root.a")?.isLeaf).toBe(false);

    // a leaf again (b left out: draining until z leaves, then removed, then a is the leaf the configuration asks for)
    expect(core.updateConfiguration(config(LEAVES)).ok).toBe(true);
    expect(core.queueView("root.a")?.isLeaf).toBe(false);
    core.updateApplication({ remove: [{ applicationID: "z" }] });
    clock.now += 11_000;
    // the cleanup at the start of the cycle removes b and makes a a leaf; the same cycle serves x
    expect(placed()).toEqual(["x/3"]);
    expect(core.queueView("root.a.b")).toBeUndefined();
    expect(core.queueView("root.a")).toMatchObject({ isLeaf: true, allocated: { memory: 20 } });
  });

  it("a leaf made `parent: true` without children: its application's asks wait, the queue is kept", () => {
    const { clock, core, app, ask, placed } = setup(LEAVES);
    app("x", "root.a");
    ask("x", "1");
    expect(placed()).toEqual(["x/1"]);
    expect(core.updateConfiguration(config("          - name: a\n            parent: true\n          - name: c\n")).ok).toBe(true);
    ask("x", "2");
    expect(placed()).toEqual([]);
    expect(core.holdReason("x", "2")).toEqual({ kind: "queueNotLeaf", queuePath: "root.a" });
    clock.now += 60_000;
    expect(placed()).toEqual([]);
    expect(core.queueView("root.a")).toMatchObject({ isLeaf: false, allocated: { memory: 10 }, pending: { memory: 10 } });
  });

  it("a reservation held for an application of a leaf made a parent is given up: never placed from it, never preempting", () => {
    const CPU = 1000;
    const partitionConfig = (aChildren: string) =>
      validateSchedulerConfig(
        decodeQueuesYaml(
          config(
            "          - name: a\n            resources: {guaranteed: {vcore: 2}}\n            properties: {preemption.delay: 30s}\n" +
              aChildren +
              "          - name: b\n",
          ),
        ),
      ).partitions[0]!;
    const p = new Partition({ name: "default", config: partitionConfig(""), reservationDelayMs: 2_000 });
    for (const n of ["n1", "n2"]) p.addNode(n, { vcore: 4 * CPU });
    // b fills both nodes; a's ask (under a's guarantee) reserves a node, and could preempt once its delay passed
    for (const [id, node] of [
      ["b1", "n1"],
      ["b2", "n2"],
    ] as const) {
      p.addApplication({ id, queue: "root.b", user: "u", groups: [], tags: {}, now: 0 });
      for (let i = 0; i < 2; i++)
        p.addAsk({ appId: id, key: `${id}-${i}`, resource: { vcore: (1 + i) * CPU }, priority: 0, createTime: 1 + i, now: 0, node });
    }
    p.addApplication({ id: "a1", queue: "root.a", user: "u", groups: [], tags: {}, now: 10_000 });
    p.addAsk({ appId: "a1", key: "ask", resource: { vcore: 2 * CPU }, priority: 0, createTime: 10_000, now: 10_000 });
    const run = (now: number) => {
      p.tick(now);
      const out = [];
      for (let r = p.tryAllocate(now); r; r = p.tryAllocate(now)) out.push(r);
      return out;
    };
    run(10_500);
    expect(run(13_000).map((r) => r.kind)).toEqual(["reserved"]);
    const reserved = p.reservationList()[0]!.nodeId;
    p.applyConfig(partitionConfig("            queues: [{name: x}]\n"), 20_000);
    expect(run(20_000)).toEqual([{ kind: "unreserved", appId: "a1", key: "ask", nodeId: reserved, cause: "queueNotLeaf" }]);
    // past the preemption delay: no victim is taken for it; room freed on the node goes to nobody from root.a
    expect(run(41_000)).toEqual([]);
    p.removeAsk("b1", "b1-1", 42_000);
    expect(run(42_000)).toEqual([]);
    expect(p.holdReason("a1", "ask")).toEqual({ kind: "queueNotLeaf", queuePath: "root.a" });
  });

  it("a gang left in a leaf made a parent: its real pod's hold names the queue, not the gang's reservation", () => {
    const { core, placed } = setup("          - name: a\n");
    core.updateApplication({
      new: [{ applicationID: "g", queueName: "root.a", ugi: { user: "u" }, placeholderAsk: { memory: 200 } }],
    });
    const gangAsk = (key: string, placeholder: boolean) =>
      core.updateAllocation({
        allocations: [{ allocationKey: key, applicationID: "g", resourcePerAlloc: { memory: 100 }, placeholder, taskGroupName: "tg" }],
      });
    gangAsk("driver", false);
    gangAsk("ph1", true);
    expect(core.applicationState("g")).toBe("Reserving");
    expect(core.updateConfiguration(config("          - name: a\n            queues: [{name: b}]\n")).ok).toBe(true);
    gangAsk("ph2", true);
    expect(placed()).toEqual([]);
    expect(core.holdReason("g", "driver")).toEqual({ kind: "queueNotLeaf", queuePath: "root.a" });
    expect(core.holdReason("g", "ph2")).toEqual({ kind: "queueNotLeaf", queuePath: "root.a" });
  });

  it("a parent made a leaf serves its draining child until it is gone, then takes applications as a leaf", () => {
    const { clock, core, app, ask, placed } = setup(A_PARENT);
    app("x", "root.a.b");
    ask("x", "1");
    expect(placed()).toEqual(["x/1"]);
    expect(core.updateConfiguration(config(LEAVES)).ok).toBe(true);
    expect(core.queueView("root.a.b")?.draining).toBe(true);
    ask("x", "2");
    expect(placed()).toEqual(["x/2"]);
    // the child's application finishes (Completing, Completed 30 s later); the next cleanup removes the child
    core.updateAllocation({
      releases: [
        { applicationID: "x", allocationKey: "1" },
        { applicationID: "x", allocationKey: "2" },
      ],
    });
    clock.now += 31_000;
    core.schedule();
    clock.now += 11_000;
    core.schedule();
    expect(core.queueView("root.a.b")).toBeUndefined();
    expect(core.queueView("root.a")).toMatchObject({ isLeaf: true, sortPolicy: "fifo", draining: false });
    expect(app("w", "root.a").acceptedApplications).toEqual(["w"]);
    ask("w", "1");
    expect(placed()).toEqual(["w/1"]);
  });
});
