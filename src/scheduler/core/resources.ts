/**
 * Resource arithmetic of the scheduling core and its configuration checks (yunikorn-core reference §4.11,
 * apache/yunikorn-core pkg/common/resources/resources.go), on plain numbers: sparse maps, a missing type is 0.
 * Quantities are integers (memory bytes, vcore millicores) below 2^53, checked where they enter the core (quantity.ts
 * parses configuration text, the shim pod resources). This is the only resource arithmetic of the core.
 */
export type Res = Record<string, number>;

/** The sum `a + b` as a new resource (a name missing on one side counts as 0). */
export function add(a: Readonly<Res>, b: Readonly<Res>): Res {
  const r: Res = Object.assign({}, a);
  for (const k in b) r[k] = (r[k] ?? 0) + b[k]!;
  return r;
}

/** In place: a += b. */
export function addTo(a: Res, b: Readonly<Res>): void {
  for (const k in b) a[k] = (a[k] ?? 0) + b[k]!;
}

/**
 * `a += b` in place, or a copy of `b` when there is no `a` yet; returns `a` (or the copy). The copy is one step, where
 * adding each type to an empty object would be one V8 map transition each (an application's first allocation).
 */
export function addInto(a: Res | undefined, b: Readonly<Res>): Res {
  if (a === undefined) return { ...b };
  addTo(a, b);
  return a;
}

/**
 * `max` raised in place to `r` for each type where `r` is larger (a type at or below 0 is never added); with no `max`
 * yet, a new one: a copy of `r` when every type of `r` is above 0 (one step, as in `addInto`), else built type by type.
 * Upstream maxAllocatedResource.
 */
export function raiseMax(max: Res | undefined, r: Readonly<Res>): Res {
  if (max === undefined && allPositive(r)) return { ...r };
  const m = max ?? {};
  for (const k in r) if (r[k]! > (m[k] ?? 0)) m[k] = r[k]!;
  return m;
}

/** True when every quantity is above 0 (`{}` too: it has none that is not). */
function allPositive(r: Readonly<Res>): boolean {
  for (const k in r) if (!(r[k]! > 0)) return false;
  return true;
}

/** In place: a -= b. */
export function subFrom(a: Res, b: Readonly<Res>): void {
  for (const k in b) a[k] = (a[k] ?? 0) - b[k]!;
}

/** `small` fits in `cap`; a type missing in `cap` counts as 0 (FitIn). */
export function fitsIn(cap: Readonly<Res>, small: Readonly<Res>): boolean {
  for (const k in small) if (small[k]! > Math.max(0, cap[k] ?? 0)) return false;
  return true;
}

/** `small` fits in `max`; a type missing in `max` is unlimited (FitInMaxUndef). */
export function fitsInMaxUndef(max: Readonly<Res> | undefined, small: Readonly<Res>): boolean {
  if (!max) return true;
  for (const k in small) {
    const m = max[k];
    if (m !== undefined && small[k]! > m) return false;
  }
  return true;
}

/** `used + r` within `max` for the types `max` limits. */
export function fitsWithin(max: Readonly<Res> | undefined, used: Readonly<Res>, r: Readonly<Res>): boolean {
  if (!max) return true;
  for (const k in r) {
    const m = max[k];
    if (m !== undefined && (used[k] ?? 0) + r[k]! > m) return false;
  }
  return true;
}

/**
 * `r` fits the headroom `max − used` for the types `max` limits, a headroom below 0 counting as 0 (upstream
 * `FitInMaxUndef` on a user/group headroom): a quantity of 0 always fits, even over a lowered limit.
 */
export function fitsHeadroom(max: Readonly<Res> | undefined, used: Readonly<Res>, r: Readonly<Res>): boolean {
  if (!max) return true;
  for (const k in r) {
    const m = max[k];
    if (m !== undefined && r[k]! > Math.max(0, m - (used[k] ?? 0))) return false;
  }
  return true;
}

/** Two usage shares, largest first (`usageShares`). */
export interface UsageShares {
  s0: number;
  s1: number;
}
const SHARES_SCRATCH: UsageShares = { s0: 0, s1: 0 };
/**
 * The two largest usage shares of `allocated` against `of` (apache/yunikorn-core resources.go GetShares), largest
 * first, 0 where it has fewer types: per type the quantity ÷ `of`'s, or the quantity itself where `of` has none of that
 * type or is not given. Upstream's compareShares compares the sorted shares largest first and the remaining ones
 * against 0, which is comparing these in turn while the first two decide (the order keys have room for two: memory and
 * cores, the types a pod's share is made of; a third type decides only where both tie exactly). Fills and returns one
 * reused object, valid until the next call (the fair application order computes one per re-key).
 */
