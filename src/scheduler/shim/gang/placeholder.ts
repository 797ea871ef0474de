/**
 * Placeholder pods (apache/yunikorn-k8shim pkg/cache/placeholder.go newPlaceholder, pkg/cache/gang_utils.go
 * GeneratePlaceholderName / GetPlaceholderResourceRequests, pkg/cache/metadata.go getOwnerReference; yunikorn-shim
 * reference §2.3). Pure: the nonce is passed in (`placeholderNonce` makes one from an injected random source).
 *
 * A placeholder holds a task group's place: one pause container asking (and limited to) the group's `minResource`,
 * with the group's node selector, tolerations, affinity and topology spread, so it lands where a real pod of the
 * group would. It is created by the scheduler in the application's namespace and owned by the originating pod, so
 * Kubernetes deletes it with that pod.
 */
import type { V1Affinity, V1OwnerReference, V1Pod, V1Toleration, V1TopologySpreadConstraint } from "@kubernetes/client-node";
import { CANONICAL_LABEL_APPLICATION_ID, CANONICAL_LABEL_QUEUE_NAME } from "../../../yunikorn/constants.js";
import type { PodObject } from "../translate.js";
import type { PlaceholderConfig } from "./config.js";
import {
  ANNOTATION_PLACEHOLDER_FLAG,
  ANNOTATION_SCHEDULING_POLICY_PARAMETERS,
  ANNOTATION_TASK_GROUP_NAME,
  ANNOTATION_TASK_GROUPS,
  PLACEHOLDER_CONTAINER_NAME,
  PLACEHOLDER_RESTART_POLICY,
} from "./constants.js";
import type { GangSpec } from "./membership.js";
import { isTrustedPlaceholder } from "./membership.js";
import type { TaskGroup } from "./task-groups.js";

/** The originating pod: the fields a placeholder takes from it. */
export type OriginatorPod = PodObject & {
  metadata?: { ownerReferences?: V1OwnerReference[] };
  spec?: { priorityClassName?: string; imagePullSecrets?: { name?: string }[] };
};

/** Length of the random part of a placeholder name (upstream: 10 base-36 characters). */
export const PLACEHOLDER_NONCE_LENGTH = 10;
const NONCE_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";

/** A nonce of 10 base-36 characters. @param random returns a number in [0, 1), e.g. Math.random */
export function placeholderNonce(random: () => number): string {
  let s = "";
  for (let i = 0; i < PLACEHOLDER_NONCE_LENGTH; i++)
    s += NONCE_ALPHABET[Math.min(NONCE_ALPHABET.length - 1, Math.floor(random() * NONCE_ALPHABET.length))];
  return s;
}

/** The first n characters (code points, as Go's `%.ns`). */
const firstChars = (s: string, n: number): string => Array.from(s).slice(0, n).join("");

/**
 * `tg-<application id, first 28>-<task group, first 20>-<nonce>`: at most 63 characters (GeneratePlaceholderName).
 * Unlike upstream, the result is then lower-cased and every character other than `a-z 0-9 -` becomes `-`, so an
 * application id such as `Spark_App.1` still gives a valid pod name (upstream's create would be refused by the API
 * server). Ids and names already in that alphabet give exactly upstream's name.
 * @throws Error when the nonce is not 1-10 characters of `a-z 0-9` (a programming error)
 */
export function placeholderName(applicationId: string, taskGroupName: string, nonce: string): string {
  if (!/^[a-z0-9]{1,10}$/.test(nonce))
    throw new Error(`placeholder nonce must be 1-${PLACEHOLDER_NONCE_LENGTH} characters of a-z and 0-9, got ${JSON.stringify(nonce)}`);
  return `tg-${firstChars(applicationId, 28)}-${firstChars(taskGroupName, 20)}-${nonce}`.toLowerCase().replace(/[^a-z0-9-]/g, "-");
}

/**
 * Owner references of an application's placeholders (getOwnerReference): the originating pod as a non-controller
 * owner that blocks its deletion; when the pod seen first is itself a placeholder the scheduler created (recovery;
 * user.info user `schedulerUser`), its own references. A pod anyone else flagged as placeholder owns its placeholders
 * itself: its owner references (perhaps another user's pod) are not handed on.
 */
export function placeholderOwnerReferences(pod: OriginatorPod, schedulerUser: string): V1OwnerReference[] {
  if (isTrustedPlaceholder(pod, schedulerUser)) return [...(pod.metadata?.ownerReferences ?? [])];
  return [
    {
      apiVersion: "v1",
      kind: "Pod",
      name: pod.metadata?.name ?? "",
      uid: pod.metadata?.uid ?? "",
      controller: false,
      blockOwnerDeletion: true,
    },
  ];
}

