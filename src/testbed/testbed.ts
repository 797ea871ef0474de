/**
 * The local Kubernetes test bed (scripts/testbed/*.sh) and corral processes on it, for the demo and the
 * end-to-end tests: real etcd, kube-apiserver and kube-controller-manager on 127.0.0.1.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { k8s, statusCode } from "../kube/client.js";

/** The repository root (this file is src/testbed/ or dist/testbed/). */
export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const SCRIPTS = join(PROJECT_ROOT, "scripts", "testbed");

/**
 * The test bed's X.509 client users (scripts/testbed/up.sh): `admin` (system:masters), `alice` (users, devops), `bob`
 * (users), `frontend` (CN airflow, group frontends: a front end submitting for others).
 */
export type TestbedUser = "admin" | "alice" | "bob" | "frontend";

/**
 * A running test bed as up.sh reports it: its state directory, the API server URL, the Kubernetes binaries' directory
 * and a kubeconfig file path per user.
 */
export interface Testbed {
  dir: string;
  server: string;
  /** Directory of the test bed's Kubernetes binaries (kube-scheduler). */
  bin: string;
  kubeconfig: Record<TestbedUser | "scheduler", string>;
}

function run(cmd: string, args: string[], onLine: (line: string) => void, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return new Promise((res, rej) => {
    const p = spawn(cmd, args, { env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    p.stdout.on("data", (d: Buffer) => (out += d.toString()));
    let buf = "";
    p.stderr.on("data", (d: Buffer) => {
      buf += d.toString();
      let i;
      while ((i = buf.indexOf("\n")) >= 0) {
        onLine(buf.slice(0, i));
        buf = buf.slice(i + 1);
      }
    });
    p.on("error", rej);
    p.on("close", (code) => (code === 0 ? res(out) : rej(new Error(`${cmd} ${args.join(" ")} exited with ${code}`))));
  });
}

/** Parses the env file written by up.sh. */
export async function readTestbedEnv(envFile: string): Promise<Testbed> {
  const vars: Record<string, string> = {};
  for (const line of (await readFile(envFile, "utf8")).split("\n")) {
    const m = /^([A-Z_]+)=(.*)$/.exec(line);
    if (m) vars[m[1]!] = m[2]!;
  }
  const need = (k: string) => {
    if (!vars[k]) throw new Error(`${envFile} has no ${k}`);
    return vars[k]!;
  };
  return {
    dir: need("CORRAL_TESTBED_DIR"),
    server: need("CORRAL_APISERVER"),
    bin:
      vars.CORRAL_TESTBED_BIN ?? join(process.env.CORRAL_TESTBED_CACHE ?? join(process.env.HOME ?? "", ".cache", "corral-testbed"), "bin"),
    kubeconfig: {
      admin: need("KUBECONFIG_ADMIN"),
      alice: need("KUBECONFIG_ALICE"),
      bob: need("KUBECONFIG_BOB"),
      frontend: need("KUBECONFIG_FRONTEND"),
      scheduler: need("KUBECONFIG_SCHEDULER"),
    },
  };
}

/**
 * Builds (first time only) and starts the test bed.
 * @param onProgress receives each progress line of the scripts
 */
export async function testbedUp(
  onProgress: (line: string) => void = () => undefined,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Testbed> {
  const out = await run("bash", [join(SCRIPTS, "up.sh")], onProgress, env);
  const envFile = out.trim().split("\n").pop()!;
  return readTestbedEnv(envFile);
}

/** Stops the test bed (scripts/testbed/down.sh); rejects when the script fails. */
export async function testbedDown(
  onProgress: (line: string) => void = () => undefined,
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  await run("bash", [join(SCRIPTS, "down.sh")], onProgress, env);
}

/** A KubeConfig for one of the test bed users. */
export function kubeConfigFor(tb: Testbed, user: TestbedUser | "scheduler"): k8s.KubeConfig {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(tb.kubeconfig[user]);
  return kc;
}

/** Processes started here; killed when this process exits, so a failed test never leaves one running. */
const children = new Set<ChildProcess>();
process.once("exit", () => {
  for (const c of children) c.kill("SIGKILL");
});

/**
 * A corral process started by {@link startCorral}, with its JSON log lines; `stop` sends the signal (default SIGTERM)
 * and resolves with the exit code.
 */
export interface CorralProcess {
  proc: ChildProcess;
  /** Parsed JSON log lines so far. */
  logs: Record<string, unknown>[];
  /** Resolves with the first log line matching `pred` (already seen or future). */
  waitForLog(pred: (l: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Spawns `node bin/corral.js <args>` (the compiled CLI) and collects its JSON logs.
 * @param readyMsg resolve once a log line with this `msg` appears
 * @throws Error when the process exits before `readyMsg` or after `timeoutMs` milliseconds
 */
export async function startCorral(
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; readyMsg: string; timeoutMs?: number; echo?: (line: string) => void; nodeArgs?: string[] },
): Promise<CorralProcess> {
  const proc = spawn(process.execPath, [...(opts.nodeArgs ?? []), join(PROJECT_ROOT, "bin", "corral.js"), ...args], {
    env: { ...process.env, ...opts.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const logs: Record<string, unknown>[] = [];
  const waiters: { pred: (l: Record<string, unknown>) => boolean; res: (l: Record<string, unknown>) => void }[] = [];
  let stderr = "";
  let buf = "";
  proc.stdout!.on("data", (d: Buffer) => {
    buf += d.toString();
    let i;
    while ((i = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      opts.echo?.(line);
      try {
        const rec = JSON.parse(line) as Record<string, unknown>;
        logs.push(rec);
        for (const w of [...waiters])
          if (w.pred(rec)) {
            waiters.splice(waiters.indexOf(w), 1);
            w.res(rec);
          }
      } catch {
        /* not a log line */
      }
    }
  });
  proc.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((res) => proc.on("exit", (code) => res(code)));
  const waitForLog = (pred: (l: Record<string, unknown>) => boolean, timeoutMs = 30_000) => {
    const seen = logs.find(pred);
    if (seen) return Promise.resolve(seen);
    return new Promise<Record<string, unknown>>((res, rej) => {
      const t = setTimeout(() => rej(new Error(`timed out waiting for a log line; stderr: ${stderr.slice(-2000)}`)), timeoutMs);
      waiters.push({
        pred,
        res: (l) => {
          clearTimeout(t);
          res(l);
        },
      });
      void exited.then((code) => {
        clearTimeout(t);
        rej(new Error(`corral ${args[0]} exited with ${code}: ${stderr.slice(-2000)}`));
      });
    });
  };
  children.add(proc);
  proc.once("exit", () => children.delete(proc));
  try {
    await waitForLog((l) => l.msg === opts.readyMsg, opts.timeoutMs ?? 60_000);
  } catch (err) {
    proc.kill("SIGKILL");
    throw err;
  }
  return {
    proc,
    logs,
    waitForLog,
    stop: async (signal: NodeJS.Signals = "SIGTERM") => {
      if (proc.exitCode !== null) return proc.exitCode;
      proc.kill(signal);
      return exited;
    },
  };
}

/** Polls `fn` until it returns a value other than undefined/false, or throws after `timeoutMs`. */
export async function waitFor<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 30_000, everyMs = 200): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined && v !== false) return v as T;
    } catch (err) {
      last = err;
    }
    if (Date.now() > end)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${(last as Error).message}` : ""}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/**
 * Creates `namespace` (if missing), waits for its default service account token (pods need it), and lets the
 * listed users edit it (ClusterRole `edit`).
 */
export async function prepareNamespace(
  admin: k8s.KubeConfig,
  namespace: string,
  editors: string[],
  labels: Record<string, string> = {},
  annotations: Record<string, string> = {},
): Promise<void> {
  const core = admin.makeApiClient(k8s.CoreV1Api);
  const rbac = admin.makeApiClient(k8s.RbacAuthorizationV1Api);
  try {
    await core.createNamespace({ body: { metadata: { name: namespace, labels, annotations } } });
  } catch (err) {
    if (statusCode(err) !== 409) throw err;
  }
  if (editors.length > 0) {
    try {
      await rbac.createNamespacedRoleBinding({
        namespace,
        body: {
          metadata: { name: "corral-editors" },
          roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "edit" },
          subjects: editors.map((name) => ({ apiGroup: "rbac.authorization.k8s.io", kind: "User", name })),
        },
      });
    } catch (err) {
      if (statusCode(err) !== 409) throw err;
    }
  }
  await waitFor(`service account token in ${namespace}`, async () => {
    const sa = await core.readNamespacedServiceAccount({ name: "default", namespace });
    return (sa.secrets?.length ?? 0) > 0;
  });
}

/**
 * A KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1beta1, what kube-scheduler v1.20 reads) with one
 * profile for `schedulerName`. With `extenderUrl` it is corral's plugin mode: corral as the extender for filter and
 * bind (see deploy/scheduler/plugin-mode.yaml for the annotated version). Without it, kube-scheduler's defaults.
 * @param qps client QPS/burst (undefined: kube-scheduler's defaults, 50/100)
 */
export function kubeSchedulerConfig(o: {
  kubeconfig: string;
  schedulerName: string;
  healthzPort: number;
  extenderUrl?: string;
  qps?: number;
}): string {
  const lines = [
    "apiVersion: kubescheduler.config.k8s.io/v1beta1",
    "kind: KubeSchedulerConfiguration",
    "clientConnection:",
    `  kubeconfig: ${JSON.stringify(o.kubeconfig)}`,
    ...(o.qps ? [`  qps: ${o.qps}`, `  burst: ${o.qps * 2}`] : []),
    "leaderElection:",
    "  leaderElect: false",
    // healthz/metrics on a port of its own (default 0.0.0.0:10251), so several instances can run side by side
    `healthzBindAddress: "127.0.0.1:${o.healthzPort}"`,
    `metricsBindAddress: "127.0.0.1:${o.healthzPort}"`,
    ...(o.extenderUrl ? ["percentageOfNodesToScore: 100"] : []),
    "profiles:",
    `  - schedulerName: ${o.schedulerName}`,
  ];
  if (o.extenderUrl) {
    lines.push(
      "    plugins:",
      "      postFilter:",
      "        disabled:",
      "          - name: DefaultPreemption",
      "extenders:",
      `  - urlPrefix: ${JSON.stringify(o.extenderUrl)}`,
      "    filterVerb: filter",
      "    bindVerb: bind",
      "    nodeCacheCapable: true",
      "    enableHTTPS: false",
      "    httpTimeout: 5s",
      "    ignorable: false",
    );
  }
  return `${lines.join("\n")}\n`;
}

/** A kube-scheduler started by {@link startKubeScheduler}; `stop` ends it and resolves once it has exited. */
export interface KubeSchedulerProcess {
  proc: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts the test bed's kube-scheduler v1.20.2 with `configYaml` (written next to the test bed's state), no
 * serving ports, logs in `<dir>/logs/<name>.log`. Resolves once it has started its informers.
 */
export async function startKubeScheduler(tb: Testbed, name: string, configYaml: string): Promise<KubeSchedulerProcess> {
  const { writeFile } = await import("node:fs/promises");
  const { createWriteStream } = await import("node:fs");
  const cfg = join(tb.dir, `${name}.yaml`);
  await writeFile(cfg, configYaml);
  const proc = spawn(join(tb.bin, "kube-scheduler"), ["--config", cfg, "--port", "0", "--secure-port", "0", "--v=1"], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  children.add(proc);
  proc.once("exit", () => children.delete(proc));
  const log = createWriteStream(join(tb.dir, "logs", `${name}.log`));
  let seen = "";
  const started = new Promise<void>((res, rej) => {
    proc.stderr!.on("data", (d: Buffer) => {
      log.write(d);
      if (seen.length < 100_000) seen += d.toString();
      if (/Starting Kubernetes Scheduler|caches populated|Attempting to acquire|Caches are synced/i.test(seen)) res();
    });
    proc.on("exit", (code) => rej(new Error(`kube-scheduler ${name} exited with ${code}: ${seen.slice(-2000)}`)));
  });
  await Promise.race([started, new Promise((r) => setTimeout(r, 5000))]);
  if (proc.exitCode !== null) await started;
  return {
    proc,
    stop: async () => {
      if (proc.exitCode !== null) return;
      const exited = new Promise((r) => proc.once("exit", r));
      proc.kill("SIGTERM");
      await exited;
      log.end();
    },
  };
}

/**
 * Creates `count` Node objects with capacity and no kubelet (`<prefix>-<i>`); pods bound to them never run.
 * No taints: the test bed runs no node lifecycle controller, so they stay schedulable.
 */
export async function createFakeNodes(
  admin: k8s.KubeConfig,
  prefix: string,
  count: number,
  allocatable: Record<string, string>,
): Promise<string[]> {
  const core = admin.makeApiClient(k8s.CoreV1Api);
  const names = Array.from({ length: count }, (_, i) => `${prefix}-${i}`);
  await Promise.all(
    names.map(async (name) => {
      try {
        await core.createNode({
          body: { metadata: { name, labels: { "corral.test/fake-node": prefix } }, status: { capacity: allocatable, allocatable } },
        });
      } catch (err) {
        if (statusCode(err) !== 409) throw err;
      }
      // The TaintNodesByCondition admission plugin adds node.kubernetes.io/not-ready at creation; with no kubelet and no
      // node lifecycle controller nothing would ever remove it, and kube-scheduler would refuse every node.
      await core.patchNode({ name, body: { spec: { taints: null } } }, k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch));
    }),
  );
  return names;
}

/** Deletes the fake nodes of `prefix`. */
export async function deleteFakeNodes(admin: k8s.KubeConfig, prefix: string): Promise<void> {
  const core = admin.makeApiClient(k8s.CoreV1Api);
  await core.deleteCollectionNode({ labelSelector: `corral.test/fake-node=${prefix}` });
}

/** A TCP port free on 127.0.0.1 right now. */
export async function freeTcpPort(): Promise<number> {
  const { createServer } = await import("node:net");
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once("error", rej);
    srv.listen(0, "127.0.0.1", () => {
      const a = srv.address();
      srv.close(() => res(typeof a === "object" && a ? a.port : 0));
    });
  });
}
