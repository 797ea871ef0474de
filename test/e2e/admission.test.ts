/**
 * End to end on the real control plane: kube-apiserver sends real pods and workloads through corral's webhooks,
 * as different authenticated X.509 users; every assertion reads objects back from the API server.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { k8s } from "../../src/kube/client.js";
import { type Testbed, kubeConfigFor, prepareNamespace, waitFor } from "../../src/testbed/testbed.js";
import { discoverApiVersions } from "../../src/kube/discovery.js";
import { type TestUser, denial, kubectlAs, resetCluster, startAdmission, testbed } from "./harness.js";
import type { CorralProcess } from "../../src/testbed/testbed.js";

const NS = "team-a";
const CORRAL_NS = "corral";
const UI = "yunikorn.apache.org/user.info";

let tb: Testbed;
let adm: { corral: CorralProcess; port: number };
let admin: k8s.KubeConfig;
const api = (user: "admin" | "alice" | "bob" | "frontend") => kubeConfigFor(tb, user).makeApiClient(k8s.CoreV1Api);
const apps = (user: "admin" | "alice" | "bob" | "frontend") => kubeConfigFor(tb, user).makeApiClient(k8s.AppsV1Api);

function podBody(name: string, extra: { labels?: Record<string, string>; annotations?: Record<string, string> } = {}): k8s.V1Pod {
  return {
    metadata: { name, ...extra },
    spec: { containers: [{ name: "c", image: "registry.example.com/busybox:1.36", command: ["sleep", "3600"] }] },
  };
}

beforeAll(async () => {
  tb = await testbed();
  admin = kubeConfigFor(tb, "admin");
  await prepareNamespace(admin, CORRAL_NS, []);
  await prepareNamespace(admin, NS, ["alice", "bob", "airflow"]);
  adm = await startAdmission(tb, CORRAL_NS);
});

afterAll(async () => {
  await adm?.corral.stop();
  await resetCluster(tb);
});

describe("admission controller on kube-apiserver v1.20.2", () => {
  it("alice creates a pod: scheduler name, application id, queue, disableStateAware and her identity", async () => {
    await api("alice").createNamespacedPod({ namespace: NS, body: podBody("alice-pod", { labels: { app: "sleep" } }) });
    const pod = await api("admin").readNamespacedPod({ name: "alice-pod", namespace: NS });
    expect(pod.spec?.schedulerName).toBe("yunikorn");
    expect(pod.metadata?.labels).toEqual({
      app: "sleep",
      applicationId: "yunikorn-team-a-autogen",
      "yunikorn.apache.org/app-id": "yunikorn-team-a-autogen",
      queue: "root.default",
      "yunikorn.apache.org/queue": "root.default",
      disableStateAware: "true",
    });
    expect(JSON.parse(pod.metadata!.annotations![UI]!)).toEqual({ user: "alice", groups: ["users", "devops", "system:authenticated"] });
    const line = await adm.corral.waitForLog((l) => l.msg === "admission" && l.name === "alice-pod");
    // the annotations (the pod has none: one op adds the map), schedulerName, and one op per label corral adds
    expect(line).toMatchObject({ kind: "Pod", operation: "CREATE", user: "alice", allowed: true, ops: 7 });
  });

  it("alice creates a Deployment: the ReplicaSet controller's pods carry alice, not the controller", async () => {
    await apps("alice").createNamespacedDeployment({
      namespace: NS,
      body: {
        metadata: { name: "web" },
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: "web" } },
          template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "web", image: "nginx:1.25" }] } },
        },
      },
    });
    const dep = await apps("admin").readNamespacedDeployment({ name: "web", namespace: NS });
    expect(JSON.parse(dep.spec!.template.metadata!.annotations![UI]!).user).toBe("alice");
    const pods = await waitFor("2 pods of the Deployment", async () => {
      const l = await api("admin").listNamespacedPod({ namespace: NS, labelSelector: "app=web" });
      return l.items.length === 2 ? l.items : undefined;
    });
    for (const p of pods) {
      expect(JSON.parse(p.metadata!.annotations![UI]!)).toEqual({ user: "alice", groups: ["users", "devops", "system:authenticated"] });
      expect(p.spec?.schedulerName).toBe("yunikorn");
      expect(p.metadata?.labels?.applicationId).toBe("yunikorn-team-a-autogen");
    }
    // The pods were created by the ReplicaSet controller (a trusted system user), which the log shows.
    const line = await adm.corral.waitForLog(
      (l) => l.msg === "admission" && l.kind === "Pod" && String(l.user).includes("replicaset-controller"),
    );
    expect(line.allowed).toBe(true);
  });

  it("Job and CronJob (the version discovery chose: batch/v1beta1 on 1.20) templates are stamped; the Job's pods carry bob", async () => {
    const batch = kubeConfigFor(tb, "bob").makeApiClient(k8s.BatchV1Api);
    await batch.createNamespacedJob({
      namespace: NS,
      body: {
        metadata: { name: "etl" },
        spec: { template: { spec: { restartPolicy: "Never", containers: [{ name: "c", image: "busybox:1.36" }] } } },
      },
    });
    const job = await kubeConfigFor(tb, "admin").makeApiClient(k8s.BatchV1Api).readNamespacedJob({ name: "etl", namespace: NS });
    expect(JSON.parse(job.spec!.template.metadata!.annotations![UI]!).user).toBe("bob");
    const pod = await waitFor(
      "the Job's pod",
      async () => (await api("admin").listNamespacedPod({ namespace: NS, labelSelector: "job-name=etl" })).items[0],
    );
    expect(JSON.parse(pod.metadata!.annotations![UI]!)).toEqual({ user: "bob", groups: ["users", "system:authenticated"] });

    // CronJob is batch/v1beta1 on v1.20 (batch/v1 from 1.21): discovery says which; created with kubectl as alice.
    const { cronJob, kubernetes } = await discoverApiVersions(admin);
    expect(cronJob).toBe(kubernetes.minor >= 21 ? "batch/v1" : "batch/v1beta1");
    const registered = await admin
      .makeApiClient(k8s.AdmissionregistrationV1Api)
      .readMutatingWebhookConfiguration({ name: "yunikorn-admission-controller-mutations" });
    expect(registered.webhooks![0]!.rules).toContainEqual(
      expect.objectContaining({ apiGroups: ["batch"], apiVersions: [cronJob!.split("/")[1]], resources: ["cronjobs"] }),
    );
    const manifest = JSON.stringify({
      apiVersion: cronJob,
      kind: "CronJob",
      metadata: { name: "nightly", namespace: NS },
      spec: {
        schedule: "0 3 * * *",
        jobTemplate: { spec: { template: { spec: { restartPolicy: "Never", containers: [{ name: "c", image: "busybox:1.36" }] } } } },
      },
    });
    await kubectl("alice", ["apply", "-f", "-"], manifest);
    const { stdout } = await kubectl("admin", ["get", "cronjob", "nightly", "-n", NS, "-o", "json"]);
    const cj = JSON.parse(stdout);
    expect(JSON.parse(cj.spec.jobTemplate.spec.template.metadata.annotations[UI]).user).toBe("alice");
  });

  it("alice claiming to be bob is rejected, naming her user and groups", async () => {
    const msg = await denial(
      api("alice").createNamespacedPod({
        namespace: NS,
        body: podBody("forged", { annotations: { [UI]: '{"user":"bob","groups":["users"]}' } }),
      }),
    );
    expect(msg).toContain("user alice with groups [users,devops,system:authenticated] is not allowed to set user annotation");
    await expect(api("admin").readNamespacedPod({ name: "forged", namespace: NS })).rejects.toMatchObject({ code: 404 });
  });

  it("alice editing a Deployment template's identity is rejected", async () => {
    const msg = await denial(
      kubectl("alice", [
        "patch",
        "deployment",
        "web",
        "-n",
        NS,
        "--type",
        "merge",
        "-p",
        JSON.stringify({ spec: { template: { metadata: { annotations: { [UI]: '{"user":"bob"}' } } } } }),
      ]),
    );
    expect(msg).toContain("is not allowed to set user annotation");
  });

  it("alice changing the annotation on a running pod with kubectl annotate --overwrite is rejected", async () => {
    const msg = await denial(kubectl("alice", ["annotate", "--overwrite", "pod", "alice-pod", "-n", NS, `${UI}={"user":"bob"}`]));
    expect(msg).toContain("user info annotation change is not allowed");
    const pod = await api("admin").readNamespacedPod({ name: "alice-pod", namespace: NS });
    expect(JSON.parse(pod.metadata!.annotations![UI]!).user).toBe("alice");
    // other annotations can still be changed
    await kubectl("alice", ["annotate", "--overwrite", "pod", "alice-pod", "-n", NS, "note=ok"]);
  });

  it("kube-system pods are untouched", async () => {
    await api("admin").createNamespacedPod({ namespace: "kube-system", body: podBody("system-pod") });
    const pod = await waitFor("system pod", () => api("admin").readNamespacedPod({ name: "system-pod", namespace: "kube-system" }));
    expect(pod.spec?.schedulerName).toBe("default-scheduler");
    expect(pod.metadata?.labels).toBeUndefined();
    expect(pod.metadata?.annotations?.[UI]).toBeUndefined();
  });

  it("the external front end is allowed once listed in externalUsers, via a yunikorn-configs change without restart", async () => {
    const body = podBody("submitted-for-carol", { annotations: { [UI]: '{"user":"carol","groups":["data-science"]}' } });
    const before = await denial(api("frontend").createNamespacedPod({ namespace: NS, body }));
    expect(before).toContain("user airflow with groups [frontends,system:authenticated] is not allowed");

    await api("admin").createNamespacedConfigMap({
      namespace: CORRAL_NS,
      body: { metadata: { name: "yunikorn-configs" }, data: { "admissionController.accessControl.externalUsers": "^airflow$" } },
    });
    await adm.corral.waitForLog((l) => l.msg === "configuration applied" && String(l.why).includes("yunikorn-configs"));
    await api("frontend").createNamespacedPod({ namespace: NS, body });
    const pod = await api("admin").readNamespacedPod({ name: "submitted-for-carol", namespace: NS });
    expect(JSON.parse(pod.metadata!.annotations![UI]!)).toEqual({ user: "carol", groups: ["data-science"] });
    expect(pod.spec?.schedulerName).toBe("yunikorn");
  });

  it("an invalid yunikorn-configs value is refused by /validate-conf, naming key and value", async () => {
    const msg = await denial(
      api("admin").patchNamespacedConfigMap(
        { namespace: CORRAL_NS, name: "yunikorn-configs", body: { data: { "admissionController.accessControl.bypassAuth": "maybe" } } },
        k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch),
      ),
    );
    expect(msg).toContain('admissionController.accessControl.bypassAuth="maybe"');
    expect(msg).toContain("must be a boolean");
  });

  it("queues.yaml is accepted with a warning when the scheduler cannot be reached (YuniKorn's default)", async () => {
    const { stderr } = await kubectl("admin", [
      "create",
      "configmap",
      "yunikorn-defaults",
      "-n",
      CORRAL_NS,
      "--from-literal=queues.yaml=partitions: []",
    ]);
    expect(stderr).toContain("queues.yaml not validated");
  });
});

function kubectl(user: TestUser, args: string[], stdin?: string): Promise<{ stdout: string; stderr: string }> {
  return kubectlAs(tb, user, args, stdin);
}
