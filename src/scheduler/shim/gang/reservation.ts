/**
 * What a gang reserves, and whether it may (apache/yunikorn-k8shim pkg/common/resource.go GetTGResource,
 * pkg/cache/application.go setTaskGroups / onReservationStateChange, pkg/cache/placeholder_manager.go
 * createAppPlaceholders; apache/yunikorn-core pkg/scheduler/partition.go AddApplication, objects/queue.go
 * SupportTaskGroup). Pure; resources in the core's units (`vcore` millicores, memory bytes, `pods` count).
 */
import { type Res, add, fitsInMaxUndef, format } from "../../core/resources.js";
import { toCoreResource } from "../pod-resources.js";
import type { TaskGroup } from "./task-groups.js";

/** One placeholder of the group as the core counts it: `pods: 1` plus `minResource` (`cpu` → `vcore` millicores, rounded up). */
export function placeholderResource(tg: TaskGroup): Res {
  return { pods: 1, ...toCoreResource(tg.minResource) };
}

/**
 * The application's whole reservation (its placeholder ask): Σ over the groups of minMember × placeholderResource.
 * `parseTaskGroups` has checked that every sum is an exact integer.
 */
export function gangReservation(taskGroups: readonly TaskGroup[]): Res {
  let total: Res = {};
  for (const tg of taskGroups) {
    const one = placeholderResource(tg);
    const group: Res = {};
    for (const k in one) group[k] = one[k]! * tg.minMember;
    total = add(total, group);
  }
  return total;
}

/**
 * Placeholders still to create, per group in the order written: minMember minus the placeholders the application
 * already has for the group (their task group names; recovery creates only the missing ones). Groups with none to
 * create are left out.
 */
export function placeholdersToCreate(taskGroups: readonly TaskGroup[], existingPlaceholderGroups: readonly string[]): { taskGroup: TaskGroup; count: number }[] {
  const have = new Map<string, number>();
  for (const g of existingPlaceholderGroups) have.set(g, (have.get(g) ?? 0) + 1);
  return taskGroups.map((taskGroup) => ({ taskGroup, count: taskGroup.minMember - (have.get(taskGroup.name) ?? 0) })).filter((p) => p.count > 0);
}

/**
 * Placeholders each group still needs bound before the application may run (onReservationStateChange): empty when
 * the reservation is complete. Bound placeholders of groups the application does not define are not counted.
 */
export function reservationShortfall(taskGroups: readonly TaskGroup[], boundPlaceholderGroups: readonly string[]): { taskGroup: string; missing: number }[] {
  const bound = new Map<string, number>();
  for (const g of boundPlaceholderGroups) bound.set(g, (bound.get(g) ?? 0) + 1);
  return taskGroups.map((tg) => ({ taskGroup: tg.name, missing: tg.minMember - (bound.get(tg.name) ?? 0) })).filter((s) => s.missing > 0);
}

export interface GangSubmission {
  applicationId: string;
  /** Full queue path (`root.spark`). */
  queue: string;
  /** `gangReservation(…)`; zero or empty = not a gang, always accepted. */
  reservation: Readonly<Res>;
  queueIsLeaf: boolean;
  /** `application.sort.policy` of the queue. */
  sortPolicy: string;
  /** The smallest max set on the queue and its parents below root (upstream GetMaxQueueSet); undefined = none. */
  queueMax?: Readonly<Res>;
}

export type GangSubmissionCheck =
  | { ok: true }
  /** Gangs need a leaf queue sorted FIFO (the reservation would be split between applications otherwise). */
  | { ok: false; reason: "unsupportedQueue"; message: string }
  /** The whole reservation can never fit under the queue's max: rejected rather than left holding part of it. */
  | { ok: false; reason: "exceedsQueueMax"; message: string };

/** Whether the core accepts a gang application into its queue (partition.go AddApplication); messages as upstream's. */
export function checkGangSubmission(s: GangSubmission): GangSubmissionCheck {
  if (Object.values(s.reservation).every((v) => v === 0)) return { ok: true };
  if (!s.queueIsLeaf || s.sortPolicy !== "fifo") {
    return { ok: false, reason: "unsupportedQueue", message: `queue ${s.queue} cannot run application ${s.applicationId} with task group request: unsupported sort type` };
  }
  if (s.queueMax && !fitsInMaxUndef(s.queueMax, s.reservation)) {
    return { ok: false, reason: "exceedsQueueMax", message: `queue ${s.queue} cannot fit application ${s.applicationId}: task group request ${format(s.reservation)} larger than max queue allocation ${format(s.queueMax)}` };
  }
  return { ok: true };
}
