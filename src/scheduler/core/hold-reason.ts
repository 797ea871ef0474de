/**
 * Why the core holds a pending ask or an application back, as data (yunikorn-shim reference §2.12
 * UpdateContainerSchedulingState; yunikorn-core reference §4.3-4.7). The core decides, the edges format: the shim's
 * pod conditions and events, the extender's refusals, the simulator and REST call `formatHoldReason` / `holdState`;
 * nothing parses the text back.
 */
import { type PlacementRefusal, formatPlacementRefusal } from "./placement/types.js";
import type { Victim } from "./preemption/result.js";
import type { Queue } from "./queue.js";
import { type Res, fitsWithin, format } from "./resources.js";
import { type LimitHold, formatLimitHold } from "./ugm/hold.js";

/**
 * Why a pending ask or application is held back (module comment); resources in core units. Formatted only at the edges
 * by {@link formatHoldReason}.
 */
export type HoldReason =
  /** A queue below root would exceed its max (quota, `Skipped`). Resources in core units. */
  | {
      readonly kind: "queueMax";
      readonly queuePath: string;
      readonly max: Readonly<Res>;
      readonly used: Readonly<Res>;
      readonly ask: Readonly<Res>;
    }
  /** The cluster (root: the sum of node capacities) has no room left for the ask (`Failed`). */
  | { readonly kind: "clusterCapacity"; readonly capacity: Readonly<Res>; readonly used: Readonly<Res>; readonly ask: Readonly<Res> }
  /** maxapplications of a queue on the path is reached while the application waits to run (`Skipped`). */
  | { readonly kind: "queueMaxApplications"; readonly queuePath: string; readonly maxApplications: number }
  /** A user or group limit on the application's queue path (ugm/hold.ts) (`Skipped`). */
  | { readonly kind: "limit"; readonly hold: LimitHold }
  /** No schedulable node has the ask free now (`Failed`). */
  | { readonly kind: "noNodeFits"; readonly ask: Readonly<Res>; readonly nodes: number }
  /** Nodes have room, but none passes the resource manager's predicate (selector, affinity, taints) (`Failed`). */
  | { readonly kind: "noNodeMatches"; readonly ask: Readonly<Res> }
  /** The ask reserved `nodeId` and waits for it to have room (node reservation, reference §4.6) (`Failed`). */
  | { readonly kind: "reservation"; readonly nodeId: string; readonly ask: Readonly<Res>; readonly available: Readonly<Res> }
  /**
   * Ask-triggered preemption under way (core/preemption/, docs/preemption.md): the ask reserved `nodeId` and waits for
   * its victims to be released (`Failed`). `guarantee`: the nearest queue on the ask's path with a guarantee (the one
   * preemption brings it towards), its usage now; `since`: when the victims were chosen (ms).
   */
  | {
      readonly kind: "preemption";
      readonly nodeId: string;
      readonly ask: Readonly<Res>;
      readonly available: Readonly<Res>;
      readonly queuePath: string;
      readonly guarantee?: { readonly queuePath: string; readonly guaranteed: Readonly<Res>; readonly allocated: Readonly<Res> };
      /** The queue whose subtree the victims were searched in (the preemption fence; root without one). */
      readonly fence: string;
      readonly since: number;
      readonly victims: readonly PreemptionVictim[];
    }
  /**
   * Gang scheduling: the application is Reserving; its real asks wait until every placeholder is allocated (`Skipped`).
   * `taskGroups`: per task group, in the order first seen, the placeholders asked (the shim asks minMember of them;
   * upstream PlaceholderData.count) and how many are allocated now.
   */
  | {
      readonly kind: "gangReservation";
      readonly appId: string;
      readonly allocated: Readonly<Res>;
      readonly reservation: Readonly<Res>;
      readonly taskGroups: readonly TaskGroupProgress[];
    }
  /**
   * The application's queue is a parent now: a configuration made the leaf it was placed in a parent queue (adding
   * queues below it or `parent: true`); its asks wait until a configuration makes the queue a leaf again.
   */
  | { readonly kind: "queueNotLeaf"; readonly queuePath: string }
  /** Placement refused the application (its rejection, placement/types.ts; not a pending-ask hold). */
  | { readonly kind: "placementRefused"; readonly refusal: PlacementRefusal };

