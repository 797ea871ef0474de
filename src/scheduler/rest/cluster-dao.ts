/**
 * Cluster-wide shapes of the REST API (apache/yunikorn-core pkg/webservice/dao cluster_info.go, node_util.go,
 * rule_info.go, application_history.go, container_history.go; handlers.go getClusterJSON,
 * getPartitionNodesUtilJSON, getPlacementRulesDAO). Pure functions of the core's state.
 */
import { readFileSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { PlacementRuleConfig, SchedulerConfig } from "../core/config.js";
import type { NodeView } from "../core/read.js";
import type { SchedulerCore } from "../core/scheduler.js";
import { ns } from "./app-dao.js";

/** The id upstream's partitions report as `clusterId` (the RM id the shim registers). */
export const CLUSTER_ID = "mycluster";

export interface BuildInfo {
  buildVersion: string;
  buildDate: string;
  /** "true" in plugin mode (kube-scheduler extender), as the shim's isPluginVersion. */
  isPluginVersion: string;
}

/**
 * corral's own build information: `buildVersion` the package version (package.json), `buildDate` when this module was
 * compiled (its file's modification time, RFC 3339), `isPluginVersion` "true" in plugin mode. A field that cannot be
 * read is "" (never fails).
 */
export function corralBuildInfo(o: { plugin: boolean }): BuildInfo {
  const at = (rel: string) => fileURLToPath(new URL(rel, import.meta.url));
  let buildVersion = "";
  let buildDate = "";
  try {
    buildVersion = String((JSON.parse(readFileSync(at("../../../package.json"), "utf8")) as { version?: unknown }).version ?? "");
  } catch {
    // not installed as a package: no version
  }
  try {
    buildDate = statSync(at(import.meta.url)).mtime.toISOString();
  } catch {
    // no file behind the module
  }
  return { buildVersion, buildDate, isPluginVersion: String(o.plugin) };
}

/** ClusterDAOInfo, one per partition: scheduler start (Unix ms), the RM's build information, `clusterName` "kubernetes". */
export function clustersInfo(partitions: readonly string[], startTime: number, build: BuildInfo): Record<string, unknown>[] {
  return partitions.map((p) => ({
    startTime: ns(startTime),
    rmBuildInformation: [{ ...build, rmId: CLUSTER_ID }],
    partition: p,
    clusterName: "kubernetes",
  }));
}

/**
 * PartitionNodesUtilDAOInfo: for every resource type some node advertises, ten buckets of node utilisation
 * (allocated / capacity) "0-10%" … "90-100%", with the node count and names (omitted when zero/empty). A node goes to
 * bucket max(ceil(pct/10) − 1, 0), 100 % and above in the last one. Types and names are sorted.
 */
export function nodeUtilizations(partition: string, nodes: readonly NodeView[]): Record<string, unknown> {
  const buckets = new Map<string, string[][]>();
  for (const n of [...nodes].sort((a, b) => (a.id < b.id ? -1 : 1))) {
    for (const type in n.capacity) {
      const cap = n.capacity[type]!;
      const pct = cap > 0 ? Math.floor(((n.allocated[type] ?? 0) * 100) / cap) : 0;
      const idx = Math.min(9, Math.max(Math.ceil(pct / 10) - 1, 0));
      let b = buckets.get(type);
      if (!b) buckets.set(type, (b = Array.from({ length: 10 }, () => [])));
      b[idx]!.push(n.id);
    }
  }
  const utilizations = [...buckets.keys()].sort().map((type) => ({
    type,
    utilization: buckets.get(type)!.map((names, k) => ({
      bucketName: `${k * 10}-${(k + 1) * 10}%`,
      ...(names.length > 0 ? { numOfNodes: names.length, nodeNames: names } : {}),
    })),
  }));
  return { clusterId: CLUSTER_ID, partition, ...(utilizations.length > 0 ? { utilizations } : {}) };
}

/**
 * The partition's placement rules as RuleDAO (the configured ones, or `provided` when none is configured, then the
 * implicit `recovery` rule). Parameters as upstream: `create`; fixed `queue` and `qualified`; tag `tagName`.
 */
export function placementRules(config: SchedulerConfig, partition: string): Record<string, unknown>[] {
  const pc = config.partitions.find((x) => x.name === partition);
  const rules = pc?.placementrules?.length ? pc.placementrules : [{ name: "provided", create: false }];
  return [...rules.map(ruleDao), { name: "recovery", parameters: { queue: "root.@recovery@" } }];
}

function ruleDao(r: PlacementRuleConfig): Record<string, unknown> {
  const name = r.name.toLowerCase();
  const parameters: Record<string, string> = { create: String(!!r.create) };
  const value = (r.value ?? "").toLowerCase();
  if (name === "fixed") Object.assign(parameters, { queue: value, qualified: String(value.startsWith("root.")) });
  if (name === "tag") parameters.tagName = value;
  const out: Record<string, unknown> = { name, parameters };
  const f = r.filter;
  const users = f?.users ?? [];
  const groups = f?.groups ?? [];
  if (users.length > 0 || groups.length > 0) {
    // A single entry is a regular expression (§2.5), longer lists are names.
    out.filter = {
      type: (f?.type ?? "allow").toLowerCase() === "deny" ? "deny" : "allow",
      ...(users.length > 1 ? { userList: users } : {}),
      ...(groups.length > 1 ? { groupList: groups } : {}),
      ...(users.length === 1 ? { userExp: users[0] } : {}),
      ...(groups.length === 1 ? { groupExp: groups[0] } : {}),
    };
  }
  if (r.parent) out.parentRule = ruleDao(r.parent);
  return out;
}

/** One sample of the bounded history behind `/ws/v1/history/*`. */
export interface HistorySample {
  /** Unix ms. */
  time: number;
  applications: number;
  containers: number;
}

/**
 * The application and container counts over time (upstream pkg/metrics/history: one record a minute, 1440 kept).
 * `record` keeps the newest `capacity` samples.
 */
export class History {
  private readonly samples: HistorySample[] = [];
  constructor(private readonly capacity = 1440) {}

  record(s: HistorySample): void {
    this.samples.push(s);
    if (this.samples.length > this.capacity) this.samples.splice(0, this.samples.length - this.capacity);
  }

  /** `[{timestamp (ns), totalApplications (string)}]`. */
  apps(): { timestamp: number; totalApplications: string }[] {
    return this.samples.map((s) => ({ timestamp: ns(s.time), totalApplications: String(s.applications) }));
  }

  /** `[{timestamp (ns), totalContainers (string)}]`. */
  containers(): { timestamp: number; totalContainers: string }[] {
    return this.samples.map((s) => ({ timestamp: ns(s.time), totalContainers: String(s.containers) }));
  }
}

/** The counts a history sample records (upstream metrics_collector.go): running applications, allocations. */
export function countsOf(core: SchedulerCore): { applications: number; containers: number } {
  let applications = 0;
  let containers = 0;
  for (const name of core.partitionNames()) {
    const p = core.partitionView(name)!;
    applications += (p.applications.Running ?? 0) + (p.applications.Starting ?? 0);
    containers += p.allocations;
  }
  return { applications, containers };
}
