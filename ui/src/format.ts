/**
 * Human units for the dashboard: the API speaks YuniKorn's units (vcore in millicores, memory and storage in bytes);
 * people read cores and Gi. Pure functions, no DOM.
 */
import type { Resource } from "../../src/scheduler/rest/api-types.js";

const BYTES = new Set(["memory", "ephemeral-storage"]);
const KI = 1024;
const UNITS: [string, number][] = [
  ["Ti", KI ** 4],
  ["Gi", KI ** 3],
  ["Mi", KI ** 2],
  ["Ki", KI],
];

/** How a resource type is called on the page: `vcore` is "cpu"; others keep their Kubernetes name. */
export function resourceLabel(name: string): string {
  if (name === "vcore") return "cpu";
  if (name === "ephemeral-storage") return "ephemeral storage";
  return name;
}

/** Types in display order: cpu, memory, pods, then the rest alphabetically. */
export function resourceOrder(names: Iterable<string>): string[] {
  const rank = (n: string) => ["vcore", "memory", "pods"].indexOf(n);
  return [...new Set(names)].sort((a, b) => {
    const ra = rank(a);
    const rb = rank(b);
    if (ra >= 0 || rb >= 0) return (ra < 0 ? 99 : ra) - (rb < 0 ? 99 : rb);
    return a < b ? -1 : 1;
  });
}

const formats = new Map<number, Intl.NumberFormat>();

/** At most `digits` decimals, trailing zeros dropped, thousands separated: 1.50 → "1.5", 30998.5 → "30,998.5". */
export function num(v: number, digits = 2): string {
  let f = formats.get(digits);
  if (!f) formats.set(digits, (f = new Intl.NumberFormat("en-US", { maximumFractionDigits: digits })));
  return f.format(v);
}

/** The unit and divisor that suit `v` (bytes or millicores) for `name`; "" for plain counts. */
export function unitFor(name: string, v: number): { unit: string; div: number } {
  if (name === "vcore") return { unit: Math.abs(v) === 1000 ? "core" : "cores", div: 1000 };
  if (BYTES.has(name)) {
    for (const [unit, div] of UNITS) if (Math.abs(v) >= div) return { unit, div };
    return { unit: "B", div: 1 };
  }
  return { unit: "", div: 1 };
}

/** One quantity: `(vcore, 1500)` → "1.5 cores", `(memory, 2147483648)` → "2 Gi", `(pods, 3)` → "3". */
export function quantity(name: string, v: number): string {
  const { unit, div } = unitFor(name, v);
  return unit ? `${num(v / div)} ${unit}` : num(v / div);
}

/**
 * `used` of `max` in one unit, chosen by the larger: `(vcore, 2000, 2000)` → "2 of 2 cores", `(memory, 1 Gi, 8 Gi)`
 * → "1 of 8 Gi".
 */
export function ofMax(name: string, used: number, max: number): string {
  const { unit, div } = unitFor(name, Math.max(Math.abs(used), Math.abs(max)));
  const u = name === "vcore" ? (max === 1000 ? "core" : "cores") : unit;
  return `${num(used / div)} of ${num(max / div)}${u ? ` ${u}` : ""}`;
}

/** A resource map in words: `{vcore: 1000, memory: 1073741824}` → "cpu 1 core, memory 1 Gi"; "nothing" when empty. */
export function resources(r: Resource | undefined): string {
  const keys = resourceOrder(Object.keys(r ?? {})).filter((k) => r![k] !== 0);
  if (keys.length === 0) return "nothing";
  return keys.map((k) => `${resourceLabel(k)} ${quantity(k, r![k]!)}`).join(", ");
}

/** A time span in words, for "waiting for": 42 s, 3 min, 2 h 5 min, 3 d 4 h. */
export function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h} h${m % 60 ? ` ${m % 60} min` : ""}`;
  const d = Math.floor(h / 24);
  return `${d} d${h % 24 ? ` ${h % 24} h` : ""}`;
}

/** Unix ms as a local date and time, `YYYY-MM-DD HH:MM:SS`. */
export function dateTime(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** Unix nanoseconds (YuniKorn's timestamps) to Unix milliseconds. */
export const nsToMs = (ns: number) => Math.floor(ns / 1e6);

/** used / max as a fraction in [0, 1]; 0 without a positive max. */
export function fraction(used: number, max: number | undefined): number {
  if (!max || max <= 0) return 0;
  return Math.min(1, Math.max(0, used / max));
}
