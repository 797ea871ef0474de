/**
 * The queue tree on its own (queue-tree.ts): built from a real configuration, updated by a reload, dynamic queues made
 * from a child template, empty ones removed, and every change recorded as data (upstream apache/yunikorn-core
 * partition_test.go TestCreateQueue, partition_manager_test.go TestCleanQueues, queue_test.go TestApplyConf).
 */
import { describe, expect, it } from "vitest";
import { decodeQueuesYaml } from "../../../src/scheduler/core/config.js";
import { QuotaPreemptionTracker } from "../../../src/scheduler/core/preemption/quota-tracker.js";
import { QueueTree, maxQueueSet } from "../../../src/scheduler/core/queue-tree.js";
import { validateSchedulerConfig } from "../../../src/scheduler/core/validate.js";

const rootOf = (yaml: string) => validateSchedulerConfig(decodeQueuesYaml(yaml)).partitions[0]!.queues![0]!;
/** The root of a configuration whose root holds `rootQueues` (YAML list items indented for under `queues:` of root). */
const rootWith = (rootQueues: string) =>
  rootOf(`partitions:
  - name: default
    queues:
      - name: root
        queues:
${rootQueues}`);
/** Applies a configuration whose root holds `rootQueues`. */
const reload = (tree: QueueTree, rootQueues: string) => tree.configure(rootWith(rootQueues), new QuotaPreemptionTracker());
const treeOf = (yaml: string) => {
  const rootCfg = rootOf(yaml);
  const tree = new QueueTree();
  tree.configure(rootCfg, new QuotaPreemptionTracker());
  return tree;
};

const CONFIG = `partitions:
  - name: default
    queues:
      - name: root
        queues:
          - name: tenants
            parent: true
            childtemplate:
              maxapplications: 4
              resources: {max: {memory: 8Gi, vcore: 4}}
              properties: {application.sort.policy: fair}
          - name: batch
            resources: {max: {memory: 16Gi}}
`;