export function usageShares(allocated: Readonly<Res>, of: Readonly<Res> | undefined): Readonly<UsageShares> {
  let s0 = 0;
  let s1 = 0;
  let n = 0;
  for (const k in allocated) {
    const v = allocated[k]!;
    const d = of === undefined ? undefined : of[k];
    const s = v === 0 ? 0 : d === undefined || d === 0 ? v : v / d;
    // the first two shares seen fill the slots in order; later ones push the smaller down
    if (n === 0 || s > s0) {
      s1 = n >= 1 ? s0 : 0;
      s0 = s;
    } else if (n === 1 || s > s1) s1 = s;
    n++;
  }
  SHARES_SCRATCH.s0 = s0;
  SHARES_SCRATCH.s1 = s1;
  return SHARES_SCRATCH;
}

/** Component-wise minimum where a type missing on one side is unlimited (the effective max of nested queues). */
export function minMaxUndef(a: Readonly<Res> | undefined, b: Readonly<Res> | undefined): Res | undefined {
  if (!a) return b && { ...b };
  if (!b) return { ...a };
  const r: Res = { ...a };
  for (const k in b) r[k] = r[k] === undefined ? b[k]! : Math.min(r[k]!, b[k]!);
  return r;
}

/** Sum of every quantity (a scalar for ordering ties: a resource larger in every type has the larger sum). */
export function total(r: Readonly<Res>): number {
  let s = 0;
  for (const k in r) s += r[k]!;
  return s;
}

/** Same resource map: the same keys with the same values (undefined and `{}` are the same: nothing set). */
export function sameResource(a: Readonly<Res> | undefined, b: Readonly<Res> | undefined): boolean {
  const ka = Object.keys(a ?? {});
  if (ka.length !== Object.keys(b ?? {}).length) return false;
  return ka.every((k) => b![k] === a![k]);
}

/** Equal per type, a type missing on one side counting as 0 (upstream resources `Equals`). */
export function equals(a: Readonly<Res>, b: Readonly<Res>): boolean {
  for (const k in a) if (a[k] !== (b[k] ?? 0)) return false;
  for (const k in b) if (b[k] !== (a[k] ?? 0)) return false;
  return true;
}

/** True when some type is below 0. */
export function hasNegative(r: Readonly<Res>): boolean {
  for (const k in r) if (r[k]! < 0) return true;
  return false;
}

/** True when some type is above 0. */
export function hasPositive(r: Readonly<Res>): boolean {
  for (const k in r) if (r[k]! > 0) return true;
  return false;
}

/** True when no quantity is negative and at least one is greater than 0 (upstream `StrictlyGreaterThanZero`). */
export function strictlyPositive(r: Readonly<Res>): boolean {
  let pos = false;
  for (const k in r) {
    if (r[k]! < 0) return false;
    if (r[k]! > 0) pos = true;
  }
  return pos;
}

/** True when every quantity is 0 (undefined and `{}` are zero). */
export function isZero(r: Readonly<Res> | undefined): boolean {
  if (!r) return true;
  for (const k in r) if (r[k] !== 0) return false;
  return true;
}

/** `{memory: 10, vcore: 2000}` as `map[memory:10 vcore:2000]` (Go's %v, as YuniKorn prints resources). */
export function format(r: Readonly<Res> | undefined): string {
  const o = r ?? {};
  return `map[${Object.keys(o)
    .sort()
    .map((k) => `${k}:${o[k]}`)
    .join(" ")}]`;
}

/**
 * Dominant share used to order queues (CompUsageRatioSeparately): the largest allocated/denominator over the types
 * that have a guaranteed (first choice) or fair-max denominator; 0 when none.
 */
export function dominantShare(allocated: Readonly<Res>, guaranteed: Readonly<Res> | undefined, fairMax: Readonly<Res> | undefined): number {
  let share = 0;
  for (const k in allocated) {
    const a = allocated[k]!;
    if (a < 0) continue;
    const d = guaranteed?.[k] ?? fairMax?.[k];
    if (d === undefined) continue;
    const s = d > 0 ? a / d : a > 0 ? 1 : 0;
    if (s > share) share = s;
  }
  return share;
}
