/**
 * npm run bench:preemption — cost of one ask-triggered preemption decision against cluster size (preemption issue:
 * "a preemption decision ... does not grow with the number of nodes (bounded candidate search, as upstream)").
 * Shape: bench/preemption-shape.ts (N full nodes of root.b pods, asks from root.a under its guarantee); 1,000 asks,
 * each decided on its own against the same snapshot (the decision is pure), the node order rotated per ask as the
 * core's node order would. `npm run bench:scheduler` measures the same shape through the core's scheduling cycles.
 * Rows: the bounded search (batches of 10, stop at the
 * first satisfactory batch) and, for comparison, the same decision reading every node (batch = all nodes), which is
 * what evaluating every node as upstream's tryNodes does costs (100 decisions, up to 2,000 nodes).
 * Env: BENCH_NODES (comma list, default 500,1000,5000,20000), BENCH_ASKS (default 1000).
 */
import { type PreemptionAsk, decidePreemption } from "../src/scheduler/core/preemption/preemptor.js";
import { type PreemptionNode, type PreemptionSnapshot, clusterSnapshot } from "../src/scheduler/core/preemption/snapshot.js";
import {
  NODE_CAPACITY,
  NOW,
  PREEMPTOR_CREATED,
  PREEMPTOR_GUARANTEE,
  PREEMPTOR_PRIORITY,
  PREEMPTOR_RESOURCE,
  nodeId,
  victimPods,
} from "./preemption-shape.js";

const sizes = (process.env.BENCH_NODES ?? "500,1000,5000,20000").split(",").map(Number);
const asks = Number(process.env.BENCH_ASKS ?? 1_000);
function cluster(n: number): { snapshot: PreemptionSnapshot; nodes: PreemptionNode[] } {
  const snapshot = clusterSnapshot({
    queues: [{ path: "root.a", guaranteed: PREEMPTOR_GUARANTEE }, { path: "root.b" }],
    nodes: Array.from({ length: n }, (_, i) => ({ id: nodeId(i), capacity: NODE_CAPACITY })),
    allocations: victimPods(n),
  });
  return { snapshot, nodes: [...snapshot.nodes()] };
}

/** The same snapshot with the node order starting at `offset`. */
function rotated(base: PreemptionSnapshot, nodes: PreemptionNode[], offset: number): PreemptionSnapshot {
  return {
    queue: (p) => base.queue(p),
    children: (p) => base.children(p),
    allocations: (p) => base.allocations(p),
    *nodes() {
      for (let i = 0; i < nodes.length; i++) yield nodes[(offset + i) % nodes.length]!;
    },
  };
}

interface Row {
  nodes: number;
  mode: string;
  decisions: number;
  preempting: number;
  seconds: number;
  nodesRead: number;
}

function run(n: number, mode: "bounded" | "every node"): Row {
  const { snapshot, nodes } = cluster(n);
  const decisions = mode === "bounded" ? asks : Math.min(asks, 100);
  let preempting = 0,
    nodesRead = 0;
  const start = performance.now();
  for (let i = 0; i < decisions; i++) {
    const ask: PreemptionAsk = {
      key: `a-${i}`,
      applicationId: "app-a",
      queuePath: "root.a",
      priority: PREEMPTOR_PRIORITY,
      resource: PREEMPTOR_RESOURCE,
      createTime: PREEMPTOR_CREATED,
      allowPreemptOther: true,
    };
    const r = decidePreemption(rotated(snapshot, nodes, (i * 37) % n), ask, {
      now: NOW,
      enabled: true,
      batchSize: mode === "bounded" ? undefined : Number.POSITIVE_INFINITY,
    });
    if (r.outcome === "preempting") {
      preempting++;
      nodesRead += r.nodesExamined;
    }
  }
  return { nodes: n, mode, decisions, preempting, seconds: (performance.now() - start) / 1000, nodesRead };
}

const rows: Row[] = [];
run(sizes[0]!, "bounded"); // warm-up (JIT), not reported
console.log("nodes   search       decisions  preempting  seconds  decisions/s  µs/decision  nodes read/decision  cost vs smallest");
for (const mode of ["bounded", "every node"] as const) {
  let base: number | undefined;
  for (const n of sizes) {
    if (mode === "every node" && n > 2000) continue;
    const r = run(n, mode);
    rows.push(r);
    const us = (r.seconds / r.decisions) * 1e6;
    base ??= us;
    console.log(
      `${String(r.nodes).padEnd(7)} ${mode.padEnd(11)}  ${String(r.decisions).padStart(9)}  ` +
        `${String(r.preempting).padStart(10)}  ${r.seconds.toFixed(3).padStart(7)}  ` +
        `${(r.decisions / r.seconds).toFixed(0).padStart(11)}  ${us.toFixed(1).padStart(11)}  ` +
        `${(r.nodesRead / Math.max(1, r.preempting)).toFixed(1).padStart(19)}  ${(us / base).toFixed(2).padStart(16)}`,
    );
  }
}
const bounded = rows.filter((r) => r.mode === "bounded");
const first = bounded[0],
  last = bounded[bounded.length - 1];
if (first && last && first !== last) {
  const ratio = last.seconds / last.decisions / (first.seconds / first.decisions);
  console.log(`bounded decision cost at ${last.nodes} vs ${first.nodes} nodes: ${ratio.toFixed(2)}x (target: flat, about 1x)`);
}
