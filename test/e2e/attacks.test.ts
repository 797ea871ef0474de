/**
 * Trust holes, tried as a malicious tenant would on the real control plane: alice (X.509 user, `edit` in her own
 * namespaces only) tries to charge her pods to bob, to escape the scheduler's limits, or to exhaust the webhook.
 * Each test performs one attack through the API server and reads the outcome back: refused, or charged to alice.
 */
import { spawn } from "node:child_process";
import { connect } from "node:tls";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { k8s } from "../../src/kube/client.js";
import { type CorralProcess, PROJECT_ROOT, type Testbed, kubeConfigFor, prepareNamespace, waitFor } from "../../src/testbed/testbed.js";
import { type TestUser, denial, kubectlAs, resetCluster, startAdmission, testbed } from "./harness.js";

const CORRAL_NS = "corral-atk";
const NS = "atk-alice";
const SHARED = "atk-shared";
const NO_LABEL = "atk-nolabel";
const UI = "yunikorn.apache.org/user.info";
const ALICE = { user: "alice", groups: ["users", "devops", "system:authenticated"] };
const FORGED_BOB = '{"user":"bob","groups":["users"]}';
const NOT_ALLOWED = "user alice with groups [users,devops,system:authenticated] is not allowed to set user annotation";

let tb: Testbed;
let adm: { corral: CorralProcess; port: number };
const core = (user: TestUser = "admin") => kubeConfigFor(tb, user).makeApiClient(k8s.CoreV1Api);
const kubectl = (user: TestUser, args: string[], stdin?: string) => kubectlAs(tb, user, args, stdin);
const create = (user: TestUser, obj: object, namespace = NS) => kubectl(user, ["create", "-n", namespace, "-f", "-"], JSON.stringify(obj));
const identity = (o: { metadata?: { annotations?: Record<string, string> } } | undefined) =>
  JSON.parse(o?.metadata?.annotations?.[UI] ?? "null");

/** deploy/base's admission container. */
async function deployedContainer(): Promise<{ env: { name: string; value?: string }[]; resources: { limits: { memory: string } } }> {
  const dep = parseYaml(await readFile(join(PROJECT_ROOT, "deploy", "base", "deployment.yaml"), "utf8"));
  return dep.spec.template.spec.containers[0];
}

/** Node flags of deploy/base's container (NODE_OPTIONS), so the flood test runs the process as deployed. */
async function deployedNodeArgs(): Promise<string[]> {
  return (await deployedContainer()).env.find((e) => e.name === "NODE_OPTIONS")!.value!.split(" ");
}

/** deploy/base's memory limit of the container, MiB (`256Mi`). */
async function deployedMemoryLimitMiB(): Promise<number> {
  const m = /^(\d+)Mi$/.exec((await deployedContainer()).resources.limits.memory);
  if (!m) throw new Error(`deploy/base memory limit not in Mi: ${(await deployedContainer()).resources.limits.memory}`);
  return Number(m[1]);
}

function pod(
  name: string,
  o: { labels?: Record<string, string>; annotations?: Record<string, string>; nodeName?: string; image?: string } = {},
): k8s.V1Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, labels: o.labels, annotations: o.annotations },
    spec: { nodeName: o.nodeName, containers: [{ name: "c", image: o.image ?? "busybox:1.36", command: ["sleep", "3600"] }] },
  };
}

const WORKLOAD_API: Record<string, string> = {
  Deployment: "apps/v1",
  ReplicaSet: "apps/v1",
  StatefulSet: "apps/v1",
  DaemonSet: "apps/v1",
  Job: "batch/v1",
  CronJob: "batch/v1beta1",
  ReplicationController: "v1",
};

