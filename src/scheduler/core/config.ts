/**
 * `queues.yaml`: types and strict decoding (apache/yunikorn-core pkg/common/configs/config.go; yunikorn-core
 * reference §2.1). Like upstream's strict YAML decoder, an unknown key is an error; unlike it, the message names the
 * key, the type it was found in and its line. Validation of the decoded values is in validate.ts.
 */
import { LineCounter, parseDocument, isMap, isSeq, isScalar, type Node } from "yaml";

/**
 * Queue property keys (configvalidator.go constants; yunikorn-core reference §2.3). Values are read at queue build time
 * (queue-properties.ts for the preemption and priority keys), not by the validator.
 */
export const PROPERTY_APPLICATION_SORT_POLICY = "application.sort.policy";
/** `application.sort.priority`: `enabled` (default) or `disabled`, whether application priority orders a queue's applications. */
export const PROPERTY_APPLICATION_SORT_PRIORITY = "application.sort.priority";
/** `priority.policy`: `default` (priorities propagate upward) or `fence` (the subtree shows only its offset). */
export const PROPERTY_PRIORITY_POLICY = "priority.policy";
/** `priority.offset`: an integer added to the queue's priority as its parent sees it. */
export const PROPERTY_PRIORITY_OFFSET = "priority.offset";
/** `preemption.policy`: `default` (victims anywhere), `fence` (victims in its own subtree only) or `disabled` (never a victim). */
export const PROPERTY_PREEMPTION_POLICY = "preemption.policy";
/** `preemption.delay`: a Go duration an ask must wait before it may trigger preemption (default 30s). */
export const PROPERTY_PREEMPTION_DELAY = "preemption.delay";
/** `quota.preemption.delay`: a Go duration after which usage over a lowered queue max is preempted (default 0: never). */
export const PROPERTY_QUOTA_PREEMPTION_DELAY = "quota.preemption.delay";

/** A queue's `resources`: `guaranteed` and `max`, resource name → quantity string (`memory: 2Gi`, `vcore: 500m`). */
export interface ResourcesConfig {
  guaranteed?: Record<string, string>;
  max?: Record<string, string>;
}

/**
 * One entry of `limits` (queue or partition): who it applies to (`users`, `groups`, `*` for the wildcard) and their
 * `maxresources` and `maxapplications`.
 */
export interface LimitConfig {
  limit?: string;
  users?: string[];
  groups?: string[];
  maxresources?: Record<string, string>;
  maxapplications?: number;
}

/** A parent queue's `childtemplate`: settings applied to the dynamic leaf queues placement creates below it. */
export interface ChildTemplateConfig {
  maxapplications?: number;
  properties?: Record<string, string>;
  resources?: ResourcesConfig;
}

/** One queue of `queues.yaml` with its children (keys spelled as upstream, lower-case). */
export interface QueueConfig {
  name: string;
  parent?: boolean;
  resources?: ResourcesConfig;
  maxapplications?: number;
  properties?: Record<string, string>;
  adminacl?: string;
  submitacl?: string;
  childtemplate?: ChildTemplateConfig;
  queues?: QueueConfig[];
  limits?: LimitConfig[];
}

/** A placement rule's `filter` (placement/filter.ts): `type` `allow` or `deny`, and the users and groups it names. */
export interface FilterConfig {
  type?: string;
  users?: string[];
  groups?: string[];
}

/** One entry of `placementrules`: the rule's `name` (`provided`, `user`, `fixed`, `tag`), `create`, `filter`, `parent` rule and `value`. */
export interface PlacementRuleConfig {
  name: string;
  create?: boolean;
  filter?: FilterConfig;
  parent?: PlacementRuleConfig;
  value?: string;
}

/** One partition of `queues.yaml`: its queues, placement rules, limits, preemption switches and node sort policy. */
export interface PartitionConfig {
  name: string;
  queues?: QueueConfig[];
  placementrules?: PlacementRuleConfig[];
  limits?: LimitConfig[];
  preemption?: { enabled?: boolean; quotapreemptionenabled?: boolean };
  nodesortpolicy?: { type?: string; resourceweights?: Record<string, number> };
  usergroupresolver?: { type?: string };
}

/** The decoded `queues.yaml` (upstream configs.SchedulerConfig). */
export interface SchedulerConfig {
  partitions: PartitionConfig[];
  checksum?: string;
}

type Spec =
  | { t: "string" }
  | { t: "bool" }
  | { t: "uint" }
  | { t: "stringMap" }
  | { t: "floatMap" }
  | { t: "list"; of: Spec }
  | { t: "object"; type: string; fields: () => Record<string, Spec> };

