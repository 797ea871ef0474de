/**
 * The texts of a preemption, made from the core's typed decision (core/preemption/result.ts) at the edge: the
 * `Preempted` event on each victim (by which pod, for which queue, under which rule — or, for quota-change preemption,
 * which queue's lowered max), the event on the preemptor, and the Warning when an eviction is refused. Pure. Resources
 * in Kubernetes quantities (pod-resources.ts).
 */
import type { QuotaVictim } from "../core/preemption/quota.js";
import { QUOTA_PREEMPTION_RETRY_MS } from "../core/preemption/quota-tracker.js";
import { formatGoDuration } from "../core/queue-properties.js";
import type { Preempting, Victim } from "../core/preemption/result.js";
import { quantitiesText } from "./over-limit.js";

/** A pod by namespace and name, as preemption messages print it (`namespace/name`). */
export interface PodName {
  namespace: string;
  name: string;
}

const podText = (p: PodName) => `${p.namespace}/${p.name}`;

/** The rules that allowed a victim, in words (rules 1 and 3, 4 or 5, and what taking it frees). */
export function victimRulesText(v: Victim): string {
  const q = v.queueRule;
  const guarantee = q.guaranteed ? `guaranteed ${quantitiesText(q.guaranteed)}` : "no guarantee of its own";
  const queue = `queue ${q.queue} is above its guarantee (${guarantee}, used ${quantitiesText(q.allocated)}) and stays at or above it`;
  const p = v.priorityRule;
  const priority =
    p.rule === "priority-lower-or-equal"
      ? `priority ${p.victimPriority} is not above the preemptor's ${p.askPriority}`
      : `inside priority fence ${p.fence}`;
  const helps = v.helps.rule === "frees-node" ? `frees room on node ${v.helps.nodeId}` : `frees quota below ${v.helps.fence}`;
  return `${queue}; ${priority}; ${helps}`;
}

/** Message of the `Preempted` event on a victim pod. */
export function preemptedMessage(o: { victim: Victim; preemptor?: PodName; decision: Preempting }): string {
  const by = o.preemptor ? `pod ${podText(o.preemptor)}` : `request ${o.decision.ask.key}`;
  return (
    `Preempted by ${by} of application ${o.decision.ask.applicationId} for queue ${o.decision.ask.queuePath}: ` +
    `${victimRulesText(o.victim)}`
  );
}

/** Message of the Normal `Preempting` event on the preemptor. */
export function preemptingMessage(o: { decision: Preempting; victims: readonly PodName[] }): string {
  const d = o.decision;
  const names = o.victims.length > 0 ? o.victims.map(podText).join(", ") : `${d.victims.length} allocation(s)`;
  return (
    `Preempting ${names} (queue${new Set(d.victims.map((v) => v.queuePath)).size > 1 ? "s" : ""} ` +
    `${[...new Set(d.victims.map((v) => v.queuePath))].join(", ")}) for queue ${d.ask.queuePath}; node ${d.nodeId} is ` +
    `reserved for this pod until they are gone`
  );
}

/** Message of the Warning `PreemptionBlocked` event on the preemptor when a victim's eviction was refused. */
export function preemptionBlockedMessage(o: { victim: PodName; error: string }): string {
  return (
    `Eviction of ${podText(o.victim)} was refused (${o.error}); the node reservation is released and preemption is ` +
    `tried again later without that pod`
  );
}

/** The rule that allowed a quota-change victim (rule 8, and rule 1 for its leaf), in words. */
function quotaVictimRuleText(v: QuotaVictim): string {
  const r = v.rule;
  const types = Object.keys(r.max);
  const guarantee = r.leafGuaranteed ? `guaranteed ${quantitiesText(r.leafGuaranteed)}` : "no guarantee of its own";
  return (
    `usage of queue ${r.queue} (${quantitiesText(r.used, types)}) is above its lowered max (${quantitiesText(r.max)}) ` +
    `and its quota.preemption.delay ${formatGoDuration(r.delayMs)} has passed; ` +
    `queue ${v.queuePath} (${guarantee}) stays at or above its guarantee`
  );
}

/** Message of the `Preempted` event on a victim of quota-change preemption. */
export function quotaPreemptedMessage(v: QuotaVictim): string {
  return `Preempted to enforce the lowered max of queue ${v.rule.queue}: ${quotaVictimRuleText(v)}`;
}

/** Message of the Warning `PreemptionBlocked` event on a quota-change victim whose eviction was refused. */
export function quotaPreemptionBlockedMessage(o: { queue: string; error: string }): string {
  return (
    `Eviction to enforce the lowered max of queue ${o.queue} was refused (${o.error}); the pod is kept and the ` +
    `queue's quota preemption is tried again in ${formatGoDuration(QUOTA_PREEMPTION_RETRY_MS)} without it`
  );
}
