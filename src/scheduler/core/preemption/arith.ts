/**
 * The resource comparisons preemption needs, with yunikorn-core's distinction between an unset resource (`undefined`,
 * Go's nil) and an empty one (`{}`), which the guarantee rules depend on (apache/yunikorn-core
 * pkg/common/resources/resources.go: SubOnlyExisting, ComponentWiseMin, ComponentWiseMinOnlyExisting, FitInActual,
 * StrictlyGreaterThanOrEquals, StrictlyGreaterThanOnlyExisting, EqualsOrEmpty, MatchAny). Same names as upstream so the
 * algorithm reads like preemption.go; MergeIfNotPresent and SubEliminateNegative are worked out in place where the
 * guarantee and node search need them (guarantee.ts, node-search.ts). Plain sums and fits are in ../resources.ts.
 */
import type { Res } from "../resources.js";

export type MaybeRes = Readonly<Res> | undefined;

export function isEmpty(r: MaybeRes): boolean {
  if (!r) return true;
  for (const _ in r) return false;
  return true;
}

/** Every quantity is 0 (or the resource is unset). */
export function isZero(r: MaybeRes): boolean {
  if (!r) return true;
  for (const k in r) if (r[k] !== 0) return false;
  return true;
}

/** `base − delta` for the types in `base` only; unset `base` or `delta` ⇒ a copy of `base`. */
export function subOnlyExisting(base: MaybeRes, delta: MaybeRes): Res | undefined {
  if (!base) return undefined;
  if (!delta) return { ...base };
  const out: Res = {};
  for (const k in base) out[k] = base[k]! - (delta[k] ?? 0);
  return out;
}

/** Per-type minimum over the union of types (a type on one side only is kept); both unset ⇒ unset. */
export function componentWiseMin(a: MaybeRes, b: MaybeRes): Res | undefined {
  if (!a && !b) return undefined;
  if (!a) return { ...b };
  if (!b) return { ...a };
  const out: Res = { ...b };
  for (const k in a) out[k] = k in b ? Math.min(a[k]!, b[k]!) : a[k]!;
  return out;
}

/** Per-type minimum over the types of `a` only; `a` unset ⇒ unset. */
export function componentWiseMinOnlyExisting(a: MaybeRes, b: MaybeRes): Res | undefined {
  if (!a) return undefined;
  if (!b) return { ...a };
  const out: Res = {};
  for (const k in a) out[k] = k in b ? Math.min(a[k]!, b[k]!) : a[k]!;
  return out;
}

/** `small` fits in `big` for the types `big` defines, without clamping negatives (FitInActual). */
export function fitInActual(big: MaybeRes, small: MaybeRes): boolean {
  if (!small) return true;
  const b = big ?? {};
  for (const k in small) {
    const v = b[k];
    if (v === undefined) continue;
    if (small[k]! > v) return false;
  }
  return true;
}

/** `small` fits in `big`; a type missing in `big` is 0 and negatives count as 0 (FitIn). */
export function fitIn(big: MaybeRes, small: MaybeRes): boolean {
  if (!small) return true;
  const b = big ?? {};
  for (const k in small) if (small[k]! > Math.max(0, b[k] ?? 0)) return false;
  return true;
}

/** `larger ≥ smaller` in every type of either side (a missing type is 0). */
export function strictlyGreaterThanOrEquals(larger: MaybeRes, smaller: MaybeRes): boolean {
  const l = larger ?? {},
    s = smaller ?? {};
  for (const k in l) if ((s[k] ?? 0) > l[k]!) return false;
  for (const k in s) if ((l[k] ?? 0) < s[k]!) return false;
  return true;
}

function strictlyOnlyExisting(r: MaybeRes, smaller: MaybeRes, orEquals: boolean): boolean {
  const big = r ?? {},
    small = smaller ?? {};
  const smallEmpty = isEmpty(small),
    bigEmpty = isEmpty(big);
  let notEqual = false,
    equal = false,
    common = false,
    allPositive = true;
  for (const k in big) {
    const v = big[k]!;
    if (smallEmpty && v <= 0) allPositive = false;
    const s = small[k];
    if (s !== undefined) {
      common = true;
      if (s > v) return false;
      equal = true;
      if (s !== v) notEqual = true;
    }
  }
  if (smallEmpty && !bigEmpty) return allPositive;
  if (common) return orEquals ? equal : notEqual;
  return !bigEmpty && !smallEmpty;
}

/** `r > smaller` over the shared types, at least one differing (StrictlyGreaterThanOnlyExisting). */
export function strictlyGreaterThanOnlyExisting(r: MaybeRes, smaller: MaybeRes): boolean {
  return strictlyOnlyExisting(r, smaller, false);
}

/** `r ≥ smaller` over the shared types (StrictlyGreaterThanOrEqualsOnlyExisting). */
export function strictlyGreaterThanOrEqualsOnlyExisting(r: MaybeRes, smaller: MaybeRes): boolean {
  return strictlyOnlyExisting(r, smaller, true);
}

export function equals(a: MaybeRes, b: MaybeRes): boolean {
  if (a === b) return true;
  if (!a || !b) return false;
  for (const k in a) if ((b[k] ?? 0) !== a[k]) return false;
  for (const k in b) if ((a[k] ?? 0) !== b[k]) return false;
  return true;
}

export function equalsOrEmpty(a: MaybeRes, b: MaybeRes): boolean {
  return (isZero(a) && isZero(b)) || equals(a, b);
}

/** The two resources share at least one type. */
export function matchAny(a: MaybeRes, b: MaybeRes): boolean {
  if (!a || !b) return false;
  for (const k in a) if (k in b) return true;
  return false;
}

/** No type negative and at least one positive (StrictlyGreaterThanZero). */
export function strictlyGreaterThanZero(r: MaybeRes): boolean {
  if (!r) return false;
  let pos = false;
  for (const k in r) {
    if (r[k]! < 0) return false;
    if (r[k]! > 0) pos = true;
  }
  return pos;
}
