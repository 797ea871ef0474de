/**
 * npm run bench:bootstrapper — the bootstrapper webhook with every manipulation on (registry rewrite, pull secret,
 * trust bundle, FIPS and landscape variables) for a pod with 3 containers, vs the bare https floor.
 * Target (issue): ≥ 0.6 × the floor's throughput.
 */
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runWebhookBench } from "./webhook-bench.js";

const config = join(tmpdir(), "corral-bench-bootstrapper.json");
await writeFile(
  config,
  JSON.stringify({
    overrides: { "registry.example.com": "mirror.internal:5000/cache" },
    trustBundleConfigMap: { name: "corp-ca", key: "ca.crt", volumeMountPath: "/etc/ssl/corp", volumeName: "corp-ca" },
    landscape: { variable: "KYMA_LANDSCAPE", value: "production" },
    namespaceFeatures: { "spark-jobs": ["rt-cfg.kyma-project.io/all"] },
  }),
);
await runWebhookBench({
  args: ["bootstrapper", "--standalone", "--config", config],
  path: "/mutate--v1-pod",
  fixture: "three-container-review.json",
  readyText: "bootstrapper serving",
  target: 0.6,
});