/** A workload of `kind` whose pods are labelled `attack: <name>`; its own and its template's labels as given. */
function workload(
  kind: string,
  name: string,
  o: {
    labels?: Record<string, string>;
    templateLabels?: Record<string, string>;
    templateAnnotations?: Record<string, string>;
    nodeName?: string;
    image?: string;
    replicas?: number;
  } = {},
): object {
  const template = {
    metadata: { labels: { attack: name, ...o.templateLabels }, annotations: o.templateAnnotations },
    spec: {
      nodeName: o.nodeName,
      restartPolicy: kind === "Job" || kind === "CronJob" ? "Never" : "Always",
      containers: [{ name: "c", image: o.image ?? "busybox:1.36", command: ["sleep", "3600"] }],
    },
  };
  const replicas = o.replicas ?? 1;
  const spec =
    kind === "CronJob"
      ? { schedule: "0 3 * * *", jobTemplate: { spec: { template } } }
      : kind === "Job"
        ? { template }
        : kind === "ReplicationController"
          ? { replicas, selector: { attack: name }, template }
          : kind === "DaemonSet"
            ? { selector: { matchLabels: { attack: name } }, template }
            : { replicas, selector: { matchLabels: { attack: name } }, template, ...(kind === "StatefulSet" ? { serviceName: name } : {}) };
  return { apiVersion: WORKLOAD_API[kind], kind, metadata: { name, labels: o.labels }, spec };
}

async function podsOf(namespace: string, name: string, count = 1): Promise<k8s.V1Pod[]> {
  return waitFor(`${count} pod(s) of ${namespace}/${name}`, async () => {
    const l = await core().listNamespacedPod({ namespace, labelSelector: `attack=${name}` });
    return l.items.length >= count ? l.items : undefined;
  });
}

async function templateIdentity(user: TestUser, kind: string, namespace: string, name: string): Promise<unknown> {
  const { stdout } = await kubectl(user, ["get", kind.toLowerCase(), name, "-n", namespace, "-o", "json"]);
  const o = JSON.parse(stdout);
  const t = kind === "CronJob" ? o.spec.jobTemplate.spec.template : o.spec.template;
  return identity(t);
}

beforeAll(async () => {
  tb = await testbed();
  const admin = kubeConfigFor(tb, "admin");
  await prepareNamespace(admin, CORRAL_NS, []);
  await prepareNamespace(admin, NS, ["alice"]);
  await prepareNamespace(admin, SHARED, ["alice", "bob"]);
  await prepareNamespace(admin, NO_LABEL, ["alice"]);
  await core()
    .createNamespacedConfigMap({
      namespace: CORRAL_NS,
      body: { metadata: { name: "yunikorn-configs" }, data: { "admissionController.filtering.noLabelNamespaces": `^${NO_LABEL}$` } },
    })
    .catch((err: { code?: number }) => {
      if (err.code !== 409) throw err;
    });
  adm = await startAdmission(tb, CORRAL_NS, { env: { LOG_LEVEL: "info" }, nodeArgs: await deployedNodeArgs() });
});

afterAll(async () => {
  await adm?.corral.stop();
  await resetCluster(tb);
});