/** One task group of a reserving gang, as its hold reason shows it. */
export interface TaskGroupProgress {
  readonly taskGroupName: string;
  /** Placeholders asked (the shim asks minMember of them; upstream PlaceholderData.count). */
  readonly minMember: number;
  /** Placeholders allocated now. */
  readonly allocated: number;
}

/**
 * A victim of a preemption under way: the decision's victim (its allocation and the rules that allowed it) and
 * whether it is released yet (`released`: its allocation is gone; until then it stays allocated and counted).
 */
export interface PreemptionVictim extends Victim {
  readonly released: boolean;
}

/**
 * The text of the pod event for a hold (upstream shim's PodUnschedulable messages), `who` the pod as `<ns>/<name>`:
 * a quota (queue max, maxapplications, user/group limit) "is skipped … because the queue quota has been exceeded",
 * another hold the shim skips (`holdState` Skipped: a gang's reservation, a queue made a parent) "is skipped from
 * scheduling", no node taking it now "is pending for the requested resources become available"; each with the reason.
 */
export function holdEventText(who: string, r: HoldReason): string {
  const reason = formatHoldReason(r);
  if (r.kind === "queueMax" || r.kind === "queueMaxApplications" || r.kind === "limit")
    return `Task ${who} is skipped from scheduling because the queue quota has been exceeded: ${reason}`;
  return holdState(r) === "Skipped"
    ? `Task ${who} is skipped from scheduling: ${reason}`
    : `Task ${who} is pending for the requested resources become available: ${reason}`;
}

/**
 * The shim's scheduling state for a hold: `Skipped` — a quota (queue max, user/group limit, maxapplications),
 * `Failed` — no node can take it now.
 */
export function holdState(r: HoldReason): "Skipped" | "Failed" {
  switch (r.kind) {
    case "queueMax":
    case "queueMaxApplications":
    case "limit":
    case "placementRefused":
    case "gangReservation":
    case "queueNotLeaf":
      return "Skipped";
    default:
      return "Failed";
  }
}

/**
 * The REQUEST record's text when an ask becomes held (`leafPath`: its application's queue), in upstream's words where
 * upstream has a record for the case (apache/yunikorn-core objects/events/ask_events.go): a queue max,
 * `Request '<key>' does not fit in queue '<leaf>' (requested <ask>, available <max − used>)`; a user or group quota,
 * `Request '<key>' exceeds the available user quota (requested <ask>, available <max − used>)`; no node,
 * `Unschedulable request '<key>': <reason>`; other quotas `Request '<key>' is held: <reason>`.
 */
export function holdRecordText(key: string, leafPath: string, r: HoldReason): string {
  if (r.kind === "queueMax") {
    const available = format(headroomOf(r.max, r.used));
    return `Request '${key}' does not fit in queue '${leafPath}' (requested ${format(r.ask)}, available ${available})`;
  }
  if (r.kind === "limit" && r.hold.limit.type === "resources") {
    const l = r.hold.limit;
    const available = format(headroomOf(l.max, l.used));
    return `Request '${key}' exceeds the available user quota (requested ${format(l.ask)}, available ${available})`;
  }
  return holdState(r) === "Skipped"
    ? `Request '${key}' is held: ${formatHoldReason(r)}`
    : `Unschedulable request '${key}': ${formatHoldReason(r)}`;
}

/**
 * The REQUEST record's text when an ask held by `before` is held no more: upstream's SendRequestFitsInUserQuota after
 * a user or group quota, else SendRequestFitsInQueue.
 */
export function releasedHoldRecordText(key: string, leafPath: string, before: HoldReason | undefined): string {
  return before?.kind === "limit" && before.hold.limit.type === "resources"
    ? `Request '${key}' fits in the available user quota`
    : `Request '${key}' has become schedulable in queue '${leafPath}'`;
}

