/**
 * The admission controller's webhook configurations, as data (yunikorn-admission reference §10.4, with corral's
 * changes): one mutating webhook for Pods and the workload kinds (CREATE, UPDATE), one validating webhook for
 * ConfigMaps. Pure builders; kube/apply.ts applies them.
 *
 * Unlike YuniKorn, no objectSelector: `app: yunikorn` is a label any tenant can put on her own pod or workload, so
 * it must not decide whether the identity checks run. What is kept out is chosen by namespace, which tenants cannot
 * label: `kube-system` and the controller's own namespace by name (`kubernetes.io/metadata.name`, Kubernetes ≥ 1.21),
 * and any namespace an administrator labelled `admission.corral.dev/exclude: "true"` (every version).
 */
import {
  MUTATE_PATH,
  MUTATE_PODS_WEBHOOK,
  MUTATING_WEBHOOK_CONFIGURATION,
  VALIDATE_CONF_PATH,
  VALIDATE_CONF_WEBHOOK,
  VALIDATE_PODS_PATH,
  VALIDATE_POD_STATUS_WEBHOOK,
  VALIDATING_WEBHOOK_CONFIGURATION,
} from "./constants.js";
import { type WebhookTarget, clientConfig, namespaceSelector } from "../webhook/registration.js";

/** What the webhook registrations are built from: where the webhook is reached, its CA bundle and policies. */
export interface WebhookSettings {
  target: WebhookTarget;
  /** PEM bundle of the CA(s) that sign the serving certificate. */
  caBundle: string;
  /** Failure policy of the mutating webhook. Default `Fail`: pods must not slip through unstamped. */
  mutateFailurePolicy?: "Fail" | "Ignore";
  /** Failure policy of the validating webhook. Default `Ignore`, as YuniKorn. */
  validateFailurePolicy?: "Fail" | "Ignore";
  /** The pods/status UPDATE check: its failure policy, or `Off` for none. Default `Ignore`. */
  podStatusPolicy?: "Fail" | "Ignore" | "Off";
  /** Seconds the API server waits for an answer (1-30). Default 5. */
  timeoutSeconds?: number;
  mutatingName?: string;
  validatingName?: string;
  /**
   * Namespaces never sent to the mutating webhook, by name (needs the `kubernetes.io/metadata.name` label, Kubernetes
   * ≥ 1.21). Default `kube-system` plus `controllerNamespace`.
   */
  excludedNamespaces?: string[];
  /** The CronJob group/version the cluster serves (kube/discovery.ts); unset: every version (`*`). */
  cronJobApiVersion?: string;
  /**
   * The controller's own namespace, kept out of the mutating webhook so that its pods can be created while every
   * replica is down. Default: the Service's namespace in service mode, none in url mode.
   */
  controllerNamespace?: string;
}

/** The namespaces the mutating webhook excludes by name: the given list (default kube-system) and the controller's. */
export function excludedNamespaceNames(s: Pick<WebhookSettings, "excludedNamespaces" | "controllerNamespace" | "target">): string[] {
  const own = s.controllerNamespace ?? (s.target.mode === "service" ? s.target.namespace : undefined);
  return [...new Set([...(s.excludedNamespaces ?? ["kube-system"]), ...(own ? [own] : [])])];
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

/** MutatingWebhookConfiguration (admissionregistration.k8s.io/v1). */
export function mutatingWebhookConfiguration(s: WebhookSettings): Record<string, unknown> {
  const excluded = excludedNamespaceNames(s);
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "MutatingWebhookConfiguration",
    metadata: { name: s.mutatingName ?? MUTATING_WEBHOOK_CONFIGURATION, labels: { app: "yunikorn" } },
    webhooks: [
      {
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
      },
    ],
  };
}

/**
 * ValidatingWebhookConfiguration (admissionregistration.k8s.io/v1): the scheduler ConfigMaps, and (corral's
 * addition, unless `podStatusPolicy` is `Off`) pods/status UPDATEs, which can change metadata — user.info included —
 * without passing the pods rule of the mutating webhook.
 */
export function validatingWebhookConfiguration(s: WebhookSettings): Record<string, unknown> {
  const statusPolicy = s.podStatusPolicy ?? "Ignore";
  const podStatus =
    statusPolicy === "Off"
      ? []
      : [
          {
            name: VALIDATE_POD_STATUS_WEBHOOK,
            clientConfig: clientConfig(s.target, VALIDATE_PODS_PATH, s.caBundle),
            rules: [{ operations: ["UPDATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods/status"], scope: "Namespaced" }],
            failurePolicy: statusPolicy,
            matchPolicy: "Equivalent",
            sideEffects: "None",
            timeoutSeconds: s.timeoutSeconds ?? 5,
            admissionReviewVersions: ["v1"],
            namespaceSelector: namespaceSelector(excludedNamespaceNames(s)),
          },
        ];
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingWebhookConfiguration",
    metadata: { name: s.validatingName ?? VALIDATING_WEBHOOK_CONFIGURATION, labels: { app: "yunikorn" } },
    webhooks: [
      {
        name: VALIDATE_CONF_WEBHOOK,
        clientConfig: clientConfig(s.target, VALIDATE_CONF_PATH, s.caBundle),
        rules: [{ operations: ["CREATE", "UPDATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"], scope: "Namespaced" }],
        failurePolicy: s.validateFailurePolicy ?? "Ignore",
        matchPolicy: "Equivalent",
        sideEffects: "None",
        timeoutSeconds: s.timeoutSeconds ?? 5,
        admissionReviewVersions: ["v1"],
      },
      ...podStatus,
    ],
  };
}
