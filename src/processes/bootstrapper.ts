/**
 * The `corral bootstrapper` process (design 003): the fail-open pod manipulation webhook, the housekeeping loop that
 * evicts controller-owned pods the webhook missed, and the controller that copies shared resources into namespaces.
 * Reuses the webhook server, the Secret-backed CAs and self-registration of the admission controller.
 */
import type { Logger } from "pino";
import { Counter } from "prom-client";
import {
  ANNOTATION_MODIFIED,
  type BootstrapperConfig,
  CONFIGMAP_KEY,
  CONFIGMAP_NAME,
  parseBootstrapperConfig,
} from "../bootstrapper/config.js";
import { planHousekeeping } from "../bootstrapper/housekeeping.js";
import { reviewBootstrap } from "../bootstrapper/review.js";
import { LABEL_MANAGED_BY, MANAGED_BY, type SyncObject, planSync } from "../bootstrapper/sync.js";
import { applyObject } from "../kube/apply.js";
import { discoverApiVersions } from "../kube/discovery.js";
import { eventFor } from "../kube/events.js";
import { k8s, loadKubeConfig, statusCode } from "../kube/client.js";
import { type CachedInformer, startInformer } from "../kube/informers.js";
import { DEFAULT_ROTATION_POLICY, scalePolicy } from "../pki/rotation.js";
import { WebhookMetrics } from "../server/metrics.js";
import { type WebhookServer, startWebhookServer } from "../server/webhook-server.js";
import { type Clock, SYSTEM_CLOCK, TokenBucket, WorkQueue, defaultRateLimiter, runController } from "../kube/workqueue.js";
import { createLogger } from "../util/logger.js";
import { WebhookTls } from "./webhook-tls.js";
import { type WebhookTarget, clientConfig, namespaceSelector, webhookSans } from "../webhook/registration.js";
import { allow } from "../webhook/decision.js";

/** Names of the bootstrapper's MutatingWebhookConfiguration, its webhook, path and Service (as the upstream chart). */
export const BOOTSTRAPPER_WEBHOOK_CONFIGURATION = "rt-bootstrapper-mutating-webhook-configuration";
export const BOOTSTRAPPER_WEBHOOK = "mpod-v1.kb.io";
export const BOOTSTRAPPER_PATH = "/mutate--v1-pod";
export const BOOTSTRAPPER_SERVICE = "rt-bootstrapper-webhook-service";

/** Options of `corral bootstrapper` (README "Runtime bootstrapper"). */
export interface BootstrapperOptions {
  host: string;
  port: number;
  kubeconfig?: string;
  /** Register with this https base URL (out of cluster) instead of the Service. */
  webhookUrl?: string;
  register?: boolean;
  secretName?: string;
  resyncSeconds?: number;
  caPropagationSeconds?: number;
  pkiTimeScale?: number;
  env?: Readonly<Record<string, string | undefined>>;
  logger?: Logger;
}

/** A running bootstrapper: its webhook server, logger, on-demand housekeeping and sync, and `close()`. */
export interface BootstrapperHandle {
  server: WebhookServer;
  log: Logger;
  /** Runs housekeeping now (tests, config changes). */
  housekeep(): Promise<void>;
  /** Runs the shared-resource sync now. */
  sync(): Promise<void>;
  close(): Promise<void>;
}

/** The fail-open MutatingWebhookConfiguration (design 003: a webhook outage never blocks pod creation). */
export function bootstrapperWebhookConfiguration(target: WebhookTarget, caBundle: string): k8s.KubernetesObject {
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "MutatingWebhookConfiguration",
    metadata: { name: BOOTSTRAPPER_WEBHOOK_CONFIGURATION, labels: { "app.kubernetes.io/name": "rt-bootstrapper" } },
    webhooks: [
      {
        name: BOOTSTRAPPER_WEBHOOK,
        clientConfig: clientConfig(target, BOOTSTRAPPER_PATH, caBundle),
        rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"], scope: "Namespaced" }],
        failurePolicy: "Ignore",
        timeoutSeconds: 2,
        sideEffects: "None",
        matchPolicy: "Equivalent",
        reinvocationPolicy: "Never",
        admissionReviewVersions: ["v1"],
        objectSelector: { matchExpressions: [{ key: "app.kubernetes.io/name", operator: "NotIn", values: ["rt-bootstrapper"] }] },
        namespaceSelector: namespaceSelector(["kube-system"]),
      },
    ],
  } as k8s.KubernetesObject;
}