/** `max − used` in each type `max` sets (upstream SubOnlyExisting: may be negative). */
function headroomOf(max: Readonly<Res>, used: Readonly<Res>): Res {
  const out: Res = {};
  for (const k in max) out[k] = max[k]! - (used[k] ?? 0);
  return out;
}

/** The hold as text, for pod conditions, events and the simulator (texts kept from earlier corral releases). */
export function formatHoldReason(r: HoldReason): string {
  switch (r.kind) {
    case "queueMax":
      return `queue ${r.queuePath} maximum ${format(r.max)} reached (used ${format(r.used)})`;
    case "clusterCapacity":
      return `no node has ${format(r.ask)} free (cluster capacity ${format(r.capacity)} reached)`;
    case "queueMaxApplications":
      return `queue ${r.queuePath} running applications limit ${r.maxApplications} reached`;
    case "limit":
      return formatLimitHold(r.hold);
    case "noNodeFits":
      return `no node has ${format(r.ask)} free (nodes: ${r.nodes})`;
    case "noNodeMatches":
      return `no node with ${format(r.ask)} free matches the pod's node selector, affinity or tolerations`;
    case "reservation":
      return `waiting on node ${r.nodeId} reserved for it to have ${format(r.ask)} free (available ${format(r.available)})`;
    case "placementRefused":
      return formatPlacementRefusal(r.refusal);
    case "queueNotLeaf":
      return `queue ${r.queuePath} is a parent queue since the configuration changed: its applications wait until it is a leaf again`;
    case "preemption": {
      const n = r.victims.length;
      const queues = [...new Set(r.victims.map((v) => v.queuePath))].join(", ");
      return (
        `preempting ${n} allocation${n === 1 ? "" : "s"} of ${queues} on node ${r.nodeId} reserved for it; waiting ` +
        `for ${n === 1 ? "it" : "them"} to be released to have ${format(r.ask)} free (available ${format(r.available)})`
      );
    }
    case "gangReservation":
      return (
        `application ${r.appId} is reserving resources for its gang: placeholders hold ${format(r.allocated)} of ` +
        `${format(r.reservation)}`
      );
  }
}

/** The first queue below root on `q`'s path whose max `r` would exceed (upstream `TryIncAllocatedResource`), or undefined. */
export function queueOverMax(q: Queue, r: Readonly<Res>): Queue | undefined {
  for (let x: Queue | undefined = q; x?.parent; x = x.parent) if (!fitsWithin(x.max, x.allocated, r)) return x;
  return undefined;
}

/** `queueOverMax` as a hold reason. */
export function queueMaxHold(q: Queue, r: Readonly<Res>): HoldReason | undefined {
  const x = queueOverMax(q, r);
  return x && { kind: "queueMax", queuePath: x.path, max: { ...x.max }, used: { ...x.allocated }, ask: { ...r } };
}

/** Root's max is the cluster size: `r` on top of what is allocated must fit it; a type no node provides never fits. */
export function overClusterSize(root: Queue, r: Readonly<Res>): boolean {
  for (const k in r) if ((root.allocated[k] ?? 0) + r[k]! > (root.max?.[k] ?? 0)) return true;
  return false;
}

/** `overClusterSize` as a hold reason. */
export function clusterHold(root: Queue, r: Readonly<Res>): HoldReason | undefined {
  return overClusterSize(root, r)
    ? { kind: "clusterCapacity", capacity: { ...root.max }, used: { ...root.allocated }, ask: { ...r } }
    : undefined;
}

/**
 * The first queue on `q`'s path whose maxapplications one more running application would exceed (running and
 * allocating applications counted), or undefined; `counted`: the application is already one of the allocating ones.
 */
export function queueRunHold(q: Queue, counted = false): HoldReason | undefined {
  // an application already counted as allocating holds its place (upstream canRunApp)
  if (counted) return undefined;
  for (let x: Queue | undefined = q; x; x = x.parent) {
    if (x.maxApps > 0 && x.runningApps + x.allocatingApps + 1 > x.maxApps)
      return { kind: "queueMaxApplications", queuePath: x.path, maxApplications: x.maxApps };
  }
  return undefined;
}
