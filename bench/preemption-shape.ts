/**
 * The preemption benchmark's cluster (preemption issue, "Benchmark"), shared by `npm run bench:preemption` (the
 * decision alone, on a snapshot) and `npm run bench:scheduler` (decisions made by the core in its scheduling cycles).
 *
 * N nodes of {vcore 8, memory 32 GiB}, each full with 8 pods of {vcore 1, memory 4 GiB} of queue root.b (priority 0,
 * no guarantee, so every pod may be a victim; 100 applications, the first pod on each of the first 100 nodes is its
 * application's originator). Preemptors ask {vcore 2, memory 4 GiB} at priority 100 from queue root.a, whose
 * guarantee (vcore 16) they are under. Resources in core units (vcore millicores, memory bytes); times in ms.
 */
import type { PreemptionAllocation } from "../src/scheduler/core/preemption/snapshot.js";
import type { Res } from "../src/scheduler/core/resources.js";

const GiB = 2 ** 30;
/** The benchmark's clock (ms since the epoch); every pod and ask is older than the 30 s preemption delay. */
export const NOW = 1_800_000_000_000;
export const NODE_CAPACITY: Res = { vcore: 8000, memory: 32 * GiB };
export const PODS_PER_NODE = 8;
export const VICTIM_RESOURCE: Res = { vcore: 1000, memory: 4 * GiB };
export const VICTIM_PRIORITY = 0;
export const VICTIM_APPS = 100;
export const PREEMPTOR_RESOURCE: Res = { vcore: 2000, memory: 4 * GiB };
export const PREEMPTOR_PRIORITY = 100;
export const PREEMPTOR_CREATED = NOW - 60_000;
/** root.a's guarantee (core units), and the same queues as a queues.yaml for the core (JSON is YAML). */
export const PREEMPTOR_GUARANTEE: Res = { vcore: 16_000 };
export const PREEMPTION_QUEUES_YAML = JSON.stringify({
  partitions: [
    {
      name: "default",
      queues: [{ name: "root", submitacl: "*", queues: [{ name: "a", resources: { guaranteed: { vcore: 16 } } }, { name: "b" }] }],
    },
  ],
});

export const nodeId = (i: number) => `node-${String(i).padStart(6, "0")}`;

/** The running pods of root.b on `n` nodes (node 0's the youngest). */
export function victimPods(n: number): PreemptionAllocation[] {
  const out: PreemptionAllocation[] = [];
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < PODS_PER_NODE; j++) {
      out.push({
        key: `b-${i}-${j}`,
        applicationId: `app-b-${i % VICTIM_APPS}`,
        queuePath: "root.b",
        nodeId: nodeId(i),
        resource: VICTIM_RESOURCE,
        priority: VICTIM_PRIORITY,
        createTime: NOW - (i * PODS_PER_NODE + j) * 1000,
        allowPreemption: true,
        originator: j === 0 && i < VICTIM_APPS,
        placeholder: false,
      });
    }
  }
  return out;
}
