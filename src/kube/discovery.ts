/**
 * API versions chosen by discovery: which group/version corral uses for each API whose version changed across the
 * Kubernetes releases corral runs on (1.20, the test bed, and 1.24–1.35, YuniKorn 1.9's range). A pure choice over
 * the discovery documents ({@link chooseApiVersions}) and a small edge that fetches them ({@link discoverApiVersions}).
 * This module is the one place where removed versions (`policy/v1beta1`, `batch/v1beta1`) may be named: every other
 * file takes the version from here (test/unit/kube/removed-api-versions.test.ts checks).
 */
import type * as k8s from "@kubernetes/client-node";
import { type KubeSchedulerConfigApiVersion, kubeSchedulerConfigApiVersion } from "./scheduler-config.js";

/** `major.minor` of the API server (from `/version`'s `gitVersion`, e.g. `v1.20.2` or `v1.30.4-eks-a737599`). */
export interface KubeVersion {
  major: number;
  minor: number;
}

/** The part of an `APIResourceList` (`/api/v1`, `/apis/<group>/<version>`) the choice reads. */
export interface ResourceListDocument {
  groupVersion: string;
  resources: { name: string; kind: string; group?: string; version?: string }[];
}

/** The part of an `APIGroupList` (`/apis`) the choice reads. */
export interface GroupListDocument {
  groups: { name: string; versions: { groupVersion: string; version: string }[]; preferredVersion?: { groupVersion: string } }[];
}

/** Discovery documents as the API server serves them. */
export interface DiscoveryDocuments {
  /** `/version` → `gitVersion`. */
  gitVersion: string;
  /** `/api/v1`. */
  core: ResourceListDocument;
  /** `/apis`. */
  groups: GroupListDocument;
  /** `/apis/batch/v1` when `/apis` lists it (the only group version whose resources the choice needs). */
  batchV1?: ResourceListDocument;
}

/** The versions corral uses on one cluster; `undefined` where the cluster serves none corral knows. */
export interface ApiVersions {
  kubernetes: KubeVersion;
  /** Body of `POST /api/v1/namespaces/{ns}/pods/{name}/eviction`: `policy/v1` from 1.22, `policy/v1beta1` before (gone in 1.25). */
  eviction: "policy/v1" | "policy/v1beta1" | undefined;
  /** CronJob: `batch/v1` from 1.21, `batch/v1beta1` before (gone in 1.25). */
  cronJob: "batch/v1" | "batch/v1beta1" | undefined;
  /** PodDisruptionBudget: `policy/v1` from 1.21, `policy/v1beta1` before (gone in 1.25). */
  podDisruptionBudget: "policy/v1" | "policy/v1beta1" | undefined;
  /** kube-scheduler's configuration file for plugin mode (not served by the API server: follows the version). */
  kubeSchedulerConfiguration: KubeSchedulerConfigApiVersion | undefined;
  /** Namespaces carry the `kubernetes.io/metadata.name` label (1.21 beta, on by default; GA 1.22). */
  namespaceNameLabel: boolean;
}

/** The API versions the server serves, or an error naming what could not be read. */
export type ApiVersionsResult = { ok: true; versions: ApiVersions } | { ok: false; error: string };

/**
 * Parses `gitVersion` (`v1.20.2`, `v1.30.4-eks-a737599`, `1.35.0`).
 * @returns undefined when it does not start with `[v]major.minor`
 */
export function parseKubeVersion(gitVersion: string): KubeVersion | undefined {
  const m = /^v?(\d+)\.(\d+)(?:[.+-]|$)/.exec(gitVersion.trim());
  return m ? { major: Number(m[1]), minor: Number(m[2]) } : undefined;
}

const servesGroupVersion = (d: DiscoveryDocuments, gv: string) =>
  d.groups.groups.some((g) => g.versions.some((v) => v.groupVersion === gv));

