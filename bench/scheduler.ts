/**
 * npm run bench:scheduler — YuniKorn's BenchmarkScheduling shape (apache/yunikorn-core
 * pkg/scheduler/tests/performance_test.go; yunikorn-core reference §5.1) on corral's core: queues root.a and root.b
 * with guaranteed resources, two applications, N nodes sized memory 10·(asks/N+1) and vcore asks/N+1, 10,000 asks of
 * {memory 10, vcore 1} (half per application), then one allocation per call until all are placed.
 * Targets (issue): ≥ 10,000 allocations/s at 5,000 nodes; per-allocation cost at 20,000 nodes ≤ 2× that at 1,000.
 * Env: BENCH_ASKS (default 10000), BENCH_NODES (comma list, default 500,1000,2000,5000,20000).
 */
import { decodeQueuesYaml } from "../src/scheduler/core/config.js";
import { Partition } from "../src/scheduler/core/partition.js";
import { validateSchedulerConfig } from "../src/scheduler/core/validate.js";

const CONFIG = `partitions:
  - name: default
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: a
            resources:
              guaranteed: {memory: 100000, vcore: 10000}
          - name: b
            resources:
              guaranteed: {memory: 1000000, vcore: 10000}
`;
const asks = Number(process.env.BENCH_ASKS ?? 10_000);
const sizes = (process.env.BENCH_NODES ?? "500,1000,2000,5000,20000").split(",").map(Number);

interface Row { nodes: number; addNodesMs: number; allocs: number; seconds: number; heapMiB: number }

function run(n: number): Row {
  const p = new Partition("default", validateSchedulerConfig(decodeQueuesYaml(CONFIG)).partitions[0]!);
  const per = Math.floor(asks / n) + 1;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) p.addNode(`node-${String(i).padStart(6, "0")}`, { memory: 10 * per, vcore: per });
  const addNodesMs = performance.now() - t0;
  p.addApplication("app-a", "root.a", "bench", ["bench"], {}, 0);
  p.addApplication("app-b", "root.b", "bench", ["bench"], {}, 0);
  for (let i = 0; i < asks / 2; i++) {
    p.addAsk("app-a", `a-${i}`, { memory: 10, vcore: 1 }, 0, i, 0);
    p.addAsk("app-b", `b-${i}`, { memory: 10, vcore: 1 }, 0, i, 0);
  }
  const start = performance.now();
  let allocs = 0;
  while (p.tryAllocate(1)) allocs++;
  const seconds = (performance.now() - start) / 1000;
  const heapMiB = process.memoryUsage().heapUsed / 2 ** 20;
  if (allocs !== asks) throw new Error(`placed ${allocs} of ${asks} asks with ${n} nodes`);
  return { nodes: n, addNodesMs, allocs, seconds, heapMiB };
}

run(500); // warm-up (JIT)
const rows = sizes.map(run);
const base = rows.find((r) => r.nodes === 1000);
console.log("nodes   add nodes ms  allocations  seconds  allocations/s  µs/allocation  heap MiB  cost vs 1,000 nodes");
for (const r of rows) {
  const us = (r.seconds * 1e6) / r.allocs;
  const rel = base ? us / ((base.seconds * 1e6) / base.allocs) : NaN;
  console.log(`${String(r.nodes).padEnd(7)} ${r.addNodesMs.toFixed(1).padStart(12)}  ${String(r.allocs).padStart(11)}  ${r.seconds.toFixed(3).padStart(7)}  ${(r.allocs / r.seconds).toFixed(0).padStart(13)}  ${us.toFixed(1).padStart(13)}  ${r.heapMiB.toFixed(0).padStart(8)}  ${rel.toFixed(2).padStart(19)}`);
}
const at5k = rows.find((r) => r.nodes === 5000);
const at20k = rows.find((r) => r.nodes === 20000);
if (at5k) console.log(`at 5,000 nodes: ${(at5k.allocs / at5k.seconds).toFixed(0)} allocations/s (target >= 10,000)`);
if (at20k && base) console.log(`cost at 20,000 vs 1,000 nodes: ${((at20k.seconds / at20k.allocs) / (base.seconds / base.allocs)).toFixed(2)}x (target <= 2)`);
