/**
 * The `corral admission` process: configuration, lookups (informers or a file), certificates and the HTTPS server.
 *
 * Cluster mode: Namespaces, PriorityClasses and the ConfigMaps of the controller's namespace come from informers;
 * `yunikorn-defaults` / `yunikorn-configs` changes apply live (last good config kept on error).
 * Standalone mode: no API server; the config file gives the keys and the namespace/PriorityClass lookups.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { isIP } from "node:net";
import { join } from "node:path";
import type { Logger } from "pino";
import { createLogger } from "../util/logger.js";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { type ConfigMapData, flattenConfigMaps } from "../yunikorn/config-maps.js";
import { type ConfigMapLookups, validateConfigMap } from "../admission/config-validation.js";
import { AdmissionConfigStore, type ConfigLayer, describeConfig, formatConfigErrors } from "../admission/config.js";
import { CONFIGMAP_NAME, DEFAULT_CONFIGMAP_NAME } from "../yunikorn/constants.js";
import { MUTATE_PATH, VALIDATE_CONF_PATH, VALIDATE_PODS_PATH } from "../admission/constants.js";
import { type AdmissionLookups, EMPTY_LOOKUPS } from "../admission/lookups.js";
import type { NamespaceInfo } from "../admission/namespaces.js";
import { decide, validatePodStatus } from "../admission/review.js";
import { type WebhookTarget, webhookSans } from "../webhook/registration.js";
import { mutatingWebhookConfiguration, validatingWebhookConfiguration } from "../admission/webhooks.js";
import type { k8s } from "../kube/client.js";
import type { CachedInformer } from "../kube/informers.js";
import { generateCa, generateServerCert } from "../pki/certificates.js";
import { schedulerQueueValidator } from "../server/scheduler-client.js";
import { DEFAULT_ROTATION_POLICY, scalePolicy } from "../pki/rotation.js";
import type { WebhookTls } from "./webhook-tls.js";
import { type TlsMaterial, startWebhookServer } from "../server/webhook-server.js";

/** Options of `corral admission` (README "Admission controller"). */
export interface AdmissionOptions {
  standalone: boolean;
  /** YAML/JSON file of configuration keys (standalone: also `namespaces` and `priorityClasses` lookups). */
  configFile?: string;
  host: string;
  port: number;
  /**
   * Directory for `tls.crt`/`tls.key`/`ca.crt`; existing files are used, missing ones generated. Standalone: default
   * `.corral/admission-certs`. Cluster mode: when set, these certificates are served and nothing is registered;
   * when unset, the CAs live in the Secret and the controller registers its webhooks and rotates (webhook-tls.ts).
   */
  certDir?: string;
  /** Cluster mode: register with `clientConfig.url` = this base URL (out of cluster) instead of the Service. */
  webhookUrl?: string;
  /** Cluster mode: create/update the webhook configurations (default true). */
  register?: boolean;
  /** Cluster mode: Secret holding the CA pair (default `admission-controller-secrets`). */
  secretName?: string;
  /** Cluster mode: reconcile period of certificates and webhook configurations, seconds (default 60). */
  resyncSeconds?: number;
  /** Divide every certificate lifetime by this (tests and demos; default 1). */
  pkiTimeScale?: number;
  /** Wait after publishing a new caBundle before serving a certificate from a new CA, seconds (default 5). */
  caPropagationSeconds?: number;
  /** Extra DNS names / IPs for the generated server certificate. */
  extraSans?: string[];
  kubeconfig?: string;
  env?: Readonly<Record<string, string | undefined>>;
  logger?: Logger;
}

/** A running admission controller: its logger, and `close()` to stop serving and watching. */
export interface AdmissionHandle {
  log: Logger;
  close(): Promise<void>;
}

const scalar = z.union([z.string(), z.number(), z.boolean()]).transform(String);
const metaLookup = z
  .object({
    annotations: z.record(z.string(), z.string()).optional(),
    labels: z.record(z.string(), z.string()).optional(),
  })
  .strict();