/** Everything a placeholder pod is built from (upstream k8shim pkg/cache/placeholder.go newPlaceholder). */
export interface PlaceholderOptions {
  /** The application's originating pod: namespace, owner, priority class and image pull secrets come from it. */
  originator: OriginatorPod;
  applicationId: string;
  /** The application's queue (label `yunikorn.apache.org/queue`). */
  queue: string;
  taskGroup: TaskGroup;
  /** The annotations as written on the originator, copied for recovery. */
  gang: Pick<GangSpec, "taskGroupsDefinition" | "schedulingParamsDefinition">;
  /** From `placeholderNonce`. */
  nonce: string;
  /** `spec.schedulerName` (the scheduler's own name). */
  schedulerName: string;
  config: PlaceholderConfig;
  /** `service.schedulerUser`: whose placeholders are the scheduler's own (placeholderOwnerReferences). */
  schedulerUser: string;
}

/**
 * The placeholder pod for one member of a task group (newPlaceholder):
 *  - name `placeholderName(…)`, the originator's namespace (`default` when it has none);
 *  - labels: the group's, then `yunikorn.apache.org/app-id` and `yunikorn.apache.org/queue` (these win);
 *  - annotations: the group's, then `internal.yunikorn.apache.org/placeholder: "true"`, the task group name, and the
 *    task-groups and schedulingPolicyParameters annotations as written (when not empty), for recovery;
 *  - owner references: `placeholderOwnerReferences(originator, schedulerUser)`;
 *  - one container `pause` (configured image, IfNotPresent) with requests = limits = `minResource`;
 *  - the group's nodeSelector, tolerations, affinity, topologySpreadConstraints; the originator's
 *    priorityClassName and imagePullSecrets; restartPolicy Never; terminationGracePeriodSeconds 0; no host network;
 *  - restricted security: pod runAsNonRoot, seccomp RuntimeDefault, the configured ids; container not privileged,
 *    no privilege escalation, read-only root file system, all capabilities dropped.
 */
export function buildPlaceholder(o: PlaceholderOptions): V1Pod {
  const tg = o.taskGroup;
  const requests = (): Record<string, string> => Object.fromEntries(Object.entries(tg.minResource).filter(([k]) => k !== ""));
  const annotations: Record<string, string> = {
    ...tg.annotations,
    [ANNOTATION_PLACEHOLDER_FLAG]: "true",
    [ANNOTATION_TASK_GROUP_NAME]: tg.name,
  };
  if (o.gang.taskGroupsDefinition) annotations[ANNOTATION_TASK_GROUPS] = o.gang.taskGroupsDefinition;
  if (o.gang.schedulingParamsDefinition) annotations[ANNOTATION_SCHEDULING_POLICY_PARAMETERS] = o.gang.schedulingParamsDefinition;
  const c = o.config;
  const pullSecrets = (o.originator.spec?.imagePullSecrets ?? []).filter((s) => s.name).map((s) => ({ name: s.name! }));
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: placeholderName(o.applicationId, tg.name, o.nonce),
      namespace: o.originator.metadata?.namespace || "default",
      labels: { ...tg.labels, [CANONICAL_LABEL_APPLICATION_ID]: o.applicationId, [CANONICAL_LABEL_QUEUE_NAME]: o.queue },
      annotations,
      ownerReferences: placeholderOwnerReferences(o.originator, o.schedulerUser),
    },
    spec: {
      securityContext: {
        runAsNonRoot: true,
        seccompProfile: { type: "RuntimeDefault" },
        ...(c.runAsUser ? { runAsUser: c.runAsUser } : {}),
        ...(c.runAsGroup ? { runAsGroup: c.runAsGroup } : {}),
        ...(c.fsGroup ? { fsGroup: c.fsGroup } : {}),
      },
      hostNetwork: false,
      ...(pullSecrets.length > 0 ? { imagePullSecrets: pullSecrets } : {}),
      containers: [
        {
          name: PLACEHOLDER_CONTAINER_NAME,
          image: c.image,
          imagePullPolicy: "IfNotPresent",
          resources: { requests: requests(), limits: requests() },
          securityContext: {
            privileged: false,
            allowPrivilegeEscalation: false,
            readOnlyRootFilesystem: true,
            capabilities: { drop: ["ALL"] },
          },
        },
      ],
      restartPolicy: PLACEHOLDER_RESTART_POLICY,
      schedulerName: o.schedulerName,
      // The group's Kubernetes objects go through as written; the API server validates them on create.
      ...(tg.nodeSelector ? { nodeSelector: { ...tg.nodeSelector } } : {}),
      ...(tg.tolerations ? { tolerations: structuredClone(tg.tolerations) as V1Toleration[] } : {}),
      ...(tg.affinity ? { affinity: structuredClone(tg.affinity) as V1Affinity } : {}),
      ...(tg.topologySpreadConstraints
        ? { topologySpreadConstraints: structuredClone(tg.topologySpreadConstraints) as unknown as V1TopologySpreadConstraint[] }
        : {}),
      ...(o.originator.spec?.priorityClassName ? { priorityClassName: o.originator.spec.priorityClassName } : {}),
      terminationGracePeriodSeconds: 0,
    },
  };
}
