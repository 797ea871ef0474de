/**
 * npm run bench:keepalive — is makeKeepAliveApiClient still needed with @kubernetes/client-node 2.x? Pod creates per
 * second through the test bed's kube-apiserver (no webhook, no scheduler), in one run, alternating
 *
 *   client-node   `kc.makeApiClient(CoreV1Api)`: the client's own transport (2.x: a new undici Agent per request)
 *   keep-alive    `makeKeepAliveApiClient(kc, CoreV1Api)`: one pooled undici Agent per TLS option set
 *
 * BENCH_ROUNDS rounds of each (default 3, interleaved so that etcd's growth weighs on both alike), BENCH_PODS pods per
 * round (default 1,000, deleted after each round), BENCH_CONCURRENCY calls in flight (default 32). Also prints the
 * TCP connections this process holds open at the end of each round (sockets in /proc/self/fd).
 */
import { readdirSync, readlinkSync } from "node:fs";
import { k8s, makeKeepAliveApiClient } from "../src/kube/client.js";
import { kubeConfigFor, prepareNamespace, testbedDown, testbedUp } from "../src/testbed/testbed.js";
import { createPods, podName } from "./pods.js";

const PODS = Number(process.env.BENCH_PODS ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const NS = "bench-keepalive";
const say = (s: string) => process.stderr.write(`[bench:keepalive] ${s}\n`);

const openSockets = () =>
  readdirSync("/proc/self/fd").filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`).startsWith("socket:");
    } catch {
      return false;
    }
  }).length;

const createRound = (core: k8s.CoreV1Api, prefix: string) =>
  createPods(core, {
    namespace: NS,
    count: PODS,
    concurrency: CONCURRENCY,
    pod: (i) => ({ metadata: { name: podName(prefix, i) }, spec: { containers: [{ name: "c", image: "registry.example.com/batch:1" }] } }),
  });

async function main(): Promise<void> {
  const tb = await testbedUp((l) => say(l));
  try {
    const admin = kubeConfigFor(tb, "admin");
    await prepareNamespace(admin, NS, []);
    const cleanup = makeKeepAliveApiClient(admin, k8s.CoreV1Api);
    const clients = {
      "client-node": () => admin.makeApiClient(k8s.CoreV1Api),
      "keep-alive": () => makeKeepAliveApiClient(admin, k8s.CoreV1Api),
    };
    const rates: Record<string, number[]> = { "client-node": [], "keep-alive": [] };
    for (let r = 0; r < ROUNDS; r++) {
      for (const [name, make] of Object.entries(clients)) {
        const seconds = await createRound(make(), `${name.replace(/[^a-z]/g, "")}-${r}`);
        rates[name]!.push(PODS / seconds);
        say(
          `round ${r + 1} ${name}: ${PODS} pods in ${seconds.toFixed(2)} s = ${(PODS / seconds).toFixed(0)} creates/s; ` +
            `${openSockets()} sockets open`,
        );
        await cleanup.deleteCollectionNamespacedPod({ namespace: NS, gracePeriodSeconds: 0 });
        // let connections the round left idle time out, so the next round starts from the same state
        await new Promise((res) => setTimeout(res, 5000));
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    process.stdout.write(`\n| client | creates/s (median of ${ROUNDS}) | rounds |\n|---|---|---|\n`);
    for (const [name, xs] of Object.entries(rates))
      process.stdout.write(`| ${name} | ${median(xs).toFixed(0)} | ${xs.map((x) => x.toFixed(0)).join(", ")} |\n`);
    process.stdout.write(`\nNode.js ${process.version}, ${PODS} pods per round, ${CONCURRENCY} in flight, kube-apiserver v1.20.2\n`);
  } finally {
    await testbedDown((l) => say(l));
  }
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