/**
 * Without a cluster (`--standalone`): the webhook only, configuration from a JSON file, a self-signed certificate in
 * `certDir`; for trying it out and for the benchmark.
 * @throws Error naming the field when the configuration file is invalid
 */
export async function runBootstrapperStandalone(o: {
  host: string;
  port: number;
  configFile: string;
  certDir: string;
  logger?: Logger;
}): Promise<BootstrapperHandle> {
  const { readFile } = await import("node:fs/promises");
  const { ensureCertDir } = await import("./admission.js");
  const log = o.logger ?? createLogger("corral-bootstrapper", process.env.LOG_LEVEL ?? "info");
  const r = parseBootstrapperConfig(await readFile(o.configFile, "utf8"));
  if (!r.ok) throw new Error(`${o.configFile}: ${r.error}`);
  const cfg = r.config;
  const tls = await ensureCertDir(o.certDir, ["localhost", "127.0.0.1", "::1"], log);
  const server = await startWebhookServer({
    host: o.host,
    port: o.port,
    tls,
    logger: log,
    routes: [
      { path: BOOTSTRAPPER_PATH, name: "bootstrap", decide: (req) => reviewBootstrap(req, cfg, { namespaceAnnotations: () => undefined }) },
    ],
  });
  log.info({ port: server.port, standalone: true }, "bootstrapper serving");
  return { server, log, housekeep: async () => undefined, sync: async () => undefined, close: () => server.close() };
}

/**
 * Runs the bootstrapper against a cluster until `close()`: webhook TLS from the CA Secret, informers, the webhook
 * registration, and the housekeeping and shared-resource sync controllers.
 * @throws Error when no kubeconfig can be loaded or the webhook port cannot be bound
 */
