/**
 * YuniKorn's Prometheus metrics on `/ws/v1/metrics` (apache/yunikorn-core pkg/metrics/scheduler.go, queue.go,
 * partition.go calculateNodesResourceUsage; yunikorn-core reference §3.2): the names, types, labels, help texts and
 * buckets of upstream, so its dashboards and alerts keep working. Gauges are read from the core when scraped (no
 * copy of its state is kept here); counters from its cumulative counts (core/counts.ts); the histograms are observed
 * by the scheduler process, around its cycles and through the core's latency hook (`SchedulerCoreOptions.latency`).
 *
 * Where corral differs (README "Metrics"): the Starting state counts as `running` and Reserving as `accepted` (upstream
 * has neither state); a queue's `queue_container` counts every allocation made on it and every release (upstream
 * leaves out the scheduler's own allocations and placeholder replacements); node usage sums every partition (upstream
 * keeps the last one's); the node sorting histogram is not exported (corral's orders are kept sorted as they change:
 * there is no sort to time), and `trynode_latency` times the node search that found a node (corral's search has no
 * separate per-node check); the Go runtime metrics are the Node.js process metrics, `yunikorn_`-prefixed.
 */
import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import type { AppState } from "../core/application-state.js";
import type { QueueView } from "../core/read.js";
import type { Res } from "../core/resources.js";
import type { SchedulerCore } from "../core/scheduler.js";

/** ExponentialBuckets(0.0001, 10, 8) of upstream's histograms; values are seconds, whatever the names say. */
const LATENCY_BUCKETS_SECONDS = [0.0001, 0.001, 0.01, 0.1, 1, 10, 100, 1000];

/** The ten usage ranges of `yunikorn_scheduler_<resource>_node_usage_total`, as upstream spells them. */
const USAGE_RANGES = [
  "[0,10%]",
  "(10%,20%]",
  "(20%,30%]",
  "(30%,40%]",
  "(40%,50%]",
  "(50%,60%]",
  "(60%,70%]",
  "(70%,80%]",
  "(80%,90%]",
  "(90%,100%]",
] as const;

/**
 * A name as upstream's formatMetricName makes it (pkg/metrics/init.go): every byte of the UTF-8 text outside
 * `[A-Za-z0-9_:]` becomes `_` (so a multi-byte character becomes several), and `_` is put before a leading digit.
 * `root.a-b` → `root_a_b`, `nvidia.com/gpu` → `nvidia_com_gpu`.
 */
export function metricName(text: string): string {
  let out = "";
  for (const b of Buffer.from(text, "utf8")) {
    const ok = (b >= 0x61 && b <= 0x7a) || (b >= 0x41 && b <= 0x5a) || (b >= 0x30 && b <= 0x39) || b === 0x5f || b === 0x3a;
    out += ok ? String.fromCharCode(b) : "_";
  }
  return /^[0-9]/.test(out) ? `_${out}` : out;
}

/**
 * The usage range (index into `USAGE_RANGES`) of a node using `allocated` of `capacity` (upstream
 * calculateNodesResourceUsage): max(⌈10 · min(allocated/capacity, 1)⌉ − 1, 0), so 10 % is in the first range and more
 * than 100 % in the last; undefined when the capacity is not positive (the resource is not counted).
 */
export function usageRange(allocated: number, capacity: number): number | undefined {
  if (!(capacity > 0)) return undefined;
  const v = Math.min(allocated / capacity, 1);
  return Math.max(Math.ceil(v * 10) - 1, 0);
}

/**
 * Nodes per usage range for each resource type of the nodes' capacities, over every partition: resource name → ten
 * counts. Only the core's own allocations count (other schedulers' pods are occupied resource, as upstream).
 */
export function nodeUsageRanges(nodes: readonly { capacity: Res; allocated: Res }[]): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const n of nodes) {
    for (const [name, total] of Object.entries(n.capacity)) {
      const i = usageRange(n.allocated[name] ?? 0, total);
      if (i === undefined) continue;
      let counts = out.get(name);
      if (!counts) out.set(name, (counts = new Array<number>(USAGE_RANGES.length).fill(0)));
      counts[i]!++;
    }
  }
  return out;
}

