/**
 * Hot reload of the queue configuration and the event settings from the `yunikorn-defaults` and `yunikorn-configs`
 * ConfigMaps (yunikorn-shim reference §3.2; README "Configuration"): the maps are flattened (later wins), the
 * `<policyGroup>.yaml` key is applied to the core when its text changed, the event keys to the event system. An
 * invalid queue configuration is refused whole: the running one stays, and the refusal is logged, counted and told
 * in a Warning event `ConfigRejected` on the ConfigMap.
 */
import type { Logger } from "pino";
import type { k8s } from "../../kube/client.js";
import { type Clock, SYSTEM_CLOCK } from "../../kube/workqueue.js";
import { CONFIGMAP_NAME, DEFAULT_CONFIGMAP_NAME } from "../../yunikorn/constants.js";
import { flattenConfigMaps } from "../../yunikorn/config-maps.js";
import type { SchedulerCore } from "../core/scheduler.js";
import { type EventSystem, eventConfigOf } from "../events/system.js";
import { queuesYamlOf } from "../shim/config.js";
import type { ShimAction } from "../shim/context.js";
import type { SchedulerMetrics } from "./metrics.js";

/** What the REST API reports about the configuration: the last refusal, and when one was last applied (ISO 8601). */
export interface ConfigState {
  error?: string;
  loadedAt?: string;
}

/** Options of {@link configReloader}. */
export interface ConfigReloadOptions {
  core: Pick<SchedulerCore, "config" | "updateConfiguration" | "partitions">;
  events: Pick<EventSystem, "config" | "configure">;
  /** The ConfigMaps' namespace and the `service.policyGroup`. */
  namespace: string;
  policyGroup: string;
  /** The ConfigMap of that name in `namespace` from the informer cache, if any. */
  configMap: (name: string) => k8s.V1ConfigMap | undefined;
  metrics: Pick<SchedulerMetrics, "configReloads">;
  log: Logger;
  /** Receives the `ConfigRejected` event, and after a change the shim's retries of rejected pods. */
  run: (actions: ShimAction[]) => void;
  /** Called after a new queue configuration was applied (asks and rejected pods may fit now). */
  onApplied: () => void;
  clock?: Clock;
}

/**
 * A reloader: `reload()` reads the ConfigMaps and applies what changed; `state` is what the REST API shows, `flat()`
 * the ConfigMaps as last read, flattened (empty before the first read, or when none could be read).
 */
export function configReloader(o: ConfigReloadOptions): {
  reload(): void;
  state: ConfigState;
  flat(): Readonly<Record<string, string>>;
} {
  const { log } = o;
  const clock = o.clock ?? SYSTEM_CLOCK;
  const state: ConfigState = {};
  let lastFlat: Readonly<Record<string, string>> = {};
  const key = `${o.policyGroup}.yaml`;

  const reject = (error: string, cm: k8s.V1ConfigMap | undefined) => {
    state.error = error;
    o.metrics.configReloads.inc({ result: "rejected" });
    log.error(
      { configmap: `${o.namespace}/${cm?.metadata?.name ?? CONFIGMAP_NAME}`, err: error },
      "queue configuration rejected; the running configuration stays in force",
    );
    if (!cm?.metadata?.name) return;
    o.run([
      {
        kind: "event",
        object: { kind: "ConfigMap", namespace: o.namespace, name: cm.metadata.name, uid: cm.metadata.uid },
        type: "Warning",
        reason: "ConfigRejected",
        message: `queue configuration not applied, the previous one stays in force: ${error}`,
      },
    ]);
  };

  const reload = () => {
    const defaults = o.configMap(DEFAULT_CONFIGMAP_NAME);
    const configs = o.configMap(CONFIGMAP_NAME);
    let text: string;
    try {
      const flat = flattenConfigMaps([defaults, configs]);
      lastFlat = flat;
      text = queuesYamlOf(flat, o.policyGroup);
      const ev = eventConfigOf(flat);
      for (const e of ev.errors) log.warn({ err: e }, "event setting ignored");
      if (JSON.stringify(ev.config) !== JSON.stringify(o.events.config)) {
        o.events.configure(ev.config);
        log.info({ ...ev.config }, "event settings applied");
      }
    } catch (err) {
      return reject((err as Error).message, configs ?? defaults);
    }
    if (text === o.core.config) return;
    const r = o.core.updateConfiguration(text);
    if (!r.ok) return reject(r.error, configs ?? defaults);
    state.error = undefined;
    state.loadedAt = new Date(clock.now()).toISOString();
    o.metrics.configReloads.inc({ result: "applied" });
    if (text.trim() === "")
      log.info(
        { namespace: o.namespace, key },
        "queue configuration applied: no such key in yunikorn-defaults or yunikorn-configs, using the default configuration",
      );
    else log.info({ configmap: `${o.namespace}/${configs ? CONFIGMAP_NAME : DEFAULT_CONFIGMAP_NAME}`, key }, "queue configuration applied");
    // a bad preemption or priority property falls back to its default, as upstream (queue-properties.ts): said here
    for (const [name, p] of o.core.partitions)
      for (const problem of p.propertyProblems) log.warn({ partition: name, ...problem }, "queue property ignored, its default applies");
    o.onApplied();
  };

  return { reload, state, flat: () => lastFlat };
}