export async function runBootstrapper(opts: BootstrapperOptions): Promise<BootstrapperHandle> {
  const env = opts.env ?? process.env;
  const log = opts.logger ?? createLogger("corral-bootstrapper", env.LOG_LEVEL ?? "info");
  const namespace = env.NAMESPACE ?? "kyma-system";
  const kc = loadKubeConfig(opts.kubeconfig);
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const closers: (() => Promise<void> | void)[] = [];
  // Eviction is policy/v1 from Kubernetes 1.22 and policy/v1beta1 before (gone from 1.25): the server says which.
  const apiVersions = await discoverApiVersions(kc);
  log.info(
    { kubernetes: `${apiVersions.kubernetes.major}.${apiVersions.kubernetes.minor}`, eviction: apiVersions.eviction ?? "not served" },
    "API versions from discovery",
  );
  if (!apiVersions.namespaceNameLabel)
    log.warn(
      "namespaces carry no kubernetes.io/metadata.name label before Kubernetes 1.21: the webhook's namespaceSelector " +
        "cannot exclude kube-system unless it is labelled by hand",
    );

  const [namespaces, configMaps, pods] = await Promise.all([
    startInformer<k8s.V1Namespace>(kc, { path: "/api/v1/namespaces", list: () => core.listNamespace(), what: "namespaces", log }),
    startInformer<k8s.V1ConfigMap>(kc, {
      path: `/api/v1/namespaces/${namespace}/configmaps`,
      list: () => core.listNamespacedConfigMap({ namespace }),
      what: "configmaps",
      log,
    }),
    startInformer<k8s.V1Pod>(kc, { path: "/api/v1/pods", list: () => core.listPodForAllNamespaces(), what: "pods", log }),
  ]);
  for (const inf of [namespaces, configMaps, pods] as CachedInformer<k8s.KubernetesObject>[]) closers.push(() => inf.stop());
  const nsAnnotations = (n: string) => namespaces.get(n)?.metadata?.annotations;

  // Configuration: last good one stays when an update is invalid.
  let cfg: BootstrapperConfig | undefined;
  const reload = (why: string) => {
    const text = configMaps.get(CONFIGMAP_NAME, namespace)?.data?.[CONFIGMAP_KEY];
    if (text === undefined) {
      if (!cfg) log.warn({ why }, `ConfigMap ${namespace}/${CONFIGMAP_NAME} key ${CONFIGMAP_KEY} not found; pods pass unchanged`);
      return false;
    }
    const r = parseBootstrapperConfig(text);
    if (!r.ok) {
      log.error({ why, error: r.error }, "bootstrapper configuration rejected; keeping the last good one");
      return false;
    }
    if (cfg?.revision === r.config.revision) return false;
    cfg = r.config;
    log.info({ why, revision: cfg.revision }, "bootstrapper configuration applied");
    return true;
  };
  reload("start");

  const metrics = new WebhookMetrics();
  const housekeep = housekeeper({ core, pods, eviction: apiVersions.eviction, config: () => cfg, nsAnnotations, metrics, log });
  const syncCaches: Partial<SyncCaches> = {};
  const sync = syncer({ kc, core, namespaces, caches: syncCaches, config: () => cfg, log });

  // One queue for the background work: a key per task, run one at a time, retried with backoff when it throws.
  const resyncMs = (cfg?.sync.resyncSeconds ?? 60) * 1000;
  const controller = runController<"housekeep" | "sync">({
    queue: new WorkQueue({ rateLimiter: defaultRateLimiter(SYSTEM_CLOCK, { baseMs: 1000, maxMs: 60_000 }) }),
    reconcile: async (task) => {
      if (task === "housekeep") {
        await housekeep();
        return { requeueAfter: cfg ? cfg.housekeeping.intervalSeconds * 1000 : 60_000 };
      }
      await sync();
      return { requeueAfter: resyncMs };
    },
    onError: (task, err) => log.error({ err: (err as Error).message, task }, "background task failed"),
  });
  // Bursts of changes are handled by one sync, 200 ms after the first.
  const soonSync = () => controller.queue.addAfter("sync", 200);
  for (const verb of ["add", "update", "delete"] as const) {
    configMaps.on(verb, (cm) => {
      if (cm.metadata?.name === CONFIGMAP_NAME && reload(`${verb} ConfigMap`)) {
        controller.queue.add("housekeep");
        soonSync();
      }
    });
    namespaces.on(verb, () => soonSync());
  }
  // Copies edited or deleted, and sources changed in the source namespace (as configured at start), trigger a sync.
  const sourceNs = cfg?.sync.sourceNamespace ?? namespace;
  const managed = `${LABEL_MANAGED_BY}=${MANAGED_BY}`;
  const [managedSecrets, managedConfigMaps, sourceSecrets, sourceConfigMaps] = await Promise.all([
    startInformer<k8s.V1Secret>(kc, {
      path: "/api/v1/secrets",
      list: () => core.listSecretForAllNamespaces({ labelSelector: managed }),
      what: "managed-secrets",
      log,
      retryMs: 2000,
      labelSelector: managed,
    }),
    startInformer<k8s.V1ConfigMap>(kc, {
      path: "/api/v1/configmaps",
      list: () => core.listConfigMapForAllNamespaces({ labelSelector: managed }),
      what: "managed-configmaps",
      log,
      retryMs: 2000,
      labelSelector: managed,
    }),
    startInformer<k8s.V1Secret>(kc, {
      path: `/api/v1/namespaces/${sourceNs}/secrets`,
      list: () => core.listNamespacedSecret({ namespace: sourceNs }),
      what: "source-secrets",
      log,
    }),
    startInformer<k8s.V1ConfigMap>(kc, {
      path: `/api/v1/namespaces/${sourceNs}/configmaps`,
      list: () => core.listNamespacedConfigMap({ namespace: sourceNs }),
      what: "source-configmaps",
      log,
    }),
  ]);
  Object.assign(syncCaches, { secrets: sourceSecrets, configMaps: sourceConfigMaps, managedSecrets, managedConfigMaps });
  for (const inf of [managedSecrets, managedConfigMaps, sourceSecrets, sourceConfigMaps] as CachedInformer<k8s.KubernetesObject>[]) {
    closers.push(() => inf.stop());
    for (const verb of ["add", "update", "delete"] as const) inf.on(verb, () => soonSync());
  }
  controller.queue.addAfter("housekeep", cfg ? cfg.housekeeping.intervalSeconds * 1000 : 60_000);
  // Not awaited: close does not wait for a task in progress (its API calls end on their own).
  closers.push(() => void controller.stop());

  // Certificates and the fail-open registration.
  const tls = new WebhookTls({
    kc,
    secrets: core,
    secretName: opts.secretName ?? "rt-bootstrapper-webhook-secrets",
    policy: scalePolicy(DEFAULT_ROTATION_POLICY, opts.pkiTimeScale ?? 1),
    now: () => new Date(),
    sans: webhookSans(BOOTSTRAPPER_SERVICE, namespace, opts.webhookUrl),
    namespace: () => namespace,
    webhooks: (bundle) =>
      opts.register === false
        ? undefined
        : [
            bootstrapperWebhookConfiguration(
              opts.webhookUrl ? { mode: "url", url: opts.webhookUrl } : { mode: "service", name: BOOTSTRAPPER_SERVICE, namespace },
              bundle,
            ),
          ],
    resyncMs: (opts.resyncSeconds ?? 60) * 1000,
    propagationMs: (opts.caPropagationSeconds ?? 5) * 1000,
    log,
  });
  const server = await startWebhookServer({
    host: opts.host,
    port: opts.port,
    tls: await tls.initial(),
    logger: log,
    metrics,
    routes: [
      {
        path: BOOTSTRAPPER_PATH,
        name: "bootstrap",
        decide: (r) => (cfg ? reviewBootstrap(r, cfg, { namespaceAnnotations: nsAnnotations }) : allow()),
      },
    ],
  });
  await tls.start((t) => server.setCertificate(t));
  closers.push(() => tls.stop());
  controller.queue.add("sync"); // and every resyncMs after each run
  log.info({ port: server.port, namespace, marker: ANNOTATION_MODIFIED }, "bootstrapper serving");
  return {
    server,
    log,
    housekeep: () => controller.enqueueAndWait("housekeep"),
    sync: () => controller.enqueueAndWait("sync"),
    close: async () => {
      await server.close();
      for (const c of closers) await c();
    },
  };
}

