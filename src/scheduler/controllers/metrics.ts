/** The scheduler's Prometheus metrics (`corral_scheduler_*`, README "Metrics"), registered on one registry. */
import { Counter, Gauge, type Registry } from "prom-client";

/** What the gauges read when scraped: managed pods by task state, live pods recorded over a limit by kind. */
export interface MetricSources {
  stats(): Record<string, number>;
  overLimitCounts(): Record<string, number>;
}

/** The scheduler's metrics; counters are incremented by the controllers, gauges read `sources` when scraped. */
export type SchedulerMetrics = ReturnType<typeof schedulerMetrics>;

/** Registers the scheduler's metrics on `registry`. */
export function schedulerMetrics(registry: Registry, sources: MetricSources) {
  const registers = [registry];
  return {
    binds: new Counter({ name: "corral_scheduler_binds_total", help: "Binding calls by result", labelNames: ["result"], registers }),
    events: new Counter({
      name: "corral_scheduler_events_total",
      help: "Events and pod status writes by result (sent, failed, dropped)",
      labelNames: ["result"],
      registers,
    }),
    configReloads: new Counter({
      name: "corral_scheduler_config_reloads_total",
      help: "Queue configuration reloads by result",
      labelNames: ["result"],
      registers,
    }),
    tasks: new Gauge({
      name: "corral_scheduler_tasks",
      help: "Managed pods by task state",
      labelNames: ["state"],
      registers,
      collect() {
        this.reset();
        for (const [k, v] of Object.entries(sources.stats())) this.set({ state: k }, v);
      },
    }),
    gang: new Counter({
      name: "corral_scheduler_placeholder_calls_total",
      help: "Placeholder pod creates and deletes by result",
      labelNames: ["action", "result"],
      registers,
    }),
    leader: new Gauge({ name: "corral_scheduler_is_leader", help: "1 while this replica holds the leader Lease", registers }),
    overLimit: new Counter({
      name: "corral_scheduler_over_limit_allocations_total",
      help:
        "Allocations of pods already bound when seen (spec.nodeName preset, bound elsewhere) recorded over a limit, " +
        "by kind of limit (queue, user, group)",
      labelNames: ["limit"],
      registers,
    }),
    overLimitPods: new Gauge({
      name: "corral_scheduler_over_limit_pods",
      help: "Live pods whose allocation was recorded over a limit, by kind of limit",
      labelNames: ["limit"],
      registers,
      collect() {
        for (const [k, v] of Object.entries(sources.overLimitCounts())) this.set({ limit: k }, v);
      },
    }),
    preemptions: new Counter({
      name: "corral_scheduler_preemptions_total",
      help: "Preemptions the core started, by queue of the preempting ask",
      labelNames: ["queue"],
      registers,
    }),
    quotaPreemptions: new Counter({
      name: "corral_scheduler_quota_preemptions_total",
      help: "Quota-change preemptions the core started (a queue's max lowered below its usage), by queue",
      labelNames: ["queue"],
      registers,
    }),
    evictions: new Counter({
      name: "corral_scheduler_preemption_evictions_total",
      help: "Evictions of preemption victims by result (evicted, gone, refused) and victim queue",
      labelNames: ["result", "queue"],
      registers,
    }),
    notJoined: new Counter({
      name: "corral_scheduler_applications_not_joined_total",
      help: "Pods that named an application id held by another namespace or user and ran as their own application, " + "by what differed",
      labelNames: ["differs"],
      registers,
    }),
  };
}
