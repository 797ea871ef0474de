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
import { Registry } from "prom-client";
import { GENERATE_UNIQUE_APP_IDS_KEY } from "../yunikorn/constants.js";
import { defaultSchedulerUser } from "../yunikorn/scheduler-identity.js";
import { SchedulerCore } from "../scheduler/core/scheduler.js";
import { EventSystem } from "../scheduler/events/system.js";
import { runActions } from "../scheduler/controllers/actions.js";
import { configReloader } from "../scheduler/controllers/config-reload.js";
import { runSchedulingLoop, type SchedulingLoop } from "../scheduler/controllers/loop.js";
import { schedulerMetrics } from "../scheduler/controllers/metrics.js";
import { registerYunikornMetrics } from "../scheduler/rest/metrics.js";
import { extenderRoutes } from "../scheduler/rest/extender-routes.js";
import { LEADER_ADDRESS_ANNOTATION, replicaIntercept } from "../scheduler/rest/forward.js";
import { corralBuildInfo } from "../scheduler/rest/cluster-dao.js";
import { json, startRestServer } from "../scheduler/rest/server.js";
import { extraConfigOf, generateUniqueAppIdsOf } from "../scheduler/shim/config.js";
import { DEFAULT_GANG_CONFIG, parseGangConfig } from "../scheduler/shim/gang/config.js";
import { type SchedulingMode, ShimContext } from "../scheduler/shim/context.js";
import { k8s, loadKubeConfig, makeApiWriter, makeKeepAliveApiClient } from "../kube/client.js";
import { writerPodCalls } from "../kube/pod-calls.js";
import { discoverApiVersions } from "../kube/discovery.js";
import { type CachedInformer, startInformer } from "../kube/informers.js";
import { runLeaderElection } from "../kube/leader.js";

/** Options of `corral scheduler` (README "Scheduler"). */
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

/** A running scheduler: its REST port, the shim (for tests) and `close()`. */
export interface SchedulerProcess {
  port: number;
  ctx: ShimContext;
  close(): Promise<void>;
}

/** The informers the scheduler reads: started when this replica leads, stopped on close. */
interface Informers {
  namespaces: CachedInformer<k8s.V1Namespace>;
  priorityClasses: CachedInformer<k8s.V1PriorityClass>;
  configMaps: CachedInformer<k8s.V1ConfigMap>;
  nodes: CachedInformer<k8s.V1Node>;
  pods: CachedInformer<k8s.V1Pod>;
}

/** Starts the informers; resolves after each one's first list. */
async function startInformers(kc: k8s.KubeConfig, coreApi: k8s.CoreV1Api, namespace: string, log: Logger): Promise<Informers> {
  const [namespaces, priorityClasses, configMaps, nodes, pods] = await Promise.all([
    startInformer<k8s.V1Namespace>(kc, { path: "/api/v1/namespaces", list: () => coreApi.listNamespace(), what: "namespaces", log }),
    startInformer<k8s.V1PriorityClass>(kc, {
      path: "/apis/scheduling.k8s.io/v1/priorityclasses",
      list: () => kc.makeApiClient(k8s.SchedulingV1Api).listPriorityClass(),
      what: "priorityclasses",
      log,
    }),
    startInformer<k8s.V1ConfigMap>(kc, {
      path: `/api/v1/namespaces/${namespace}/configmaps`,
      list: () => coreApi.listNamespacedConfigMap({ namespace }),
      what: "configmaps",
      log,
    }),
    startInformer<k8s.V1Node>(kc, { path: "/api/v1/nodes", list: () => coreApi.listNode(), what: "nodes", log }),
    startInformer<k8s.V1Pod>(kc, { path: "/api/v1/pods", list: () => coreApi.listPodForAllNamespaces(), what: "pods", log }),
  ]);
  return { namespaces, priorityClasses, configMaps, nodes, pods };
}

/**
 * Runs the scheduler against a cluster until `close()`.
 * @throws Error when no kubeconfig can be loaded or the REST port cannot be bound
 */