/** What housekeeping and sync read and write. */
export interface PartOptions {
  core: k8s.CoreV1Api;
  /** The configuration in force (the last good one), or undefined before one was read. */
  config: () => BootstrapperConfig | undefined;
  log: Logger;
}

/**
 * Housekeeping (design 003): evicts controller-owned pods missing manipulations, one per owner per round, at most
 * `housekeeping.evictionsPerMinute` a minute (a token bucket, empty at start); reports each bare pod once with an Event.
 * @returns the round to run, one at a time; it throws only on an unexpected error (API errors are logged and counted)
 */
export function housekeeper(
  o: PartOptions & {
    pods: CachedInformer<k8s.V1Pod>;
    /** The Eviction group/version the server serves, or undefined when it serves none. */
    eviction: string | undefined;
    nsAnnotations: (namespace: string) => Record<string, string> | undefined;
    metrics: WebhookMetrics;
    clock?: Clock;
  },
): () => Promise<void> {
  const { core, log } = o;
  const registers = [o.metrics.registry];
  const hk = {
    scanned: new Counter({
      name: "corral_bootstrapper_housekeeping_pods_scanned_total",
      help: "Pods in scope scanned by housekeeping",
      registers,
    }),
    missing: new Counter({
      name: "corral_bootstrapper_housekeeping_pods_missing_total",
      help: "Pods found missing a manipulation",
      registers,
    }),
    evicted: new Counter({
      name: "corral_bootstrapper_housekeeping_pods_evicted_total",
      help: "Controller-owned pods evicted to be recreated",
      registers,
    }),
    skipped: new Counter({
      name: "corral_bootstrapper_housekeeping_pods_skipped_total",
      help: "Pods left alone (bare pods, eviction refused or not served, rate limit, dry run)",
      labelNames: ["reason"],
      registers,
    }),
  };
  const evictions = new TokenBucket({ perSecond: 0, burst: 0, initial: 0, clock: o.clock ?? SYSTEM_CLOCK });
  const reported = new Set<string>();
  return async () => {
    const c = o.config();
    if (!c) return;
    const perMinute = c.housekeeping.evictionsPerMinute;
    evictions.setRate(perMinute / 60, perMinute);
    const plan = planHousekeeping(o.pods.list(), c, o.nsAnnotations);
    hk.scanned.inc(plan.scanned);
    hk.missing.inc(plan.missing.length);
    for (const p of plan.evict) {
      if (c.housekeeping.dryRun) {
        log.info({ pod: `${p.namespace}/${p.name}`, missing: p.missing }, "housekeeping (dry run): would evict");
        hk.skipped.inc({ reason: "dry-run" });
        continue;
      }
      if (!evictions.has()) {
        hk.skipped.inc({ reason: "rate-limit" });
        continue;
      }
      if (!o.eviction) {
        hk.skipped.inc({ reason: "eviction-not-served" });
        continue;
      }
      evictions.tryTake();
      try {
        await core.createNamespacedPodEviction({
          name: p.name,
          namespace: p.namespace,
          body: { apiVersion: o.eviction, kind: "Eviction", metadata: { name: p.name, namespace: p.namespace } } as k8s.V1Eviction,
        });
        hk.evicted.inc();
        log.info(
          { pod: `${p.namespace}/${p.name}`, owner: p.owner, missing: p.missing },
          "housekeeping: evicted pod missing manipulations",
        );
      } catch (err) {
        hk.skipped.inc({ reason: "eviction-refused" });
        log.warn(
          { pod: `${p.namespace}/${p.name}`, err: statusCode(err) ?? (err as Error).message },
          "housekeeping: eviction refused (PodDisruptionBudget?)",
        );
      }
    }
    // report each bare pod once, and forget pods that are gone or repaired
    const bare = new Set(plan.bare.map((p) => `${p.namespace}/${p.name}`));
    for (const id of reported) if (!bare.has(id)) reported.delete(id);
    for (const p of plan.bare) {
      hk.skipped.inc({ reason: "bare-pod" });
      const id = `${p.namespace}/${p.name}`;
      if (reported.has(id)) continue;
      reported.add(id);
      await core
        .createNamespacedEvent({
          namespace: p.namespace,
          body: eventFor(
            { kind: "Pod", name: p.name, namespace: p.namespace },
            {
              type: "Warning",
              reason: "MissingManipulations",
              message:
                `pod was created without runtime manipulations (${p.missing.join(", ")}); it has no controller, so it is ` +
                `not restarted: delete and recreate it`,
              component: "corral-bootstrapper",
            },
          ),
        })
        .catch((err: Error) => log.warn({ pod: id, err: err.message }, "could not record event"));
    }
  };
}

