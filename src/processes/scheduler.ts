/**
 * `corral scheduler`: the Kubernetes shim around the scheduling core (design 000, 004; yunikorn-shim reference §2-§6).
 *
 * Start-up: REST API (healthcheck answers at once) → leader election on a Lease (optional) → informers for Nodes,
 * Pods, the scheduler's ConfigMaps, Namespaces and PriorityClasses → recovery (config, then nodes, then every pod in
 * creation order, so bound pods become allocations before anything new is scheduled) → event handlers → scheduling.
 *
 * Standalone mode binds pods itself (`pods/binding`, retried, rolled back to an ask on failure). Plugin mode serves
 * the kube-scheduler extender verbs `POST /scheduler/filter` and `POST /scheduler/bind` on the REST port instead, for
 * a kube-scheduler configured as in `deploy/scheduler/plugin-mode.yaml`.
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "pino";
import { Counter, Gauge, Registry } from "prom-client";
import { CONFIGMAP_NAME, DEFAULT_CONFIGMAP_NAME } from "../yunikorn/constants.js";
import { SchedulerCore } from "../scheduler/core/scheduler.js";
import { EventSystem, eventConfigOf } from "../scheduler/events/system.js";
import {
  FORWARDED_HEADER,
  LEADER_ADDRESS_ANNOTATION,
  SERVED_BY_HEADER,
  forwardDecision,
  forwardRequest,
} from "../scheduler/rest/forward.js";
import { error as restError } from "../scheduler/rest/router.js";
import { json, readBody, startRestServer } from "../scheduler/rest/server.js";
import { flattenConfigMaps } from "../yunikorn/config-maps.js";
import { queuesYamlOf } from "../scheduler/shim/config.js";
import { DEFAULT_GANG_CONFIG, parseGangConfig } from "../scheduler/shim/gang/config.js";
import { defaultSchedulerUser } from "../yunikorn/scheduler-identity.js";
import { type PodRef, type SchedulingMode, ShimContext, type ShimAction } from "../scheduler/shim/context.js";
import { bindErrorOutcome, filterReply, parseFilterArgs } from "../scheduler/shim/extender.js";
import type { PodObject } from "../scheduler/shim/translate.js";
import { k8s, loadKubeConfig, makeApiWriter, makeKeepAliveApiClient, statusCode } from "../kube/client.js";
import { discoverApiVersions } from "../kube/discovery.js";
import { eventFor } from "../kube/events.js";
import { type CachedInformer, startInformer } from "../kube/informers.js";
import { runLeaderElection } from "../kube/leader.js";

export interface SchedulerProcessOptions {
  /** kubeconfig path (default: $KUBECONFIG, in-cluster, ~/.kube/config). */
  kubeconfig?: string;
  /** Namespace of the `yunikorn-configs` / `yunikorn-defaults` ConfigMaps and of the leader Lease. */
  namespace: string;
  /** `spec.schedulerName` of the pods to schedule. */
  schedulerName: string;
  mode: SchedulingMode;
  host: string;
  /** REST API port (plugin mode: also the extender verbs). */
  port: number;
  /** `service.policyGroup`: the queue configuration is the ConfigMap key `<policyGroup>.yaml`. */
  policyGroup: string;
  /** Milliseconds between scheduling cycles when no event triggers one. */
  intervalMs: number;
  /** Binding calls in flight at once. */
  bindConcurrency: number;
  /** Attempts per binding before the allocation is rolled back (backoff 0.25 s doubling). */
  bindAttempts: number;
  /** Events and status patches queued at most; beyond it the oldest are dropped (counted in metrics). */
  eventQueueLimit: number;
  /** Seconds between full resyncs of the informer caches into the shim (missed events are repaired). */
  resyncSeconds: number;
  leaderElect: boolean;
  leaseName: string;
  /** Placeholder image (`--placeholder-image`); overrides `service.placeholderImage` of the ConfigMaps. */
  placeholderImage?: string;
  identity: string;
  /**
   * With `leaderElect`: the REST base URL other replicas reach this one at (e.g. `http://10.0.0.7:9080`), published
   * on the Lease while leading; a follower forwards REST reads to the leader's (see rest/forward.ts).
   */
  advertiseAddress?: string;
  log: Logger;
}

export interface SchedulerProcess {
  port: number;
  ctx: ShimContext;
  close(): Promise<void>;
}

