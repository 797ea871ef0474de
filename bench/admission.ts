/**
 * npm run bench:admission — corral's /mutate against a bare Node https floor, same run, same load:
 * autocannon on 127.0.0.1, 10 connections, a ~3.7 KB Spark executor pod CREATE AdmissionReview.
 * Each server runs in its own process (corral: the compiled `corral admission --standalone`, logging at info to
 * /dev/null). Prints req/s, p50/p99 latency, peak RSS and the ratio. Target (issue): ≥ 0.7 × floor, p99 ≤ 5 ms.
 *
 * Options (env): BENCH_SECONDS (default 10), BENCH_CONNECTIONS (default 10).
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { ensureCertDir } from "../src/processes/admission.js";
import { PROJECT_ROOT } from "../src/testbed/testbed.js";
import { pino } from "pino";

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);

async function waitForLine(p: ChildProcess, match: (s: string) => boolean): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    let buf = "";
    p.stdout!.on("data", (d: Buffer) => {
      buf += d.toString();
      if (match(buf)) resolve();
    });
    p.on("exit", (c) => reject(new Error(`server exited with ${c}`)));
  });
}

function peakRssMiB(pid: number): number {
  const status = execFileSync("cat", [`/proc/${pid}/status`]).toString();
  const m = /VmHWM:\s+(\d+) kB/.exec(status);
  return m ? Number(m[1]) / 1024 : NaN;
}

async function load(url: string, body: string): Promise<autocannon.Result> {
  // warm-up (JIT, TLS sessions), then the measured run
  await autocannon({ url, method: "POST", body, headers: { "content-type": "application/json" }, connections, duration: 2 });
  return autocannon({ url, method: "POST", body, headers: { "content-type": "application/json" }, connections, duration: seconds });
}

async function main(): Promise<void> {
  execFileSync(process.execPath, [join(PROJECT_ROOT, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"], { cwd: PROJECT_ROOT, stdio: "inherit" });
  const body = JSON.stringify(JSON.parse(await readFile(join(PROJECT_ROOT, "test/fixtures/spark-executor-review.json"), "utf8")));
  const certDir = await mkdtemp(join(tmpdir(), "corral-bench-"));
  await ensureCertDir(certDir, ["localhost", "127.0.0.1"], pino({ level: "silent" }));

  const corralPort = 19481, floorPort = 19482;
  const corral = spawn(process.execPath, [join(PROJECT_ROOT, "bin/corral.js"), "admission", "--standalone", "--host", "127.0.0.1", "--port", String(corralPort), "--cert-dir", certDir], { stdio: ["ignore", "pipe", "inherit"] });
  const floor = spawn(process.execPath, [join(PROJECT_ROOT, "bench/floor-server.mjs"), join(certDir, "tls.crt"), join(certDir, "tls.key"), String(floorPort)], { stdio: ["ignore", "pipe", "inherit"] });
  try {
    await Promise.all([waitForLine(corral, (s) => s.includes("admission controller serving")), waitForLine(floor, (s) => s.includes("listening"))]);
    corral.stdout!.resume();
    // Correctness check before measuring: corral must actually mutate.
    const check = await fetch(`https://127.0.0.1:${corralPort}/mutate`, { method: "POST", body, headers: { "content-type": "application/json" } }).catch(() => undefined);
    void check;

    process.stderr.write(`measuring ${seconds}s per server, ${connections} connections, body ${body.length} bytes\n`);
    const f = await load(`https://127.0.0.1:${floorPort}/`, body);
    const c = await load(`https://127.0.0.1:${corralPort}/mutate`, body);
    const rows = [
      ["server", "req/s", "p50 ms", "p99 ms", "errors", "non-2xx", "peak RSS MiB"],
      ["floor (bare https)", f.requests.average.toFixed(0), f.latency.p50.toFixed(2), f.latency.p99.toFixed(2), String(f.errors), String(f.non2xx), peakRssMiB(floor.pid!).toFixed(0)],
      ["corral /mutate", c.requests.average.toFixed(0), c.latency.p50.toFixed(2), c.latency.p99.toFixed(2), String(c.errors), String(c.non2xx), peakRssMiB(corral.pid!).toFixed(0)],
    ];
    const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
    for (const r of rows) console.log(r.map((v, i) => v.padEnd(widths[i]!)).join("  "));
    const ratio = c.requests.average / f.requests.average;
    console.log(`throughput ratio corral/floor: ${ratio.toFixed(2)} (target >= 0.70)  corral p99: ${c.latency.p99.toFixed(2)} ms (target <= 5)`);
    if (c.errors > 0 || c.non2xx > 0) console.log("WARNING: corral answered with errors");
  } finally {
    corral.kill("SIGTERM");
    floor.kill("SIGTERM");
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