/** The informer caches the sync reads: sources in the source namespace, managed copies everywhere. */
export interface SyncCaches {
  secrets: CachedInformer<k8s.V1Secret>;
  configMaps: CachedInformer<k8s.V1ConfigMap>;
  managedSecrets: CachedInformer<k8s.V1Secret>;
  managedConfigMaps: CachedInformer<k8s.V1ConfigMap>;
}

/**
 * Shared-resource sync (design 003), from the informers' caches: writes the copies `planSync` wants and deletes the
 * ones it no longer wants. Does nothing until the caches are filled in.
 */
export function syncer(
  o: PartOptions & { kc: k8s.KubeConfig; namespaces: CachedInformer<k8s.V1Namespace>; caches: Partial<SyncCaches> },
): () => Promise<void> {
  const { core, log } = o;
  return async () => {
    const c = o.config();
    const sc = o.caches;
    if (!c || c.sync.resources.length === 0 || !sc.secrets || !sc.configMaps || !sc.managedSecrets || !sc.managedConfigMaps) return;
    const sources: SyncObject[] = [];
    for (const r of c.sync.resources) {
      const obj = r.kind === "Secret" ? sc.secrets.get(r.name, c.sync.sourceNamespace) : sc.configMaps.get(r.name, c.sync.sourceNamespace);
      if (obj)
        sources.push({
          kind: r.kind,
          metadata: { name: r.name, namespace: c.sync.sourceNamespace },
          data: obj.data ?? {},
          type: (obj as k8s.V1Secret).type,
        });
    }
    const copies: SyncObject[] = [
      ...sc.managedSecrets
        .list()
        .map((s) => ({ kind: "Secret" as const, metadata: s.metadata as SyncObject["metadata"], data: s.data ?? {}, type: s.type })),
      ...sc.managedConfigMaps
        .list()
        .map((s) => ({ kind: "ConfigMap" as const, metadata: s.metadata as SyncObject["metadata"], data: s.data ?? {} })),
    ];
    const plan = planSync(
      c,
      sources,
      o.namespaces
        .list()
        .map((n) => ({ name: n.metadata!.name!, labels: n.metadata?.labels, terminating: n.status?.phase === "Terminating" })),
      copies,
    );
    for (const obj of plan.apply) {
      await applyObject(o.kc, { apiVersion: "v1", ...obj } as k8s.KubernetesObject, log).catch((err: Error) =>
        log.warn({ object: `${obj.kind} ${obj.metadata.namespace}/${obj.metadata.name}`, err: err.message }, "sync write failed"),
      );
    }
    for (const d of plan.delete) {
      const del =
        d.kind === "Secret"
          ? core.deleteNamespacedSecret({ name: d.name, namespace: d.namespace })
          : core.deleteNamespacedConfigMap({ name: d.name, namespace: d.namespace });
      await del.then(
        () => log.info({ object: `${d.kind} ${d.namespace}/${d.name}` }, "sync: copy removed"),
        () => undefined,
      );
    }
    if (plan.apply.length > 0)
      log.info({ written: plan.apply.map((obj) => `${obj.metadata.namespace}/${obj.metadata.name}`) }, "sync: copies written");
  };
}
