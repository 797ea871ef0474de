/**
 * Typed admission controller configuration.
 *
 * Sources, lowest precedence first (design 002 "Configuration"; yunikorn-admission reference §9):
 *   1. built-in defaults (the table in {@link ADMISSION_CONFIG_KEYS});
 *   2. environment variables (`ADMISSION_CONTROLLER_*`, `POLICY_GROUP`, ... — the design's names), read at start;
 *   3. the `yunikorn-defaults` ConfigMap, then `yunikorn-configs` (YuniKorn's `admissionController.*` keys),
 *      or a `--config FILE` map of the same keys when running without a cluster.
 * A later source overrides an earlier one key by key: the ConfigMap is the live, hot-reloaded source and wins over
 * the deployment-time environment.
 *
 * Parsing is pure: {@link parseAdmissionConfig} returns a frozen config or the list of every bad key with its value
 * and source; the caller keeps the last good config on error.
 */
import { CONF_SCHEDULER_USER, defaultSchedulerUser } from "../yunikorn/scheduler-identity.js";
import { parseGoRegExp } from "../util/go-regexp.js";
import { DEFAULT_QUEUE, DEFAULT_SCHEDULER_NAME, DEFAULT_USER_LABEL_KEY, GENERATE_UNIQUE_APP_IDS_KEY } from "../yunikorn/constants.js";
import { parseGoBool } from "../util/go-strconv.js";

/** A compiled comma-separated regex list (unanchored search, as Go's `MatchString`). */
export interface RegexList {
  /** The text as configured (for logs and dumps). */
  readonly source: string;
  readonly patterns: readonly RegExp[];
}

/** The frozen configuration used by every admission decision. */
export interface AdmissionConfig {
  /** Namespace of the controller: its ConfigMaps, CA Secret and Service (env `NAMESPACE`). */
  readonly namespace: string;
  /** `spec.schedulerName` written on pods. */
  readonly schedulerName: string;
  /** Service name used in the webhook clientConfig and certificate SANs. */
  readonly amServiceName: string;
  /** host:port of the scheduler REST API, target of queue-config validation. */
  readonly schedulerServiceAddress: string;
  readonly processNamespaces: RegexList;
  readonly bypassNamespaces: RegexList;
  readonly labelNamespaces: RegexList;
  readonly noLabelNamespaces: RegexList;
  /** Generate `<ns[:26]>-uniqueautogen` ids instead of `yunikorn-<ns>-autogen`. */
  readonly generateUniqueAppId: boolean;
  /** Queue label value for pods that name none; `""` disables (design 000). */
  readonly defaultQueue: string;
  /** Skip the user.info trust check; see design 002 BYPASS_AUTH. */
  readonly bypassAuth: boolean;
  /** Users matching `systemUsers` may create objects that carry user.info. */
  readonly trustControllers: boolean;
  /** Refuse pods (and templates) routed to the scheduler that preset `spec.nodeName`, unless from a trusted controller. */
  readonly refusePresetNodeName: boolean;
  readonly systemUsers: RegexList;
  readonly externalUsers: RegexList;
  readonly externalGroups: RegexList;
  /**
   * `service.schedulerUser`: the scheduler's own user, the only requester besides trusted controllers that may set
   * `internal.yunikorn.apache.org/placeholder` (default `system:serviceaccount:<namespace>:corral-scheduler`).
   */
  readonly schedulerUser: string;
  /** Legacy user label key (design 002 "Backwards compatibility"). */
  readonly userLabelKey: string;
  /** `<policyGroup>.yaml` holds the queue configuration. */
  readonly policyGroup: string;
  /** `false` stops applying ConfigMap changes until restart (one-way, as upstream). */
  readonly enableConfigHotRefresh: boolean;
  /** Deny ConfigMap changes when the scheduler cannot validate them (YuniKorn allows them). */
  readonly strictConfigValidation: boolean;
  /** Timeout of the scheduler validation call, in milliseconds. */
  readonly schedulerValidationTimeoutMs: number;
  /** pino level: trace, debug, info, warn, error, fatal. */
  readonly logLevel: string;
  /** Names of the webhook configurations the controller registers. */
  readonly mutatingConfigurationName: string;
  readonly validatingConfigurationName: string;
  readonly mutateFailurePolicy: "Fail" | "Ignore";
  readonly validateFailurePolicy: "Fail" | "Ignore";
  /** The pods/status UPDATE check: its failurePolicy, or `Off` (not registered). */
  readonly podStatusPolicy: "Fail" | "Ignore" | "Off";
  /** Webhook timeout the API server applies, seconds (1-30). */
  readonly webhookTimeoutSeconds: number;
}

