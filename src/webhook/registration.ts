/**
 * Pieces of a webhook configuration (admissionregistration.k8s.io/v1) every corral webhook uses: where the API server
 * reaches it (`clientConfig`), which namespaces it sees (`namespaceSelector`) and the names its serving certificate
 * must carry. Pure builders; kube/apply.ts applies the configurations.
 */

/**
 * Namespace label that keeps a namespace out of the webhooks (value `"true"`). Namespaces are cluster-scoped, so only
 * someone allowed to create or update Namespaces (a cluster administrator) can set it; tenants with the `edit` role in
 * their namespaces cannot. Needed on Kubernetes 1.20, where namespaces have no `kubernetes.io/metadata.name` label.
 */
export const NAMESPACE_EXCLUDE_LABEL = "admission.corral.dev/exclude";
/** Label every Namespace carries from Kubernetes 1.21 (its name), set by the API server. */
export const NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name";

/** Where the API server reaches the webhook. */
export type WebhookTarget =
  /** In cluster: a Service (port 443 unless given). */
  | { mode: "service"; name: string; namespace: string; port?: number }
  /** Out of cluster (test bed, development): an https URL base such as `https://127.0.0.1:9089`. */
  | { mode: "url"; url: string };

/** A webhook's `clientConfig`: URL or Service (port 443 unless given) plus the base64 CA bundle. */
export function clientConfig(target: WebhookTarget, path: string, caBundle: string): Record<string, unknown> {
  const ca = Buffer.from(caBundle).toString("base64");
  if (target.mode === "url") return { url: `${target.url.replace(/\/$/, "")}${path}`, caBundle: ca };
  return { service: { name: target.name, namespace: target.namespace, path, port: target.port ?? 443 }, caBundle: ca };
}

/**
 * Selects every namespace except those named in `excluded` (by `kubernetes.io/metadata.name`, Kubernetes ≥ 1.21;
 * on 1.20 that label does not exist and the expression matches every namespace) and those labelled
 * `admission.corral.dev/exclude: "true"` by an administrator (every version). Both are namespace properties a
 * tenant with namespace-scoped rights cannot set.
 */
export function namespaceSelector(excluded: string[]): Record<string, unknown> {
  return {
    matchExpressions: [
      { key: NAMESPACE_NAME_LABEL, operator: "NotIn", values: excluded },
      { key: NAMESPACE_EXCLUDE_LABEL, operator: "NotIn", values: ["true"] },
    ],
  };
}

/**
 * Subject alternative names of a webhook's serving certificate: loopback, the Service's DNS names in `namespace`,
 * the host of `webhookUrl` (IPv6 brackets removed) and `extra`, without duplicates.
 */
export function webhookSans(service: string, namespace: string, webhookUrl?: string, extra: readonly string[] = []): string[] {
  const urlHost = webhookUrl ? new URL(webhookUrl).hostname.replace(/^\[|\]$/g, "") : undefined;
  return [
    ...new Set([
      "localhost",
      "127.0.0.1",
      "::1",
      service,
      `${service}.${namespace}`,
      `${service}.${namespace}.svc`,
      ...(urlHost ? [urlHost] : []),
      ...extra,
    ]),
  ];
}