describe("QueueTree", () => {
  it("builds the configured queues and records each as added, root first", () => {
    const tree = treeOf(CONFIG);
    expect(tree.drainChanges()).toEqual([
      { kind: "added", path: "root", managed: true },
      { kind: "added", path: "root.tenants", managed: true },
      { kind: "added", path: "root.batch", managed: true },
    ]);
    expect(tree.drainChanges()).toEqual([]);
    expect(tree.find("ROOT.Batch")?.isLeaf).toBe(true);
    expect(tree.find("root.tenants")?.isLeaf).toBe(false);
    expect(tree.find("batch")).toBeUndefined();
    expect(tree.orderDirty).toBe("full");
  });

  // upstream queue.go NewConfiguredQueue merges the parent's properties before UpdateQueueProperties reads them
  // (queue_test.go TestQueueProps: a leaf has its parent's properties); a parent always sorts fair
  it("a configured queue's sort policy and priority sorting come from the properties in force, its parent's merged in", () => {
    const tree = treeOf(`partitions:
  - name: default
    queues:
      - name: root
        properties: {application.sort.policy: fair, application.sort.priority: disabled}
        queues:
          - name: p
            queues: [{name: a}, {name: b, properties: {application.sort.policy: fifo, application.sort.priority: enabled}}]
`);
    const sorting = (path: string) => [tree.find(path)!.sortPolicy, tree.find(path)!.sortPriority];
    expect(sorting("root")).toEqual(["fair", false]);
    expect(sorting("root.p")).toEqual(["fair", false]);
    expect(sorting("root.p.a")).toEqual(["fair", false]);
    expect(sorting("root.p.b")).toEqual(["fifo", true]);
    // on reload too; fifo on a parent is not a parent's policy
    reload(tree, "          - name: p\n            properties: {application.sort.policy: fifo}\n            queues: [{name: a}]\n");
    expect(sorting("root.p")).toEqual(["fair", true]);
    expect(sorting("root.p.a")).toEqual(["fifo", true]);
  });

  it("creates a dynamic leaf from its parent's child template, and dynamic parents on the way", () => {
    const tree = treeOf(CONFIG);
    tree.drainChanges();
    const leaf = tree.create("root.tenants.team-a.spark");
    expect(leaf.path).toBe("root.tenants.team-a.spark");
    expect(leaf.managed).toBe(false);
    expect(leaf.isLeaf).toBe(true);
    expect(leaf.maxApps).toBe(4);
    expect(leaf.max).toEqual({ memory: 8 * 2 ** 30, vcore: 4000 });
    expect(leaf.sortPolicy).toBe("fair");
    expect(tree.find("root.tenants.team-a")?.isLeaf).toBe(false);
    expect(tree.drainChanges()).toEqual([
      { kind: "added", path: "root.tenants.team-a", managed: false },
      { kind: "added", path: "root.tenants.team-a.spark", managed: false },
    ]);
    expect(maxQueueSet(leaf)).toEqual({ memory: 8 * 2 ** 30, vcore: 4000 });
  });

  it("sets root's max to the cluster size and marks fair maxima stale, never a configured max", () => {
    const tree = treeOf(CONFIG);
    tree.refreshOrder();
    tree.drainChanges();
    tree.setRootMax({ memory: 64 * 2 ** 30, vcore: 32_000 });
    expect(tree.orderDirty).toBe("fairMax");
    expect(tree.drainChanges()).toEqual([{ kind: "max", path: "root", max: { memory: 64 * 2 ** 30, vcore: 32_000 } }]);
    tree.setRootMax({ memory: 64 * 2 ** 30, vcore: 32_000 });
    expect(tree.drainChanges()).toEqual([]);
    tree.refreshOrder();
    expect(tree.orderDirty).toBe("none");
    // batch overrides memory only; vcore comes from root
    expect(tree.find("root.batch")?.fairMax).toEqual({ memory: 16 * 2 ** 30, vcore: 32_000 });
  });

  it("on reload, a queue left out drains and goes once empty; an empty dynamic queue goes in the same pass", () => {
    const tree = treeOf(CONFIG);
    tree.create("root.tenants.team-a");
    tree.drainChanges();
    reload(
      tree,
      `          - name: tenants
            parent: true
`,
    );
    expect(tree.find("root.batch")?.draining).toBe(true);
    expect(tree.drainChanges()).toEqual([]);
    expect(tree.removeEmpty().sort()).toEqual(["root.batch", "root.tenants.team-a"]);
    expect(tree.find("root.batch")).toBeUndefined();
    expect(tree.find("root.tenants")).toBeDefined();
    expect(tree.orderDirty).toBe("full");
    expect(tree.removeEmpty()).toEqual([]);
  });

  it("keeps a drained queue that still runs an application, and records each removal as data", () => {
    const tree = treeOf(CONFIG);
    const dyn = tree.create("root.tenants.team-b");
    tree.find("root.batch")!.incAllocated({ memory: 2 ** 30 });
    reload(
      tree,
      `          - name: tenants
            parent: true
`,
    );
    tree.drainChanges();
    expect(tree.removeEmpty()).toEqual(["root.tenants.team-b"]);
    expect(tree.find("root.batch")?.draining).toBe(true);
    expect(tree.drainChanges()).toEqual([{ kind: "removed", path: dyn.path, managed: false }]);
    tree.find("root.batch")!.decAllocated({ memory: 2 ** 30 });
    expect(tree.removeEmpty()).toEqual(["root.batch"]);
    expect(tree.drainChanges()).toEqual([{ kind: "removed", path: "root.batch", managed: true }]);
  });

  it("with a time, reports a max lowered below usage to the quota-preemption tracker (upstream setPreemptionTime)", () => {
    const lowered = rootWith(`          - name: tenants
            parent: true
          - name: batch
            resources: {max: {memory: 8Gi}}
            properties: {quota.preemption.delay: 30s}
`);
    const run = (now: number | undefined) => {
      const rootCfg = rootOf(CONFIG);
      const tree = new QueueTree();
      const quota = new QuotaPreemptionTracker();
      tree.configure(rootCfg, quota);
      const batch = tree.find("root.batch")!;
      batch.incAllocated({ memory: 12 * 2 ** 30 }); // 12Gi used, max 16Gi lowered to 8Gi
      tree.configure(lowered, quota, now);
      return quota.startOf(batch);
    };
    expect(run(1_000_000)).toBe(1_030_000);
    // without a time (a caller that does not track quota changes) nothing is reported
    expect(run(undefined)).toBeUndefined();
  });

  it("records a changed max and guaranteed, and a leaf that became a parent", () => {
    const tree = treeOf(CONFIG);
    tree.drainChanges();
    reload(
      tree,
      `          - name: tenants
            parent: true
          - name: batch
            resources: {max: {memory: 32Gi}, guaranteed: {memory: 4Gi}}
            queues:
              - name: nightly
`,
    );
    expect(tree.drainChanges()).toEqual([
      { kind: "type", path: "root.batch", isLeaf: false },
      { kind: "guaranteed", path: "root.batch", guaranteed: { memory: 4 * 2 ** 30 } },
      { kind: "max", path: "root.batch", max: { memory: 32 * 2 ** 30 } },
      { kind: "added", path: "root.batch.nightly", managed: true },
    ]);
  });

  it("creates the recovery queue as a dynamic fifo leaf under root", () => {
    const tree = treeOf(CONFIG);
    const rec = tree.create("root.@recovery@");
    expect(rec.path).toBe("root.@recovery@");
    expect(rec.isLeaf).toBe(true);
    expect(rec.managed).toBe(false);
    expect(rec.sortPolicy).toBe("fifo");
  });
});
