/**
 * Prometheus metrics of a webhook process (prom-client, private registry).
 *
 *   corral_admission_requests_total{webhook, kind, operation, result}   result: allowed | patched | denied | invalid |
 *                                                                        overloaded
 *   corral_admission_rejected_total{webhook, reason}                     requests refused before a decision (HTTP 4xx/5xx)
 *   corral_admission_in_flight_bytes                                     request body bytes held right now
 *   corral_admission_duration_seconds{webhook}                           histogram, seconds
 *   corral_process_* / corral_nodejs_*                                    prom-client defaults
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

/**
 * Label values that come from a request body are one of these, else `other`: an unbounded label value would make a
 * new time series per request (anyone who reaches the port could grow the process without limit).
 */
export const METRIC_KINDS: ReadonlySet<string> = new Set([
  "Pod",
  "Deployment",
  "ReplicaSet",
  "StatefulSet",
  "DaemonSet",
  "Job",
  "CronJob",
  "ReplicationController",
  "ConfigMap",
]);
/** AdmissionReview operations kept as metric label values; anything else is `other`. */
export const METRIC_OPERATIONS: ReadonlySet<string> = new Set(["CREATE", "UPDATE", "DELETE", "CONNECT"]);
/** The label value for unknown kinds and operations (bounded label sets). */
export const OTHER_LABEL_VALUE = "other";

/** `value` when it is in `known` (or empty), else `other`. */
export function boundedLabel(value: string, known: ReadonlySet<string>): string {
  return value === "" || known.has(value) ? value : OTHER_LABEL_VALUE;
}

/** The webhook server's Prometheus metrics on their own registry (README "Metrics"). */
export class WebhookMetrics {
  readonly registry = new Registry();
  readonly requests: Counter<"webhook" | "kind" | "operation" | "result">;
  readonly duration: Histogram<"webhook">;
  readonly rejected: Counter<"webhook" | "reason">;
  readonly inFlightBytes: Gauge;

  constructor(prefix = "corral_") {
    collectDefaultMetrics({ register: this.registry, prefix });
    this.requests = new Counter({
      name: `${prefix}admission_requests_total`,
      help: "AdmissionReviews answered, by webhook, object kind, operation and result",
      labelNames: ["webhook", "kind", "operation", "result"],
      registers: [this.registry],
    });
    this.duration = new Histogram({
      name: `${prefix}admission_duration_seconds`,
      help: "Time from request body received to response sent, seconds",
      labelNames: ["webhook"],
      buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1],
      registers: [this.registry],
    });
    this.rejected = new Counter({
      name: `${prefix}admission_rejected_total`,
      help: "Webhook requests refused before a decision, by reason (overloaded, too_large, timeout, bad_request)",
      labelNames: ["webhook", "reason"],
      registers: [this.registry],
    });
    this.inFlightBytes = new Gauge({
      name: `${prefix}admission_in_flight_bytes`,
      help: "Request body bytes received and held by webhook requests in progress",
      registers: [this.registry],
    });
  }
}
