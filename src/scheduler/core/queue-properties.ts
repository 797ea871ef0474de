/**
 * Queue properties that drive preemption and priority, read from a queue's `properties` map as yunikorn-core reads
 * them (apache/yunikorn-core pkg/scheduler/objects/queue.go UpdateQueueProperties, filterParentProperty,
 * convertDelay, priorityOffset; pkg/scheduler/policies/preemption_policy.go, priority_policy.go; constants and
 * defaults in pkg/common/configs/configvalidator.go; yunikorn-core reference §2.3).
 *
 * Like upstream, a bad value is not a configuration error (`validate-conf` accepts it and YuniKorn only logs it at
 * debug level): the property falls back to its default. Unlike upstream, every such fallback is returned as a typed
 * `PropertyProblem` so the edge can log or show it; nothing is dropped silently.
 */
import {
  PROPERTY_PREEMPTION_DELAY,
  PROPERTY_PREEMPTION_POLICY,
  PROPERTY_PRIORITY_OFFSET,
  PROPERTY_PRIORITY_POLICY,
  PROPERTY_QUOTA_PREEMPTION_DELAY,
} from "./config.js";

/** `preemption.policy`: `default` (victims anywhere), `fence` (own subtree only), `disabled` (never a victim). */
export type PreemptionPolicy = "default" | "fence" | "disabled";
/** `priority.policy`: `default` (priorities propagate upward, offset added), `fence` (the subtree shows only its offset). */
export type PriorityPolicy = "default" | "fence";

/** int32 bounds of Kubernetes priorities (configs.MinPriority / MaxPriority). */
export const MIN_PRIORITY = -2147483648;
/** Upper int32 bound of a Kubernetes priority (upstream configs.MaxPriority). */
export const MAX_PRIORITY = 2147483647;
/** configs.DefaultPreemptionDelay: 30 s, in milliseconds. */
export const DEFAULT_PREEMPTION_DELAY_MS = 30_000;
/** configs.DefaultQuotaPreemptionDelay: 0 (no quota-change preemption). */
export const DEFAULT_QUOTA_PREEMPTION_DELAY_MS = 0;

/** The preemption and priority settings of one queue, after defaults. Delays in milliseconds. */
export interface QueuePreemptionProperties {
  preemptionPolicy: PreemptionPolicy;
  /** Leaf queues only; a parent always has the default. */
  preemptionDelayMs: number;
  priorityPolicy: PriorityPolicy;
  /** int32, added to the queue's priority outside its subtree. */
  priorityOffset: number;
  /** 0 = quota-change preemption off for this queue. */
  quotaPreemptionDelayMs: number;
}

/** A property value that could not be used; the default took its place (upstream logs these at debug level). */
export interface PropertyProblem {
  key: string;
  value: string;
  /** Upstream's error text, e.g. `undefined preemption.policy: never`, `delay must be positive value: 0s`. */
  reason: string;
}

/** A queue's preemption and priority properties as read, with each bad value that fell back to its default (module comment). */
export interface ParsedQueueProperties {
  properties: QueuePreemptionProperties;
  problems: PropertyProblem[];
}

const UNITS_NS: Record<string, number> = { ns: 1, us: 1e3, "\u00b5s": 1e3, "\u03bcs": 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 };
/** Go's largest Duration, 2^63 − 1 ns; as a double it is 2^63 (the literal 9223372036854775807 rounds to the same). */
const MAX_DURATION_NS = 2 ** 63;

/**
 * Go's `time.ParseDuration`: a signed sequence of decimal numbers with optional fraction and a unit each (`ns`, `us`,
 * `µs`, `ms`, `s`, `m`, `h`), e.g. `300ms`, `-1.5h`, `2h45m`; `0` alone needs no unit.
 * @returns milliseconds (may be fractional or negative)
 * @throws Error with Go's text (`time: invalid duration "x"`, `time: missing unit in duration "5"`,
 *   `time: unknown unit "d" in duration "5d"`)
 */
