/**
 * What a gang reserves (apache/yunikorn-k8shim pkg/common/resource.go GetTGResource, pkg/cache/application.go
 * setTaskGroups / onReservationStateChange, pkg/cache/placeholder_manager.go createAppPlaceholders). Whether the core
 * accepts it is the core's rule (core/gang/submission.ts). Pure; resources in the core's units (`vcore` millicores,
 * memory bytes, `pods` count).
 */
import { type Res, add } from "../../core/resources.js";
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
 * Placeholders still to create, per group in the order written: minMember minus the members the application already
 * has for the group (the task group names of its placeholders, and of its real pods already placed: recovery creates
 * only the missing ones). Groups with none to create are left out.
 */
export function placeholdersToCreate(
  taskGroups: readonly TaskGroup[],
  existingPlaceholderGroups: readonly string[],
): { taskGroup: TaskGroup; count: number }[] {
  const have = new Map<string, number>();
  for (const g of existingPlaceholderGroups) have.set(g, (have.get(g) ?? 0) + 1);
  return taskGroups
    .map((taskGroup) => ({ taskGroup, count: taskGroup.minMember - (have.get(taskGroup.name) ?? 0) }))
    .filter((p) => p.count > 0);
}

/**
 * Placeholders each group still needs bound before the application may run (onReservationStateChange): empty when
 * the reservation is complete. Bound placeholders of groups the application does not define are not counted.
 */
export function reservationShortfall(
  taskGroups: readonly TaskGroup[],
  boundPlaceholderGroups: readonly string[],
): { taskGroup: string; missing: number }[] {
  const bound = new Map<string, number>();
  for (const g of boundPlaceholderGroups) bound.set(g, (bound.get(g) ?? 0) + 1);
  return taskGroups.map((tg) => ({ taskGroup: tg.name, missing: tg.minMember - (bound.get(tg.name) ?? 0) })).filter((s) => s.missing > 0);
}
