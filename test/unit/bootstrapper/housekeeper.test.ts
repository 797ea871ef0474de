import pino from "pino";
import { describe, expect, it } from "vitest";
import { type BootstrapperConfig, parseBootstrapperConfig } from "../../../src/bootstrapper/config.js";
import type { k8s } from "../../../src/kube/client.js";
import type { CachedInformer } from "../../../src/kube/informers.js";
import type { Clock } from "../../../src/kube/workqueue.js";
import { housekeeper } from "../../../src/processes/bootstrapper.js";
import { WebhookMetrics } from "../../../src/server/metrics.js";

const cfgOf = (housekeeping: object): BootstrapperConfig => {
  const r = parseBootstrapperConfig(
    JSON.stringify({
      overrides: { "registry.example.com": "mirror.io" },
      namespaceFeatures: { apps: ["rt-cfg.kyma-project.io/alter-img-registry"] },
      housekeeping,
    }),
  );
  if (!r.ok) throw new Error(r.error);
  return r.config;
};

/** Pods of `owners` ReplicaSets, each missing the registry rewrite (one evicted per owner per round). */
const podsOf = (owners: string[]) =>
  ({
    list: () =>
      owners.map((o) => ({
        metadata: { name: `${o}-1`, namespace: "apps", ownerReferences: [{ kind: "ReplicaSet", name: o, controller: true }] },
        spec: { containers: [{ name: "c", image: "registry.example.com/app:1" }] },
      })),
  }) as unknown as CachedInformer<k8s.V1Pod>;

const clockAt = () => {
  const c = { t: 0, now: () => c.t, setTimeout: () => 0, clearTimeout: () => undefined };
  return c as Clock & { t: number };
};

describe("housekeeper", () => {
  it("evicts at most evictionsPerMinute a minute, measured on the injected clock, starting with none", async () => {
    const clock = clockAt();
    const evicted: string[] = [];
    const core = { createNamespacedPodEviction: async (p: { name: string }) => void evicted.push(p.name) } as unknown as k8s.CoreV1Api;
    const round = housekeeper({
      core,
      clock,
      pods: podsOf(["a", "b", "c"]),
      eviction: "policy/v1",
      config: () => cfgOf({ evictionsPerMinute: 2 }),
      nsAnnotations: () => undefined,
      metrics: new WebhookMetrics(),
      log: pino({ level: "silent" }),
    });
    await round();
    expect(evicted).toEqual([]);
    clock.t = 30_000;
    await round();
    expect(evicted).toEqual(["a-1"]);
    clock.t = 10 * 60_000;
    await round();
    expect(evicted).toEqual(["a-1", "a-1", "b-1"]);
  });

  it("evicts nothing in a dry run or when the server serves no Eviction", async () => {
    const clock = clockAt();
    const evicted: string[] = [];
    const core = { createNamespacedPodEviction: async (p: { name: string }) => void evicted.push(p.name) } as unknown as k8s.CoreV1Api;
    const common = { core, clock, pods: podsOf(["a"]), nsAnnotations: () => undefined, log: pino({ level: "silent" }) };
    const dry = housekeeper({ ...common, eviction: "policy/v1", config: () => cfgOf({ dryRun: true }), metrics: new WebhookMetrics() });
    const unserved = housekeeper({ ...common, eviction: undefined, config: () => cfgOf({}), metrics: new WebhookMetrics() });
    clock.t = 60_000;
    await dry();
    await unserved();
    expect(evicted).toEqual([]);
  });
});
