/**
 * Runtime bootstrapper on the real control plane: manipulations in opted-in namespaces, fail-open with housekeeping
 * repairing the pods created while it was down, shared-resource sync, and both webhooks on one pod.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { k8s } from "../../src/kube/client.js";
import { type CorralProcess, type Testbed, kubeConfigFor, prepareNamespace, startCorral, waitFor } from "../../src/testbed/testbed.js";
import { freePort, renderDeploy, resetCluster, startAdmission, testbed } from "./harness.js";

const CFG_NS = "kyma-system";
const running: CorralProcess[] = [];
let tb: Testbed;
let core: k8s.CoreV1Api;
let port: number;

const config = {
  overrides: { "registry.example.com": "mirror.internal:5000/cache" },
  imagePullSecretName: "registry-credentials",
  trustBundleConfigMap: { name: "corp-ca", key: "ca.crt", volumeMountPath: "/etc/ssl/corp", volumeName: "corp-ca" },
  namespaceFeatures: {},
  housekeeping: { intervalSeconds: 2, evictionsPerMinute: 600 },
  sync: { sourceNamespace: CFG_NS, resources: [{ kind: "Secret", name: "registry-credentials" }], resyncSeconds: 2 },
};

async function startBootstrapper(): Promise<CorralProcess> {
  const p = await startCorral(
    [
      "bootstrapper",
      "--host",
      "127.0.0.1",
      "--port",
      String(port),
      "--kubeconfig",
      tb.kubeconfig.admin,
      "--webhook-url",
      `https://127.0.0.1:${port}`,
      "--ca-propagation-seconds",
      "0",
    ],
    { env: { NAMESPACE: CFG_NS, LOG_LEVEL: "debug" }, readyMsg: "bootstrapper serving" },
  );
  running.push(p);
  return p;
}

const mutated = (p: k8s.V1Pod) =>
  p.spec!.containers[0]!.image!.startsWith("mirror.internal:5000/cache/") &&
  (p.spec!.imagePullSecrets ?? []).some((s) => s.name === "registry-credentials") &&
  p.metadata?.annotations?.["rt-bootstrapper.kyma-project.io/modified"] === "true";

beforeAll(async () => {
  tb = await testbed();
  const admin = kubeConfigFor(tb, "admin");
  core = admin.makeApiClient(k8s.CoreV1Api);
  // Webhooks left by earlier test files point at stopped processes: remove them so only what this file starts runs.
  const adm = admin.makeApiClient(k8s.AdmissionregistrationV1Api);
  await adm.deleteMutatingWebhookConfiguration({ name: "yunikorn-admission-controller-mutations" }).catch(() => undefined);
  await prepareNamespace(admin, CFG_NS, []);
  await prepareNamespace(admin, "opted", ["alice"], {}, { "rt-cfg.kyma-project.io/all": "true" });
  await prepareNamespace(admin, "plain", ["alice"]);
  await core.createNamespacedSecret({
    namespace: CFG_NS,
    body: {
      metadata: { name: "registry-credentials" },
      type: "kubernetes.io/dockerconfigjson",
      data: { ".dockerconfigjson": Buffer.from('{"auths":{"mirror.internal:5000":{"auth":"dTpw"}}}').toString("base64") },
    },
  });
  await core.createNamespacedConfigMap({
    namespace: CFG_NS,
    body: { metadata: { name: "rt-bootstrapper-config" }, data: { "rt-bootstrapper-config.json": JSON.stringify(config) } },
  });
  port = freePort();
  await startBootstrapper();
});

afterAll(async () => {
  await Promise.all(running.map((p) => p.stop()));
  await resetCluster(tb);
});

const podBody = (name: string): k8s.V1Pod => ({
  metadata: { name },
  spec: { containers: [{ name: "c", image: "registry.example.com/team/app:1" }] },
});

describe("runtime bootstrapper", () => {
  it("a pod in an opted-in namespace gets every manipulation; outside the scope it is untouched", async () => {
    const alice = kubeConfigFor(tb, "alice").makeApiClient(k8s.CoreV1Api);
    await alice.createNamespacedPod({ namespace: "opted", body: podBody("p1") });
    const p = await core.readNamespacedPod({ name: "p1", namespace: "opted" });
    expect(p.spec!.containers[0]!.image).toBe("mirror.internal:5000/cache/team/app:1");
    expect(p.spec!.imagePullSecrets).toEqual([{ name: "registry-credentials" }]);
    expect(p.spec!.volumes!.some((v) => v.name === "corp-ca" && v.configMap?.name === "corp-ca")).toBe(true);
    expect(p.spec!.containers[0]!.volumeMounts).toContainEqual(
      expect.objectContaining({ name: "corp-ca", mountPath: "/etc/ssl/corp", readOnly: true }),
    );
    expect(p.spec!.containers[0]!.env).toContainEqual(expect.objectContaining({ name: "KYMA_FIPS_MODE_ENABLED", value: "true" }));
    expect(p.metadata!.annotations!["rt-bootstrapper.kyma-project.io/manipulations"]).toMatch(
      /^alter-img-registry,add-img-pull-secret,add-cluster-trust-bundle,set-fips-mode@[0-9a-f]{12}$/,
    );
    await alice.createNamespacedPod({ namespace: "plain", body: podBody("p2") });
    const q = await core.readNamespacedPod({ name: "p2", namespace: "plain" });
    expect(q.spec!.containers[0]!.image).toBe("registry.example.com/team/app:1");
    expect(q.metadata?.annotations?.["rt-bootstrapper.kyma-project.io/modified"]).toBeUndefined();
  });

  it("fail-open: pods created while it is down are admitted unchanged, then housekeeping has them recreated with the manipulations", async () => {
    await running.pop()!.stop();
    const apps = kubeConfigFor(tb, "alice").makeApiClient(k8s.AppsV1Api);
    await apps.createNamespacedDeployment({
      namespace: "opted",
      body: {
        metadata: { name: "web" },
        spec: {
          replicas: 3,
          selector: { matchLabels: { app: "web" } },
          template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "web", image: "registry.example.com/web:1" }] } },
        },
      },
    });
    const before = await waitFor("3 unmodified pods", async () => {
      const l = (await core.listNamespacedPod({ namespace: "opted", labelSelector: "app=web" })).items;
      return l.length === 3 ? l : undefined;
    });
    expect(before.every((p) => !mutated(p))).toBe(true);
    const b = await startBootstrapper();
    await waitFor(
      "3 manipulated pods",
      async () => {
        const l = (await core.listNamespacedPod({ namespace: "opted", labelSelector: "app=web" })).items.filter(
          (p) => !p.metadata?.deletionTimestamp,
        );
        return l.length === 3 && l.every(mutated) ? l : undefined;
      },
      60_000,
      500,
    );
    expect(b.logs.filter((l) => l.msg === "housekeeping: evicted pod missing manipulations").length).toBeGreaterThanOrEqual(1);
    // Kubernetes 1.20: discovery gives policy/v1beta1 for pods/eviction, and the evictions above were posted in it
    expect(b.logs.find((l) => l.msg === "API versions from discovery")).toMatchObject({ kubernetes: "1.20", eviction: "policy/v1beta1" });
  });

  it("shared-resource sync: new namespace gets the pull secret, an edited copy is restored, copies go with the source", async () => {
    const admin = kubeConfigFor(tb, "admin");
    await prepareNamespace(admin, "fresh", []);
    const copy = await waitFor(
      "copy in the new namespace",
      () => core.readNamespacedSecret({ name: "registry-credentials", namespace: "fresh" }),
      15_000,
      300,
    );
    expect(copy.type).toBe("kubernetes.io/dockerconfigjson");
    expect(copy.metadata?.labels?.["app.kubernetes.io/managed-by"]).toBe("corral-bootstrapper");
    await core.patchNamespacedSecret(
      { name: "registry-credentials", namespace: "fresh", body: { data: { ".dockerconfigjson": Buffer.from("{}").toString("base64") } } },
      k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch),
    );
    await waitFor(
      "restored copy",
      async () => {
        const s = await core.readNamespacedSecret({ name: "registry-credentials", namespace: "fresh" });
        return Buffer.from(s.data![".dockerconfigjson"]!, "base64").toString().includes("mirror.internal");
      },
      15_000,
      300,
    );
    await core.deleteNamespacedSecret({ name: "registry-credentials", namespace: CFG_NS });
    await waitFor(
      "copies removed",
      async () => {
        const l = await core.listSecretForAllNamespaces({ labelSelector: "app.kubernetes.io/managed-by=corral-bootstrapper" });
        return l.items.length === 0;
      },
      15_000,
      300,
    );
  });

  it("with the admission controller registered too, one pod passes both webhooks and carries both sets of changes", async () => {
    await prepareNamespace(kubeConfigFor(tb, "admin"), "corral-both", []);
    const adm = await startAdmission(tb, "corral-both");
    running.push(adm.corral);
    const alice = kubeConfigFor(tb, "alice").makeApiClient(k8s.CoreV1Api);
    await alice.createNamespacedPod({ namespace: "opted", body: podBody("both") });
    const p = await core.readNamespacedPod({ name: "both", namespace: "opted" });
    expect(p.spec!.containers[0]!.image).toBe("mirror.internal:5000/cache/team/app:1");
    expect(p.spec!.schedulerName).toBe("yunikorn");
    expect(JSON.parse(p.metadata!.annotations!["yunikorn.apache.org/user.info"]!).user).toBe("alice");
    expect(p.metadata!.annotations!["rt-bootstrapper.kyma-project.io/modified"]).toBe("true");
    expect(p.metadata!.labels!.applicationId).toBe("yunikorn-opted-autogen");
  });

  it("the deploy/bootstrapper manifests are accepted by the API server (server-side dry run)", async () => {
    const run = promisify(execFile);
    // Kubernetes 1.20 serves PodDisruptionBudget as policy/v1beta1 only: renderDeploy adds the documented component.
    const manifests = await renderDeploy(tb, "bootstrapper");
    expect(manifests).toContain("apiVersion: policy/v1beta1\nkind: PodDisruptionBudget");
    const p = run("kubectl", ["--kubeconfig", tb.kubeconfig.admin, "apply", "--dry-run=server", "-f", "-"]);
    p.child.stdin!.end(manifests);
    const { stdout } = await p;
    for (const kind of [
      "serviceaccount",
      "clusterrole",
      "clusterrolebinding",
      "role",
      "rolebinding",
      "configmap",
      "service",
      "deployment",
      "poddisruptionbudget",
      "networkpolicy",
    ]) {
      expect(stdout).toMatch(new RegExp(`^${kind}[./].*\\(server dry run\\)`, "m"));
    }
  });
});
