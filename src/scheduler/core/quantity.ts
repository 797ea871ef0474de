/**
 * Resource quantities of `queues.yaml` (apache/yunikorn-core pkg/common/resources/quantity.go; yunikorn-core
 * reference §2.2): `^([0-9]+)\s*(([mkKMGTPE]i?)?)$` after trimming, decimal (k M G T P E) and binary (Ki … Ei)
 * suffixes; `vcore` is counted in milli-units (`"2"` → 2000, `"500m"` → 500); int64 overflow is an error.
 */

/** A resource: name → integer quantity (vcore in millicores, memory in bytes, anything else in units). */
export type Resource = Map<string, bigint>;

const INT64_MAX = (1n << 63n) - 1n;
const MULTIPLIERS: Record<string, bigint> = {
  "": 1n, k: 10n ** 3n, M: 10n ** 6n, G: 10n ** 9n, T: 10n ** 12n, P: 10n ** 15n, E: 10n ** 18n,
  Ki: 1n << 10n, Mi: 1n << 20n, Gi: 1n << 30n, Ti: 1n << 40n, Pi: 1n << 50n, Ei: 1n << 60n,
};
const QUANTITY = /^([0-9]+)\s*(([mkKMGTPE]i?)?)$/;

/**
 * Parses one quantity.
 * @param key resource name (`vcore` is in millis)
 * @throws Error `invalid quantity`, `invalid suffix` or `invalid quantity: overflow` (upstream texts)
 */
export function parseQuantity(key: string, value: string): bigint {
  const m = QUANTITY.exec(value.trim());
  if (!m) throw new Error("invalid quantity");
  const digits = BigInt(m[1]!);
  const suffix = m[2]!;
  let result: bigint;
  if (key === "vcore") {
    if (suffix === "m") result = digits;
    else {
      const mult = MULTIPLIERS[suffix];
      if (mult === undefined) throw new Error("invalid suffix");
      result = digits * mult * 1000n;
    }
  } else {
    const mult = MULTIPLIERS[suffix];
    if (mult === undefined) throw new Error("invalid suffix");
    result = digits * mult;
  }
  if (result > INT64_MAX) throw new Error("invalid quantity: overflow");
  return result;
}

/** Parses a `map[string]string` of quantities. @throws Error naming the first bad entry's problem */
export function parseResource(map: Readonly<Record<string, string>> | undefined): Resource {
  const r: Resource = new Map();
  if (!map) return r;
  for (const [k, v] of Object.entries(map)) r.set(k, parseQuantity(k, v));
  return r;
}

/** Go `%v` of the resource map: `map[memory:10 vcore:30]`, keys sorted. */
export function formatResource(r: Resource): string {
  return `map[${[...r.keys()].sort().map((k) => `${k}:${r.get(k)}`).join(" ")}]`;
}

/** Every key of `small` ≤ the same key of `big`; keys missing in `big` are unlimited (FitInMaxUndef). */
export function fitsInMaxUndef(big: Resource, small: Resource): boolean {
  for (const [k, v] of small) {
    const b = big.get(k);
    if (b !== undefined && v > b) return false;
  }
  return true;
}

/** No negative value and at least one positive (StrictlyGreaterThanZero). */
export function strictlyPositive(r: Resource): boolean {
  let pos = false;
  for (const v of r.values()) {
    if (v < 0n) return false;
    if (v > 0n) pos = true;
  }
  return pos;
}

export function isZero(r: Resource): boolean {
  for (const v of r.values()) if (v !== 0n) return false;
  return true;
}

export function add(a: Resource, b: Resource): Resource {
  const r = new Map(a);
  for (const [k, v] of b) r.set(k, (r.get(k) ?? 0n) + v);
  return r;
}

/** Component-wise minimum where a key missing on one side means unlimited (effective max). */
export function minMaxUndef(a: Resource | undefined, b: Resource | undefined): Resource | undefined {
  if (!a) return b;
  if (!b) return a;
  const r = new Map(a);
  for (const [k, v] of b) {
    const x = r.get(k);
    r.set(k, x === undefined || v < x ? v : x);
  }
  return r;
}