const str: Spec = { t: "string" };
const bool: Spec = { t: "bool" };
const uint: Spec = { t: "uint" };
const stringMap: Spec = { t: "stringMap" };
const strList: Spec = { t: "list", of: str };
const resources: Spec = { t: "object", type: "Resources", fields: () => ({ guaranteed: stringMap, max: stringMap }) };
const limit: Spec = {
  t: "object",
  type: "Limit",
  fields: () => ({ limit: str, users: strList, groups: strList, maxresources: stringMap, maxapplications: uint }),
};
const queue: Spec = {
  t: "object",
  type: "QueueConfig",
  fields: () => ({
    name: str,
    parent: bool,
    resources,
    maxapplications: uint,
    properties: stringMap,
    adminacl: str,
    submitacl: str,
    childtemplate: { t: "object", type: "ChildTemplate", fields: () => ({ maxapplications: uint, properties: stringMap, resources }) },
    queues: { t: "list", of: queue },
    limits: { t: "list", of: limit },
  }),
};
const rule: Spec = {
  t: "object",
  type: "PlacementRule",
  fields: () => ({
    name: str,
    create: bool,
    value: str,
    parent: rule,
    filter: { t: "object", type: "Filter", fields: () => ({ type: str, users: strList, groups: strList }) },
  }),
};
const partition: Spec = {
  t: "object",
  type: "PartitionConfig",
  fields: () => ({
    name: str,
    queues: { t: "list", of: queue },
    placementrules: { t: "list", of: rule },
    limits: { t: "list", of: limit },
    preemption: { t: "object", type: "PartitionPreemptionConfig", fields: () => ({ enabled: bool, quotapreemptionenabled: bool }) },
    nodesortpolicy: { t: "object", type: "NodeSortingPolicy", fields: () => ({ type: str, resourceweights: { t: "floatMap" } }) },
    usergroupresolver: { t: "object", type: "UserGroupResolver", fields: () => ({ type: str }) },
  }),
};
const root: Spec = { t: "object", type: "SchedulerConfig", fields: () => ({ partitions: { t: "list", of: partition }, checksum: str }) };

/** YAML 1.1 booleans yaml.v3 decodes into a bool field (decode.go, "compatibility with the 1.1 spec"). */
const YAML11_TRUE = new Set(["y", "Y", "yes", "Yes", "YES", "on", "On", "ON"]);
const YAML11_FALSE = new Set(["n", "N", "no", "No", "NO", "off", "Off", "OFF"]);
/** yaml.v3's float syntax (resolve.go yamlStyleFloat). */
const YAML_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
/** yaml.v3's spellings of infinity and not-a-number (resolve.go resolve table). */
const YAML_SPECIAL_FLOATS: ReadonlyMap<string, number> = new Map(
  [".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"]
    .map((s): [string, number] => [s, Infinity])
    .concat(["-.inf", "-.Inf", "-.INF"].map((s): [string, number] => [s, -Infinity]))
    .concat([".nan", ".NaN", ".NAN"].map((s): [string, number] => [s, NaN])),
);
/** The base of Go's integer prefixes (strconv.ParseInt with base 0); a leading `0` alone is octal. */
const INT_PREFIX_BASE: Readonly<Record<string, number>> = { "0x": 16, "0o": 8, "0b": 2 };

/**
 * The number yaml.v3 resolves a plain scalar to (resolve.go): underscores dropped, then Go's `strconv.ParseInt(s, 0,
 * 64)` (decimal; `0x` hex, `0o` or a leading `0` octal, `0b` binary), else a float in YAML's syntax, else `.inf`,
 * `.nan` spellings; undefined when it is no number (a string to yaml.v3).
 */
