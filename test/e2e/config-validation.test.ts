/**
 * yunikorn-configs validation end to end: kube-apiserver → corral's /validate-conf → corral scheduler's
 * POST /ws/v1/validate-conf. A bad queues.yaml never reaches the ConfigMap.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { k8s } from "../../src/kube/client.js";
import { type CorralProcess, type Testbed, kubeConfigFor, prepareNamespace, startCorral } from "../../src/testbed/testbed.js";
import { freePort, resetCluster, startAdmission, testbed } from "./harness.js";

const NS = "corral-conf";
const procs: CorralProcess[] = [];
let core: k8s.CoreV1Api;
let tb: Testbed;

beforeAll(async () => {
  tb = await testbed();
  const admin = kubeConfigFor(tb, "admin");
  core = admin.makeApiClient(k8s.CoreV1Api);
  await prepareNamespace(admin, NS, []);
  const schedPort = freePort();
  procs.push(
    await startCorral(["scheduler", "--standalone", "--host", "127.0.0.1", "--port", String(schedPort)], {
      readyMsg: "scheduler REST API serving",
    }),
  );
  const adm = await startAdmission(tb, NS, { env: { SCHEDULER_SERVICE_ADDRESS: `127.0.0.1:${schedPort}` } });
  procs.push(adm.corral);
});

afterAll(async () => {
  await Promise.all(procs.map((p) => p.stop()));
  await resetCluster(tb);
});

describe("queue configuration validation through the scheduler", () => {
  it("refuses an invalid queues.yaml with the scheduler's reason, accepts a valid one", async () => {
    const body = (queues: string): k8s.V1ConfigMap => ({ metadata: { name: "yunikorn-configs" }, data: { "queues.yaml": queues } });
    const bad =
      "partitions:\n  - name: default\n    queues:\n      - name: root\n        queues:\n          - name: a\n" +
      "            resources:\n              guaranteed: {memory: 20}\n              max: {memory: 10}\n";
    const err = await core.createNamespacedConfigMap({ namespace: NS, body: body(bad) }).then(
      () => undefined,
      (e: { body?: string }) => e,
    );
    expect(err).toBeDefined();
    expect(JSON.parse((err as { body: string }).body).message).toContain(
      "guaranteed resource map[memory:20] is larger than maximum resource map[memory:10] for queue a",
    );
    await expect(core.readNamespacedConfigMap({ name: "yunikorn-configs", namespace: NS })).rejects.toMatchObject({ code: 404 });
    await core.createNamespacedConfigMap({
      namespace: NS,
      body: body("partitions:\n  - name: default\n    queues:\n      - name: root\n        submitacl: '*'\n"),
    });
    const cm = await core.readNamespacedConfigMap({ name: "yunikorn-configs", namespace: NS });
    expect(cm.data?.["queues.yaml"]).toContain("submitacl");
  });
});