export function parseGoDuration(text: string): number {
  const quoted = JSON.stringify(text);
  let s = text;
  let neg = false;
  if (s !== "" && (s[0] === "-" || s[0] === "+")) {
    neg = s[0] === "-";
    s = s.slice(1);
  }
  if (s === "0") return 0;
  if (s === "") throw new Error(`time: invalid duration ${quoted}`);
  let totalNs = 0;
  while (s !== "") {
    const num = /^([0-9]*)(?:\.([0-9]*))?/.exec(s)!;
    const [whole, intPart = "", frac] = num;
    if (intPart === "" && (frac === undefined || frac === "")) throw new Error(`time: invalid duration ${quoted}`);
    s = s.slice(whole.length);
    const unit = /^[^0-9.]*/.exec(s)![0];
    if (unit === "") throw new Error(`time: missing unit in duration ${quoted}`);
    const mult = UNITS_NS[unit];
    if (mult === undefined) throw new Error(`time: unknown unit ${JSON.stringify(unit)} in duration ${quoted}`);
    s = s.slice(unit.length);
    totalNs += Number(`${intPart || "0"}.${frac ?? ""}0`) * mult;
    if (totalNs > MAX_DURATION_NS) throw new Error(`time: invalid duration ${quoted}`);
  }
  return (neg ? -totalNs : totalNs) / 1e6;
}

/**
 * Go's `time.Duration.String()` of a duration in milliseconds: `0s`, `300ms`, `1.5s`, `1m30s`, `2h0m0s`.
 * Sub-millisecond parts are rounded to whole microseconds/nanoseconds as Go prints them.
 */
export function formatGoDuration(ms: number): string {
  let ns = Math.round(ms * 1e6);
  if (ns === 0) return "0s";
  const sign = ns < 0 ? "-" : "";
  ns = Math.abs(ns);
  const frac = (v: number, digits: number) => {
    const s = v.toString().padStart(digits, "0").replace(/0+$/, "");
    return s ? `.${s}` : "";
  };
  if (ns < 1e9) {
    if (ns < 1e3) return `${sign}${ns}ns`;
    if (ns < 1e6) return `${sign}${Math.floor(ns / 1e3)}${frac(ns % 1e3, 3)}\u00b5s`;
    return `${sign}${Math.floor(ns / 1e6)}${frac(ns % 1e6, 6)}ms`;
  }
  const h = Math.floor(ns / 3600e9);
  const m = Math.floor((ns % 3600e9) / 60e9);
  const sNs = ns % 60e9;
  const secs = `${Math.floor(sNs / 1e9)}${frac(sNs % 1e9, 9)}s`;
  if (h > 0) return `${sign}${h}h${m}m${secs}`;
  if (m > 0) return `${sign}${m}m${secs}`;
  return `${sign}${secs}`;
}

/** convertDelay: a Go duration strictly above 0, in milliseconds. */
function parseDelay(value: string): number {
  const ms = parseGoDuration(value);
  if (ms <= 0) throw new Error(`delay must be positive value: ${value}`);
  return ms;
}

/** strconv.ParseInt(value, 10, 32). */
function parseInt32(value: string): number {
  if (!/^[+-]?[0-9]+$/.test(value)) throw new Error(`strconv.ParseInt: parsing ${JSON.stringify(value)}: invalid syntax`);
  const n = Number(value);
  if (n < MIN_PRIORITY || n > MAX_PRIORITY) throw new Error(`strconv.ParseInt: parsing ${JSON.stringify(value)}: value out of range`);
  return n === 0 ? 0 : n;
}

function parsePreemptionPolicy(value: string): PreemptionPolicy {
  const v = value.toLowerCase();
  if (v === "" || v === "default") return "default";
  if (v === "fence" || v === "disabled") return v;
  throw new Error(`undefined preemption.policy: ${value}`);
}

function parsePriorityPolicy(value: string): PriorityPolicy {
  const v = value.toLowerCase();
  if (v === "" || v === "default") return "default";
  if (v === "fence") return "fence";
  throw new Error(`undefined priority.policy: ${value}`);
}

