/**
 * Pod creation shared by the test-bed benchmarks (bench/e2e.ts, bench/keepalive.ts).
 */
import type { k8s } from "../src/kube/client.js";

/**
 * Creates `count` pods in `namespace` through `core`, `concurrency` create calls in flight; pod i is `pod(i)`.
 * @returns the seconds taken (first call to last answer)
 * @throws the API server's error for the first create that fails
 */
export async function createPods(
  core: k8s.CoreV1Api,
  o: { namespace: string; count: number; concurrency: number; pod: (i: number) => k8s.V1Pod },
): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  const worker = async () => {
    while (next < o.count) {
      const i = next++;
      await core.createNamespacedPod({ namespace: o.namespace, body: o.pod(i) });
    }
  };
  await Promise.all(Array.from({ length: o.concurrency }, worker));
  return (performance.now() - t0) / 1000;
}

/** A pod's name: `<prefix>-<i, five digits>`. */
export const podName = (prefix: string, i: number) => `${prefix}-${String(i).padStart(5, "0")}`;
