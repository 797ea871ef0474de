import { pino } from "pino";
import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import type { k8s } from "../../../src/kube/client.js";
import { configReloader } from "../../../src/scheduler/controllers/config-reload.js";
import { schedulerMetrics } from "../../../src/scheduler/controllers/metrics.js";
import { SchedulerCore } from "../../../src/scheduler/core/scheduler.js";
import { EventSystem } from "../../../src/scheduler/events/system.js";
import type { ShimAction } from "../../../src/scheduler/shim/context.js";
import { FakeClock } from "../../helpers/fake-clock.js";

const QUEUES = `partitions:
  - name: default
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: batch
`;

/** A reloader over a real core and event system, reading ConfigMaps from `maps` (name → data). */
function harness() {
  const clock = new FakeClock();
  clock.t = Date.UTC(2026, 0, 2);
  const maps = new Map<string, k8s.V1ConfigMap>();
  const core = new SchedulerCore(() => clock.now());
  const events = new EventSystem({ now: () => clock.now(), instanceUUID: "u" });
  const registry = new Registry();
  const metrics = schedulerMetrics(registry, { stats: () => ({}), overLimitCounts: () => ({}) });
  const ran: ShimAction[] = [];
  let applied = 0;
  const r = configReloader({
    core,
    events,
    namespace: "yunikorn",
    policyGroup: "queues",
    configMap: (name) => maps.get(name),
    metrics,
    log: pino({ level: "silent" }),
    run: (a) => ran.push(...a),
    onApplied: () => applied++,
    clock,
  });
  const set = (name: string, data: Record<string, string>) =>
    maps.set(name, { metadata: { name, namespace: "yunikorn", uid: `uid-${name}` }, data });
  const reloads = async () =>
    Object.fromEntries(
      (await registry.getSingleMetric("corral_scheduler_config_reloads_total")!.get()).values.map((v) => [v.labels.result, v.value]),
    );
  return { core, events, r, ran, set, reloads, applied: () => applied };
}

describe("configReloader", () => {
  it("applies queues.yaml from yunikorn-configs over yunikorn-defaults, once per change", async () => {
    const h = harness();
    h.set("yunikorn-defaults", { "queues.yaml": "partitions: [" });
    h.set("yunikorn-configs", { "queues.yaml": QUEUES });
    h.r.reload();
    h.r.reload();
    expect(h.core.config).toBe(QUEUES);
    expect(h.r.state).toEqual({ error: undefined, loadedAt: "2026-01-02T00:00:00.000Z" });
    expect(h.applied()).toBe(1);
    expect(await h.reloads()).toEqual({ applied: 1 });
    expect(h.ran).toEqual([]);
  });

  it("refuses an invalid configuration whole: the running one stays, a ConfigRejected event names the ConfigMap", async () => {
    const h = harness();
    h.set("yunikorn-configs", { "queues.yaml": QUEUES });
    h.r.reload();
    h.set("yunikorn-configs", { "queues.yaml": "partitions: [" });
    h.r.reload();
    expect(h.core.config).toBe(QUEUES);
    expect(h.r.state.error).toBeTruthy();
    expect(h.ran).toEqual([
      {
        kind: "event",
        object: { kind: "ConfigMap", namespace: "yunikorn", name: "yunikorn-configs", uid: "uid-yunikorn-configs" },
        type: "Warning",
        reason: "ConfigRejected",
        message: `queue configuration not applied, the previous one stays in force: ${h.r.state.error}`,
      },
    ]);
    expect(await h.reloads()).toEqual({ applied: 1, rejected: 1 });
  });

  it("applies the event settings when they change", () => {
    const h = harness();
    h.set("yunikorn-configs", { "event.ringBufferCapacity": "123" });
    h.r.reload();
    expect(h.events.config.ringBufferCapacity).toBe(123);
  });
});