describe("hole 1: objects labelled app: yunikorn", () => {
  it("app: yunikorn label on a pod does not skip identity checks", async () => {
    const msg = await denial(
      create(
        "alice",
        pod("as-bob", {
          labels: { app: "yunikorn", "yunikorn.apache.org/queue": "root.teamb" },
          annotations: { [UI]: FORGED_BOB },
        }),
      ),
    );
    expect(msg).toContain(NOT_ALLOWED);
    await expect(core().readNamespacedPod({ name: "as-bob", namespace: NS })).rejects.toMatchObject({ code: 404 });

    await create("alice", pod("labelled", { labels: { app: "yunikorn" } }));
    const p = await core().readNamespacedPod({ name: "labelled", namespace: NS });
    expect(identity(p)).toEqual(ALICE);
    expect(p.spec?.schedulerName).toBe("yunikorn");
  });

  // the pods each controller creates without nodes (a DaemonSet needs nodes, a CronJob its schedule)
  const MAKES_PODS = new Set(["Deployment", "ReplicaSet", "StatefulSet", "Job", "ReplicationController"]);
  it.each(Object.keys(WORKLOAD_API))("app: yunikorn label on a %s does not skip identity checks", async (kind) => {
    const name = `lbl-${kind.toLowerCase()}`;
    const labelled = { labels: { app: "yunikorn" }, templateLabels: { app: "yunikorn" } };
    const msg = await denial(
      kubectl(
        "alice",
        ["create", "-n", NS, "-f", "-"],
        JSON.stringify(workload(kind, `${name}-forged`, { ...labelled, templateAnnotations: { [UI]: FORGED_BOB } })),
      ),
    );
    expect(msg).toContain(NOT_ALLOWED);

    await create("alice", workload(kind, name, labelled));
    expect(await templateIdentity("admin", kind, NS, name)).toEqual(ALICE);
    if (MAKES_PODS.has(kind)) {
      for (const p of await podsOf(NS, name)) expect(identity(p)).toEqual(ALICE);
    }
  });

  /** A merge patch that sets `meta` on the pod template of `kind`. */
  const templatePatch = (kind: string, meta: object) => {
    const template = { metadata: meta };
    return JSON.stringify(kind === "CronJob" ? { spec: { jobTemplate: { spec: { template } } } } : { spec: { template } });
  };
  it.each(Object.keys(WORKLOAD_API))(
    "three-step UPDATE on a %s (add app: yunikorn, change the template's user.info, remove the label) is refused at step two",
    async (kind) => {
      const name = `three-${kind.toLowerCase()}`;
      const resource = kind.toLowerCase();
      await create("alice", workload(kind, name));
      // 1. add the label, on the workload and on its template (a Job's template is immutable: the workload only)
      await kubectl("alice", ["label", resource, name, "-n", NS, "app=yunikorn"]);
      if (kind !== "Job")
        await kubectl("alice", [
          "patch",
          resource,
          name,
          "-n",
          NS,
          "--type",
          "merge",
          "-p",
          templatePatch(kind, { labels: { app: "yunikorn" } }),
        ]);
      // 2. change the template's identity
      const msg = await denial(
        kubectl("alice", [
          "patch",
          resource,
          name,
          "-n",
          NS,
          "--type",
          "merge",
          "-p",
          templatePatch(kind, { annotations: { [UI]: FORGED_BOB } }),
        ]),
      );
      expect(msg).toContain(NOT_ALLOWED);
      // 3. remove the label: the template still names alice, and so do its pods
      await kubectl("alice", ["label", resource, name, "-n", NS, "app-"]);
      expect(await templateIdentity("admin", kind, NS, name)).toEqual(ALICE);
      if (kind === "Deployment") for (const p of await podsOf(NS, name)) expect(identity(p)).toEqual(ALICE);
    },
  );
});

describe("hole 3: preset spec.nodeName", () => {
  it("preset spec.nodeName on a pod routed to corral is refused", async () => {
    const msg = await denial(create("alice", pod("pinned", { nodeName: "node-1" })));
    expect(msg).toContain('pod atk-alice/pinned sets spec.nodeName "node-1", but it is scheduled by yunikorn');
    expect(msg).toContain("only trusted controllers may preset spec.nodeName (requested by alice)");
    await expect(core().readNamespacedPod({ name: "pinned", namespace: NS })).rejects.toMatchObject({ code: 404 });
  });

  it("preset spec.nodeName in a Job template is refused (the trusted Job controller would create the pods)", async () => {
    const msg = await denial(create("alice", workload("Job", "pinned-job", { nodeName: "node-1" })));
    expect(msg).toContain('pod template of Job atk-alice/pinned-job sets spec.nodeName "node-1"');
  });

  it("a kubelet's mirror pod with spec.nodeName is still created", async () => {
    // No kubelets on the test bed: the admin acts as node-1 (its user and group), allowed to create pods here.
    const rbac = kubeConfigFor(tb, "admin").makeApiClient(k8s.RbacAuthorizationV1Api);
    await rbac.createNamespacedRoleBinding({
      namespace: NS,
      body: {
        metadata: { name: "node-1-mirror-pods" },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "edit" },
        subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "system:node:node-1" }],
      },
    });
    const mirror = pod("static-web-node-1", {
      nodeName: "node-1",
      annotations: { "kubernetes.io/config.mirror": "5f4dcc3b", "kubernetes.io/config.source": "file" },
    });
    await waitFor("RoleBinding in force", () =>
      kubectl("admin", ["auth", "can-i", "create", "pods", "-n", NS, "--as", "system:node:node-1"]).then(
        () => true,
        () => undefined,
      ),
    );
    await kubectl(
      "admin",
      ["create", "-n", NS, "--as", "system:node:node-1", "--as-group", "system:nodes", "-f", "-"],
      JSON.stringify(mirror),
    );
    const p = await core().readNamespacedPod({ name: "static-web-node-1", namespace: NS });
    expect(p.spec?.nodeName).toBe("node-1");
    expect(p.spec?.schedulerName).toBe("default-scheduler");
  });
});

