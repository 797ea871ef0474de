/**
 * Shared driver of the webhook benchmarks (npm run bench:admission, bench:bootstrapper): a corral webhook against a
 * bare Node https floor in the same run, same load — autocannon on 127.0.0.1, 10 connections, one AdmissionReview
 * body. Each server runs in its own process (corral: the compiled CLI in standalone mode, logging at info to a file).
 * Servers are measured alternately; the median round of each is compared. Prints req/s, p50/p99 latency, server CPU
 * per request, peak RSS and the ratios.
 *
 * Options (env): BENCH_SECONDS (default 10), BENCH_CONNECTIONS (default 10), BENCH_ROUNDS (default 7).
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtemp, open, readFile } from "node:fs/promises";
import { request as httpsRequest } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { ensureCertDir } from "../src/processes/admission.js";
import { PROJECT_ROOT } from "../src/testbed/testbed.js";
import { pino } from "pino";

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const rounds = Number(process.env.BENCH_ROUNDS ?? 7);

/** Waits until the server's log file (its stdout) contains `text`. */
async function waitForFile(p: ChildProcess, file: string, text: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (p.exitCode !== null) throw new Error(`server exited with ${p.exitCode}`);
    if ((await readFile(file, "utf8").catch(() => "")).includes(text)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`server did not log ${text}`);
}