/**
 * The preemption and priority settings of a queue from its (already inherited, see `inheritQueueProperties`)
 * properties. Keys are case-sensitive as upstream; values of the policies are not.
 * @param props the queue's properties map (undefined: none)
 * @param isLeaf `preemption.delay` is only read on leaf queues
 */
export function parseQueuePreemptionProperties(
  props: Readonly<Record<string, string>> | undefined,
  isLeaf: boolean,
): ParsedQueueProperties {
  const properties: QueuePreemptionProperties = {
    preemptionPolicy: "default",
    preemptionDelayMs: DEFAULT_PREEMPTION_DELAY_MS,
    priorityPolicy: "default",
    priorityOffset: 0,
    quotaPreemptionDelayMs: DEFAULT_QUOTA_PREEMPTION_DELAY_MS,
  };
  const problems: PropertyProblem[] = [];
  const read = <T>(key: string, parse: (v: string) => T, set: (v: T) => void): void => {
    const value = props?.[key];
    if (value === undefined) return;
    try {
      set(parse(value));
    } catch (err) {
      problems.push({ key, value, reason: (err as Error).message });
    }
  };
  read(PROPERTY_PREEMPTION_POLICY, parsePreemptionPolicy, (v) => (properties.preemptionPolicy = v));
  read(PROPERTY_PRIORITY_POLICY, parsePriorityPolicy, (v) => (properties.priorityPolicy = v));
  read(PROPERTY_PRIORITY_OFFSET, parseInt32, (v) => (properties.priorityOffset = v));
  if (isLeaf) read(PROPERTY_PREEMPTION_DELAY, parseDelay, (v) => (properties.preemptionDelayMs = v));
  read(PROPERTY_QUOTA_PREEMPTION_DELAY, parseDelay, (v) => (properties.quotaPreemptionDelayMs = v));
  return { properties, problems };
}

/**
 * Properties YuniKorn reads that corral does not implement (queue.go UpdateQueueProperties: the number of
 * unschedulable asks after which an application is skipped, and for how long; YUNIKORN-3115).
 */
const UNSUPPORTED_PROPERTIES = ["application.unschedasks.backoff", "application.unschedasks.backoff.delay"] as const;

/**
 * The properties of a queue (merged) that YuniKorn reads and corral does not implement, as problems, so they are
 * reported rather than silently ignored: the application backoff keys, on a leaf (where upstream reads them for its
 * applications; a parent only passes them on).
 */
export function unsupportedPropertyProblems(props: Readonly<Record<string, string>> | undefined, isLeaf: boolean): PropertyProblem[] {
  if (!isLeaf) return [];
  return UNSUPPORTED_PROPERTIES.flatMap((key) => {
    const value = props?.[key];
    return value === undefined ? [] : [{ key, value, reason: "not supported by corral: applications are never backed off" }];
  });
}

/**
 * Properties of a configured queue: its parent's (already merged) properties, filtered, overlaid with its own
 * (Queue.mergeProperties / filterParentProperty): `priority.policy` is inherited as `default`, `priority.offset` as
 * `0`, `preemption.policy` only when `disabled` (else `default`); every other key is inherited as is. Dynamic queues
 * do not inherit (they take their parent's child template instead).
 */
export function inheritQueueProperties(
  parent: Readonly<Record<string, string>> | undefined,
  own: Readonly<Record<string, string>> | undefined,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(parent ?? {})) {
    if (k === PROPERTY_PRIORITY_POLICY) out[k] = "default";
    else if (k === PROPERTY_PRIORITY_OFFSET) out[k] = "0";
    else if (k === PROPERTY_PREEMPTION_POLICY) out[k] = v.toLowerCase() === "disabled" ? "disabled" : "default";
    else out[k] = v;
  }
  return Object.assign(out, own ?? {});
}

/** Partition `preemption` flags with upstream's defaults (PartitionContext.updatePreemption). */
export function partitionPreemptionFlags(p: { preemption?: { enabled?: boolean; quotapreemptionenabled?: boolean } }): {
  enabled: boolean;
  quotaPreemptionEnabled: boolean;
} {
  return { enabled: p.preemption?.enabled !== false, quotaPreemptionEnabled: p.preemption?.quotapreemptionenabled === true };
}