describe("hole 4: noLabelNamespaces", () => {
  it("noLabelNamespaces: a Deployment's pods carry alice, not the controller's service account", async () => {
    await create("alice", workload("Deployment", "nl-web"), NO_LABEL);
    expect(await templateIdentity("admin", "Deployment", NO_LABEL, "nl-web")).toEqual(ALICE);
    for (const p of await podsOf(NO_LABEL, "nl-web")) {
      expect(identity(p)).toEqual(ALICE);
      expect(p.spec?.schedulerName).toBe("yunikorn");
      expect(p.metadata?.labels?.applicationId).toBeUndefined();
    }
    await create("alice", pod("nl-bare"), NO_LABEL);
    expect(identity(await core().readNamespacedPod({ name: "nl-bare", namespace: NO_LABEL }))).toEqual(ALICE);
  });
});

describe("hole 5: editing a shared workload", () => {
  it("alice changing the image of bob's Deployment in a shared namespace: the new pods are charged to alice", async () => {
    await create("bob", workload("Deployment", "bobs-web", { image: "busybox:1.36" }), SHARED);
    expect((await templateIdentity("admin", "Deployment", SHARED, "bobs-web")) as { user: string }).toMatchObject({ user: "bob" });
    await kubectl("alice", ["set", "image", "deployment/bobs-web", "-n", SHARED, "c=busybox:1.37"]);
    expect(await templateIdentity("admin", "Deployment", SHARED, "bobs-web")).toEqual(ALICE);
    const fresh = await waitFor("a pod with the new image", async () => {
      const l = await core().listNamespacedPod({ namespace: SHARED, labelSelector: "attack=bobs-web" });
      return l.items.find((p) => p.spec?.containers[0]?.image === "busybox:1.37");
    });
    expect(identity(fresh)).toEqual(ALICE);
    const line = await adm.corral.waitForLog(
      (l) => typeof l.msg === "string" && l.msg.startsWith(`Deployment ${SHARED}/bobs-web: pod template changed by alice`),
    );
    expect(line.msg).toContain("re-stamped with alice");
  });

  it("alice scaling bob's Deployment does not take it over", async () => {
    await create("bob", workload("Deployment", "bobs-batch"), SHARED);
    await kubectl("alice", [
      "patch",
      "deployment",
      "bobs-batch",
      "-n",
      SHARED,
      "--type",
      "merge",
      "-p",
      JSON.stringify({ spec: { replicas: 3 } }),
    ]);
    await kubectl("alice", ["scale", "deployment", "bobs-batch", "-n", SHARED, "--replicas", "2"]);
    expect((await templateIdentity("admin", "Deployment", SHARED, "bobs-batch")) as { user: string }).toMatchObject({ user: "bob" });
    for (const p of await podsOf(SHARED, "bobs-batch", 2)) expect(identity(p)).toMatchObject({ user: "bob" });
  });
});

