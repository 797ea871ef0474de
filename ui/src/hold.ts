/**
 * A waiting pod's hold reason in plain words, with the numbers in human units, and what would unblock it. The server
 * sends the reason as data (`HoldReasonInfo`); the words are made here only.
 */
import type { HoldReasonInfo, LimitHoldInfo, PreemptionVictimInfo, Resource } from "../../src/scheduler/rest/api-types.js";
import { ofMax, quantity, resourceLabel, resourceOrder, resources } from "./format.js";

export interface HoldWords {
  /** Short label of the kind, for filters and badges. */
  kind: string;
  /** Why it waits, e.g. "root.analytics is at its max: cpu 2 of 2 cores used; this pod needs 1 core". */
  reason: string;
  /** What would let it run. */
  unblock: string;
  /** A preemption under way: its victims, one line each. */
  victims?: VictimWords[];
}

/** One victim of a preemption in words. */
export interface VictimWords {
  key: string;
  /** `namespace/pod`, or the allocation key when its pod is not known (released). */
  pod: string;
  applicationId: string;
  queue: string;
  node: string;
  resources: string;
  released: boolean;
  /** "being evicted" or "gone". */
  state: string;
  /** Why it could be taken, e.g. "root.b over its guarantee of 4 cores, using 8 cores; priority 0, not above 0". */
  rule: string;
}

/** The resource types in which `used + ask` goes over `max` (types `max` does not set are unlimited). */
export function overTypes(max: Resource, used: Resource, ask: Resource): string[] {
  return resourceOrder(Object.keys(ask)).filter((k) => max[k] !== undefined && (used[k] ?? 0) + (ask[k] ?? 0) > max[k]!);
}

function usedOfMax(types: string[], max: Resource, used: Resource): string {
  return types.map((k) => `${resourceLabel(k)} ${ofMax(k, used[k] ?? 0, max[k]!)} used`).join(", ");
}

function needs(types: string[], ask: Resource): string {
  return types.map((k) => `${quantity(k, ask[k] ?? 0)}${k === "vcore" ? "" : ` of ${resourceLabel(k)}`}`).join(" and ");
}

/** How much must be freed in each type for the ask to fit: used + ask − max. */
function shortfall(types: string[], max: Resource, used: Resource, ask: Resource): string {
  return types
    .map((k) => `${quantity(k, (used[k] ?? 0) + (ask[k] ?? 0) - max[k]!)}${k === "vcore" ? "" : ` of ${resourceLabel(k)}`}`)
    .join(" and ");
}

function owner(h: LimitHoldInfo): string {
  if (h.kind === "user") return h.wildcard ? `${h.name}'s limit (the limit for every user without their own)` : `${h.name}'s limit`;
  if (h.name === "*") return "the shared limit of users in no limited group";
  return h.wildcard ? `group ${h.name}'s limit (the wildcard group limit)` : `group ${h.name}'s limit`;
}

/** The types of `g` worth naming for an ask: those the ask needs, else every type `g` sets. */
function guaranteeTypes(g: Resource, ask: Resource): string[] {
  const shared = resourceOrder(Object.keys(ask)).filter((k) => g[k] !== undefined);
  return shared.length > 0 ? shared : resourceOrder(Object.keys(g));
}

