/**
 * npm run bench:admission — corral's admission `/mutate` vs the bare https floor, with a ~3.7 KB Spark executor pod
 * CREATE. Target (issue): ≥ 0.7 × the floor's throughput, p99 ≤ 5 ms.
 */
import { runWebhookBench } from "./webhook-bench.js";

runWebhookBench({
  args: ["admission", "--standalone"],
  path: "/mutate",
  fixture: "spark-executor-review.json",
  readyText: "admission controller serving",
  target: 0.7,
  p99TargetMs: 5,
}).catch((err) => {
  console.error(err);
  process.exit(1);
});