describe("impersonating a service account", () => {
  it("alice acting as a pod-creating service account of her namespace (the edit role may impersonate them) gains no trust and is charged as that account", async () => {
    const sa = `system:serviceaccount:${NS}:default`;
    // an account that may create pods (a CI or Spark driver account; here bound to edit by the administrator)
    await kubectl("admin", ["create", "rolebinding", "sa-edit", "-n", NS, "--clusterrole=edit", `--serviceaccount=${NS}:default`]).catch(
      (e: Error) => {
        if (!/already exists/.test(e.message)) throw e;
      },
    );
    // forging bob as the service account is refused like forging him as alice
    const msg = await denial(
      kubectl(
        "alice",
        ["--as", sa, "create", "-n", NS, "-f", "-"],
        JSON.stringify(pod("as-sa-forged", { annotations: { [UI]: FORGED_BOB } })),
      ),
    );
    expect(msg).toContain(
      `user ${sa} with groups [system:serviceaccounts,system:serviceaccounts:${NS},system:authenticated] is not allowed ` +
        `to set user annotation`,
    );
    // a trusted controller's account cannot be impersonated
    const ks = await denial(
      kubectl(
        "alice",
        ["--as", "system:serviceaccount:kube-system:replicaset-controller", "create", "--validate=false", "-n", NS, "-f", "-"],
        JSON.stringify(pod("as-ks")),
      ),
    );
    expect(ks).toMatch(/forbidden/i);
    // the pod she creates as the service account is stamped (and charged) as that account, not as anyone else
    await kubectl("alice", ["--as", sa, "create", "-n", NS, "-f", "-"], JSON.stringify(pod("as-sa")));
    expect(identity(await core().readNamespacedPod({ name: "as-sa", namespace: NS }))).toEqual({
      user: sa,
      groups: ["system:serviceaccounts", `system:serviceaccounts:${NS}`, "system:authenticated"],
    });
  });
});

describe("rollout undo in a shared namespace", () => {
  it("kubectl rollout undo: alice cannot roll bob's Deployment back to bob's identity; bob can roll back to his own revision", async () => {
    await create("bob", workload("Deployment", "undo-web", { image: "busybox:1.36" }), SHARED);
    await podsOf(SHARED, "undo-web");
    await kubectl("alice", ["set", "image", "deployment/undo-web", "-n", SHARED, "c=busybox:1.37"]);
    expect(await templateIdentity("admin", "Deployment", SHARED, "undo-web")).toEqual(ALICE);
    await waitFor("two ReplicaSets of undo-web", async () => {
      const { stdout } = await kubectl("admin", ["get", "rs", "-n", SHARED, "-l", "attack=undo-web", "-o", "name"]);
      return stdout.trim().split("\n").filter(Boolean).length >= 2 ? true : undefined;
    });
    // revision 1's template carries bob's identity: alice's undo would make the controller create pods as bob
    const msg = await denial(kubectl("alice", ["rollout", "undo", "deployment/undo-web", "-n", SHARED]));
    expect(msg).toContain("is not allowed to set user annotation");
    expect(await templateIdentity("admin", "Deployment", SHARED, "undo-web")).toEqual(ALICE);
    // bob rolling back to the revision he submitted sets his own identity, which is allowed
    await kubectl("bob", ["rollout", "undo", "deployment/undo-web", "-n", SHARED]);
    expect((await templateIdentity("admin", "Deployment", SHARED, "undo-web")) as { user: string }).toMatchObject({ user: "bob" });
    // (no scheduler runs here, so the rollout itself does not progress: every pod is checked by its revision)
    const pods = (await core().listNamespacedPod({ namespace: SHARED, labelSelector: "attack=undo-web" })).items;
    for (const p of pods) {
      if (p.spec?.containers[0]?.image === "busybox:1.37") expect(identity(p)).toEqual(ALICE);
      else expect(identity(p)).toMatchObject({ user: "bob" });
    }
  });
});

