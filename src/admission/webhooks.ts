/**
 * The admission controller's webhook configurations, as data (yunikorn-admission reference §10.4, with corral's
 * changes): one mutating webhook for Pods and the workload kinds (CREATE, UPDATE), one validating webhook for
 * ConfigMaps. Pure builders; kube/registration.ts applies them.
 */
import {
  MUTATE_PATH,
  MUTATE_PODS_WEBHOOK,
  MUTATING_WEBHOOK_CONFIGURATION,
  VALIDATE_CONF_PATH,
  VALIDATE_CONF_WEBHOOK,
  VALIDATING_WEBHOOK_CONFIGURATION,
} from "./constants.js";

/** Where the API server reaches the webhook. */
export type WebhookTarget =
  /** In cluster: a Service (port 443 unless given). */
  | { mode: "service"; name: string; namespace: string; port?: number }
  /** Out of cluster (test bed, development): an https URL base such as `https://127.0.0.1:9089`. */
  | { mode: "url"; url: string };

export interface WebhookSettings {
  target: WebhookTarget;
  /** PEM bundle of the CA(s) that sign the serving certificate. */
  caBundle: string;
  /** Failure policy of the mutating webhook. Default `Fail`: pods must not slip through unstamped. */
  mutateFailurePolicy?: "Fail" | "Ignore";
  /** Failure policy of the validating webhook. Default `Ignore`, as YuniKorn. */
  validateFailurePolicy?: "Fail" | "Ignore";
  /** Seconds the API server waits for an answer (1-30). Default 5. */
  timeoutSeconds?: number;
  mutatingName?: string;
  validatingName?: string;
  /** Namespaces never sent to the webhooks (needs the `kubernetes.io/metadata.name` label, Kubernetes ≥ 1.21). */
  excludedNamespaces?: string[];
  /** The CronJob group/version the cluster serves (kube/discovery.ts); unset: every version (`*`). */
  cronJobApiVersion?: string;
}

/** The resources the mutating webhook receives. */
export const MUTATE_RULE = {
  operations: ["CREATE", "UPDATE"],
  apiGroups: ["", "apps", "batch"],
  apiVersions: ["*"],
  resources: ["pods", "deployments", "replicasets", "statefulsets", "daemonsets", "jobs", "cronjobs", "replicationcontrollers"],
  scope: "Namespaced",
};

/**
 * The mutating webhook's rules: {@link MUTATE_RULE}, with CronJobs in a rule of their own naming the version the
 * cluster serves (`batch/v1` from 1.21, `batch/v1beta1` before) when `cronJobApiVersion` is known. With
 * `matchPolicy: Equivalent` a CronJob sent in the other version (1.21–1.24 serve both) still reaches the webhook.
 */
export function mutateRules(cronJobApiVersion?: string): Record<string, unknown>[] {
  if (!cronJobApiVersion) return [MUTATE_RULE];
  const [group, version] = cronJobApiVersion.split("/");
  return [
    { ...MUTATE_RULE, resources: MUTATE_RULE.resources.filter((r) => r !== "cronjobs") },
    { ...MUTATE_RULE, apiGroups: [group], apiVersions: [version], resources: ["cronjobs"] },
  ];
}

/** A webhook's `clientConfig`: URL or Service (port 443 unless given) plus the base64 CA bundle. */
export function clientConfig(target: WebhookTarget, path: string, caBundle: string): Record<string, unknown> {
  const ca = Buffer.from(caBundle).toString("base64");
  if (target.mode === "url") return { url: `${target.url.replace(/\/$/, "")}${path}`, caBundle: ca };
  return { service: { name: target.name, namespace: target.namespace, path, port: target.port ?? 443 }, caBundle: ca };
}

/** Selects every namespace except `excluded` (by `kubernetes.io/metadata.name`, Kubernetes ≥ 1.21). */
export function namespaceSelector(excluded: string[]): Record<string, unknown> {
  return { matchExpressions: [{ key: "kubernetes.io/metadata.name", operator: "NotIn", values: excluded }] };
}

/** MutatingWebhookConfiguration (admissionregistration.k8s.io/v1). */
export function mutatingWebhookConfiguration(s: WebhookSettings): Record<string, unknown> {
  const excluded = s.excludedNamespaces ?? ["kube-system"];
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "MutatingWebhookConfiguration",
    metadata: { name: s.mutatingName ?? MUTATING_WEBHOOK_CONFIGURATION, labels: { app: "yunikorn" } },
    webhooks: [{
      name: MUTATE_PODS_WEBHOOK,
      clientConfig: clientConfig(s.target, MUTATE_PATH, s.caBundle),
      rules: mutateRules(s.cronJobApiVersion),
      failurePolicy: s.mutateFailurePolicy ?? "Fail",
      matchPolicy: "Equivalent",
      sideEffects: "None",
      timeoutSeconds: s.timeoutSeconds ?? 5,
      admissionReviewVersions: ["v1"],
      reinvocationPolicy: "Never",
      namespaceSelector: namespaceSelector(excluded),
      objectSelector: { matchExpressions: [{ key: "app", operator: "NotIn", values: ["yunikorn"] }] },
    }],
  };
}

/** ValidatingWebhookConfiguration (admissionregistration.k8s.io/v1) for the scheduler ConfigMaps. */
export function validatingWebhookConfiguration(s: WebhookSettings): Record<string, unknown> {
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingWebhookConfiguration",
    metadata: { name: s.validatingName ?? VALIDATING_WEBHOOK_CONFIGURATION, labels: { app: "yunikorn" } },
    webhooks: [{
      name: VALIDATE_CONF_WEBHOOK,
      clientConfig: clientConfig(s.target, VALIDATE_CONF_PATH, s.caBundle),
      rules: [{ operations: ["CREATE", "UPDATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"], scope: "Namespaced" }],
      failurePolicy: s.validateFailurePolicy ?? "Ignore",
      matchPolicy: "Equivalent",
      sideEffects: "None",
      timeoutSeconds: s.timeoutSeconds ?? 5,
      admissionReviewVersions: ["v1"],
    }],
  };
}

/**
 * Subject alternative names of a webhook's serving certificate: loopback, the Service's DNS names in `namespace`,
 * the host of `webhookUrl` (IPv6 brackets removed) and `extra`, without duplicates.
 */
export function webhookSans(service: string, namespace: string, webhookUrl?: string, extra: readonly string[] = []): string[] {
  const urlHost = webhookUrl ? new URL(webhookUrl).hostname.replace(/^\[|\]$/g, "") : undefined;
  return [...new Set(["localhost", "127.0.0.1", "::1", service, `${service}.${namespace}`, `${service}.${namespace}.svc`, ...(urlHost ? [urlHost] : []), ...extra])];
}
