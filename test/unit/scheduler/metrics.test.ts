/**
 * YuniKorn's Prometheus metrics (src/scheduler/rest/metrics.ts, src/scheduler/core/counts.ts) as a scrape shows them:
 * names, types, labels and values after real core calls, following what upstream counts where (yunikorn-core
 * pkg/metrics/scheduler.go, queue.go; application_state.go's callbacks as application_state_test.go walks them;
 * context_test.go for the node states; queue_test.go TestPendingCalc for the queue resources; metrics_test.go for
 * the name sanitiser).
 */
import fc from "fast-check";
import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { MAX_TERMINAL_QUEUE_PATHS, countTerminal, newCoreCounts } from "../../../src/scheduler/core/counts.js";
import { SchedulerCore } from "../../../src/scheduler/core/scheduler.js";
import { metricName, nodeUsageRanges, registerYunikornMetrics, usageRange } from "../../../src/scheduler/rest/metrics.js";

const CONFIG = `partitions:
  - name: default
    placementrules:
      - {name: provided, create: false}
    queues:
      - name: root
        submitacl: '*'
        queues:
          - name: a
            maxapplications: 3
            resources: {guaranteed: {memory: 50}, max: {memory: 200, vcore: 20}}
          - name: b
          - name: tenants
            parent: true
`;
const ugi = { user: "alice", groups: ["dev"] };

/** A core on a clock the test moves, with YuniKorn's metrics on a fresh registry. */
function setup(config = CONFIG) {
  const clock = { now: 1_000_000 };
  const core = new SchedulerCore(() => clock.now, config);
  const registry = new Registry();
  const metrics = registerYunikornMetrics(registry, core);
  /** One scrape: `name{labels}` → value, and `# TYPE` per family. */
  const scrape = async () => {
    metrics.refresh();
    const text = await registry.metrics();
    const values = new Map<string, number>();
    const types = new Map<string, string>();
    const help = new Map<string, string>();
    for (const line of text.split("\n")) {
      const t = /^# TYPE (\S+) (\S+)$/.exec(line);
      if (t) types.set(t[1]!, t[2]!);
      const h = /^# HELP (\S+) (.*)$/.exec(line);
      if (h) help.set(h[1]!, h[2]!);
      const v = /^(\S+?(?:\{.*\})?) (\S+)$/.exec(line);
      if (v && !line.startsWith("#")) values.set(v[1]!, Number(v[2]));
    }
    return { text, values, types, help };
  };
  return { clock, core, registry, metrics, scrape };
}

describe("metric names (upstream formatMetricName, metrics_test.go)", () => {
  it("replaces every byte outside [A-Za-z0-9_:] and guards a leading digit", () => {
    expect(metricName("root.default")).toBe("root_default");
    expect(metricName("root.@recovery@")).toBe("root__recovery_");
    expect(metricName("nvidia.com/gpu")).toBe("nvidia_com_gpu");
    expect(metricName("ephemeral-storage")).toBe("ephemeral_storage");
    expect(metricName("0")).toBe("_0");
    expect(metricName("~23")).toBe("_23");
    expect(metricName("test/a")).toBe("test_a");
    expect(metricName("-dfs")).toBe("_dfs");
    expect(metricName("/gc/heap/goal:bytes")).toBe("_gc_heap_goal:bytes");
    // a two-byte character is two bytes replaced
    expect(metricName("é")).toBe("__");
    expect(metricName("")).toBe("");
  });

  it("always yields a valid Prometheus name for any non-empty text", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 100, unit: "binary" }), (s) => {
        expect(metricName(s)).toMatch(/^[a-zA-Z_:][a-zA-Z0-9_:]*$/);
      }),
      { numRuns: 200 },
    );
  });
});