export function goYamlNumber(source: string): number | undefined {
  const special = YAML_SPECIAL_FLOATS.get(source);
  if (special !== undefined) return special;
  const plain = source.replace(/_/g, "");
  const m = /^([-+]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/.exec(plain);
  if (m) {
    const body = m[2]!;
    const base = INT_PREFIX_BASE[body.slice(0, 2).toLowerCase()];
    const value = base ? Number.parseInt(body.slice(2), base) : Number.parseInt(body, body.length > 1 && body[0] === "0" ? 8 : 10);
    return m[1] === "-" ? -value : value;
  }
  return YAML_FLOAT.test(plain) ? Number.parseFloat(plain) : undefined;
}

/**
 * Thrown by {@link decodeQueuesYaml}, worded as upstream's yaml.v3 decoder: `yaml: line N: …` for YAML that does not
 * parse, `yaml: unmarshal errors:\n  line N: …` naming an unknown key or a value of the wrong type.
 */
export class ConfigDecodeError extends Error {}

/**
 * Decodes `queues.yaml` strictly.
 * @returns the config (empty input: no partitions)
 * @throws ConfigDecodeError naming the line and the bad YAML, unknown key or value of the wrong type
 */
export function decodeQueuesYaml(text: string): SchedulerConfig {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!;
    throw new ConfigDecodeError(`yaml: line ${e.linePos?.[0]?.line ?? "?"}: ${e.message.split("\n")[0]}`);
  }
  if (doc.contents === null || doc.contents === undefined) return { partitions: [] };
  const line = (n: Node | null | undefined) => (n?.range ? lc.linePos(n.range[0]).line : "?");
  const fail = (n: Node | null | undefined, msg: string): never => {
    throw new ConfigDecodeError(`yaml: unmarshal errors:\n  line ${line(n)}: ${msg}`);
  };
  // a string field takes the scalar as written (yaml.v3 `out.SetString(n.Value)`): `007` stays `007`, `0x10` text
  const scalarText = (n: Node, what: string): string => {
    if (!isScalar(n)) fail(n, `${what} must be a scalar`);
    const v = (n as { value: unknown }).value;
    if (v === null) return "";
    if (typeof v === "object") fail(n, `${what} must be a scalar`);
    const source = (n as { source?: unknown }).source;
    return typeof source === "string" ? source : String(v);
  };
  // a number as yaml.v3 resolves a plain scalar (decimal, 0x, 0o, 0b, 0777 octal, `_` ignored, floats); quoted: none
  const scalarNumber = (n: Node): number | undefined => {
    if (!isScalar(n)) return undefined;
    if (n.type !== "PLAIN") return undefined;
    const source = (n as { source?: unknown }).source;
    return typeof source === "string" ? goYamlNumber(source) : typeof n.value === "number" ? n.value : undefined;
  };
  const decode = (n: Node | null, spec: Spec, what: string): unknown => {
    if (n === null || (isScalar(n) && n.value === null)) return undefined;
    switch (spec.t) {
      case "string":
        return scalarText(n, what);
      case "bool": {
        const v = isScalar(n) ? n.value : undefined;
        if (typeof v === "boolean") return v;
        // YAML 1.1 booleans, which yaml.v3 still takes into a bool field
        if (typeof v === "string" && YAML11_TRUE.has(v)) return true;
        if (typeof v === "string" && YAML11_FALSE.has(v)) return false;
        return fail(n, `cannot decode ${JSON.stringify(isScalar(n) ? String(n.value) : "value")} into bool for ${what}`);
      }
      case "uint": {
        // yaml.v3 into uint64: a non-negative integer, or a float truncated
        const v = scalarNumber(n);
        if (v === undefined || !(v >= 0) || !Number.isFinite(v))
          fail(n, `cannot decode ${JSON.stringify(isScalar(n) ? String(n.value) : "value")} into uint64 for ${what}`);
        return Math.trunc(v!);
      }
      case "stringMap":
      case "floatMap": {
        if (!isMap(n)) fail(n, `${what} must be a map`);
        const out: Record<string, unknown> = {};
        for (const item of (n as { items: { key: Node; value: Node | null }[] }).items) {
          const k = scalarText(item.key, `key in ${what}`);
          if (spec.t === "floatMap") {
            const v = item.value ? scalarNumber(item.value) : undefined;
            if (v === undefined) fail(item.value ?? item.key, `${what}.${k} must be a number`);
            out[k] = v;
          } else {
            out[k] = item.value ? scalarText(item.value, `${what}.${k}`) : "";
          }
        }
        return out;
      }
      case "list": {
        if (!isSeq(n)) fail(n, `${what} must be a list`);
        return (n as { items: (Node | null)[] }).items.map(
          (x, i) => decode(x, spec.of, `${what}[${i}]`) ?? (spec.of.t === "object" ? {} : ""),
        );
      }
      case "object": {
        if (!isMap(n)) fail(n, `${what} must be a map`);
        const fields = spec.fields();
        const out: Record<string, unknown> = {};
        for (const item of (n as { items: { key: Node; value: Node | null }[] }).items) {
          const k = scalarText(item.key, `key in ${what}`);
          const f = fields[k];
          if (!f) fail(item.key, `field ${k} not found in type configs.${spec.type}`);
          const v = decode(item.value, f!, `${what}.${k}`);
          if (v !== undefined) out[k] = v;
        }
        return out;
      }
    }
  };
  const cfg = decode(doc.contents as Node, root, "config") as SchedulerConfig | undefined;
  const out = cfg ?? { partitions: [] };
  out.partitions ??= [];
  // a missing or null name is Go's zero value "" (refused later by name, never a crash on undefined)
  const named = (q: QueueConfig): void => {
    q.name ??= "";
    for (const c of q.queues ?? []) named(c);
  };
  for (const p of out.partitions) {
    p.name ??= "";
    for (const q of p.queues ?? []) named(q);
  }
  return out;
}