/** The upstream state label of an application state (undefined: upstream's gauges have none for it). */
const STATE_LABEL: Partial<Record<AppState, string>> = {
  New: "new",
  Accepted: "accepted",
  Reserving: "accepted",
  Resuming: "resuming",
  Starting: "running",
  Running: "running",
  Failing: "failing",
  Completing: "completing",
};

/** The states of `yunikorn_queue_app`, in upstream's help order. */
const QUEUE_APP_STATES = ["new", "accepted", "rejected", "running", "failing", "failed", "resuming", "completing", "completed"] as const;

/** Active applications of the core by leaf queue path and upstream state label. */
function activeByQueue(core: SchedulerCore): Map<string, Map<string, number>> {
  const out = new Map<string, Map<string, number>>();
  for (const partition of core.partitionNames()) {
    for (const [path, byState] of core.applicationCounts(partition)) {
      let labels = out.get(path);
      if (!labels) out.set(path, (labels = new Map()));
      for (const [state, n] of Object.entries(byState) as [AppState, number][]) {
        const label = STATE_LABEL[state];
        if (label) labels.set(label, (labels.get(label) ?? 0) + n);
      }
    }
  }
  return out;
}

/** Every queue of every partition, root first, each before its children. */
function allQueues(core: SchedulerCore): QueueView[] {
  const out: QueueView[] = [];
  const walk = (q: QueueView) => {
    out.push(q);
    for (const c of q.children ?? []) walk(c);
  };
  for (const partition of core.partitionNames()) {
    const root = core.queueView("root", { partition, subtree: true });
    if (root) walk(root);
  }
  return out;
}

/** A metric family made at scrape time (one per queue or resource name): what prom-client's registry reads of a metric. */
interface DynamicFamily {
  name: string;
  help: string;
  type: "counter" | "gauge";
  aggregator: "sum";
  values: { labels: Record<string, string>; value: number }[];
  get(): Promise<Omit<DynamicFamily, "get" | "reset">>;
  /** Nothing to reset: the values are the core's (prom-client's `resetMetrics` calls it on every metric). */
  reset(): void;
}

const family = (name: string, help: string, type: DynamicFamily["type"], values: DynamicFamily["values"]): DynamicFamily => ({
  name,
  help,
  type,
  aggregator: "sum",
  values,
  async get() {
    return { name, help, type, aggregator: "sum", values };
  },
  reset() {},
});

const QUEUE_CONTAINER_HELP = "Queue container metrics. State of the attempt includes `allocated`, `released`.";
const NODE_USAGE_HELP = "Total resource usage of node, by resource name.";

/** The scheduling histograms the scheduler process observes, and the refresh of the per-name families. */
export interface YunikornMetrics {
  /** `yunikorn_scheduler_scheduling_latency_milliseconds`: seconds of one partition's part of a cycle. */
  schedulingLatency: Histogram;
  /** `yunikorn_scheduler_scheduling_cycle_milliseconds`: seconds of a whole cycle, handing out its results included. */
  schedulingCycle: Histogram;
  /** `yunikorn_scheduler_trypreemption_latency_milliseconds`: seconds of one preemption decision. */
  tryPreemptionLatency: Histogram;
  /**
   * `yunikorn_scheduler_trynode_latency_milliseconds`: seconds of a node search that found a node (upstream times the
   * one node check that succeeded; corral's search has no separate per-node step).
   */
  tryNodeLatency: Histogram;
  /** `yunikorn_scheduler_trynode_evaluation_milliseconds`: seconds of each node search for an ask. */
  tryNodeEvaluation: Histogram;
  /**
   * Registers the families named after a queue or a resource (`yunikorn_<queue>_queue_container`,
   * `yunikorn_scheduler_<resource>_node_usage_total`) as the core has them now, and drops those of queues that are
   * gone (upstream RemoveQueueMetrics). Called before each scrape.
   */
  refresh(): void;
}

