/**
 * A waiting pod's hold reason in plain words, with the numbers in human units, and what would unblock it. The server
 * sends the reason as data (`HoldReasonInfo`); the words are made here only.
 */
import type { HoldReasonInfo, LimitHoldInfo, Resource } from "../../src/scheduler/rest/api-types.js";
import { ofMax, quantity, resourceLabel, resourceOrder, resources } from "./format.js";

export interface HoldWords {
  /** Short label of the kind, for filters and badges. */
  kind: string;
  /** Why it waits, e.g. "root.analytics is at its max: cpu 2 of 2 cores used; this pod needs 1 core". */
  reason: string;
  /** What would let it run. */
  unblock: string;
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
    case "gangReservation":
      return {
        kind: "gang reservation",
        reason:
          `Its gang (application ${h.appId}) is still reserving: placeholders hold ${resources(h.allocated)} of ` +
          `${resources(h.reservation)}`,
        unblock: "The rest of the gang's placeholders being placed (room in the queue and on nodes), or the placeholder timeout.",
      };
  }
}
