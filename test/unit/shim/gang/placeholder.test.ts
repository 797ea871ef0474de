import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { DEFAULT_GANG_CONFIG } from "../../../../src/scheduler/shim/gang/config.js";
import { gangSpecOf, isPlaceholder, taskGroupNameOf } from "../../../../src/scheduler/shim/gang/membership.js";
import {
  type OriginatorPod,
  buildPlaceholder,
  placeholderName,
  placeholderNonce,
  placeholderOwnerReferences,
} from "../../../../src/scheduler/shim/gang/placeholder.js";
import { placeholderResource, placeholdersToCreate } from "../../../../src/scheduler/shim/gang/reservation.js";
import { podResource } from "../../../../src/scheduler/shim/pod-resources.js";
import { applicationIdOf } from "../../../../src/scheduler/shim/translate.js";

/** A Spark 3.5 driver as spark-submit creates it, after admission: task groups driver 1 + executors 4. */
const DRIVER = JSON.parse(readFileSync(new URL("../../../fixtures/spark-driver-gang-pod.json", import.meta.url), "utf8")) as OriginatorPod;
const APP = "spark-5f1e2d3c4b5a69788796a5b4c3d2e1f0";

/** A deterministic random source: 0, 1/36, 2/36, … so nonces are predictable. */
const counter = () => {
  let i = 0;
  return () => (i++ % 36) / 36;
};

describe("placeholderName", () => {
  // apache/yunikorn-k8shim pkg/cache/gang_utils_test.go TestGeneratePlaceholderName (nonce given instead of random)
  it.each([
    ["app0001", "my-group", "tg-app0001-my-group-abcdefghij"],
    ["app00000000000000000000000000000000000000000001", "my-group", "tg-app0000000000000000000000000-my-group-abcdefghij"],
    [
      "a-very-long-app-ID-----------------------------------------------------------------",
      "a-very-long-task-group-name------------------------------------------",
      "tg-a-very-long-app-id-----------a-very-long-task-gro-abcdefghij",
    ],
  ])("upstream's case %#: app id cut to 28, group to 20, ≤ 63 characters", (app, group, want) => {
    const name = placeholderName(app, group, "abcdefghij");
    expect(name).toBe(want);
    expect(name.length).toBeLessThanOrEqual(63);
  });
  it("upstream's third case keeps its length of 63 (only the case of `ID` differs: corral lower-cases)", () => {
    expect(
      placeholderName(
        "a-very-long-app-ID-----------------------------------------------------------------",
        "a-very-long-task-group-name------------------------------------------",
        "abcdefghij",
      ),
    ).toHaveLength(63);
  });
  it("characters a pod name cannot hold become '-' (upstream would have the create refused)", () => {
    expect(placeholderName("Spark_App.1", "Driver Group", "x1")).toBe("tg-spark-app-1-driver-group-x1");
    expect(placeholderName("ünïcode-app", "g", "n")).toBe("tg--n-code-app-g-n");
    expect(placeholderName("a".repeat(27) + "é" + "zzz", "g", "n")).toBe(`tg-${"a".repeat(27)}--g-n`);
  });
  it.each(["", "ABC", "a-b", "abcdefghijk"])("a nonce %j that would break the name is a programming error", (nonce) => {
    expect(() => placeholderName("app", "g", nonce)).toThrow(/placeholder nonce must be 1-10 characters/);
  });
  it("placeholderNonce: 10 base-36 characters from the injected source", () => {
    expect(placeholderNonce(counter())).toBe("abcdefghij");
    expect(placeholderNonce(() => 0.999999999)).toBe("9999999999");
    expect(placeholderNonce(Math.random)).toMatch(/^[a-z0-9]{10}$/);
  });
});