type KeyKind =
  | "string"
  | "optionalString"
  | "bool"
  | "regexList"
  | "queue"
  | "dnsLabel"
  | "dnsSubdomain"
  | "hostPort"
  | "level"
  | "labelKey"
  | "millis"
  | "failurePolicy"
  | "statusPolicy"
  | "seconds";

interface KeySpec {
  field: keyof AdmissionConfig;
  kind: KeyKind;
  default: string;
  /** Environment variables that set this key, first match wins. */
  env: readonly string[];
  doc: string;
}

/**
 * Every configuration key with its type, default, environment variables and meaning.
 * The README's configuration table is generated from this list (`corral admission --help-config`).
 */
export const ADMISSION_CONFIG_KEYS: Readonly<Record<string, KeySpec>> = {
  "admissionController.schedulerName": {
    field: "schedulerName",
    kind: "dnsLabel",
    default: DEFAULT_SCHEDULER_NAME,
    env: ["ADMISSION_CONTROLLER_SCHEDULER_NAME"],
    doc: "spec.schedulerName written on mutated pods",
  },
  "admissionController.webHook.amServiceName": {
    field: "amServiceName",
    kind: "dnsLabel",
    default: "yunikorn-admission-controller-service",
    env: ["ADMISSION_CONTROLLER_SERVICE"],
    doc: "Service name of the admission controller (webhook clientConfig, certificate SANs)",
  },
  "admissionController.webHook.schedulerServiceAddress": {
    field: "schedulerServiceAddress",
    kind: "hostPort",
    default: "yunikorn-service:9080",
    env: ["SCHEDULER_SERVICE_ADDRESS"],
    doc: "host:port of the scheduler REST API used to validate queue configuration",
  },
  "admissionController.webHook.strictConfigValidation": {
    field: "strictConfigValidation",
    kind: "bool",
    default: "false",
    env: ["ADMISSION_CONTROLLER_STRICT_CONFIG_VALIDATION"],
    doc: "deny a yunikorn-configs change when the scheduler cannot be reached to validate it (YuniKorn allows it)",
  },
  "admissionController.webHook.schedulerValidationTimeoutMs": {
    field: "schedulerValidationTimeoutMs",
    kind: "millis",
    default: "5000",
    env: [],
    doc: "timeout of the scheduler validation call, milliseconds",
  },
  "admissionController.webHook.mutatingConfigurationName": {
    field: "mutatingConfigurationName",
    kind: "dnsSubdomain",
    default: "yunikorn-admission-controller-mutations",
    env: [],
    doc: "name of the MutatingWebhookConfiguration the controller registers",
  },
  "admissionController.webHook.validatingConfigurationName": {
    field: "validatingConfigurationName",
    kind: "dnsSubdomain",
    default: "yunikorn-admission-controller-validations",
    env: [],
    doc: "name of the ValidatingWebhookConfiguration the controller registers",
  },
  "admissionController.webHook.mutateFailurePolicy": {
    field: "mutateFailurePolicy",
    kind: "failurePolicy",
    default: "Fail",
    env: [],
    doc: "failurePolicy of the mutating webhook; Fail keeps pods from being created unstamped while corral is down",
  },
  "admissionController.webHook.validateFailurePolicy": {
    field: "validateFailurePolicy",
    kind: "failurePolicy",
    default: "Ignore",
    env: [],
    doc: "failurePolicy of the ConfigMap validating webhook (YuniKorn: Ignore)",
  },
  "admissionController.webHook.podStatusPolicy": {
    field: "podStatusPolicy",
    kind: "statusPolicy",
    default: "Ignore",
    env: [],
    doc:
      "pods/status UPDATEs that change user.info are refused by a validating webhook with this failurePolicy (Fail " +
      "or Ignore); Off registers none",
  },
  "admissionController.webHook.timeoutSeconds": {
    field: "webhookTimeoutSeconds",
    kind: "seconds",
    default: "5",
    env: [],
    doc: "timeoutSeconds of both webhooks (1-30)",
  },
  "admissionController.filtering.processNamespaces": {
    field: "processNamespaces",
    kind: "regexList",
    default: "",
    env: ["ADMISSION_CONTROLLER_PROCESS_NAMESPACES"],
    doc: "comma-separated regexes; when set, only matching namespaces are processed (empty: all)",
  },
  "admissionController.filtering.bypassNamespaces": {
    field: "bypassNamespaces",
    kind: "regexList",
    default: "^kube-system$",
    env: ["ADMISSION_CONTROLLER_BYPASS_NAMESPACES"],
    doc: "comma-separated regexes; matching namespaces are never processed",
  },
  "admissionController.filtering.labelNamespaces": {
    field: "labelNamespaces",
    kind: "regexList",
    default: "",
    env: ["ADMISSION_CONTROLLER_LABEL_NAMESPACES"],
    doc: "comma-separated regexes; when set, only matching namespaces get application id and queue labels (empty: all)",
  },
  "admissionController.filtering.noLabelNamespaces": {
    field: "noLabelNamespaces",
    kind: "regexList",
    default: "",
    env: ["ADMISSION_CONTROLLER_NO_LABEL_NAMESPACES"],
    doc: "comma-separated regexes; matching namespaces never get labels",
  },
  [GENERATE_UNIQUE_APP_IDS_KEY]: {
    field: "generateUniqueAppId",
    kind: "bool",
    default: "false",
    env: ["ADMISSION_CONTROLLER_GENERATE_UNIQUE_APP_ID"],
    doc: "generate one application id per pod (<namespace>-uniqueautogen) instead of one per namespace",
  },
  "admissionController.filtering.defaultQueue": {
    field: "defaultQueue",
    kind: "queue",
    default: DEFAULT_QUEUE,
    env: ["ADMISSION_CONTROLLER_DEFAULT_QUEUE"],
    doc: "queue label for pods that name no queue; empty disables",
  },
  "admissionController.accessControl.bypassAuth": {
    field: "bypassAuth",
    kind: "bool",
    default: "false",
    env: ["ADMISSION_CONTROLLER_BYPASS_AUTH"],
    doc: "accept user.info from anyone (no trust check); the legacy user label is then honoured",
  },
  "admissionController.accessControl.trustControllers": {
    field: "trustControllers",
    kind: "bool",
    default: "true",
    env: ["ADMISSION_CONTROLLER_TRUST_CONTROLLERS", "ADMISSION_CONTROLLER_BYPASS_CONTROLLERS"],
    doc: "users matching systemUsers may create objects that already carry user.info",
  },
  "admissionController.accessControl.refusePresetNodeName": {
    field: "refusePresetNodeName",
    kind: "bool",
    default: "true",
    env: ["ADMISSION_CONTROLLER_REFUSE_PRESET_NODE_NAME"],
    doc:
      "refuse pods and pod templates for the scheduler that already name a node (spec.nodeName), which would bypass " +
      "queue and user limits; trusted controllers and kubelets' mirror pods excepted",
  },
  "admissionController.accessControl.systemUsers": {
    field: "systemUsers",
    kind: "regexList",
    default: "^system:serviceaccount:kube-system:,^system:kube-controller-manager$",
    env: ["ADMISSION_CONTROLLER_SYSTEM_USERS"],
    doc: "comma-separated regexes of controller users",
  },
  "admissionController.accessControl.externalUsers": {
    field: "externalUsers",
    kind: "regexList",
    default: "",
    env: ["ADMISSION_CONTROLLER_EXTERNAL_USERS"],
    doc: "comma-separated regexes of users allowed to set user.info (front ends such as Airflow)",
  },
  "admissionController.accessControl.externalGroups": {
    field: "externalGroups",
    kind: "regexList",
    default: "",
    env: ["ADMISSION_CONTROLLER_EXTERNAL_GROUPS"],
    doc: "comma-separated regexes of groups whose members may set user.info",
  },
  [CONF_SCHEDULER_USER]: {
    field: "schedulerUser",
    kind: "optionalString",
    default: "",
    env: ["ADMISSION_CONTROLLER_SCHEDULER_USER"],
    doc:
      "the scheduler's own user (its ServiceAccount): besides trusted controllers the only requester that may set " +
      "internal.yunikorn.apache.org/placeholder on pods and pod templates; empty: system:serviceaccount:<namespace>:corral-scheduler",
  },
  "service.userLabelKey": {
    field: "userLabelKey",
    kind: "labelKey",
    default: DEFAULT_USER_LABEL_KEY,
    env: ["USER_LABEL_KEY"],
    doc: "legacy user label, honoured only with bypassAuth (deprecated, logged at WARN)",
  },
  "service.policyGroup": {
    field: "policyGroup",
    kind: "string",
    default: "queues",
    env: ["POLICY_GROUP"],
    doc: "the queue configuration is the ConfigMap key <policyGroup>.yaml",
  },
  "service.enableConfigHotRefresh": {
    field: "enableConfigHotRefresh",
    kind: "bool",
    default: "true",
    env: ["ENABLE_CONFIG_HOT_REFRESH"],
    doc: "apply ConfigMap changes live; once false, later changes wait for a restart",
  },
  "log.level": {
    field: "logLevel",
    kind: "level",
    default: "info",
    env: ["LOG_LEVEL"],
    doc: "log level: trace, debug, info, warn, error, fatal, silent, or YuniKorn's dpanic, panic, -1 (debug) … 5 (fatal)",
  },
};

