/**
 * From validated `queues.yaml` values to the core's numbers.
 */
import type { Resource } from "./quantity.js";
import type { Res } from "./resources.js";

/**
 * A parsed quantity map as plain numbers.
 * @throws Error when a value is above 2^53 (the core computes in exact doubles)
 */
export function toRes(r: Resource): Res {
  const out: Res = {};
  for (const [k, v] of r) {
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error(`resource ${k}=${v} is too large (max ${Number.MAX_SAFE_INTEGER})`);
    out[k] = Number(v);
  }
  return out;
}