describe("buildPlaceholder: a Spark driver with task groups driver 1 + executors 4", () => {
  const { spec, problem } = gangSpecOf(DRIVER);
  const random = counter();
  const pods = placeholdersToCreate(spec.taskGroups, []).flatMap(({ taskGroup, count }) =>
    Array.from({ length: count }, () =>
      buildPlaceholder({
        originator: DRIVER,
        applicationId: APP,
        queue: "root.spark",
        taskGroup,
        gang: spec,
        nonce: placeholderNonce(random),
        schedulerName: "yunikorn",
        config: DEFAULT_GANG_CONFIG.placeholder,
        schedulerUser: DEFAULT_GANG_CONFIG.schedulerUser,
      }),
    ),
  );

  it("five placeholders: one for the driver group, four for the executors, with distinct names", () => {
    expect(problem).toBeUndefined();
    expect(pods.map((p) => p.metadata!.name)).toEqual([
      "tg-spark-5f1e2d3c4b5a69788796a5-spark-driver-abcdefghij",
      "tg-spark-5f1e2d3c4b5a69788796a5-spark-executor-klmnopqrst",
      "tg-spark-5f1e2d3c4b5a69788796a5-spark-executor-uvwxyz0123",
      "tg-spark-5f1e2d3c4b5a69788796a5-spark-executor-456789abcd",
      "tg-spark-5f1e2d3c4b5a69788796a5-spark-executor-efghijklmn",
    ]);
  });

  it("the executor placeholder, field by field", () => {
    const tgDef = DRIVER.metadata!.annotations!["yunikorn.apache.org/task-groups"];
    expect(pods[1]).toEqual({
      apiVersion: "v1",
      kind: "Pod",
      metadata: {
        name: "tg-spark-5f1e2d3c4b5a69788796a5-spark-executor-klmnopqrst",
        namespace: "spark-jobs",
        labels: {
          "spark-app-selector": APP,
          "spark-role": "executor",
          "yunikorn.apache.org/app-id": APP,
          "yunikorn.apache.org/queue": "root.spark",
        },
        annotations: {
          "cluster-autoscaler.kubernetes.io/safe-to-evict": "false",
          "internal.yunikorn.apache.org/placeholder": "true",
          "yunikorn.apache.org/task-group-name": "spark-executor",
          "yunikorn.apache.org/task-groups": tgDef,
          "yunikorn.apache.org/schedulingPolicyParameters": "placeholderTimeoutInSeconds=120 gangSchedulingStyle=Hard",
        },
        ownerReferences: [
          {
            apiVersion: "v1",
            kind: "Pod",
            name: "etl-daily-3f9a1c7e-driver",
            uid: "6f7e8d9c-0b1a-4c2d-8e3f-4a5b6c7d8e9f",
            controller: false,
            blockOwnerDeletion: true,
          },
        ],
      },
      spec: {
        securityContext: { runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } },
        hostNetwork: false,
        imagePullSecrets: [{ name: "registry-credentials" }],
        containers: [
          {
            name: "pause",
            image: "registry.k8s.io/pause:3.7",
            imagePullPolicy: "IfNotPresent",
            resources: { requests: { cpu: "2", memory: "4505Mi" }, limits: { cpu: "2", memory: "4505Mi" } },
            securityContext: {
              privileged: false,
              allowPrivilegeEscalation: false,
              readOnlyRootFilesystem: true,
              capabilities: { drop: ["ALL"] },
            },
          },
        ],
        restartPolicy: "Never",
        schedulerName: "yunikorn",
        nodeSelector: { workload: "spark" },
        tolerations: [{ key: "dedicated", operator: "Equal", value: "spark", effect: "NoSchedule" }],
        affinity: {
          nodeAffinity: {
            preferredDuringSchedulingIgnoredDuringExecution: [
              {
                weight: 50,
                preference: {
                  matchExpressions: [{ key: "node.kubernetes.io/instance-type", operator: "In", values: ["m6i.2xlarge", "m6i.4xlarge"] }],
                },
              },
            ],
          },
        },
        topologySpreadConstraints: [
          {
            maxSkew: 1,
            topologyKey: "topology.kubernetes.io/zone",
            whenUnsatisfiable: "ScheduleAnyway",
            labelSelector: { matchLabels: { "spark-app-selector": APP, "spark-role": "executor" } },
          },
        ],
        priorityClassName: "batch-high",
        terminationGracePeriodSeconds: 0,
      },
    });
  });

  it("the driver placeholder: the driver group's shape, no executor labels, the originator's priority class", () => {
    const p = pods[0]!;
    expect(p.metadata!.labels).toEqual({ "yunikorn.apache.org/app-id": APP, "yunikorn.apache.org/queue": "root.spark" });
    expect(p.spec!.containers[0]!.resources).toEqual({ requests: { cpu: "1", memory: "2432Mi" }, limits: { cpu: "1", memory: "2432Mi" } });
    expect(p.spec!.affinity).toBeUndefined();
    expect(p.spec!.priorityClassName).toBe("batch-high");
  });

  it("the shim reads each placeholder back as a placeholder of the right application and group, asking exactly the group's share", () => {
    for (const p of pods) {
      expect(isPlaceholder(p)).toBe(true);
      expect(applicationIdOf(p)).toBe(APP);
      const group = spec.taskGroups.find((g) => g.name === taskGroupNameOf(p))!;
      expect(podResource(p)).toEqual(placeholderResource(group));
    }
    expect(podResource(pods[1]!)).toEqual({ pods: 1, vcore: 2000, memory: 4505 * 2 ** 20 });
    // a placeholder the scheduler created, seen first (recovery), hands on its own owner references
    const stamped = structuredClone(pods[1]!);
    stamped.metadata!.annotations!["yunikorn.apache.org/user.info"] = JSON.stringify({
      user: DEFAULT_GANG_CONFIG.schedulerUser,
      groups: [],
    });
    expect(placeholderOwnerReferences(stamped, DEFAULT_GANG_CONFIG.schedulerUser)).toEqual(pods[1]!.metadata!.ownerReferences);
    // one flagged by anyone else owns the new placeholders itself
    stamped.metadata!.annotations!["yunikorn.apache.org/user.info"] = JSON.stringify({ user: "alice", groups: [] });
    expect(placeholderOwnerReferences(stamped, DEFAULT_GANG_CONFIG.schedulerUser)).toEqual([
      {
        apiVersion: "v1",
        kind: "Pod",
        name: stamped.metadata!.name ?? "",
        uid: stamped.metadata!.uid ?? "",
        controller: false,
        blockOwnerDeletion: true,
      },
    ]);
  });

  it("placeholders do not share objects with the task group (mutating one changes nothing else)", () => {
    pods[1]!.spec!.tolerations![0]!.value = "changed";
    expect(pods[2]!.spec!.tolerations![0]!.value).toBe("spark");
    expect(spec.taskGroups[1]!.tolerations![0]!.value).toBe("spark");
  });
});

