/**
 * The dashboard's pure view logic (no DOM, no fetching): ordering queues by fair share, user and group usage rows
 * against their limits, search over waiting pods, the pod of an allocation. Unit-tested in test/unit/ui.
 */
import type {
  AllocationInfo,
  AskInfo,
  LimitInfo,
  PendingList,
  PendingPod,
  QueueInfo,
  Resource,
  UsageInfo,
  UsageTree,
} from "../../src/scheduler/rest/api-types.js";

/**
 * A queue's fair share: its largest used / guaranteed over the types it guarantees, else used / max; 0 when it has
 * neither. Siblings with the smallest share are offered resources first.
 */
export function fairShare(q: QueueInfo): number {
  const used = q.allocatedResource ?? {};
  const by = q.guaranteedResource && Object.keys(q.guaranteedResource).length > 0 ? q.guaranteedResource : (q.maxResource ?? {});
  let share = 0;
  for (const k in by) if (by[k]! > 0) share = Math.max(share, (used[k] ?? 0) / by[k]!);
  return share;
}

/** Children in fair-share order, ties by name. */
export function fairOrder(children: readonly QueueInfo[]): QueueInfo[] {
  return [...children].sort((a, b) => fairShare(a) - fairShare(b) || (a.queuename < b.queuename ? -1 : 1));
}

export interface UsageRow {
  kind: "user" | "group";
  name: string;
  queuePath: string;
  usage: Resource;
  running: string[];
  limit?: LimitInfo;
}

/** The limit that applies to `name` on `queuePath`: the named one, else the wildcard. */
export function limitFor(limits: readonly LimitInfo[], kind: "user" | "group", name: string, queuePath: string): LimitInfo | undefined {
  const here = limits.filter((l) => l.kind === kind && l.queuePath === queuePath);
  return here.find((l) => l.name === name) ?? here.find((l) => l.name === "*");
}

/** One row per queue level of each user's or group's usage tree, with the limit that applies. */
export function usageRows(kind: "user" | "group", usage: readonly UsageInfo[], limits: readonly LimitInfo[]): UsageRow[] {
  const out: UsageRow[] = [];
  for (const u of usage) {
    const name = (kind === "user" ? u.userName : u.groupName) ?? "";
    const walk = (t: UsageTree | undefined) => {
      if (!t) return;
      out.push({
        kind,
        name,
        queuePath: t.queuePath,
        usage: t.resourceUsage ?? {},
        running: t.runningApplications ?? [],
        limit: limitFor(limits, kind, name, t.queuePath),
      });
      for (const c of t.children ?? []) walk(c);
    };
    walk(u.queues);
  }
  return out;
}

/** True when `q` (lower case, space-separated terms) matches the pod, application, user, namespace or queue. */
export function matches(p: PendingPod, q: string): boolean {
  const hay = `${p.namespace}/${p.pod} ${p.applicationId} ${p.user} ${p.queue} ${p.allocationKey}`.toLowerCase();
  return q
    .split(/\s+/)
    .filter(Boolean)
    .every((t) => hay.includes(t));
}

const POD = "kubernetes.io/meta/podName";
const NS = "kubernetes.io/meta/namespace";

/** The pod of an allocation or ask, from the shim's allocationTags; the key when there is none. */
export function podOf(a: AllocationInfo | AskInfo): string {
  const t = a.allocationTags ?? {};
  return t[POD] ? `${t[NS] ?? ""}/${t[POD]}` : a.allocationKey;
}

/** One application's side of the partition's preemptions: who preempts each of its allocations, and its waiting pods. */
export interface AppPreemptions {
  /** Its allocation key → the pod preempting it (a waiting pod of any application whose hold lists it as victim). */
  victimOf: Map<string, PendingPod>;
  /** Its waiting pods by allocation key. */
  waiting: Map<string, PendingPod>;
}

/** Reads `list` (GET /ws/v1/corral/pending) for application `appId`. */
export function preemptionsOf(list: PendingList | undefined, appId: string): AppPreemptions {
  const victimOf = new Map<string, PendingPod>();
  const waiting = new Map<string, PendingPod>();
  for (const p of list?.pending ?? []) {
    if (p.applicationId === appId) waiting.set(p.allocationKey, p);
    if (p.hold?.kind !== "preemption") continue;
    for (const v of p.hold.victims) if (v.applicationId === appId && !v.released) victimOf.set(v.allocationKey, p);
  }
  return { victimOf, waiting };
}

/** Allocated placeholders per task group. */
export function placeholdersPlaced(allocations: readonly AllocationInfo[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const a of allocations) if (a.placeholder && a.taskGroupName) out.set(a.taskGroupName, (out.get(a.taskGroupName) ?? 0) + 1);
  return out;
}

/** Per queue path: waiting pods whose preemption is under way for that queue. */
export function preemptorsByQueue(list: PendingList | undefined): Map<string, number> {
  const out = new Map<string, number>();
  for (const p of list?.pending ?? []) if (p.hold?.kind === "preemption") out.set(p.queue, (out.get(p.queue) ?? 0) + 1);
  return out;
}