/** Shape of `--config FILE`: configuration keys, plus standalone lookups. */
export const configFileSchema = z
  .object({
    namespaces: z.record(z.string(), metaLookup).optional(),
    priorityClasses: z.record(z.string(), metaLookup).optional(),
  })
  .catchall(scalar);

/** A standalone configuration file: the configuration keys, and the namespace and PriorityClass lookups. */
export interface ConfigFile {
  layer: ConfigLayer;
  namespaces: Record<string, NamespaceInfo>;
  priorityClasses: Record<string, { annotations?: Record<string, string> }>;
}

/**
 * Reads and validates `--config FILE` (YAML or JSON).
 * @throws Error naming the file and the bad key
 */
export async function readConfigFile(path: string): Promise<ConfigFile> {
  const text = await readFile(path, "utf8");
  let raw: unknown;
  try {
    raw = parseYaml(text, { uniqueKeys: true }) ?? {};
  } catch (err) {
    throw new Error(`${path}: not valid YAML/JSON: ${(err as Error).message}`, { cause: err });
  }
  const r = configFileSchema.safeParse(raw);
  if (!r.success) {
    throw new Error(`${path}: ${r.error.issues.map((i) => `${i.path.join(".") || "(top)"}: ${i.message}`).join("; ")}`);
  }
  const { namespaces, priorityClasses, ...keys } = r.data;
  return {
    layer: { name: path, data: keys as Record<string, string> },
    namespaces: namespaces ?? {},
    priorityClasses: priorityClasses ?? {},
  };
}

async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
}

/**
 * Loads `tls.crt`/`tls.key`/`ca.crt` from `dir`, or generates a CA and server certificate there (valid one year).
 * @returns the TLS material and the CA bundle
 */
export async function ensureCertDir(dir: string, sans: string[], log: Logger): Promise<TlsMaterial & { ca: string }> {
  const [cert, key, ca] = await Promise.all(["tls.crt", "tls.key", "ca.crt"].map((f) => readIfExists(join(dir, f))));
  if (cert && key) return { cert, key, ca: ca ?? cert };
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const now = Date.now();
  const notBefore = new Date(now - DEFAULT_ROTATION_POLICY.notBeforeSkewMs);
  const notAfter = new Date(now + DEFAULT_ROTATION_POLICY.validityMs);
  const caPair = await generateCa({ commonName: "corral-admission-ca", notBefore, notAfter });
  const server = await generateServerCert(caPair, {
    commonName: sans.find((s) => isIP(s) === 0) ?? "localhost",
    sans,
    notBefore,
    notAfter,
  });
  await writeFile(join(dir, "ca.crt"), caPair.certPem, { mode: 0o644 });
  await writeFile(join(dir, "tls.crt"), server.certPem + caPair.certPem, { mode: 0o644 });
  await writeFile(join(dir, "tls.key"), server.keyPem, { mode: 0o600 });
  log.info({ certDir: dir, sans }, "generated self-signed CA and server certificate");
  return { cert: server.certPem + caPair.certPem, key: server.keyPem, ca: caPair.certPem };
}

