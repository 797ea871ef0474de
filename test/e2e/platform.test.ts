/**
 * The API versions corral chooses, on the real control plane (Kubernetes 1.20.2: every fallback path): discovery
 * against the live API server, and the kube-scheduler configuration `corral scheduler-config` prints for the server's
 * version run by the test bed's real kube-scheduler.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { parse, stringify } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { k8s } from "../../src/kube/client.js";
import { chooseApiVersions, discoverApiVersions } from "../../src/kube/discovery.js";
import {
  type KubeSchedulerProcess,
  PROJECT_ROOT,
  type Testbed,
  freeTcpPort,
  kubeConfigFor,
  prepareNamespace,
  startKubeScheduler,
  waitFor,
} from "../../src/testbed/testbed.js";
import { VERSIONS_1_20, discoveryDocuments } from "../fixtures/discovery/documents.js";
import { resetCluster, testbed } from "./harness.js";

const run = promisify(execFile);
const NS = "corral-platform";
let tb: Testbed;
let ks: KubeSchedulerProcess | undefined;

beforeAll(async () => {
  tb = await testbed();
  await prepareNamespace(kubeConfigFor(tb, "admin"), NS, []);
});

afterAll(async () => {
  await ks?.stop();
  await resetCluster(tb);
});

describe("API versions on the test bed", () => {
  it("discovery on the live 1.20 server chooses every fallback, as over the recorded 1.20 documents", async () => {
    const live = await discoverApiVersions(kubeConfigFor(tb, "admin"));
    expect(live).toEqual(VERSIONS_1_20);
    expect(chooseApiVersions(discoveryDocuments("v1.20"))).toEqual({ ok: true, versions: live });
  });

  it("kube-scheduler v1.20.2 runs the configuration `corral scheduler-config --kube-version <server>` prints", async () => {
    const admin = kubeConfigFor(tb, "admin");
    const { gitVersion } = await admin.makeApiClient(k8s.VersionApi).getCode();
    const { stdout } = await run(process.execPath, [
      join(PROJECT_ROOT, "bin/corral.js"),
      "scheduler-config",
      "--kube-version",
      gitVersion,
      "--lock-namespace",
      NS,
      "--url-prefix",
      "http://127.0.0.1:1/scheduler",
    ]);
    const cfg = parse(stdout) as Record<string, unknown> & { clientConnection: Record<string, unknown> };
    expect(cfg.apiVersion).toBe("kubescheduler.config.k8s.io/v1beta1");
    // test bed only: the admin kubeconfig (the lock is in a namespace of its own) and a health port of its own
    const port = await freeTcpPort();
    cfg.clientConnection.kubeconfig = tb.kubeconfig.admin;
    Object.assign(cfg, { healthzBindAddress: `127.0.0.1:${port}`, metricsBindAddress: `127.0.0.1:${port}` });
    ks = await startKubeScheduler(tb, "kube-scheduler-scheduler-config", stringify(cfg));
    const lease = await waitFor(
      "kube-scheduler holds its leader Lease",
      async () => {
        try {
          return await admin.makeApiClient(k8s.CoordinationV1Api).readNamespacedLease({ name: "corral-kube-scheduler", namespace: NS });
        } catch {
          return undefined;
        }
      },
      30_000,
    );
    expect(lease.spec?.holderIdentity).toBeTruthy();
    expect(ks.proc.exitCode).toBeNull();
  });
});
