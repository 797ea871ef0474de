/**
 * Resource quantities of `queues.yaml` (apache/yunikorn-core pkg/common/resources/quantity.go; yunikorn-core
 * reference §2.2): `^([0-9]+)\s*(([mkKMGTPE]i?)?)$` after trimming, decimal (k M G T P E) and binary (Ki … Ei)
 * suffixes; `vcore` is counted in milli-units (`"2"` → 2000, `"500m"` → 500); int64 overflow is an error.
 *
 * The parsing border of the core's one resource model: quantities are checked here as upstream does (on int64), then
 * handed to the core as numbers (resources.ts), where all arithmetic happens.
 */

import type { Res } from "./resources.js";

const INT64_MAX = (1n << 63n) - 1n;
const MULTIPLIERS: Record<string, bigint> = {
  "": 1n,
  k: 10n ** 3n,
  M: 10n ** 6n,
  G: 10n ** 9n,
  T: 10n ** 12n,
  P: 10n ** 15n,
  E: 10n ** 18n,
  Ki: 1n << 10n,
  Mi: 1n << 20n,
  Gi: 1n << 30n,
  Ti: 1n << 40n,
  Pi: 1n << 50n,
  Ei: 1n << 60n,
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

/**
 * Parses a `map[string]string` of quantities into the core's resource (numbers, see resources.ts).
 * @throws Error naming the first bad entry's problem: the upstream quantity errors, or `resource <k>=<v> is too large
 *   (max 9007199254740991)` for a value the core cannot hold exactly (above 2^53)
 */
export function parseResource(map: Readonly<Record<string, string>> | undefined): Res {
  const r: Res = {};
  if (!map) return r;
  for (const [k, v] of Object.entries(map)) {
    const q = parseQuantity(k, v);
    if (q > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error(`resource ${k}=${q} is too large (max ${Number.MAX_SAFE_INTEGER})`);
    r[k] = Number(q);
  }
  return r;
}