/** One POST over TLS with the generated CA, to check the answer before measuring. */
function postOnce(port: number, path: string, body: string, ca: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      { host: "127.0.0.1", port, path, method: "POST", ca, servername: "localhost", headers: { "content-type": "application/json" } },
      (res) => {
        let s = "";
        res.on("data", (d: Buffer) => (s += d.toString()));
        res.on("end", () => resolve(s));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

function peakRssMiB(pid: number): number {
  const status = execFileSync("cat", [`/proc/${pid}/status`]).toString();
  const m = /VmHWM:\s+(\d+) kB/.exec(status);
  return m ? Number(m[1]) / 1024 : NaN;
}

/** CPU seconds (user + system) a process has used, from /proc/<pid>/stat. */
function cpuSeconds(pid: number): number {
  const fields = execFileSync("cat", [`/proc/${pid}/stat`])
    .toString()
    .split(") ")[1]!
    .split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
}

interface Round {
  result: autocannon.Result;
  cpuUsPerRequest: number;
}

async function load(url: string, body: string, pid: number): Promise<Round> {
  // warm-up (JIT, TLS sessions), then the measured run
  await autocannon({ url, method: "POST", body, headers: { "content-type": "application/json" }, connections, duration: 2 });
  const cpu0 = cpuSeconds(pid);
  const result = await autocannon({
    url,
    method: "POST",
    body,
    headers: { "content-type": "application/json" },
    connections,
    duration: seconds,
  });
  const cpu = cpuSeconds(pid) - cpu0;
  return { result, cpuUsPerRequest: (cpu * 1e6) / Math.max(1, result.requests.total) };
}

export interface WebhookBench {
  /** corral CLI arguments after `bin/corral.js`, without host/port/cert-dir. */
  args: string[];
  /** Webhook path. */
  path: string;
  /** AdmissionReview fixture under test/fixtures. */
  fixture: string;
  /** Log line that means the server is up. */
  readyText: string;
  /** Minimum throughput ratio the issue asks for. */
  target: number;
  /** p99 target in milliseconds, if any. */
  p99TargetMs?: number;
}

export async function runWebhookBench(b: WebhookBench): Promise<void> {
  execFileSync(process.execPath, [join(PROJECT_ROOT, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"], {
    cwd: PROJECT_ROOT,
    stdio: "inherit",
  });
  const body = JSON.stringify(JSON.parse(await readFile(join(PROJECT_ROOT, "test/fixtures", b.fixture), "utf8")));
  const certDir = await mkdtemp(join(tmpdir(), "corral-bench-"));
  await ensureCertDir(certDir, ["localhost", "127.0.0.1"], pino({ level: "silent" }));

  const corralPort = 19481,
    floorPort = 19482;
  // Server output goes to files, not pipes: the load generator's event loop must not also carry the servers' logs.
  const corralLog = await open(join(certDir, "corral.log"), "w");
  const floorLog = await open(join(certDir, "floor.log"), "w");
  const corral = spawn(
    process.execPath,
    [join(PROJECT_ROOT, "bin/corral.js"), ...b.args, "--host", "127.0.0.1", "--port", String(corralPort), "--cert-dir", certDir],
    { stdio: ["ignore", corralLog.fd, "inherit"] },
  );
  const floor = spawn(
    process.execPath,
    [join(PROJECT_ROOT, "bench/floor-server.mjs"), join(certDir, "tls.crt"), join(certDir, "tls.key"), String(floorPort)],
    { stdio: ["ignore", floorLog.fd, "inherit"] },
  );
  try {
    await Promise.all([
      waitForFile(corral, join(certDir, "corral.log"), b.readyText),
      waitForFile(floor, join(certDir, "floor.log"), "listening"),
    ]);
    // Correctness check before measuring: corral must answer with a patch.
    const ca = await readFile(join(certDir, "ca.crt"), "utf8");
    const answer = JSON.parse(await postOnce(corralPort, b.path, body, ca)) as { response?: { allowed?: boolean; patch?: string } };
    if (!answer.response?.allowed || !answer.response.patch) throw new Error(`corral did not mutate the pod: ${JSON.stringify(answer)}`);
    const ops = JSON.parse(Buffer.from(answer.response.patch, "base64").toString()) as unknown[];

    process.stderr.write(
      `measuring ${rounds} rounds of ${seconds}s per server (alternating), ${connections} connections, body ` +
        `${body.length} bytes, corral patch ${ops.length} ops\n`,
    );
    const frs: Round[] = [],
      crs: Round[] = [];
    for (let i = 0; i < rounds; i++) {
      frs.push(await load(`https://127.0.0.1:${floorPort}/`, body, floor.pid!));
      crs.push(await load(`https://127.0.0.1:${corralPort}${b.path}`, body, corral.pid!));
    }
    const fr = frs.map((r) => r.result),
      cr = crs.map((r) => r.result);
    const median = (rs: autocannon.Result[]) => [...rs].sort((a, b) => a.requests.average - b.requests.average)[Math.floor(rs.length / 2)]!;
    const medianOf = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const f = median(fr),
      c = median(cr);
    const fCpu = medianOf(frs.map((r) => r.cpuUsPerRequest)),
      cCpu = medianOf(crs.map((r) => r.cpuUsPerRequest));
    const rows = [
      ["server", "req/s (median)", "req/s (all rounds)", "p50 ms", "p99 ms", "server CPU µs/req", "errors", "non-2xx", "peak RSS MiB"],
      [
        "floor (bare https)",
        f.requests.average.toFixed(0),
        fr.map((r) => r.requests.average.toFixed(0)).join(" "),
        f.latency.p50.toFixed(2),
        f.latency.p99.toFixed(2),
        fCpu.toFixed(0),
        String(f.errors),
        String(f.non2xx),
        peakRssMiB(floor.pid!).toFixed(0),
      ],
      [
        `corral ${b.path}`,
        c.requests.average.toFixed(0),
        cr.map((r) => r.requests.average.toFixed(0)).join(" "),
        c.latency.p50.toFixed(2),
        c.latency.p99.toFixed(2),
        cCpu.toFixed(0),
        String(c.errors),
        String(c.non2xx),
        peakRssMiB(corral.pid!).toFixed(0),
      ],
    ];
    const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
    for (const r of rows) console.log(r.map((v, i) => v.padEnd(widths[i]!)).join("  "));
    const ratio = c.requests.average / f.requests.average;
    console.log(
      `throughput ratio corral/floor: ${ratio.toFixed(2)} (target >= ${b.target.toFixed(2)})  corral p99: ` +
        `${c.latency.p99.toFixed(2)} ms${b.p99TargetMs ? ` (target <= ${b.p99TargetMs})` : ""}`,
    );
    console.log(`CPU-cost ratio floor/corral: ${(fCpu / cCpu).toFixed(2)} (the same comparison, less sensitive to a noisy machine)`);
    if (c.errors > 0 || c.non2xx > 0) console.log("WARNING: corral answered with errors");
  } finally {
    corral.kill("SIGTERM");
    floor.kill("SIGTERM");
  }
}
