/**
 * A configuration that changes a queue's type while it is in use (apache/yunikorn-core queue.go applyConf: `isLeaf =
 * !conf.Parent`, a parent when it has child queues; partition.go updateQueues marks children left out for removal;
 * Queue.TryAllocate walks only the children of a parent). A leaf that becomes a parent keeps its applications and
 * their allocations, and their asks wait (hold `queueNotLeaf`) instead of being allocated from a parent or breaking the
 * walk; a parent that becomes a leaf serves its draining children until they are gone, then is the leaf the
 * configuration asks for.
 */
import { describe, expect, it } from "vitest";
import { SchedulerCore } from "../../../src/scheduler/core/scheduler.js";

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
