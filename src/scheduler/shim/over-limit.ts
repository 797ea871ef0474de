/**
 * Allocations recorded over a limit. A pod corral manages (`schedulerName: yunikorn`) that arrives already bound —
 * created with `spec.nodeName`, bound by someone else, or running at upgrade — is recorded as the allocation
 * Kubernetes made, without a limit check (the pod runs whatever the scheduler decides). Such an allocation is
 * reported instead of silently absorbed: these functions say which queue maximum or user/group limit it takes usage
 * beyond. Pure.
 */
import type { LimitUsage } from "../core/scheduler.js";
import type { Res } from "../core/resources.js";
import { k8sQuantities } from "./pod-resources.js";

/**
 * The limits an allocation of `ask` exceeds, once recorded: those where the usage (which includes the allocation)
 * is above the maximum for a resource type the allocation uses. A limit already exceeded before counts again: the
 * allocation adds to the usage over it.
 * @param limits the maxima that apply to the application, with usage after the allocation (`SchedulerCore.limitsOf`)
 * @param ask the allocation's resources (core units)
 */
export function exceededLimits(limits: readonly LimitUsage[], ask: Readonly<Res>): LimitUsage[] {
  return limits.filter((l) => Object.keys(ask).some((k) => ask[k]! > 0 && l.max[k] !== undefined && (l.used[k] ?? 0) > l.max[k]!));
}

/** `cpu 4150m, memory 1Gi` for the types of `r` listed in `keys` (all when omitted). */
export function quantitiesText(r: Readonly<Res>, keys?: readonly string[]): string {
  const picked: Res = {};
  for (const k of keys ?? Object.keys(r)) picked[k] = r[k] ?? 0;
  return Object.entries(k8sQuantities(picked))
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");
}

/** One exceeded limit in words: `user alice limit on root.limited: cpu 1 allowed, cpu 4150m used`. */
export function limitText(l: LimitUsage, ask: Readonly<Res>): string {
  const keys = Object.keys(l.max).filter((k) => (ask[k] ?? 0) > 0 && (l.used[k] ?? 0) > l.max[k]!);
  const what = l.kind === "queue" ? `queue ${l.path} maximum` : `${l.kind} ${l.name} limit on ${l.path}`;
  return `${what}: ${quantitiesText(l.max, keys)} allowed, ${quantitiesText(l.used, keys)} used`;
}