/** One rejected configuration value. */
export interface ConfigError {
  key: string;
  value: string;
  /** Where the value came from: `default`, `env NAME`, or a ConfigMap/file label. */
  source: string;
  message: string;
}

/** A named layer of raw string values (a ConfigMap's data, a file, ...). */
export interface ConfigLayer {
  name: string;
  data: Readonly<Record<string, string>>;
}

/** The parsed configuration, or every error found (each names its key). */
export type ParseResult = { ok: true; config: AdmissionConfig; errors: [] } | { ok: false; errors: ConfigError[] };

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const QUEUE_LABEL = /^root(\.[A-Za-z0-9_-]+)*$/;
const LABEL_NAME = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LEVELS = new Set(["trace", "debug", "info", "warn", "error", "fatal", "silent"]);

/** zap's levels by number (apache/yunikorn-core pkg/log parseLevel), as the logger's: dpanic and panic log as fatal. */
const ZAP_LEVELS = ["debug", "info", "warn", "error", "fatal", "fatal", "fatal"] as const;

/**
 * A `log.level` value as the logger's level: the logger's own names, or YuniKorn's (zap's names `dpanic` and `panic`,
 * or a number, -1 debug … 5 fatal, clamped to that range as upstream does); any case. Undefined when it is neither.
 */