describe("8: pods/status", () => {
  it("alice rewriting user.info through pods/status is forbidden (the edit role has no pods/status)", async () => {
    const msg = await denial(
      kubectl("alice", [
        "patch",
        "pod",
        "labelled",
        "-n",
        NS,
        "--subresource",
        "status",
        "--type",
        "merge",
        "-p",
        JSON.stringify({ metadata: { annotations: { [UI]: FORGED_BOB } } }),
      ]),
    );
    expect(msg).toMatch(/forbidden/i);
  });

  it("a status write that rewrites user.info (here by the admin) is refused by the pods/status webhook", async () => {
    const msg = await denial(
      kubectl("admin", [
        "patch",
        "pod",
        "labelled",
        "-n",
        NS,
        "--subresource",
        "status",
        "--type",
        "merge",
        "-p",
        JSON.stringify({ metadata: { annotations: { [UI]: FORGED_BOB } } }),
      ]),
    );
    expect(msg).toContain("admission-webhook.yunikorn.validate-pod-status");
    expect(msg).toContain("user info annotation change is not allowed: changing yunikorn.apache.org/user.info");
    expect(identity(await core().readNamespacedPod({ name: "labelled", namespace: NS }))).toEqual(ALICE);
    // an ordinary status write still goes through
    await kubectl("admin", [
      "patch",
      "pod",
      "labelled",
      "-n",
      NS,
      "--subresource",
      "status",
      "--type",
      "merge",
      "-p",
      JSON.stringify({ status: { conditions: [{ type: "corral.dev/probe", status: "True" }] } }),
    ]);
  });
});

