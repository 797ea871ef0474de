/**
 * `GET /ws/v1/config` as upstream serves it (apache/yunikorn-core pkg/webservice/handlers.go getClusterConfig,
 * dao/config_info.go ConfigDAOInfo, pkg/common/configs/config.go): the configuration in force with its checksum, the
 * extra configuration (the ConfigMap keys that are not `*.yaml`) and the deadlock-detection settings. As YAML the keys
 * are the lower-cased Go field names (yaml.v3), as JSON the Go field names themselves (`Partitions`, `Queues`,
 * `SubmitACL`…), with Go's `omitempty`: a struct field is always written, an empty string, list or map or a false or
 * zero is left out where the field says so. Pure.
 */
import { createHash } from "node:crypto";
import type {
  ChildTemplateConfig,
  FilterConfig,
  LimitConfig,
  PartitionConfig,
  PlacementRuleConfig,
  QueueConfig,
  ResourcesConfig,
  SchedulerConfig,
} from "../core/config.js";

/** Deadlock detection (upstream pkg/locking): corral has no locks to watch; the timeout is upstream's default. */
export const DEADLOCK_TIMEOUT_SECONDS = 60;

/**
 * The checksum upstream gives a configuration (configs.SetChecksum): upper-case hex SHA-256 of its text with a
 * `checksum: <hex>` entry taken out (GetConfigurationString).
 */
export function configChecksum(text: string): string {
  let stripped = text;
  const key = "checksum: ";
  const at = text.indexOf(key);
  if (at >= 0) {
    // the key and what follows it on the text, up to 64 characters, without trailing newlines
    let entry = key + text.slice(at + key.length).split(key)[0]!;
    entry = entry.replace(/\n+$/, "");
    if (entry.length > 64 + key.length) entry = entry.slice(0, 64 + key.length);
    stripped = text.replaceAll(entry, "");
  }
  return createHash("sha256").update(stripped, "utf8").digest("hex").toUpperCase();
}

/** What the endpoint reports besides the configuration. */
export interface ConfigExtras {
  /** The text the configuration was read from ("" for the default configuration). */
  text: string;
  /** The extra configuration: ConfigMap keys not ending in `.yaml` (upstream configs.GetConfigMap). */
  extra: Readonly<Record<string, string>>;
}

/** The YAML document (lower-case keys, as the configuration file spells them). */
export function configYaml(cfg: SchedulerConfig, o: ConfigExtras): Record<string, unknown> {
  return {
    partitions: cfg.partitions,
    checksum: configChecksum(o.text),
    ...(Object.keys(o.extra).length > 0 ? { extra: o.extra } : {}),
    deadlockdetectionenabled: false,
    deadlocktimeoutseconds: DEADLOCK_TIMEOUT_SECONDS,
  };
}

/** The JSON document (Go field names, Go's `omitempty`). */
export function configJson(cfg: SchedulerConfig, o: ConfigExtras): Record<string, unknown> {
  return {
    Partitions: cfg.partitions.map(partitionJson),
    Checksum: configChecksum(o.text),
    ...(Object.keys(o.extra).length > 0 ? { Extra: o.extra } : {}),
    DeadlockDetectionEnabled: false,
    DeadlockTimeoutSeconds: DEADLOCK_TIMEOUT_SECONDS,
  };
}

/** Go's `omitempty`: undefined for an empty string, list or map, false and 0; the value otherwise. */
function omitEmpty<T>(v: T | undefined): T | undefined {
  if (v === undefined || v === null || v === "" || v === false || v === 0) return undefined;
  if (Array.isArray(v)) return v.length > 0 ? v : undefined;
  if (typeof v === "object") return Object.keys(v).length > 0 ? v : undefined;
  return v;
}

/** An object without its undefined fields (what `omitempty` left out). */
function compact(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

function partitionJson(p: PartitionConfig): Record<string, unknown> {
  return compact({
    Name: p.name,
    Queues: p.queues ? p.queues.map(queueJson) : null,
    PlacementRules: omitEmpty(p.placementrules?.map(ruleJson)),
    Limits: omitEmpty(p.limits?.map(limitJson)),
    Preemption: compact({ Enabled: p.preemption?.enabled, QuotaPreemptionEnabled: p.preemption?.quotapreemptionenabled }),
    NodeSortPolicy: compact({ Type: p.nodesortpolicy?.type ?? "", ResourceWeights: omitEmpty(p.nodesortpolicy?.resourceweights) }),
    UserGroupResolver: compact({ type: omitEmpty(p.usergroupresolver?.type) }),
  });
}

function queueJson(q: QueueConfig): Record<string, unknown> {
  return compact({
    Name: q.name,
    Parent: omitEmpty(q.parent),
    Resources: resourcesJson(q.resources),
    MaxApplications: omitEmpty(q.maxapplications),
    Properties: omitEmpty(q.properties),
    AdminACL: omitEmpty(q.adminacl),
    SubmitACL: omitEmpty(q.submitacl),
    ChildTemplate: childTemplateJson(q.childtemplate),
    Queues: omitEmpty(q.queues?.map(queueJson)),
    Limits: omitEmpty(q.limits?.map(limitJson)),
  });
}

function resourcesJson(r: ResourcesConfig | undefined): Record<string, unknown> {
  return compact({ Guaranteed: omitEmpty(r?.guaranteed), Max: omitEmpty(r?.max) });
}

function childTemplateJson(t: ChildTemplateConfig | undefined): Record<string, unknown> {
  return compact({
    MaxApplications: omitEmpty(t?.maxapplications),
    Properties: omitEmpty(t?.properties),
    Resources: resourcesJson(t?.resources),
  });
}

function ruleJson(r: PlacementRuleConfig): Record<string, unknown> {
  return compact({
    Name: r.name,
    Create: omitEmpty(r.create),
    Filter: filterJson(r.filter),
    Parent: r.parent && ruleJson(r.parent),
    Value: omitEmpty(r.value),
  });
}

function filterJson(f: FilterConfig | undefined): Record<string, unknown> {
  return compact({ Type: f?.type ?? "", Users: omitEmpty(f?.users), Groups: omitEmpty(f?.groups) });
}

function limitJson(l: LimitConfig): Record<string, unknown> {
  return compact({
    Limit: l.limit ?? "",
    Users: omitEmpty(l.users),
    Groups: omitEmpty(l.groups),
    MaxResources: omitEmpty(l.maxresources),
    MaxApplications: omitEmpty(l.maxapplications),
  });
}