describe("node usage ranges (upstream calculateNodesResourceUsage)", () => {
  it("puts a node's usage in max(ceil(10 * used/capacity) - 1, 0), over 100 % in the last", () => {
    expect(usageRange(0, 100)).toBe(0);
    expect(usageRange(10, 100)).toBe(0);
    expect(usageRange(10.0001, 100)).toBe(1);
    expect(usageRange(20, 100)).toBe(1);
    expect(usageRange(55, 100)).toBe(5);
    expect(usageRange(100, 100)).toBe(9);
    expect(usageRange(150, 100)).toBe(9);
    expect(usageRange(5, 0)).toBeUndefined();
  });

  it("counts nodes per resource of their capacities; an allocated type a node has no capacity for is ignored", () => {
    const m = nodeUsageRanges([
      { capacity: { memory: 100, vcore: 10 }, allocated: { memory: 50, vcore: 10, pods: 3 } },
      { capacity: { memory: 100, vcore: 10 }, allocated: {} },
      { capacity: { memory: 100, vcore: 0 }, allocated: { memory: 91 } },
    ]);
    expect([...m.keys()].sort()).toEqual(["memory", "vcore"]);
    expect(m.get("memory")).toEqual([1, 0, 0, 0, 1, 0, 0, 0, 0, 1]);
    expect(m.get("vcore")).toEqual([1, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
  });
});

describe("a scrape after real core calls", () => {
  it("counts submissions, application states, containers and nodes as upstream's callbacks do", async () => {
    const { clock, core, scrape } = setup();
    core.updateNode([
      { nodeID: "node-1", action: "CREATE", schedulableResource: { memory: 100, vcore: 10 } },
      { nodeID: "node-2", action: "CREATE_DRAIN", schedulableResource: { memory: 100, vcore: 10 } },
      { nodeID: "node-x", partition: "nope", action: "CREATE", schedulableResource: { memory: 1 } },
    ]);
    core.updateApplication({
      new: [
        { applicationID: "app-1", queueName: "root.a", ugi },
        { applicationID: "app-2", queueName: "root.a", ugi },
        { applicationID: "app-3", queueName: "root.missing", ugi },
      ],
    });
    core.updateAllocation({
      allocations: [
        { allocationKey: "k1", applicationID: "app-1", resourcePerAlloc: { memory: 10, vcore: 1 } },
        // does not fit node-1 beside k1 (node-2 is draining): stays pending
        { allocationKey: "k2", applicationID: "app-2", resourcePerAlloc: { memory: 95, vcore: 1 } },
        // unknown application: rejected, and a scheduling error upstream
        { allocationKey: "k9", applicationID: "app-none", resourcePerAlloc: { memory: 1 } },
      ],
    });
    expect(core.schedule().map((a) => a.key)).toEqual(["k1"]);

    let s = await scrape();
    const c = (state: string) => s.values.get(`yunikorn_scheduler_container_allocation_attempt_total{state="${state}"}`);
    expect(s.types.get("yunikorn_scheduler_container_allocation_attempt_total")).toBe("counter");
    expect([c("allocated"), c("released"), c("rejected"), c("error")]).toEqual([1, 0, 1, 1]);
    const sub = (result: string) => s.values.get(`yunikorn_scheduler_application_submission_total{result="${result}"}`);
    expect(s.types.get("yunikorn_scheduler_application_submission_total")).toBe("counter");
    expect([sub("new"), sub("accepted"), sub("rejected")]).toEqual([2, 2, 1]);
    const app = (state: string) => s.values.get(`yunikorn_scheduler_application_total{state="${state}"}`);
    expect(s.types.get("yunikorn_scheduler_application_total")).toBe("gauge");
    // app-1 is Starting: upstream's Running (it has no Starting state)
    expect(["running", "resuming", "failing", "completing", "completed", "failed"].map(app)).toEqual([1, 0, 0, 0, 0, 0]);
    const node = (state: string) => s.values.get(`yunikorn_scheduler_node{state="${state}"}`);
    // a draining node counts as active too; the node of an unknown partition is failed
    expect(["active", "draining", "decommissioned", "failed"].map(node)).toEqual([2, 1, 0, 1]);
    const qa = (queue: string, state: string) => s.values.get(`yunikorn_queue_app{queue="${queue}",state="${state}"}`);
    expect(qa("root.a", "running")).toBe(1);
    expect(qa("root.a", "accepted")).toBe(1);
    expect(qa("root.a", "new")).toBe(0);
    expect(qa("root.b", "running")).toBeUndefined(); // a queue no application used has no series
    // placement refused it: counted under no queue, as upstream's placement clears the path
    expect(s.values.get('yunikorn_queue_app_total{queue="",state="rejected"}')).toBe(1);
    expect(s.types.get("yunikorn_queue_app_total")).toBe("counter");
    expect(s.values.get('yunikorn_root_a_queue_container{state="allocated"}')).toBe(1);
    expect(s.types.get("yunikorn_root_a_queue_container")).toBe("counter");
    expect(s.help.get("yunikorn_root_a_queue_container")).toBe(
      "Queue container metrics. State of the attempt includes `allocated`, `released`.",
    );

    // the RM releases k1: app-1 has nothing left, Completing; 30 s later Completed
    core.updateAllocation({ releases: [{ applicationID: "app-1", allocationKey: "k1" }] });
    s = await scrape();
    expect(c("released")).toBe(1);
    expect(app("completing")).toBe(1);
    expect(app("running")).toBe(0);
    clock.now += 31_000;
    core.schedule();
    core.updateNode([{ nodeID: "node-2", action: "DECOMISSION" }]);
    s = await scrape();
    expect([app("completing"), app("completed")]).toEqual([0, 1]);
    expect(qa("root.a", "completed")).toBe(1);
    expect(s.values.get('yunikorn_queue_app_total{queue="root.a",state="completed"}')).toBe(1);
    expect(s.values.get('yunikorn_root_a_queue_container{state="released"}')).toBe(1);
    expect(["active", "draining", "decommissioned", "failed"].map(node)).toEqual([1, 0, 1, 1]);
  });

  it("counts a rejection under the queue upstream's would: asked for, none when placement refused, placed", async () => {
    const { core, scrape } = setup();
    core.updateApplication({
      new: [
        { applicationID: "app-1", queueName: "root.a", ugi },
        // refused before placement (no user): the name asked for, as given
        { applicationID: "app-nouser", queueName: "root.B", ugi: { user: "" } },
        // refused by placement: no queue
        { applicationID: "app-nowhere", queueName: "root.missing", ugi },
        // refused after placement (its placeholders exceed root.a's max): the placed queue
        { applicationID: "app-gang", queueName: "root.a", ugi, placeholderAsk: { memory: 500 } },
      ],
    });
    // the same id again (upstream AddRejectedApplication): rejected and listed, the running one untouched
    const dup = core.updateApplication({ new: [{ applicationID: "app-1", queueName: "root.a", ugi }] });
    expect(dup.rejectedApplications.map((r) => r.id)).toEqual(["app-1"]);
    expect(core.applicationViews("active").map((a) => a.id)).toEqual(["app-1"]);
    expect(
      core
        .applicationViews("rejected")
        .map((a) => a.id)
        .sort(),
    ).toEqual(["app-1", "app-gang", "app-nouser", "app-nowhere"]);
    const s = await scrape();
    const total = (queue: string) => s.values.get(`yunikorn_queue_app_total{queue="${queue}",state="rejected"}`);
    expect([total("root.B"), total(""), total("root.a")]).toEqual([1, 1, 2]);
    expect(s.values.get('yunikorn_scheduler_application_submission_total{result="rejected"}')).toBe(4);
    expect(s.values.get('yunikorn_scheduler_application_submission_total{result="new"}')).toBe(1);
    expect(s.values.get('yunikorn_queue_app{queue="root.a",state="rejected"}')).toBe(2);
  });

  it("counts an application that runs again after completing as a new submission", async () => {
    const { clock, core, scrape } = setup();
    core.updateNode([{ nodeID: "node-1", action: "CREATE", schedulableResource: { memory: 100, vcore: 10 } }]);
    core.updateApplication({ new: [{ applicationID: "app-1", queueName: "root.a", ugi }] });
    const ask = (key: string) => ({ allocationKey: key, applicationID: "app-1", resourcePerAlloc: { memory: 10, vcore: 1 } });
    core.updateAllocation({ allocations: [ask("k1")] });
    core.schedule();
    core.updateAllocation({ releases: [{ applicationID: "app-1", allocationKey: "k1" }] });
    clock.now += 31_000;
    core.schedule();
    expect(core.applicationViews("completed").map((a) => a.id)).toEqual(["app-1"]);
    core.updateAllocation({ allocations: [ask("k2")] });
    expect(core.applicationViews("active").map((a) => a.id)).toEqual(["app-1"]);
    const s = await scrape();
    const sub = (result: string) => s.values.get(`yunikorn_scheduler_application_submission_total{result="${result}"}`);
    expect([sub("new"), sub("accepted")]).toEqual([2, 2]);
    expect(s.values.get('yunikorn_queue_app{queue="root.a",state="completed"}')).toBe(1);
    expect(s.values.get('yunikorn_queue_app{queue="root.a",state="accepted"}')).toBe(1);
  });

  it("shows queue resources with upstream's labels: pending on the path, maxRunningApps as resource apps (TestPendingCalc)", async () => {
    const { core, scrape } = setup();
    core.updateApplication({ new: [{ applicationID: "app-1", queueName: "root.a", ugi }] });
    core.updateAllocation({ allocations: [{ allocationKey: "k1", applicationID: "app-1", resourcePerAlloc: { memory: 100, vcore: 10 } }] });
    const s = await scrape();
    const r = (queue: string, resource: string, state: string) =>
      s.values.get(`yunikorn_queue_resource{queue="${queue}",resource="${resource}",state="${state}"}`);
    expect(s.types.get("yunikorn_queue_resource")).toBe("gauge");
    expect([r("root", "memory", "pending"), r("root", "vcore", "pending")]).toEqual([100, 10]);
    expect([r("root.a", "memory", "pending"), r("root.a", "vcore", "pending")]).toEqual([100, 10]);
    expect([r("root", "apps", "maxRunningApps"), r("root.a", "apps", "maxRunningApps")]).toEqual([0, 3]);
    expect([r("root.a", "memory", "guaranteed"), r("root.a", "memory", "max"), r("root.a", "vcore", "max")]).toEqual([50, 200, 20_000]);
    expect(r("root.b", "memory", "guaranteed")).toBeUndefined();
    expect(s.text).toContain('yunikorn_queue_resource{queue="root.a",resource="memory",state="pending"} 100');
  });

  it("drops a queue's container family when the queue is removed, and keeps its terminal counter", async () => {
    const cfg = CONFIG.replace("{name: provided, create: false}", "{name: provided, create: true}");
    const { clock, core, scrape } = setup(cfg);
    core.updateNode([{ nodeID: "node-1", action: "CREATE", schedulableResource: { memory: 100, vcore: 10 } }]);
    core.updateApplication({ new: [{ applicationID: "app-1", queueName: "root.tenants.t-1", ugi }] });
    core.updateAllocation({ allocations: [{ allocationKey: "k1", applicationID: "app-1", resourcePerAlloc: { memory: 10, vcore: 1 } }] });
    core.schedule();
    // the same id again, into the same queue: rejected under it
    core.updateApplication({ new: [{ applicationID: "app-1", queueName: "root.tenants.t-1", ugi }] });
    let s = await scrape();
    expect(s.values.get('yunikorn_queue_app{queue="root.tenants.t-1",state="rejected"}')).toBe(1);
    expect(s.values.get('yunikorn_root_tenants_t_1_queue_container{state="allocated"}')).toBe(1);
    expect(s.values.get('yunikorn_scheduler_memory_node_usage_total{range="[0,10%]"}')).toBe(1);
    expect(s.values.get('yunikorn_scheduler_vcore_node_usage_total{range="[0,10%]"}')).toBe(1);
    expect(s.types.get("yunikorn_scheduler_memory_node_usage_total")).toBe("gauge");
    // the application ends (Completing, Completed 30 s later), the empty dynamic queue is cleaned up (10 s passes)
    core.updateAllocation({ releases: [{ applicationID: "app-1", allocationKey: "k1" }] });
    clock.now += 31_000;
    core.schedule();
    clock.now += 11_000;
    core.schedule();
    expect(core.queueView("root.tenants.t-1")).toBeUndefined();
    s = await scrape();
    expect([...s.types.keys()].filter((n) => n.includes("tenants_t_1"))).toEqual([]);
    expect(s.values.get('yunikorn_queue_app{queue="root.tenants.t-1",state="completed"}')).toBeUndefined();
    expect(s.values.get('yunikorn_queue_app_total{queue="root.tenants.t-1",state="completed"}')).toBe(1);
    expect(s.values.get('yunikorn_scheduler_container_allocation_attempt_total{state="released"}')).toBe(1);
    // made again: its queue metrics start afresh, its terminal counter goes on
    core.updateApplication({ new: [{ applicationID: "app-2", queueName: "root.tenants.t-1", ugi }] });
    s = await scrape();
    expect(s.values.get('yunikorn_queue_app{queue="root.tenants.t-1",state="new"}')).toBe(1);
    expect(s.values.get('yunikorn_queue_app{queue="root.tenants.t-1",state="completed"}')).toBe(0);
    expect(s.values.get('yunikorn_queue_app{queue="root.tenants.t-1",state="rejected"}')).toBe(0);
    expect(s.values.get('yunikorn_queue_app_total{queue="root.tenants.t-1",state="rejected"}')).toBe(1);
    expect(s.values.get('yunikorn_root_tenants_t_1_queue_container{state="allocated"}')).toBe(0);
    expect(s.values.get('yunikorn_queue_app_total{queue="root.tenants.t-1",state="completed"}')).toBe(1);
  });

  it("keeps the series of a leaf a configuration made a parent while its applications are still in it", async () => {
    const { core, scrape } = setup();
    core.updateNode([{ nodeID: "node-1", action: "CREATE", schedulableResource: { memory: 100, vcore: 10 } }]);
    core.updateApplication({ new: [{ applicationID: "app-1", queueName: "root.b", ugi }] });
    core.updateAllocation({ allocations: [{ allocationKey: "k1", applicationID: "app-1", resourcePerAlloc: { memory: 10, vcore: 1 } }] });
    core.schedule();
    expect(
      core.updateConfiguration(CONFIG.replace("          - name: b\n", "          - name: b\n            queues: [{name: c}]\n")).ok,
    ).toBe(true);
    expect(core.queueView("root.b")?.isLeaf).toBe(false);
    const s = await scrape();
    expect(s.values.get('yunikorn_queue_app{queue="root.b",state="running"}')).toBe(1);
    expect(s.values.get('yunikorn_root_b_queue_container{state="allocated"}')).toBe(1);
    // its new child has used nothing: a leaf's family at zero, no application series
    expect(s.values.get('yunikorn_root_b_c_queue_container{state="allocated"}')).toBe(0);
    expect(s.values.get('yunikorn_queue_app{queue="root.b.c",state="running"}')).toBeUndefined();
  });

  it("observes the histograms in seconds with upstream's buckets", async () => {
    const { metrics, scrape } = setup();
    metrics.tryNodeEvaluation.observe(0.00005);
    metrics.tryNodeLatency.observe(0.00005);
    metrics.schedulingCycle.observe(0.002);
    metrics.schedulingLatency.observe(0.0004);
    const s = await scrape();
    expect(s.types.get("yunikorn_scheduler_scheduling_cycle_milliseconds")).toBe("histogram");
    expect(s.values.get('yunikorn_scheduler_scheduling_cycle_milliseconds_bucket{le="0.001"}')).toBe(0);
    expect(s.values.get('yunikorn_scheduler_scheduling_cycle_milliseconds_bucket{le="0.01"}')).toBe(1);
    expect(s.values.get('yunikorn_scheduler_scheduling_latency_milliseconds_bucket{le="0.001"}')).toBe(1);
    expect(s.values.get('yunikorn_scheduler_scheduling_latency_milliseconds_bucket{le="1000"}')).toBe(1);
    for (const h of ["trynode_evaluation", "trynode_latency"]) {
      expect(s.types.get(`yunikorn_scheduler_${h}_milliseconds`)).toBe("histogram");
      expect(s.values.get(`yunikorn_scheduler_${h}_milliseconds_bucket{le="0.0001"}`)).toBe(1);
    }
  });

  it("registers once per registry", () => {
    const { core, registry, metrics } = setup();
    expect(registerYunikornMetrics(registry, core)).toBe(metrics);
  });
});

describe("the core's latency hook", () => {
  it("times each node search for an ask, and says whether it found a node", () => {
    let t = 0;
    const searches: [string, number, boolean][] = [];
    const core = new SchedulerCore(() => 1_000, CONFIG, {
      latency: { clock: () => (t += 0.125), observe: () => {}, observeNodeSearch: (p, s, found) => searches.push([p, s, found]) },
    });
    core.updateNode(["n1", "n2"].map((nodeID) => ({ nodeID, action: "CREATE" as const, schedulableResource: { memory: 100, vcore: 10 } })));
    core.updateApplication({ new: [{ applicationID: "app-1", queueName: "root.b", ugi }] });
    const ask = (allocationKey: string) => ({ allocationKey, applicationID: "app-1", resourcePerAlloc: { memory: 60 } });
    core.updateAllocation({ allocations: [ask("k1"), ask("k2"), ask("k3")] });
    // two fit, one per node; the third is within the cluster's size but no node has room: searched, not found
    expect(core.schedule().map((a) => a.key)).toEqual(["k1", "k2"]);
    expect(searches.slice(0, 2)).toEqual([
      ["default", 0.125, true],
      ["default", 0.125, true],
    ]);
    expect(searches.slice(2).every(([p, s, found]) => p === "default" && s === 0.125 && !found)).toBe(true);
    expect(searches.length).toBeGreaterThan(2);
  });

  it("times each preemption decision, once per decision, under its partition", () => {
    let t = 0;
    let now = 0;
    const decisions: [string, number][] = [];
    const core = new SchedulerCore(
      () => now,
      `partitions:
  - name: default
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: a
            properties: {preemption.delay: 1s}
            resources: {guaranteed: {vcore: 4}}
          - name: b
`,
      {
        latency: {
          clock: () => (t += 0.5),
          observe: () => {},
          observePreemption: (p, s) => decisions.push([p, s]),
        },
      },
    );
    core.updateNode([{ nodeID: "n1", action: "CREATE", schedulableResource: { vcore: 4000 } }]);
    core.updateApplication({
      new: [
        { applicationID: "b1", queueName: "root.b", ugi },
        { applicationID: "a1", queueName: "root.a", ugi },
      ],
    });
    core.updateAllocation({
      allocations: [
        ...[0, 1, 2, 3].map((i) => ({
          allocationKey: `b${i}`,
          applicationID: "b1",
          resourcePerAlloc: { vcore: 1000 },
          nodeID: "n1",
          allocationTags: { creationTime: "1" },
        })),
        { allocationKey: "a0", applicationID: "a1", resourcePerAlloc: { vcore: 1000 }, allocationTags: { creationTime: "10" } },
      ],
    });
    now = 10_500; // within a's preemption.delay: no decision is tried
    core.scheduleResults();
    expect(decisions).toEqual([]);
    now = 12_000;
    const preempting = core.scheduleResults().filter((r) => r.kind === "preempting");
    expect(preempting).toHaveLength(1);
    expect(decisions).toEqual([["default", 0.5]]);
  });

  it("times each partition's part of a cycle on the injected clock", () => {
    let t = 0;
    const seen: [string, number][] = [];
    const core = new SchedulerCore(() => 1_000, CONFIG, {
      latency: { clock: () => (t += 0.25), observe: (p, s) => seen.push([p, s]) },
    });
    core.schedule();
    expect(seen).toEqual([["default", 0.25]]);
  });
});

describe("terminal counts per queue path (core/counts.ts)", () => {
  it("keep the paths counted last, at most MAX_TERMINAL_QUEUE_PATHS: tenant-named queues cannot grow them without end", () => {
    const counts = newCoreCounts();
    countTerminal(counts, "root.busy", "completed");
    for (let i = 0; i < MAX_TERMINAL_QUEUE_PATHS + 500; i++) {
      countTerminal(counts, `root.tenant-${i}`, "rejected");
      // a queue that keeps counting stays
      if (i % 1000 === 0) countTerminal(counts, "root.busy", "completed");
    }
    expect(counts.queues.size).toBe(MAX_TERMINAL_QUEUE_PATHS);
    expect(counts.queues.has("root.tenant-0")).toBe(false);
    expect(counts.queues.get(`root.tenant-${MAX_TERMINAL_QUEUE_PATHS + 499}`)).toEqual({ completed: 0, failed: 0, rejected: 1 });
    expect(counts.queues.get("root.busy")?.completed).toBe(12);
  });
});