/**
 * Chooses the version of each API corral calls, from the documents the API server serves (never from the version
 * number where discovery can tell):
 * - Eviction: the `group`/`version` that `/api/v1` gives for the `pods/eviction` subresource (`policy/v1beta1` on
 *   1.20–1.21, `policy/v1` from 1.22).
 * - CronJob: `batch/v1` when `/apis/batch/v1` lists `cronjobs`, else `batch/v1beta1` when `/apis` lists it.
 * - PodDisruptionBudget: `policy/v1` when `/apis` lists it, else `policy/v1beta1`.
 * - KubeSchedulerConfiguration: by the server's minor version (scheduler-config.ts).
 * @returns an error naming what is missing when `gitVersion` cannot be read
 */
export function chooseApiVersions(d: DiscoveryDocuments): ApiVersionsResult {
  const kubernetes = parseKubeVersion(d.gitVersion);
  if (!kubernetes)
    return { ok: false, error: `cannot read the Kubernetes version from /version gitVersion ${JSON.stringify(d.gitVersion)}` };
  const ev = d.core.resources.find((r) => r.name === "pods/eviction");
  // group/version are given for subresources of another kind since 1.10; older servers took policy/v1beta1 only
  const evGv = ev ? `${ev.group ?? "policy"}/${ev.version ?? "v1beta1"}` : undefined;
  const eviction = evGv === "policy/v1" || evGv === "policy/v1beta1" ? evGv : undefined;
  const cronJob = d.batchV1?.resources.some((r) => r.name === "cronjobs")
    ? "batch/v1"
    : servesGroupVersion(d, "batch/v1beta1")
      ? "batch/v1beta1"
      : undefined;
  const podDisruptionBudget = servesGroupVersion(d, "policy/v1")
    ? "policy/v1"
    : servesGroupVersion(d, "policy/v1beta1")
      ? "policy/v1beta1"
      : undefined;
  const schedulerConfig = kubeSchedulerConfigApiVersion(kubernetes);
  return {
    ok: true,
    versions: {
      kubernetes,
      eviction,
      cronJob,
      podDisruptionBudget,
      kubeSchedulerConfiguration: schedulerConfig.ok ? schedulerConfig.apiVersion : undefined,
      namespaceNameLabel: kubernetes.major > 1 || kubernetes.minor >= 21,
    },
  };
}

/** The API clients {@link discoverApiVersions} reads through (injected so the edge can be tested without a server). */
export interface DiscoveryClients {
  version: Pick<k8s.VersionApi, "getCode">;
  core: Pick<k8s.CoreV1Api, "getAPIResources">;
  apis: Pick<k8s.ApisApi, "getAPIVersions">;
  batch: Pick<k8s.BatchV1Api, "getAPIResources">;
}

/** Fetches the discovery documents: `/version`, `/api/v1`, `/apis`, and `/apis/batch/v1` when listed. */
export async function fetchDiscoveryDocuments(c: DiscoveryClients): Promise<DiscoveryDocuments> {
  const [version, core, groups] = await Promise.all([c.version.getCode(), c.core.getAPIResources(), c.apis.getAPIVersions()]);
  const doc: DiscoveryDocuments = {
    gitVersion: version.gitVersion,
    core: core as ResourceListDocument,
    groups: groups as GroupListDocument,
  };
  if (servesGroupVersion(doc, "batch/v1")) doc.batchV1 = (await c.batch.getAPIResources()) as ResourceListDocument;
  return doc;
}

/**
 * Discovers the API versions of the cluster `kc` points to (four GETs at start).
 * @throws Error when discovery fails or the version cannot be read
 */
export async function discoverApiVersions(kc: k8s.KubeConfig): Promise<ApiVersions> {
  const { VersionApi, CoreV1Api, ApisApi, BatchV1Api } = await import("@kubernetes/client-node");
  const docs = await fetchDiscoveryDocuments({
    version: kc.makeApiClient(VersionApi),
    core: kc.makeApiClient(CoreV1Api),
    apis: kc.makeApiClient(ApisApi),
    batch: kc.makeApiClient(BatchV1Api),
  });
  const r = chooseApiVersions(docs);
  if (!r.ok) throw new Error(r.error);
  return r.versions;
}