describe("7: hostile direct callers", () => {
  it("a slow-body connection to the webhook port is closed once the webhook timeout (5 s) has passed, not after 75 s", async () => {
    const t0 = performance.now();
    const { ms, answer } = await new Promise<{ ms: number; answer: string }>((resolve, reject) => {
      let answer = "";
      const sock = connect({ host: "127.0.0.1", port: adm.port, rejectUnauthorized: false }, () => {
        sock.write("POST /mutate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{");
        // one byte a second, as a slowloris would
        const drip = setInterval(() => sock.write(" "), 1000);
        sock.on("close", () => clearInterval(drip));
      });
      sock.on("data", (d: Buffer) => (answer += d.toString()));
      sock.on("close", () => resolve({ ms: performance.now() - t0, answer }));
      sock.on("error", () => undefined);
      setTimeout(() => reject(new Error("connection still open after 20 s")), 20_000).unref();
    });
    expect(answer).toMatch(/^HTTP\/1.1 408/);
    expect(ms).toBeGreaterThan(5000);
    expect(ms).toBeLessThan(9000);
  });

  it("48 callers flooding the webhook port with 1.9 MiB label-heavy reviews: pod creates through the API server succeed or fail fast, RSS stays under deploy/'s limit", async () => {
    const pid = adm.corral.proc.pid!;
    const rssKiB = async (field: "VmRSS" | "VmHWM") =>
      Number(new RegExp(`${field}:\\s+(\\d+)`).exec(await readFile(`/proc/${pid}/status`, "utf8"))![1]);
    // the process runs with deploy/base's heap flags (NODE_OPTIONS), as in a cluster
    const cmdline = (await readFile(`/proc/${pid}/cmdline`, "utf8")).split("\0");
    for (const flag of await deployedNodeArgs()) expect(cmdline).toContain(flag);
    const limitMiB = await deployedMemoryLimitMiB();
    const idleMiB = (await rssKiB("VmRSS")) / 1024;
    const seconds = 20;
    let peakKiB = 0;
    const sampler = setInterval(
      () =>
        void rssKiB("VmRSS").then(
          (k) => (peakKiB = Math.max(peakKiB, k)),
          () => undefined,
        ),
      100,
    );
    const flood = spawn(process.execPath, [join(PROJECT_ROOT, "test", "e2e", "flood-client.mjs")], {
      env: {
        ...process.env,
        FLOOD_URL: `https://127.0.0.1:${adm.port}/mutate`,
        FLOOD_CONNECTIONS: "48",
        FLOOD_SECONDS: String(seconds),
        FLOOD_BODY_MIB: "1.9",
      },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    flood.stdout!.on("data", (d: Buffer) => (out += d.toString()));
    const done = new Promise<void>((resolve) => flood.on("exit", () => resolve()));
    // bounded: a flood client still running well after its duration is killed, and the test says so below
    const killAfterMs = (seconds + 30) * 1000;
    const killer = setTimeout(() => flood.kill("SIGKILL"), killAfterMs);

    await new Promise((r) => setTimeout(r, 2000));
    const creates: { ok: boolean; ms: number; error?: string }[] = [];
    for (let i = 0; i < 10; i++) {
      const t0 = performance.now();
      try {
        await core("alice").createNamespacedPod({ namespace: NS, body: pod(`during-flood-${i}`) });
        creates.push({ ok: true, ms: Math.round(performance.now() - t0) });
      } catch (err) {
        const e = err as { body?: string; message?: string };
        creates.push({ ok: false, ms: Math.round(performance.now() - t0), error: String(e.body ?? e.message).slice(0, 200) });
      }
      await new Promise((r) => setTimeout(r, 1500));
    }
    await done;
    clearTimeout(killer);
    clearInterval(sampler);
    expect(flood.signalCode, `the flood client was still running ${killAfterMs / 1000} s after it started`).toBeNull();
    const result = JSON.parse(out.trim().split("\n").pop()!);
    const hwmMiB = (await rssKiB("VmHWM")) / 1024;
    const report = {
      idleRssMiB: Math.round(idleMiB),
      peakRssMiB: Math.round(peakKiB / 1024),
      vmHwmMiB: Math.round(hwmMiB),
      flood: result,
      creates,
    };
    process.stderr.write(`flood figures: ${JSON.stringify(report)}\n`);

    expect(result.bodyBytes).toBeGreaterThan(1.85 * 1024 * 1024);
    expect(result.statusCodes["429"]?.count ?? 0).toBeGreaterThan(0);
    // Under deploy/'s limit with a margin: moving to Node.js 24 alone added 20 MiB of idle RSS and took this flood
    // from 198–213 MiB to 256 MiB; 32 MiB (one eighth of the limit) fails the test before such a change becomes an
    // OOM kill in a cluster. Measured since the patch carries only corral's entries: 179–186 MiB.
    expect(hwmMiB).toBeLessThan(limitMiB - 32);
    // A create either succeeds or fails fast: the webhook answers it (or refuses it with 429, which the API server
    // turns into an immediate failure under failurePolicy Fail) before the webhook's timeoutSeconds (5 s here), so
    // the API server never waits it out. A failure at that timeout or later is exactly the "deadline" failure the
    // protection removes (the measurement: 4 of 10 creates), whatever the machine's load; a fixed bound
    // below it (3 s before) measured the machine's load instead (a create answered after 3–5 s on a loaded 2-core
    // CI machine), not the protection.
    const mutations = await kubeConfigFor(tb, "admin")
      .makeApiClient(k8s.AdmissionregistrationV1Api)
      .readMutatingWebhookConfiguration({ name: "yunikorn-admission-controller-mutations" });
    const timeoutMs = mutations.webhooks![0]!.timeoutSeconds! * 1000;
    expect(mutations.webhooks![0]!.failurePolicy).toBe("Fail");
    for (const c of creates) if (!c.ok) expect(c.ms, `create failed after the webhook timeout: ${c.error}`).toBeLessThan(timeoutMs);
    expect(creates.filter((c) => c.ok).length).toBeGreaterThan(0);
    // and the controller is fine afterwards
    await core("alice").createNamespacedPod({ namespace: NS, body: pod("after-flood") });
    expect(identity(await core().readNamespacedPod({ name: "after-flood", namespace: NS }))).toEqual(ALICE);
  }, 90_000);
});