export function pinoLevelOf(value: string): string | undefined {
  const v = value.trim().toLowerCase();
  if (LEVELS.has(v)) return v;
  if (v === "dpanic" || v === "panic") return "fatal";
  if (!/^[+-]?\d+$/.test(v)) return undefined;
  const n = Number(v);
  // Go's ParseInt(level, 10, 8): beyond an int8 it is no level at all
  if (n < -128 || n > 127) return undefined;
  return ZAP_LEVELS[Math.min(Math.max(n, -1), 5) + 1];
}

/**
 * Compiles a comma-separated list of Go (RE2) regular expressions (util/go-regexp.ts: leading flags such as `(?i)`,
 * `(?P<name>`; what RE2 refuses is refused). Entries are trimmed and empty entries skipped.
 * @throws Error naming the entry when one is not a Go regular expression.
 */
export function compileRegexList(text: string): RegexList {
  const patterns: RegExp[] = [];
  for (const raw of text.split(",")) {
    const entry = raw.trim();
    if (entry === "") continue;
    const r = parseGoRegExp(entry);
    if (!r.ok) throw new Error(`invalid regular expression ${JSON.stringify(entry)}: ${r.reason}`);
    patterns.push(r.regexp);
  }
  return Object.freeze({ source: text, patterns: Object.freeze(patterns) });
}

