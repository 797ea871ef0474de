/**
 * Prometheus metrics of a webhook process (prom-client, private registry).
 *
 *   corral_admission_requests_total{webhook, kind, operation, result}   result: allowed | patched | denied | invalid
 *   corral_admission_duration_seconds{webhook}                           histogram, seconds
 *   corral_process_* / corral_nodejs_*                                    prom-client defaults
 */
import { Counter, Histogram, Registry, collectDefaultMetrics } from "prom-client";

export class WebhookMetrics {
  readonly registry = new Registry();
  readonly requests: Counter<"webhook" | "kind" | "operation" | "result">;
  readonly duration: Histogram<"webhook">;

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
  }
}
