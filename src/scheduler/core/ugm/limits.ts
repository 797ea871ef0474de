/**
 * User and group limits of a queue tree, as configured (apache/yunikorn-core pkg/scheduler/ugm/manager.go
 * `internalProcessConfig`; yunikorn-core reference §2.6). Partition limits are root's (validate.ts copies them).
 */
import type { LimitConfig, QueueConfig } from "../config.js";
import { parseResource } from "../quantity.js";
import type { Res } from "../resources.js";

/** One configured limit: resources in core units (memory bytes, vcore millicores); `maxApps` 0 = unlimited. */
export interface Limit {
  /** undefined: no resource limit (`maxresources` absent or empty). */
  readonly maxResources?: Res;
  readonly maxApps: number;
}

/** The limits configured on one queue. */
export interface LevelLimits {
  /** Named users (never `*`). */
  readonly users: ReadonlyMap<string, Limit>;
  /** The wildcard user limit: applies to each user without a named limit on this queue, separately. */
  readonly wildcardUser?: Limit;
  /** Named groups in config order (group resolution takes the first the user belongs to). */
  readonly groups: readonly (readonly [string, Limit])[];
  /** The wildcard group limit: shared by all users whose groups matched no named group (tracked as group `*`). */
  readonly wildcardGroup?: Limit;
}

/** Queue path (lower-cased, `root.a.b`) → limits configured there; queues without limits are absent. */
export type LimitTable = ReadonlyMap<string, LevelLimits>;

/** Name of the wildcard user or group in a limit and of the shared wildcard group tracker. */
export const WILDCARD = "*";

/**
 * The limits of a validated queue tree (root first).
 * @throws Error for a quantity above 2^53 (validation refuses it earlier)
 */
export function limitTable(root: QueueConfig): LimitTable {
  const table = new Map<string, LevelLimits>();
  const walk = (q: QueueConfig, path: string) => {
    const users = new Map<string, Limit>();
    const groups: [string, Limit][] = [];
    let wildcardUser: Limit | undefined;
    let wildcardGroup: Limit | undefined;
    for (const l of q.limits ?? []) {
      const limit = fromConfig(l);
      for (const u of l.users ?? []) {
        if (u === WILDCARD) wildcardUser = limit;
        else if (u !== "") users.set(u, limit);
      }
      for (const g of l.groups ?? []) {
        if (g === WILDCARD) wildcardGroup = limit;
        else if (g !== "") groups.push([g, limit]);
      }
    }
    if (users.size > 0 || groups.length > 0 || wildcardUser || wildcardGroup)
      table.set(path, { users, wildcardUser, groups, wildcardGroup });
    for (const c of q.queues ?? []) walk(c, `${path}.${c.name.toLowerCase()}`);
  };
  walk(root, "root");
  return table;
}

/** The group limit of `group` (a name or `*`) on one queue. */
export function groupLimit(level: LevelLimits | undefined, group: string): Limit | undefined {
  if (!level) return undefined;
  if (group === WILDCARD) return level.wildcardGroup;
  for (const [g, l] of level.groups) if (g === group) return l;
  return undefined;
}

/** The groups with a limit on one queue, the wildcard as `*`. */
export function limitedGroups(level: LevelLimits | undefined): string[] {
  if (!level) return [];
  const out = level.groups.map(([g]) => g);
  if (level.wildcardGroup) out.push(WILDCARD);
  return out;
}

function fromConfig(l: LimitConfig): Limit {
  const res = l.maxresources && Object.keys(l.maxresources).length > 0 ? parseResource(l.maxresources) : undefined;
  return { maxResources: res, maxApps: l.maxapplications ?? 0 };
}