/** `4 cores` / `4 cores and 8 Gi of memory`: a guarantee in the given types. */
function amounts(types: string[], r: Resource): string {
  return types.map((k) => `${quantity(k, r[k] ?? 0)}${k === "vcore" ? "" : ` of ${resourceLabel(k)}`}`).join(" and ");
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** Why a victim's queue may lose it, in words: "over its guarantee of 4 cores, using 8 cores" (when chosen). */
function overGuarantee(v: PreemptionVictimInfo, ask: Resource): string {
  const q = v.queueRule;
  if (!q.guaranteed || Object.keys(q.guaranteed).length === 0) {
    const used = resourceOrder(Object.keys(ask)).filter((k) => q.allocated[k] !== undefined);
    return `without a guarantee of its own, using ${amounts(used, q.allocated)}`;
  }
  const types = guaranteeTypes(q.guaranteed, ask);
  return `over its guarantee of ${amounts(types, q.guaranteed)}, using ${amounts(types, q.allocated)}`;
}

/** One victim in words. */
function victimWords(v: PreemptionVictimInfo, ask: Resource): VictimWords {
  const p = v.priorityRule;
  const priority =
    p.rule === "priority-lower-or-equal" ? `priority ${v.priority}, not above ${p.askPriority}` : `inside priority fence ${p.fence}`;
  const flags = [v.originator ? "its application's originator pod" : "", v.allowPreemption ? "" : "opted out of preemption"].filter(
    Boolean,
  );
  return {
    key: `${v.applicationId}/${v.allocationKey}`,
    pod: v.pod ? `${v.namespace ?? ""}/${v.pod}` : `allocation ${v.allocationKey}`,
    applicationId: v.applicationId,
    queue: v.queuePath,
    node: v.nodeId,
    resources: resources(v.resource),
    released: v.released,
    state: v.released ? "gone" : "being evicted",
    rule: [`${v.queueRule.queue} ${overGuarantee(v, ask)}`, priority, ...flags].join("; "),
  };
}

/** A preemption under way in words: victims per queue and node, for which guarantee, how many are gone. */
function preemptionWords(h: Extract<HoldReasonInfo, { kind: "preemption" }>): HoldWords {
  const n = h.victims.length;
  const left = h.victims.filter((v) => !v.released);
  const byQueue = new Map<string, PreemptionVictimInfo[]>();
  for (const v of h.victims) byQueue.set(v.queuePath, [...(byQueue.get(v.queuePath) ?? []), v]);
  const queues = [...byQueue.entries()].map(([q, vs]) => {
    const pods = byQueue.size > 1 ? `${plural(vs.length, "pod")} in ${q}` : `in ${q}`;
    return `${pods} (${overGuarantee(vs[0]!, h.ask)})`;
  });
  const nodes = [...new Set(h.victims.map((v) => v.nodeId))];
  const where = nodes.length === 1 ? `on node ${nodes[0]}` : `on nodes ${nodes.join(", ")}`;
  const g = h.guarantee;
  const gTypes = g ? guaranteeTypes(g.guaranteed, h.ask) : [];
  const goal = g
    ? `to get ${g.queuePath} its guarantee of ${amounts(gTypes, g.guaranteed)} (using ${amounts(gTypes, g.allocated)} now)`
    : `for ${h.queuePath}`;
  const gone = n - left.length;
  const waiting =
    left.length === 0 ? "its victims are gone" : `waiting for ${n === 1 ? "it" : "them"} to go${gone > 0 ? ` (${gone} of ${n} gone)` : ""}`;
  return {
    kind: "preemption",
    reason:
      `Preempting ${plural(n, "pod")} ${where} ${queues.join(" and ")} ${goal}; ${waiting}. Node ${h.nodeId} is ` +
      `reserved for this pod (free now: ${resources(h.available)}; it needs ${resources(h.ask)}).`,
    unblock:
      left.length === 0
        ? `Nothing: it is placed on ${h.nodeId} in the next scheduling cycle.`
        : `The victims' pods terminating (${plural(left.length, "pod")} left); it then runs on ${h.nodeId}. An eviction ` +
          `refused (e.g. by a PodDisruptionBudget) ends this preemption; it is tried again 15 s later without that pod.`,
    victims: h.victims.map((v) => victimWords(v, h.ask)),
  };
}

/** The hold in words; `undefined` hold: nothing holds the pod. */
export function holdWords(h: HoldReasonInfo | undefined): HoldWords {
  if (!h) return { kind: "none", reason: "Nothing holds it: it is placed in the next scheduling cycle.", unblock: "Nothing to do." };
  switch (h.kind) {
    case "queueMax": {
      const types = overTypes(h.max, h.used, h.ask);
      return {
        kind: "queue max",
        reason: `${h.queuePath} is at its max: ${usedOfMax(types, h.max, h.used)}; this pod needs ${needs(types, h.ask)}`,
        unblock:
          `Pods in ${h.queuePath} finishing and freeing ${shortfall(types, h.max, h.used, h.ask)}, or a higher ` +
          `max for ${h.queuePath}.`,
      };
    }
    case "limit": {
      const l = h.hold;
      if (l.limit.type === "applications") {
        return {
          kind: `${l.kind} limit`,
          reason: `${owner(l)} on ${l.queuePath}: ${l.limit.running} of ${l.limit.max} running applications`,
          unblock:
            `One of ${l.kind === "user" ? `${l.name}'s` : `group ${l.name}'s`} running applications under ` +
            `${l.queuePath} completing, or a higher maxapplications in that limit.`,
        };
      }
      const { max, used, ask } = l.limit;
      const types = overTypes(max, used, ask);
      return {
        kind: `${l.kind} limit`,
        reason: `${owner(l)} on ${l.queuePath}: ${usedOfMax(types, max, used)}; this pod needs ${needs(types, ask)}`,
        unblock:
          `${l.kind === "user" ? `${l.name}'s` : `Group ${l.name}'s`} other pods under ${l.queuePath} finishing ` +
          `and freeing ${shortfall(types, max, used, ask)}, or a higher limit.`,
      };
    }
    case "queueMaxApplications":
      return {
        kind: "max applications",
        reason:
          `${h.queuePath} already runs its maximum of ${h.maxApplications} ` +
          `application${h.maxApplications === 1 ? "" : "s"}; this application waits to start`,
        unblock: `A running application under ${h.queuePath} completing, or a higher maxapplications for ${h.queuePath}.`,
      };
    case "clusterCapacity": {
      const types = overTypes(h.capacity, h.used, h.ask);
      return {
        kind: "cluster full",
        reason: `The cluster is full: ${usedOfMax(types, h.capacity, h.used)}; this pod needs ${needs(types, h.ask)}`,
        unblock: `Pods finishing anywhere and freeing ${shortfall(types, h.capacity, h.used, h.ask)}, or more nodes.`,
      };
    }
    case "noNodeFits":
      return {
        kind: "no node fits",
        reason: `No node has ${resources(h.ask)} free (${h.nodes} node${h.nodes === 1 ? "" : "s"})`,
        unblock: "Pods finishing on one node so that the whole request fits there, or a larger node.",
      };
    case "queueNotLeaf":
      return {
        kind: "queue not a leaf",
        reason: `Queue ${h.queuePath} became a parent queue in a new configuration; applications still in it are not scheduled`,
        unblock: `A configuration that makes ${h.queuePath} a leaf queue again, or the pod resubmitted to a leaf queue.`,
      };
    case "noNodeMatches":
      return {
        kind: "no matching node",
        reason: `Nodes have ${resources(h.ask)} free, but none matches the pod's node selector, affinity or tolerations`,
        unblock: "Room on a node the pod may run on: check its nodeSelector, affinity and tolerations, and the nodes' labels and taints.",
      };
    case "reservation":
      return {
        kind: "reservation",
        reason: `Waiting for node ${h.nodeId}, reserved for it, to have ${resources(h.ask)} free (free now: ${resources(h.available)})`,
        unblock: `Pods finishing on ${h.nodeId}.`,
      };
    case "preemption":
      return preemptionWords(h);
    case "gangReservation": {
      const groups = h.taskGroups.map((g) => `${g.taskGroupName} ${g.allocated} of ${g.minMember}`).join(", ");
      return {
        kind: "gang reservation",
        reason:
          `Its gang (application ${h.appId}) is still reserving: placeholders placed${groups ? ` per task group: ${groups}` : ""}; ` +
          `they hold ${resources(h.allocated)} of ${resources(h.reservation)}`,
        unblock: "The rest of the gang's placeholders being placed (room in the queue and on nodes), or the placeholder timeout.",
      };
    }
  }
}