/** True when any pattern of the list matches (unanchored search). */
export function matchesAny(list: RegexList, value: string): boolean {
  for (const re of list.patterns) if (re.test(value)) return true;
  return false;
}

/** True when `labelKey` is a valid Kubernetes label key (`[prefix/]name`). */
export function isValidLabelKey(labelKey: string): boolean {
  const slash = labelKey.lastIndexOf("/");
  const name = slash >= 0 ? labelKey.slice(slash + 1) : labelKey;
  const prefix = slash >= 0 ? labelKey.slice(0, slash) : undefined;
  if (name.length === 0 || name.length > 63 || !LABEL_NAME.test(name)) return false;
  if (prefix !== undefined && (prefix.length === 0 || prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix))) return false;
  return true;
}

function parseValue(kind: KeyKind, value: string): unknown {
  switch (kind) {
    case "string":
      if (value.trim() === "") throw new Error("must not be empty");
      return value;
    case "optionalString":
      return value.trim();
    case "bool": {
      const b = parseGoBool(value.trim());
      if (b !== undefined) return b;
      throw new Error("must be a boolean (true or false)");
    }
    case "regexList":
      return compileRegexList(value);
    case "queue":
      if (value === "") return "";
      if (value.length > 63 || !QUEUE_LABEL.test(value)) {
        throw new Error(
          "must be empty or a fully qualified queue name starting with root. that is a valid label value (at most 63 " +
            "characters of [A-Za-z0-9_-] between dots)",
        );
      }
      return value;
    case "dnsLabel":
      if (value.length > 63 || !DNS_LABEL.test(value))
        throw new Error("must be a DNS label (lower-case alphanumerics and '-', at most 63 characters)");
      return value;
    case "dnsSubdomain":
      if (value.length > 253 || !DNS_SUBDOMAIN.test(value)) throw new Error("must be a DNS subdomain name");
      return value;
    case "failurePolicy":
      if (value !== "Fail" && value !== "Ignore") throw new Error("must be Fail or Ignore");
      return value;
    case "statusPolicy":
      if (value !== "Fail" && value !== "Ignore" && value !== "Off") throw new Error("must be Fail, Ignore or Off");
      return value;
    case "seconds": {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 1 || n > 30) throw new Error("must be an integer number of seconds between 1 and 30");
      return n;
    }
    case "hostPort": {
      const m = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(value);
      if (!m || Number(m[2]) < 1 || Number(m[2]) > 65535) throw new Error("must be host:port");
      return value;
    }
    case "level": {
      const level = pinoLevelOf(value);
      if (level === undefined)
        throw new Error(`must be one of ${[...LEVELS].join(", ")}, dpanic, panic, or a number from -1 (debug) to 5 (fatal)`);
      return level;
    }
    case "labelKey":
      if (!isValidLabelKey(value)) throw new Error("must be a valid label key ([prefix/]name)");
      return value;
    case "millis": {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 1 || n > 30_000) throw new Error("must be an integer number of milliseconds between 1 and 30000");
      return n;
    }
  }
}

/**
 * Builds the configuration from the environment and ordered layers (later layers win).
 * Keys that are not admission-controller keys are ignored (the ConfigMaps are shared with the scheduler).
 * Pure: no I/O, the environment is passed in.
 * @param env   environment variables (e.g. `process.env`)
 * @param layers raw key → string maps, lowest precedence first
 * @returns the frozen config, or every error (key, value, source, message)
 */