/** Starts the admission controller; resolves once it serves. */
export async function runAdmission(opts: AdmissionOptions): Promise<AdmissionHandle> {
  const env = opts.env ?? process.env;
  const log = opts.logger ?? createLogger("corral-admission", env.LOG_LEVEL ?? "info");
  const closers: (() => Promise<void>)[] = [];

  let fileLayer: ConfigLayer[] = [];
  let lookups: AdmissionLookups;
  let cmLookups: ConfigMapLookups = { configMap: () => undefined };
  let kcForTls: k8s.KubeConfig | undefined;

  if (opts.configFile) {
    const file = await readConfigFile(opts.configFile);
    fileLayer = [file.layer];
    if (opts.standalone) {
      lookups = {
        namespace: (n) => file.namespaces[n],
        priorityClass: (n) => file.priorityClasses[n],
      };
    }
  }
  const store = new AdmissionConfigStore(env, fileLayer);
  log.level = store.current.logLevel;

  if (opts.standalone) {
    lookups ??= EMPTY_LOOKUPS;
  } else {
    // Loaded only in cluster mode: the Kubernetes client is most of the process's memory (~60 MiB).
    const { k8s, loadKubeConfig } = await import("../kube/client.js");
    const { startInformer } = await import("../kube/informers.js");
    const kc = loadKubeConfig(opts.kubeconfig);
    kcForTls = kc;
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const scheduling = kc.makeApiClient(k8s.SchedulingV1Api);
    const ns = store.current.namespace;
    // startInformer resolves after the first list: past this point every cache is synced
    const [namespaces, priorityClasses, configMaps] = await Promise.all([
      startInformer<k8s.V1Namespace>(kc, { path: "/api/v1/namespaces", list: () => core.listNamespace(), what: "namespaces", log }),
      startInformer<k8s.V1PriorityClass>(kc, {
        path: "/apis/scheduling.k8s.io/v1/priorityclasses",
        list: () => scheduling.listPriorityClass(),
        what: "priorityclasses",
        log,
      }),
      startInformer<k8s.V1ConfigMap>(kc, {
        path: `/api/v1/namespaces/${ns}/configmaps`,
        list: () => core.listNamespacedConfigMap({ namespace: ns }),
        what: "configmaps",
        log,
      }),
    ]);
    for (const inf of [namespaces, priorityClasses, configMaps] as CachedInformer<k8s.KubernetesObject>[]) closers.push(() => inf.stop());
    const meta = (o: k8s.KubernetesObject | undefined) =>
      o ? { annotations: o.metadata?.annotations, labels: o.metadata?.labels } : undefined;
    lookups = {
      namespace: (n) => meta(namespaces.get(n)),
      priorityClass: (n) => meta(priorityClasses.get(n)),
    };
    cmLookups = { configMap: (n) => configMaps.get(n, ns) as ConfigMapData | undefined };

    const reload = (why: string) => {
      let layers: ConfigLayer[];
      try {
        const flat = flattenConfigMaps([cmLookups.configMap(DEFAULT_CONFIGMAP_NAME), cmLookups.configMap(CONFIGMAP_NAME)]);
        layers = [...fileLayer, { name: `ConfigMaps ${ns}/${DEFAULT_CONFIGMAP_NAME}+${CONFIGMAP_NAME}`, data: flat }];
      } catch (err) {
        log.error({ err: (err as Error).message }, "configuration rejected; keeping the last good configuration");
        return;
      }
      const r = store.update(layers);
      if (r.status === "applied") {
        log.level = r.config.logLevel;
        log.info({ why, config: describeConfig(r.config) }, "configuration applied");
      } else if (r.status === "rejected") {
        log.error(
          { why, errors: r.errors },
          `configuration rejected; keeping the last good configuration: ${formatConfigErrors(r.errors)}`,
        );
      } else if (r.status === "ignored") {
        log.warn({ why }, "Config hot-refresh is disabled, ignoring configuration update");
      }
    };
    reload("start");
    for (const verb of ["add", "update", "delete"] as const) {
      configMaps.on(verb, (cm) => {
        const name = cm.metadata?.name;
        if (name === CONFIGMAP_NAME || name === DEFAULT_CONFIGMAP_NAME) reload(`${verb} ConfigMap ${ns}/${name}`);
      });
    }
  }

  const cfg0 = store.current;
  const svc = cfg0.amServiceName;
  const sans = webhookSans(svc, cfg0.namespace, opts.webhookUrl, opts.extraSans);
  let tls: TlsMaterial;
  let managed: WebhookTls | undefined;
  if (opts.standalone || opts.certDir) {
    tls = await ensureCertDir(opts.certDir ?? ".corral/admission-certs", sans, log);
  } else {
    const { WebhookTls } = await import("./webhook-tls.js");
    const { k8s } = await import("../kube/client.js");
    const { discoverApiVersions } = await import("../kube/discovery.js");
    // the webhook's CronJob rule names the version the cluster serves (batch/v1 from 1.21, batch/v1beta1 before)
    const apiVersions = opts.register === false ? undefined : await discoverApiVersions(kcForTls!);
    if (apiVersions)
      log.info(
        { kubernetes: `${apiVersions.kubernetes.major}.${apiVersions.kubernetes.minor}`, cronJob: apiVersions.cronJob ?? "not served" },
        "API versions from discovery",
      );
    if (apiVersions && !apiVersions.namespaceNameLabel) {
      log.warn(
        "namespaces carry no kubernetes.io/metadata.name label before Kubernetes 1.21: the webhook's namespaceSelector " +
          "cannot exclude kube-system unless it is labelled by hand (bypassNamespaces still leaves its pods alone)",
      );
    }
    const policy = scalePolicy(DEFAULT_ROTATION_POLICY, opts.pkiTimeScale ?? 1);
    managed = new WebhookTls({
      kc: kcForTls!,
      secrets: kcForTls!.makeApiClient(k8s.CoreV1Api),
      secretName: opts.secretName ?? "admission-controller-secrets",
      policy,
      now: () => new Date(),
      sans,
      namespace: () => store.current.namespace,
      webhooks: (bundle) => {
        if (opts.register === false) return undefined;
        const cfg = store.current;
        // the Service named in the serving certificate's SANs (fixed at start, as the certificate is)
        const target: WebhookTarget = opts.webhookUrl
          ? { mode: "url", url: opts.webhookUrl }
          : { mode: "service", name: svc, namespace: cfg0.namespace, port: 443 };
        const settings = {
          target,
          caBundle: bundle,
          controllerNamespace: cfg0.namespace,
          mutateFailurePolicy: cfg.mutateFailurePolicy,
          validateFailurePolicy: cfg.validateFailurePolicy,
          podStatusPolicy: cfg.podStatusPolicy,
          timeoutSeconds: cfg.webhookTimeoutSeconds,
          mutatingName: cfg.mutatingConfigurationName,
          validatingName: cfg.validatingConfigurationName,
          cronJobApiVersion: apiVersions?.cronJob,
        };
        return [mutatingWebhookConfiguration(settings), validatingWebhookConfiguration(settings)] as k8s.KubernetesObject[];
      },
      resyncMs: (opts.resyncSeconds ?? 60) * 1000,
      propagationMs: (opts.caPropagationSeconds ?? 5) * 1000,
      log,
    });
    tls = await managed.initial();
    closers.push(async () => managed!.stop());
  }
  const finalLookups = lookups!;

  const server = await startWebhookServer({
    host: opts.host,
    port: opts.port,
    tls,
    logger: log,
    // The API server gives up after the webhook's timeoutSeconds: a request still arriving after that is not its.
    requestTimeoutMs: (cfg0.webhookTimeoutSeconds + 1) * 1000,
    ready: () => !managed || managed.reconciles > 0,
    routes: [
      { path: MUTATE_PATH, name: "mutate", decide: (r) => decide(r, store.current, finalLookups) },
      { path: VALIDATE_PODS_PATH, name: "validate-pods", decide: (r) => validatePodStatus(r, store.current) },
      {
        path: VALIDATE_CONF_PATH,
        name: "validate-conf",
        decide: (r) => {
          const c = store.current;
          return validateConfigMap(
            r,
            c,
            cmLookups,
            schedulerQueueValidator(c.schedulerServiceAddress, c.schedulerValidationTimeoutMs),
            (cmLayer) => store.parse([...fileLayer, cmLayer]),
          );
        },
      },
    ],
  });
  if (managed) await managed.start((t) => server.setCertificate(t));
  log.info({ port: server.port, host: opts.host, standalone: opts.standalone, namespace: cfg0.namespace }, "admission controller serving");
  return {
    log,
    close: async () => {
      await server.close();
      for (const c of closers) await c().catch(() => undefined);
    },
  };
}