/** The registries already holding the metrics (one set per registry, whoever asks first). */
const registered = new WeakMap<Registry, YunikornMetrics>();

/**
 * Registers YuniKorn's scheduler and queue metrics for `core` on `registry` (module comment). A second call for the
 * same registry returns the first call's metrics, which read the first call's core (one core per process).
 * @throws Error from prom-client when a metric of the same name was registered on `registry` by other code
 */
export function registerYunikornMetrics(registry: Registry, core: SchedulerCore): YunikornMetrics {
  const known = registered.get(registry);
  if (known) return known;
  const registers = [registry];

  new Counter({
    name: "yunikorn_scheduler_container_allocation_attempt_total",
    help: "Total number of attempts to allocate containers. State of the attempt includes `allocated`, `rejected`, `error`, `released`",
    labelNames: ["state"],
    registers,
    collect() {
      this.reset();
      for (const [state, n] of Object.entries(core.counts.containers)) this.inc({ state }, n);
    },
  });
  new Counter({
    name: "yunikorn_scheduler_application_submission_total",
    help: "Total number of application submissions. State of the attempt includes `new`, `accepted` and `rejected`.",
    labelNames: ["result"],
    registers,
    collect() {
      this.reset();
      for (const [result, n] of Object.entries(core.counts.submissions)) this.inc({ result }, n);
    },
  });
  new Gauge({
    name: "yunikorn_scheduler_application_total",
    help:
      "Total number of applications. State of the application includes `running`, `resuming`, `failing`, `completing`, " +
      "`completed` and `failed`.",
    labelNames: ["state"],
    registers,
    collect() {
      this.reset();
      const live = new Map<string, number>();
      for (const labels of activeByQueue(core).values()) for (const [s, n] of labels) live.set(s, (live.get(s) ?? 0) + n);
      for (const state of ["running", "resuming", "failing", "completing"]) this.set({ state }, live.get(state) ?? 0);
      // as upstream, the terminal states only ever go up (an application that expires stays counted)
      this.set({ state: "completed" }, core.counts.terminated.completed);
      this.set({ state: "failed" }, core.counts.terminated.failed);
    },
  });
  new Gauge({
    name: "yunikorn_scheduler_node",
    help: "Total number of nodes. State of the node includes `active` and `failed`.",
    labelNames: ["state"],
    registers,
    collect() {
      this.reset();
      let active = 0;
      let draining = 0;
      for (const name of core.partitionNames())
        for (const n of core.nodeUsages(name)) {
          active++; // a draining node is active too, as upstream counts it
          if (!n.schedulable) draining++;
        }
      this.set({ state: "active" }, active);
      this.set({ state: "draining" }, draining);
      this.set({ state: "decommissioned" }, core.counts.nodesDecommissioned);
      this.set({ state: "failed" }, core.failures.failedNodes);
    },
  });
  /** One of upstream's latency histograms: seconds (whatever the name says), its buckets. */
  const latency = (name: string, help: string) =>
    new Histogram({ name: `yunikorn_scheduler_${name}_milliseconds`, help, buckets: LATENCY_BUCKETS_SECONDS, registers });
  const schedulingLatency = latency("scheduling_latency", "Latency of the main scheduling routine, in seconds.");
  const schedulingCycle = latency("scheduling_cycle", "Time taken for a scheduling cycle, in seconds.");
  const tryNodeLatency = latency(
    "trynode_latency",
    "Latency of node condition checks for container allocations, such as placement constraints, in seconds.",
  );
  const tryNodeEvaluation = latency("trynode_evaluation", "Time taken to evaluate nodes for a pod, in seconds.");
  const tryPreemptionLatency = latency(
    "trypreemption_latency",
    "Latency of preemption condition checks for container allocations, in seconds.",
  );

  new Gauge({
    name: "yunikorn_queue_app",
    help:
      "Queue application metrics. State of the application includes `new`, `accepted`, `rejected`, `running`, `failing`, " +
      "`failed`, `resuming`, `completing`, `completed`.",
    labelNames: ["queue", "state"],
    registers,
    collect() {
      this.reset();
      const live = activeByQueue(core);
      // every queue applications are in or ended in: the leaves, and a leaf a configuration made a parent
      for (const q of allQueues(core)) {
        const labels = live.get(q.path);
        const { completed, failed, rejected } = q.counts;
        // a queue no application used has no series (upstream makes a queue's on first use)
        if (!labels && completed === 0 && failed === 0 && rejected === 0) continue;
        for (const state of QUEUE_APP_STATES) {
          const n =
            state === "completed" ? completed : state === "failed" ? failed : state === "rejected" ? rejected : (labels?.get(state) ?? 0);
          // inc: a path in two partitions adds up (upstream's metrics have no partition)
          this.inc({ queue: q.path, state }, n);
        }
      }
    },
  });
  new Counter({
    name: "yunikorn_queue_app_total",
    help: "Total number of applications that reached a terminal state. State includes `completed`, `failed`, `rejected`.",
    labelNames: ["queue", "state"],
    registers,
    collect() {
      this.reset();
      // kept when the queue goes, as upstream keeps this counter registered
      for (const [queue, ended] of core.counts.queues)
        for (const state of ["completed", "failed", "rejected"] as const) this.inc({ queue, state }, ended[state]);
    },
  });
  new Gauge({
    name: "yunikorn_queue_resource",
    help:
      "Queue resource metrics. State of the resource includes `guaranteed`, `max`, `allocated`, `pending`, `preempting`, " +
      "`maxRunningApps`.",
    labelNames: ["queue", "resource", "state"],
    registers,
    collect() {
      this.reset();
      for (const q of allQueues(core)) {
        for (const [state, r] of [
          ["guaranteed", q.guaranteed],
          ["max", q.max],
          ["allocated", q.allocated],
          ["pending", q.pending],
          ["preempting", q.preempting],
        ] as const) {
          for (const [resource, v] of Object.entries(r ?? {})) this.set({ queue: q.path, resource, state }, v);
        }
        this.set({ queue: q.path, resource: "apps", state: "maxRunningApps" }, q.maxApplications);
      }
    },
  });

  /** Names of the per-name families registered by the last refresh. */
  let dynamic = new Set<string>();
  const refresh = () => {
    const next = new Map<string, DynamicFamily>();
    for (const q of allQueues(core)) {
      // leaves, and a leaf a configuration made a parent that still had allocations
      if (!q.isLeaf && q.counts.allocated === 0 && q.counts.released === 0) continue;
      const name = `yunikorn_${metricName(q.path)}_queue_container`;
      // two paths that read the same as a name (root.a-b, root.a_b): the first keeps it, as upstream's second
      // registration fails
      if (next.has(name)) continue;
      next.set(
        name,
        family(name, QUEUE_CONTAINER_HELP, "counter", [
          { labels: { state: "allocated" }, value: q.counts.allocated },
          { labels: { state: "released" }, value: q.counts.released },
        ]),
      );
    }
    const nodes = core.partitionNames().flatMap((p) => core.nodeUsages(p));
    for (const [resource, counts] of nodeUsageRanges(nodes)) {
      const name = `yunikorn_scheduler_${metricName(resource)}_node_usage_total`;
      if (next.has(name)) continue;
      next.set(
        name,
        family(
          name,
          NODE_USAGE_HELP,
          "gauge",
          USAGE_RANGES.map((range, i) => ({ labels: { range }, value: counts[i]! })),
        ),
      );
    }
    for (const name of dynamic) if (!next.has(name)) registry.removeSingleMetric(name);
    for (const [name, f] of next) {
      registry.removeSingleMetric(name);
      registry.registerMetric(f as unknown as Parameters<Registry["registerMetric"]>[0]);
    }
    dynamic = new Set(next.keys());
  };

  const out: YunikornMetrics = { schedulingLatency, schedulingCycle, tryPreemptionLatency, tryNodeLatency, tryNodeEvaluation, refresh };
  registered.set(registry, out);
  return out;
}