const code = statusCode;
const bodyText = (err: unknown) => {
  const b = (err as { body?: unknown }).body;
  return typeof b === "string" ? b : b ? JSON.stringify(b) : (err as Error).message;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json";
const MERGE_PATCH = "application/merge-patch+json";
/** API path of a pod, or of one of its subresources (`binding`, `status`). */
const podPath = (pod: { namespace: string; name: string }, sub?: string) =>
  `/api/v1/namespaces/${encodeURIComponent(pod.namespace)}/pods/${encodeURIComponent(pod.name)}${sub ? `/${sub}` : ""}`;

/** A queue of async jobs with a concurrency bound (a number, or a function read before each start). */
class WorkQueue<T> {
  private readonly items: T[] = [];
  private active = 0;
  constructor(
    private readonly concurrency: number | (() => number),
    private readonly work: (item: T) => Promise<void>,
    private readonly limit = Number.POSITIVE_INFINITY,
    private readonly onDrop: () => void = () => {},
  ) {}
  push(item: T): void {
    if (this.items.length >= this.limit) {
      this.items.shift();
      this.onDrop();
    }
    this.items.push(item);
    this.pump();
  }
  get size(): number {
    return this.items.length + this.active;
  }
  pump(): void {
    const limit = typeof this.concurrency === "number" ? this.concurrency : this.concurrency();
    while (this.active < limit && this.items.length > 0) {
      const it = this.items.shift()!;
      this.active++;
      void this.work(it).finally(() => {
        this.active--;
        this.pump();
      });
    }
  }
}

/**
 * Runs the scheduler against a cluster until `close()`.
 * @throws Error when no kubeconfig can be loaded or the REST port cannot be bound
 */
export async function runScheduler(o: SchedulerProcessOptions): Promise<SchedulerProcess> {
  const log = o.log;
  const kc = loadKubeConfig(o.kubeconfig);
  const coreApi = makeKeepAliveApiClient(kc, k8s.CoreV1Api);
  // the high-rate writes (bindings, placeholders, events, status patches): JSON in, answer discarded
  const write = makeApiWriter(kc);
  const events = new EventSystem({ now: () => Date.now(), instanceUUID: randomUUID() });
  const core = new SchedulerCore(() => Date.now(), undefined, { events: events.add });
  const startTime = Date.now();
  let namespaces: CachedInformer<k8s.V1Namespace> | undefined;
  let priorityClasses: CachedInformer<k8s.V1PriorityClass> | undefined;
  const ctx = new ShimContext(core, {
    schedulerName: o.schedulerName,
    mode: o.mode,
    namespaceAnnotations: (ns) => namespaces?.get(ns)?.metadata?.annotations,
    priorityClassValue: (name) => priorityClasses?.get(name)?.value,
    priorityClassAnnotations: (name) => {
      const pc = priorityClasses?.get(name);
      return pc && (pc.metadata?.annotations ?? {});
    },
  });

  const registry = new Registry();
  const m = {
    binds: new Counter({
      name: "corral_scheduler_binds_total",
      help: "Binding calls by result",
      labelNames: ["result"],
      registers: [registry],
    }),
    events: new Counter({
      name: "corral_scheduler_events_total",
      help: "Events and pod status writes by result (sent, failed, dropped)",
      labelNames: ["result"],
      registers: [registry],
    }),
    configReloads: new Counter({
      name: "corral_scheduler_config_reloads_total",
      help: "Queue configuration reloads by result",
      labelNames: ["result"],
      registers: [registry],
    }),
    tasks: new Gauge({
      name: "corral_scheduler_tasks",
      help: "Managed pods by task state",
      labelNames: ["state"],
      registers: [registry],
      collect() {
        this.reset();
        for (const [k, v] of Object.entries(ctx.stats())) this.set({ state: k }, v);
      },
    }),
    gang: new Counter({
      name: "corral_scheduler_placeholder_calls_total",
      help: "Placeholder pod creates and deletes by result",
      labelNames: ["action", "result"],
      registers: [registry],
    }),
    leader: new Gauge({ name: "corral_scheduler_is_leader", help: "1 while this replica holds the leader Lease", registers: [registry] }),
    overLimit: new Counter({
      name: "corral_scheduler_over_limit_allocations_total",
      help: "Allocations of pods already bound when seen (spec.nodeName preset, bound elsewhere) recorded over a limit, by kind of limit (queue, user, group)",
      labelNames: ["limit"],
      registers: [registry],
    }),
    overLimitPods: new Gauge({
      name: "corral_scheduler_over_limit_pods",
      help: "Live pods whose allocation was recorded over a limit, by kind of limit",
      labelNames: ["limit"],
      registers: [registry],
      collect() {
        for (const [k, v] of Object.entries(ctx.overLimitCounts())) this.set({ limit: k }, v);
      },
    }),
    preemptions: new Counter({
      name: "corral_scheduler_preemptions_total",
      help: "Preemptions the core started, by queue of the preempting ask",
      labelNames: ["queue"],
      registers: [registry],
    }),
    evictions: new Counter({
      name: "corral_scheduler_preemption_evictions_total",
      help: "Evictions of preemption victims by result (evicted, gone, refused) and victim queue",
      labelNames: ["result", "queue"],
      registers: [registry],
    }),
    notJoined: new Counter({
      name: "corral_scheduler_applications_not_joined_total",
      help: "Pods that named an application id held by another namespace or user and ran as their own application, by what differed",
      labelNames: ["differs"],
      registers: [registry],
    }),
  };

  let ready = false;
  let leading = false;
  const configState: { error?: string; loadedAt?: string } = {};

  // ------------------------------------------------------------------ actions
  type GangJob = Extract<ShimAction, { kind: "createPod" | "deletePod" | "podStatus" }>;
  type StatusJob = Extract<ShimAction, { kind: "event" | "condition" | "activate" }>;
  // Bindings go first: while any is queued or in flight, events and status patches use one connection (they are
  // informational; a binding is the scheduling decision). Otherwise four.
  const statusQueue = new WorkQueue<StatusJob>(
    () => (bindQueue.size > 0 ? 1 : 4),
    async (a) => {
      try {
        if (a.kind === "event") {
          const ns = a.object.namespace ?? "default";
          await write({
            method: "POST",
            path: `/api/v1/namespaces/${encodeURIComponent(ns)}/events`,
            body: eventFor(a.object, a.type, a.reason, a.message, o.schedulerName, o.identity),
          });
        } else if (a.kind === "condition") {
          const body = {
            status: {
              conditions: [
                {
                  type: "PodScheduled",
                  status: "False",
                  reason: a.reason,
                  message: a.message,
                  lastTransitionTime: new Date().toISOString(),
                },
              ],
            },
          };
          await write({ method: "PATCH", path: podPath(a.pod, "status"), body, contentType: STRATEGIC_MERGE_PATCH });
        } else if (a.kind === "activate") {
          const body = { metadata: { annotations: { "scheduling.corral.dev/allocated-node": a.node } } };
          await write({ method: "PATCH", path: podPath(a.pod), body, contentType: MERGE_PATCH });
        }
        m.events.inc({ result: "sent" });
      } catch (err) {
        m.events.inc({ result: "failed" });
        if (code(err) !== 404) log.warn({ action: a.kind, err: bodyText(err) }, "could not write event or pod status");
      }
    },
    o.eventQueueLimit,
    () => m.events.inc({ result: "dropped" }),
  );

  /** Deletes a pod (grace period 0), retried with backoff; a missing pod counts as deleted. @returns success */
  const deletePod = async (pod: PodRef): Promise<boolean> => {
    neverBound.delete(pod.uid);
    for (let i = 0; i < o.bindAttempts; i++) {
      try {
        // only this pod (its uid), not a later one of the same name
        await write({
          method: "DELETE",
          path: podPath(pod),
          body: { apiVersion: "v1", kind: "DeleteOptions", gracePeriodSeconds: 0, ...(pod.uid ? { preconditions: { uid: pod.uid } } : {}) },
        });
        m.gang.inc({ action: "delete", result: "done" });
        return true;
      } catch (err) {
        // 404: gone; 409: the uid precondition failed, the pod of that name is another one (ours is gone)
        if (code(err) === 404 || code(err) === 409) return true;
        if (i === o.bindAttempts - 1)
          log.warn({ pod: `${pod.namespace}/${pod.name}`, err: bodyText(err) }, "could not delete placeholder; retried at the next resync");
      }
      await sleep(250 * 2 ** i);
    }
    m.gang.inc({ action: "delete", result: "failed" });
    return false;
  };

  // Gang scheduling: placeholder creates and deletes, and the pod status of a Hard reservation timeout; never dropped;
  // half as many calls in flight as bindings.
  const gangQueue = new WorkQueue<GangJob>(Math.max(1, Math.ceil(o.bindConcurrency / 2)), async (a) => {
    if (a.kind === "deletePod") {
      await deletePod(a.pod);
      return;
    }
    if (a.kind === "podStatus") {
      try {
        await write({
          method: "PATCH",
          path: podPath(a.pod, "status"),
          body: { status: { phase: a.phase, reason: a.reason, message: a.message } },
          contentType: STRATEGIC_MERGE_PATCH,
        });
      } catch (err) {
        if (code(err) !== 404)
          log.warn({ pod: `${a.pod.namespace}/${a.pod.name}`, err: bodyText(err) }, "could not fail the pod of a timed-out gang");
      }
      return;
    }
    const ns = a.pod.metadata?.namespace ?? "default";
    let last = "";
    for (let i = 0; i < 3; i++) {
      try {
        await write({ method: "POST", path: `/api/v1/namespaces/${encodeURIComponent(ns)}/pods`, body: a.pod });
        m.gang.inc({ action: "create", result: "done" });
        return;
      } catch (err) {
        // AlreadyExists: an earlier attempt reached the API server (names carry a random nonce)
        if (code(err) === 409) return;
        last = bodyText(err);
        if (code(err) === 403 || code(err) === 422) break;
      }
      await sleep(250 * 2 ** i);
    }
    m.gang.inc({ action: "create", result: "failed" });
    log.warn({ pod: `${ns}/${a.pod.metadata?.name}`, err: last }, "could not create placeholder");
    run(ctx.placeholderCreateFailed(a.pod.metadata?.labels?.["yunikorn.apache.org/app-id"] ?? ""));
  });

  /** POSTs the Binding; resolves to an error text, or undefined on success. `gone`: the pod no longer exists. */
  const postBinding = async (pod: PodRef, node: string): Promise<{ error?: string; gone?: boolean }> => {
    let last = "";
    for (let i = 0; i < o.bindAttempts; i++) {
      try {
        await write({
          method: "POST",
          path: podPath(pod, "binding"),
          body: {
            apiVersion: "v1",
            kind: "Binding",
            metadata: { name: pod.name, namespace: pod.namespace, uid: pod.uid },
            target: { apiVersion: "v1", kind: "Node", name: node },
          },
        });
        return {};
      } catch (err) {
        const c = code(err);
        last = `${c ?? ""} ${bodyText(err)}`.trim();
        const outcome = bindErrorOutcome(c, pods?.get(pod.name, pod.namespace)?.spec?.nodeName, node);
        if (outcome === "bound") return {};
        if (outcome === "gone") return { error: last, gone: true };
        if (outcome === "fatal") return { error: last };
      }
      await sleep(250 * 2 ** i);
    }
    return { error: last };
  };

  /** Reports a binding's result to the shim (both modes): metrics, Scheduled event or rollback. */
  const settleBind = (pod: PodRef, node: string, r: { error?: string; gone?: boolean }) => {
    if (!r.error) {
      m.binds.inc({ result: "bound" });
      run(ctx.bindSucceeded(pod.uid, node));
      return;
    }
    m.binds.inc({ result: r.gone ? "pod-gone" : "failed" });
    log.warn({ pod: `${pod.namespace}/${pod.name}`, node, err: r.error }, "binding failed; allocation rolled back");
    run(ctx.bindFailed(pod.uid, node, r.error, r.gone));
    kick();
  };

  /**
   * Bindings queued or in flight by pod UID, settled when done. A binding whose allocation is gone when its turn comes
   * is not sent (`ctx.bindWanted`): above all a placeholder a real pod already took the place of, which is then deleted
   * unbound. A gang member that takes a placeholder's place waits for the placeholder's own binding (queued earlier, so
   * already started: FIFO). A placeholder that was bound is deleted first and the member bound after, so the node never
   * holds both; one never bound is deleted in the background while the member is bound at once. No binding races its
   * pod's deletion.
   */
  const bindings = new Map<string, Promise<void>>();
  /** Placeholders whose binding was not sent (replaced first); consumed by the replacement's job or the delete. */
  const neverBound = new Set<string>();
  type BindJob = { pod: PodRef; node: string; replaces?: PodRef; settled: () => void };
  const bindQueue: WorkQueue<BindJob> = new WorkQueue<BindJob>(o.bindConcurrency, async ({ pod, node, replaces, settled }) => {
    try {
      if (replaces) {
        await bindings.get(replaces.uid);
        if (neverBound.delete(replaces.uid)) gangQueue.push({ kind: "deletePod", pod: replaces });
        else await deletePod(replaces); // a failed delete is retried at the next resync
      } else if (!ctx.bindWanted(pod.uid, node)) {
        m.binds.inc({ result: "skipped" });
        if (ctx.tasks.get(pod.uid)?.state === "Releasing") neverBound.add(pod.uid);
        return;
      }
      settleBind(pod, node, await postBinding(pod, node));
    } finally {
      settled();
    }
    if (bindQueue.size <= 1) setImmediate(() => statusQueue.pump());
  });
  const pushBind = (a: Extract<ShimAction, { kind: "bind" }>) => {
    let settled!: () => void;
    const done = new Promise<void>((r) => (settled = r)).then(() => {
      if (bindings.get(a.pod.uid) === done) bindings.delete(a.pod.uid);
    });
    bindings.set(a.pod.uid, done);
    bindQueue.push({ ...a, settled });
  };

  // ------------------------------------------------------------------ preemption: evictions
  /** The Eviction API version the cluster serves (discovery, once; `policy/v1beta1` on 1.20-1.21). */
  let evictionVersion: Promise<string> | undefined;
  const evictionApiVersion = (): Promise<string> => {
    evictionVersion ??= discoverApiVersions(kc).then((v) => {
      if (!v.eviction) throw new Error("the API server serves no pods/eviction subresource");
      return v.eviction;
    });
    evictionVersion.catch(() => (evictionVersion = undefined));
    return evictionVersion;
  };
  type EvictJob = Extract<ShimAction, { kind: "evict" }>;
  const evictQueue = new WorkQueue<EvictJob>(8, async (a) => {
    let refused = "";
    for (let i = 0; i < 3; i++) {
      try {
        const apiVersion = await evictionApiVersion();
        await coreApi.createNamespacedPodEviction({
          name: a.pod.name,
          namespace: a.pod.namespace,
          body: { apiVersion, kind: "Eviction", metadata: { name: a.pod.name, namespace: a.pod.namespace } },
        });
        m.evictions.inc({ result: "evicted", queue: a.queue });
        log.info({ pod: `${a.pod.namespace}/${a.pod.name}`, preemptor: a.preemptor }, "preemption victim evicted");
        statusQueue.push({ kind: "event", object: { kind: "Pod", ...a.pod }, type: "Normal", reason: "Preempted", message: a.message });
        return;
      } catch (err) {
        const c = code(err);
        if (c === 404) {
          m.evictions.inc({ result: "gone", queue: a.queue });
          return;
        }
        refused = `${c ?? ""} ${bodyText(err)}`.trim();
        // 429: a PodDisruptionBudget does not allow it now; retrying at once would not change that
        if (c === 429 || c === 403 || c === 422) break;
      }
      await sleep(250 * 2 ** i);
    }
    m.evictions.inc({ result: "refused", queue: a.queue });
    log.warn({ pod: `${a.pod.namespace}/${a.pod.name}`, preemptor: a.preemptor, err: refused }, "preemption victim eviction refused");
    run(ctx.evictionRefused(a, refused));
    kick();
  });

  function run(actions: ShimAction[]): void {
    for (const a of actions) {
      if (a.kind === "bind") pushBind(a);
      else if (a.kind === "evict") evictQueue.push(a);
      else if (a.kind === "preempting") {
        m.preemptions.inc({ queue: a.queue });
        log.info(
          { applicationId: a.applicationId, allocationKey: a.allocationKey, queue: a.queue, node: a.nodeId, victims: a.victims },
          "preemption started",
        );
      } else if (a.kind === "createPod" || a.kind === "deletePod" || a.kind === "podStatus") gangQueue.push(a);
      else if (a.kind === "notJoined") {
        m.notJoined.inc({ differs: a.differs });
        log.info(
          {
            pod: `${a.pod.namespace}/${a.pod.name}`,
            podApplicationId: a.podApplicationId,
            applicationId: a.applicationId,
            user: a.user,
            differs: a.differs,
          },
          "application id held by another namespace or user: the pod runs as its own application",
        );
      } else if (a.kind === "overLimit") {
        for (const kind of new Set(a.limits.map((l) => l.kind))) m.overLimit.inc({ limit: kind });
        log.warn(
          { pod: `${a.pod.namespace}/${a.pod.name}`, applicationId: a.applicationId, node: a.node, limits: a.limits },
          "allocation of an already bound pod recorded over a limit",
        );
      } else statusQueue.push(a);
    }
  }

  // ------------------------------------------------------------------ scheduling loop
  let kicked = false;
  const cycle = () => {
    kicked = false;
    if (!ready) return;
    const actions = ctx.schedule();
    if (actions.length > 0) log.debug({ allocations: actions.length }, "scheduling cycle");
    run(actions);
  };
  function kick(): void {
    if (kicked) return;
    kicked = true;
    setImmediate(cycle);
  }

  // ------------------------------------------------------------------ config
  let configMaps: CachedInformer<k8s.V1ConfigMap> | undefined;
  const reloadConfig = () => {
    const defaults = configMaps?.get(DEFAULT_CONFIGMAP_NAME, o.namespace);
    const configs = configMaps?.get(CONFIGMAP_NAME, o.namespace);
    let text: string;
    try {
      const flat = flattenConfigMaps([defaults, configs]);
      text = queuesYamlOf(flat, o.policyGroup);
      const ev = eventConfigOf(flat);
      for (const e of ev.errors) log.warn({ err: e }, "event setting ignored");
      if (JSON.stringify(ev.config) !== JSON.stringify(events.config)) {
        events.configure(ev.config);
        log.info({ ...ev.config }, "event settings applied");
      }
    } catch (err) {
      return reportConfigError((err as Error).message, configs ?? defaults);
    }
    if (text === core.config) return;
    const r = core.updateConfiguration(text);
    if (!r.ok) return reportConfigError(r.error, configs ?? defaults);
    configState.error = undefined;
    configState.loadedAt = new Date().toISOString();
    m.configReloads.inc({ result: "applied" });
    if (text.trim() === "")
      log.info(
        { namespace: o.namespace, key: `${o.policyGroup}.yaml` },
        "queue configuration applied: no such key in yunikorn-defaults or yunikorn-configs, using the default configuration",
      );
    else
      log.info(
        { configmap: `${o.namespace}/${configs ? CONFIGMAP_NAME : DEFAULT_CONFIGMAP_NAME}`, key: `${o.policyGroup}.yaml` },
        "queue configuration applied",
      );
    // a bad preemption or priority property falls back to its default, as upstream (queue-properties.ts): said here
    for (const [name, p] of core.partitions)
      for (const problem of p.propertyProblems) log.warn({ partition: name, ...problem }, "queue property ignored, its default applies");
    run(ctx.retryRejected());
    kick();
  };
  const reportConfigError = (error: string, cm: k8s.V1ConfigMap | undefined) => {
    configState.error = error;
    m.configReloads.inc({ result: "rejected" });
    log.error(
      { configmap: `${o.namespace}/${cm?.metadata?.name ?? CONFIGMAP_NAME}`, err: error },
      "queue configuration rejected; the running configuration stays in force",
    );
    if (cm?.metadata?.name) {
      run([
        {
          kind: "event",
          object: { kind: "ConfigMap", namespace: o.namespace, name: cm.metadata.name, uid: cm.metadata.uid },
          type: "Warning",
          reason: "ConfigRejected",
          message: `queue configuration not applied, the previous one stays in force: ${error}`,
        },
      ]);
    }
  };

  // ------------------------------------------------------------------ extender verbs (plugin mode)
  const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
    "GET /ws/v1/scheduler/shim": (_req, res) =>
      json(res, 200, {
        ready,
        mode: o.mode,
        schedulerName: o.schedulerName,
        leader: leading,
        config: configState,
        tasks: ctx.stats(),
        queued: { binds: bindQueue.size, status: statusQueue.size, placeholders: gangQueue.size },
      }),
    "GET /ws/v1/scheduler/shim/applications": (_req, res) => json(res, 200, ctx.applications()),
  };
  if (o.mode === "plugin") {
    routes["POST /scheduler/filter"] = (req, res) => {
      readBody(req, 16 * 1024 * 1024).then(
        (text) => {
          if (!ready) return json(res, 503, { Error: "scheduler not ready" });
          const parsed = parseFilterArgs(text);
          if (!parsed.ok) return json(res, 400, { Error: parsed.error });
          const claimed = parsed.args.Pod;
          const live = pods?.get(claimed.metadata.name ?? "", claimed.metadata.namespace ?? "") as PodObject | undefined;
          const { result, actions } = ctx.filterRequest(claimed, parsed.candidates, live);
          run(actions);
          json(res, 200, filterReply(parsed.args, result));
        },
        (err: Error) => json(res, 400, { Error: err.message }),
      );
    };
    routes["POST /scheduler/bind"] = (req, res) => {
      readBody(req, 1024 * 1024).then(
        async (text) => {
          let args: { PodName?: string; PodNamespace?: string; PodUID?: string; Node?: string };
          try {
            args = JSON.parse(text);
          } catch (err) {
            return json(res, 200, { Error: `ExtenderBindingArgs is not JSON: ${(err as Error).message}` });
          }
          if (!args.PodName || !args.PodNamespace || !args.PodUID || !args.Node)
            return json(res, 200, { Error: "ExtenderBindingArgs needs PodName, PodNamespace, PodUID and Node" });
          const refused = ctx.bindAllowed(args.PodUID, args.Node, pods?.get(args.PodName, args.PodNamespace) as PodObject | undefined);
          if (refused) return json(res, 200, { Error: refused });
          const pod = { name: args.PodName, namespace: args.PodNamespace, uid: args.PodUID };
          const r = await postBinding(pod, args.Node);
          settleBind(pod, args.Node, r);
          json(res, 200, { Error: r.error ?? "" });
        },
        (err: Error) => json(res, 200, { Error: err.message }),
      );
    };
  }

  // Two replicas: a follower answers REST reads with the leader's state by forwarding them (rest/forward.ts).
  let leaderAddress: string | undefined;
  const intercept = (req: IncomingMessage, res: ServerResponse): boolean => {
    res.setHeader(SERVED_BY_HEADER, o.identity);
    if (!o.leaderElect) return false;
    const d = forwardDecision(req.method ?? "GET", (req.url ?? "/").split("?")[0]!, req.headers[FORWARDED_HEADER] !== undefined, {
      leading,
      leaderAddress,
    });
    if (d.action === "local") return false;
    if (d.action === "unavailable") restError(res, 503, d.reason);
    else {
      res.removeHeader(SERVED_BY_HEADER);
      forwardRequest(req, res, d.target, o.identity);
    }
    return true;
  };
  const rest = await startRestServer({
    host: o.host,
    port: o.port,
    log,
    core,
    registry,
    routes,
    events,
    startTime,
    intercept,
    config: () => core.appliedConfig,
    build: { buildVersion: process.env.npm_package_version ?? "", buildDate: "", isPluginVersion: String(o.mode === "plugin") },
    rmDiagnostics: () => ({
      ready,
      mode: o.mode,
      schedulerName: o.schedulerName,
      leader: leading,
      config: configState,
      tasks: ctx.stats(),
    }),
  });

  // ------------------------------------------------------------------ informers, recovery, handlers
  let pods: CachedInformer<k8s.V1Pod> | undefined;
  let nodes: CachedInformer<k8s.V1Node> | undefined;
  const timers: NodeJS.Timeout[] = [];
  let stopLeading: (() => Promise<void>) | undefined;

  const start = async () => {
    [namespaces, priorityClasses, configMaps, nodes, pods] = await Promise.all([
      startInformer<k8s.V1Namespace>(kc, "/api/v1/namespaces", () => coreApi.listNamespace(), "namespaces", log),
      startInformer<k8s.V1PriorityClass>(
        kc,
        "/apis/scheduling.k8s.io/v1/priorityclasses",
        () => kc.makeApiClient(k8s.SchedulingV1Api).listPriorityClass(),
        "priorityclasses",
        log,
      ),
      startInformer<k8s.V1ConfigMap>(
        kc,
        `/api/v1/namespaces/${o.namespace}/configmaps`,
        () => coreApi.listNamespacedConfigMap({ namespace: o.namespace }),
        "configmaps",
        log,
      ),
      startInformer<k8s.V1Node>(kc, "/api/v1/nodes", () => coreApi.listNode(), "nodes", log),
      startInformer<k8s.V1Pod>(kc, "/api/v1/pods", () => coreApi.listPodForAllNamespaces(), "pods", log),
    ]);
    // Recovery (reference §3.4): config, nodes, then pods oldest first; nothing is scheduled until all are in.
    reloadConfig();
    // Gang keys are read once at start, as upstream (a bad value: logged, the defaults stay)
    const gang = parseGangConfig(
      flattenConfigMaps([configMaps.get(DEFAULT_CONFIGMAP_NAME, o.namespace), configMaps.get(CONFIGMAP_NAME, o.namespace)]),
      { namespace: o.namespace },
    );
    if (!gang.ok) log.error({ errors: gang.errors }, "gang scheduling configuration rejected; the defaults stay in force");
    const gangConfig = gang.ok ? gang.config : { ...DEFAULT_GANG_CONFIG, schedulerUser: defaultSchedulerUser(o.namespace) };
    ctx.setGangConfig(
      o.placeholderImage ? { ...gangConfig, placeholder: { ...gangConfig.placeholder, image: o.placeholderImage } } : gangConfig,
    );
    const t0 = Date.now();
    run(ctx.syncAll(nodes.list(), pods.list() as PodObject[]));
    log.info({ nodes: ctx.nodes.size, pods: pods.list().length, ...ctx.stats(), ms: Date.now() - t0 }, "state recovered from the cluster");

    configMaps.on("add", reloadConfig);
    configMaps.on("update", reloadConfig);
    configMaps.on("delete", reloadConfig);
    nodes.on("add", (n) => {
      run(ctx.syncNode(n));
      kick();
    });
    nodes.on("update", (n) => {
      run(ctx.syncNode(n));
      kick();
    });
    nodes.on("delete", (n) => {
      run(ctx.deleteNode(n.metadata?.name ?? ""));
      kick();
    });
    pods.on("add", (p) => {
      run(ctx.syncPod(p as PodObject));
      kick();
    });
    pods.on("update", (p) => {
      run(ctx.syncPod(p as PodObject));
      kick();
    });
    pods.on("delete", (p) => {
      ctx.deletePod(p as PodObject);
      kick();
    });

    ready = true;
    kick();
    timers.push(setInterval(kick, o.intervalMs));
    timers.push(setInterval(() => run(ctx.holdReasons()), 1000));
    timers.push(setInterval(resync, o.resyncSeconds * 1000));
    log.info({ mode: o.mode, schedulerName: o.schedulerName }, "scheduling");
  };

  /** Level-triggered repair from the caches (missed watch events). */
  const resync = () => {
    if (!pods || !nodes) return;
    run(ctx.syncAll(nodes.list(), pods.list() as PodObject[]));
    kick();
  };

  const startOnce = () =>
    start().catch((err: Error) => {
      log.fatal({ err: err.message }, "scheduler start failed");
      process.exitCode = 1;
      void close();
    });
  if (o.leaderElect) {
    stopLeading = runLeaderElection({
      kc,
      namespace: o.namespace,
      name: o.leaseName,
      identity: o.identity,
      log,
      annotations: o.advertiseAddress ? { [LEADER_ADDRESS_ANNOTATION]: o.advertiseAddress } : undefined,
      onObserved: (lease) => {
        leaderAddress = lease?.holderIdentity ? lease.annotations[LEADER_ADDRESS_ANNOTATION] : undefined;
      },
      onStartedLeading: () => {
        m.leader.set(1);
        leading = true;
        log.info({ identity: o.identity }, "leading: starting the scheduler");
        void startOnce();
      },
      onStoppedLeading: () => {
        m.leader.set(0);
        // As Kubernetes components do: a replica that lost the Lease exits and is restarted as a follower.
        log.fatal({ identity: o.identity }, "lost the leader Lease; exiting");
        process.exit(1);
      },
    });
  } else {
    m.leader.set(1);
    leading = true;
    void startOnce();
  }

  async function close(): Promise<void> {
    ready = false;
    await stopLeading?.();
    for (const t of timers) clearInterval(t);
    await Promise.all([pods, nodes, configMaps, namespaces, priorityClasses].map((i) => i?.stop().catch(() => undefined)));
    await rest.close();
  }

  return { port: rest.port, ctx, close };
}