export async function runScheduler(o: SchedulerProcessOptions): Promise<SchedulerProcess> {
  const log = o.log;
  const kc = loadKubeConfig(o.kubeconfig);
  const coreApi = makeKeepAliveApiClient(kc, k8s.CoreV1Api);
  let informers: Informers | undefined;
  let loop: SchedulingLoop | undefined;
  let ready = false;
  let leading = false;
  let leaderAddress: string | undefined;
  const kick = () => loop?.kick();

  // ------------------------------------------------------------------ parts
  const events = new EventSystem({ now: () => Date.now(), instanceUUID: randomUUID() });
  const registry = new Registry();
  const monotonicSeconds = () => performance.now() / 1000;
  const core = new SchedulerCore(() => Date.now(), undefined, {
    events: events.add,
    latency: {
      clock: monotonicSeconds,
      // called from scheduling cycles only, after `yunikorn` is set below
      observe: (_partition, seconds) => yunikorn.schedulingLatency.observe(seconds),
      observePreemption: (_partition, seconds) => yunikorn.tryPreemptionLatency.observe(seconds),
      observeNodeSearch: (_partition, seconds, found) => {
        yunikorn.tryNodeEvaluation.observe(seconds);
        if (found) yunikorn.tryNodeLatency.observe(seconds);
      },
    },
  });
  /** YuniKorn's metrics (rest/metrics.ts): the core times its cycles and preemption decisions into them. */
  const yunikorn = registerYunikornMetrics(registry, core);
  const startTime = Date.now();
  const ctx = new ShimContext(core, {
    schedulerName: o.schedulerName,
    mode: o.mode,
    namespaceAnnotations: (ns) => informers?.namespaces.get(ns)?.metadata?.annotations,
    priorityClassValue: (name) => informers?.priorityClasses.get(name)?.value,
    priorityClassAnnotations: (name) => {
      const pc = informers?.priorityClasses.get(name);
      return pc && (pc.metadata?.annotations ?? {});
    },
  });
  const metrics = schedulerMetrics(registry, ctx);

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
  const actions = runActions({
    // the high-rate writes (bindings, placeholders, events, status patches) over the lean writer; evictions on client-node
    api: writerPodCalls(makeApiWriter(kc), coreApi),
    shim: ctx,
    kick,
    liveNode: (pod) => informers?.pods.get(pod.name, pod.namespace)?.spec?.nodeName,
    evictionApiVersion,
    metrics,
    log,
    component: o.schedulerName,
    identity: o.identity,
    bindConcurrency: o.bindConcurrency,
    bindAttempts: o.bindAttempts,
    eventQueueLimit: o.eventQueueLimit,
  });
  const run = actions.run;
  const config = configReloader({
    core,
    events,
    namespace: o.namespace,
    policyGroup: o.policyGroup,
    configMap: (name) => informers?.configMaps.get(name, o.namespace),
    metrics,
    log,
    run,
    onApplied: () => {
      run(ctx.retryRejected());
      kick();
    },
  });

  // ------------------------------------------------------------------ REST API (and plugin mode's extender verbs)
  const shimState = () => ({
    ready,
    mode: o.mode,
    schedulerName: o.schedulerName,
    leader: leading,
    config: config.state,
    tasks: ctx.stats(),
  });
  const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
    "GET /ws/v1/scheduler/shim": (_req, res) => json(res, 200, { ...shimState(), queued: actions.queued() }),
    "GET /ws/v1/scheduler/shim/applications": (_req, res) => json(res, 200, ctx.applications()),
    ...(o.mode === "plugin"
      ? extenderRoutes({
          ctx,
          ready: () => ready,
          livePod: (name, namespace) => informers?.pods.get(name, namespace),
          run,
          bind: actions.bind,
        })
      : {}),
  };
  // Two replicas: a follower answers REST reads with the leader's state by forwarding them (rest/forward.ts).
  const intercept = replicaIntercept({ identity: o.identity, leaderElect: o.leaderElect, view: () => ({ leading, leaderAddress }) });
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
    extraConfig: () => extraConfigOf(config.flat()),
    build: corralBuildInfo({ plugin: o.mode === "plugin" }),
    rmDiagnostics: shimState,
    foreignAllocations: (nodeId) => ctx.foreignPods(nodeId),
  });

  // ------------------------------------------------------------------ start: informers, recovery, handlers, loop
  const start = async () => {
    const inf = (informers = await startInformers(kc, coreApi, o.namespace, log));
    // Recovery (reference §3.4): config, nodes, then pods oldest first; nothing is scheduled until all are in.
    config.reload();
    // Gang keys and generateUniqueAppId are read once at start, as upstream (a bad value: logged, the defaults stay),
    // from the ConfigMaps the reload just read
    const flat = config.flat();
    const unique = generateUniqueAppIdsOf(flat);
    if (unique.invalid !== undefined)
      log.error({ key: GENERATE_UNIQUE_APP_IDS_KEY, value: unique.invalid }, "not a boolean; the default (false) stays in force");
    ctx.setGenerateUniqueAppIds(unique.on);
    const gang = parseGangConfig(flat, { namespace: o.namespace });
    if (!gang.ok) log.error({ errors: gang.errors }, "gang scheduling configuration rejected; the defaults stay in force");
    const gangConfig = gang.ok ? gang.config : { ...DEFAULT_GANG_CONFIG, schedulerUser: defaultSchedulerUser(o.namespace) };
    ctx.setGangConfig(
      o.placeholderImage ? { ...gangConfig, placeholder: { ...gangConfig.placeholder, image: o.placeholderImage } } : gangConfig,
    );
    const t0 = Date.now();
    run(ctx.syncAll(inf.nodes.list(), inf.pods.list()));
    log.info(
      { nodes: ctx.nodes.size, pods: inf.pods.list().length, ...ctx.stats(), ms: Date.now() - t0 },
      "state recovered from the cluster",
    );

    const reload = () => loop?.reloadConfig();
    inf.configMaps.on("add", reload);
    inf.configMaps.on("update", reload);
    inf.configMaps.on("delete", reload);
    const andKick = (f: () => unknown) => {
      f();
      kick();
    };
    inf.nodes.on("add", (n) => andKick(() => run(ctx.syncNode(n))));
    inf.nodes.on("update", (n) => andKick(() => run(ctx.syncNode(n))));
    inf.nodes.on("delete", (n) => andKick(() => run(ctx.deleteNode(n.metadata?.name ?? ""))));
    inf.pods.on("add", (p) => andKick(() => run(ctx.syncPod(p))));
    inf.pods.on("update", (p) => andKick(() => run(ctx.syncPod(p))));
    inf.pods.on("delete", (p) => andKick(() => ctx.deletePod(p)));

    ready = true;
    loop = runSchedulingLoop({
      schedule: () => {
        const start = monotonicSeconds();
        const a = ctx.schedule();
        if (a.length > 0) log.debug({ allocations: a.length }, "scheduling cycle");
        run(a);
        yunikorn.schedulingCycle.observe(monotonicSeconds() - start);
      },
      reloadConfig: config.reload,
      holdReasons: () => run(ctx.holdReasons()),
      // level-triggered repair from the caches (missed watch events)
      resync: () => andKick(() => run(ctx.syncAll(inf.nodes.list(), inf.pods.list()))),
      intervalMs: o.intervalMs,
      holdReasonsMs: 1000,
      resyncMs: o.resyncSeconds * 1000,
      onError: (key, err) => log.error({ key, err: (err as Error).message }, "scheduler loop step failed; retried"),
    });
    log.info({ mode: o.mode, schedulerName: o.schedulerName }, "scheduling");
  };

  let stopLeading: (() => Promise<void>) | undefined;
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
        metrics.leader.set(1);
        leading = true;
        log.info({ identity: o.identity }, "leading: starting the scheduler");
        void startOnce();
      },
      onStoppedLeading: () => {
        metrics.leader.set(0);
        // As Kubernetes components do: a replica that lost the Lease exits and is restarted as a follower.
        log.fatal({ identity: o.identity }, "lost the leader Lease; exiting");
        process.exit(1);
      },
    });
  } else {
    metrics.leader.set(1);
    leading = true;
    void startOnce();
  }

  async function close(): Promise<void> {
    ready = false;
    await stopLeading?.();
    await loop?.stop();
    // calls in flight end on their own; nothing new is taken
    void actions.stop();
    const all = informers ? Object.values(informers) : [];
    await Promise.all(all.map((i) => i.stop().catch(() => undefined)));
    await rest.close();
  }

  return { port: rest.port, ctx, close };
}