describe("buildPlaceholder: configuration and sparse originators", () => {
  const gang = gangSpecOf({
    metadata: {
      annotations: {
        "yunikorn.apache.org/task-groups":
          '[{"name":"w","minMember":2,"minResource":{"cpu":"500m","nvidia.com/gpu":1},' +
          '"labels":{"yunikorn.apache.org/queue":"root.forged"},' +
          '"annotations":{"internal.yunikorn.apache.org/placeholder":"false","yunikorn.apache.org/task-group-name":"other"}}]',
      },
    },
  }).spec;
  const build = (originator: OriginatorPod, config = DEFAULT_GANG_CONFIG.placeholder) =>
    buildPlaceholder({
      originator,
      applicationId: "train-7",
      queue: "root.ml",
      taskGroup: gang.taskGroups[0]!,
      gang,
      nonce: "n0nce",
      schedulerName: "corral",
      config,
      schedulerUser: DEFAULT_GANG_CONFIG.schedulerUser,
    });

  it("the configured image (a mirror for clusters without internet) and security ids; the configured scheduler name", () => {
    const p = build(
      { metadata: { name: "trainer-0", namespace: "ml", uid: "u-1" } },
      { image: "mirror.internal:5000/pause:3.9", runAsUser: 65535, runAsGroup: 65535, fsGroup: 2000 },
    );
    expect(p.spec!.containers[0]!.image).toBe("mirror.internal:5000/pause:3.9");
    expect(p.spec!.securityContext).toEqual({
      runAsNonRoot: true,
      seccompProfile: { type: "RuntimeDefault" },
      runAsUser: 65535,
      runAsGroup: 65535,
      fsGroup: 2000,
    });
    expect(p.spec!.schedulerName).toBe("corral");
  });
  it("the group cannot override the app id / queue labels or the placeholder annotations", () => {
    const p = build({ metadata: { name: "trainer-0", namespace: "ml", uid: "u-1" } });
    expect(p.metadata!.labels).toEqual({ "yunikorn.apache.org/app-id": "train-7", "yunikorn.apache.org/queue": "root.ml" });
    expect(p.metadata!.annotations!["internal.yunikorn.apache.org/placeholder"]).toBe("true");
    expect(p.metadata!.annotations!["yunikorn.apache.org/task-group-name"]).toBe("w");
  });
  it("an originator without namespace, priority class or pull secrets; no policy annotation to copy", () => {
    const p = build({ metadata: { name: "trainer-0", uid: "u-1" } });
    expect(p.metadata!.namespace).toBe("default");
    expect(p.spec).not.toHaveProperty("priorityClassName");
    expect(p.spec).not.toHaveProperty("imagePullSecrets");
    expect(p.spec).not.toHaveProperty("nodeSelector");
    expect(p.metadata!.annotations).not.toHaveProperty("yunikorn.apache.org/schedulingPolicyParameters");
    expect(p.spec!.containers[0]!.resources).toEqual({
      requests: { cpu: "500m", "nvidia.com/gpu": "1" },
      limits: { cpu: "500m", "nvidia.com/gpu": "1" },
    });
  });
});