export function parseAdmissionConfig(env: Readonly<Record<string, string | undefined>>, layers: readonly ConfigLayer[] = []): ParseResult {
  const out: Record<string, unknown> = { namespace: env.NAMESPACE ?? env.ADMISSION_CONTROLLER_NAMESPACE ?? "default" };
  const errors: ConfigError[] = [];
  for (const layer of layers) {
    for (const key of Object.keys(layer.data)) {
      if (key.startsWith("admissionController.") && !Object.hasOwn(ADMISSION_CONFIG_KEYS, key)) {
        errors.push({ key, value: layer.data[key]!, source: layer.name, message: "unknown admission controller key" });
      }
    }
  }
  for (const [key, spec] of Object.entries(ADMISSION_CONFIG_KEYS)) {
    let value = spec.default;
    let source = "default";
    for (const name of spec.env) {
      const v = env[name];
      if (v !== undefined) {
        value = v;
        source = `env ${name}`;
        break;
      }
    }
    for (const layer of layers) {
      const v = layer.data[key];
      if (v !== undefined) {
        value = v;
        source = layer.name;
      }
    }
    try {
      out[spec.field] = parseValue(spec.kind, value);
    } catch (err) {
      errors.push({ key, value, source, message: (err as Error).message });
    }
  }
  if (out.schedulerUser === "") out.schedulerUser = defaultSchedulerUser(out.namespace as string);
  if (!DNS_LABEL.test(out.namespace as string)) {
    errors.push({ key: "NAMESPACE", value: out.namespace as string, source: "env", message: "must be a namespace name" });
  }
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, config: Object.freeze(out) as unknown as AdmissionConfig, errors: [] };
}

/** Formats errors one per line: `key=value (source): message`. */
export function formatConfigErrors(errors: readonly ConfigError[]): string {
  return errors.map((e) => `${e.key}=${JSON.stringify(e.value)} (${e.source}): ${e.message}`).join("; ");
}

/** The default configuration (no environment, no layers). */
export function defaultAdmissionConfig(namespace = "default"): AdmissionConfig {
  const r = parseAdmissionConfig({ NAMESPACE: namespace });
  if (!r.ok) throw new Error(`built-in defaults are invalid: ${formatConfigErrors(r.errors)}`);
  return r.config;
}

/** A config as plain strings, for logs and `/ws`-style dumps. */
export function describeConfig(cfg: AdmissionConfig): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = { namespace: cfg.namespace };
  for (const [key, spec] of Object.entries(ADMISSION_CONFIG_KEYS)) {
    const v = cfg[spec.field] as unknown;
    out[key] = typeof v === "object" && v !== null && "source" in v ? (v as RegexList).source : (v as string | number | boolean);
  }
  return out;
}

/** What happened to a configuration update. */
export type ConfigUpdate =
  | { status: "applied"; config: AdmissionConfig }
  | { status: "unchanged" }
  | { status: "rejected"; errors: ConfigError[] }
  /** `service.enableConfigHotRefresh` was false in the running config: the update waits for a restart. */
  | { status: "ignored" };

/**
 * Holds the config in force and applies updates: an invalid update is rejected whole and the last good config stays;
 * once hot refresh is off (`service.enableConfigHotRefresh: false`), later updates are ignored until restart.
 */
export class AdmissionConfigStore {
  private cfg: AdmissionConfig;
  private lastKey: string;

  /** @throws Error listing every bad key when the initial config is invalid */
  constructor(
    private readonly env: Readonly<Record<string, string | undefined>>,
    layers: readonly ConfigLayer[] = [],
  ) {
    const r = parseAdmissionConfig(env, layers);
    if (!r.ok) throw new Error(`invalid configuration: ${formatConfigErrors(r.errors)}`);
    this.cfg = r.config;
    this.lastKey = JSON.stringify(describeConfig(r.config));
  }

  get current(): AdmissionConfig {
    return this.cfg;
  }

  /** Parses `layers` as `update` would (same environment), without applying them; used to check a change first. */
  parse(layers: readonly ConfigLayer[]): ReturnType<typeof parseAdmissionConfig> {
    return parseAdmissionConfig(this.env, layers);
  }

  update(layers: readonly ConfigLayer[]): ConfigUpdate {
    if (!this.cfg.enableConfigHotRefresh) return { status: "ignored" };
    const r = this.parse(layers);
    if (!r.ok) return { status: "rejected", errors: r.errors };
    const key = JSON.stringify(describeConfig(r.config));
    if (key === this.lastKey) return { status: "unchanged" };
    this.cfg = r.config;
    this.lastKey = key;
    return { status: "applied", config: r.config };
  }
}
