/**
 * User and group limits (apache/yunikorn-core pkg/scheduler/ugm; yunikorn-core reference §2.6, §4.7).
 * Limits come from the queue config (`limits:` on queues; partition limits are root's). At every level of the app's
 * queue path the user's own limit applies, else the wildcard user limit of that queue. The app's group is fixed at first
 * use: walking from the leaf up, the first level with a named group limit the user belongs to (config order), else a
 * wildcard group limit; that group's limits then apply at every level. Groups come from the caller (design 002: the
 * core never resolves them).
 */
import type { LimitConfig, QueueConfig } from "./config.js";
import { parseResource } from "./quantity.js";
import { type Res, addTo, fitsWithin, subFrom } from "./resources.js";


export interface Limit {
  maxResources?: Res;
  maxApps: number;
}

interface LevelLimits {
  users: Map<string, Limit>;
  /** Group limits in config order (resolution takes the first match). */
  groups: [string, Limit][];
}

interface Usage {
  res: Res;
  apps: Set<string>;
}

export class LimitTracker {
  private levels = new Map<string, LevelLimits>();
  private users = new Map<string, Map<string, Usage>>();
  private groups = new Map<string, Map<string, Usage>>();
  private appGroup = new Map<string, string | undefined>();

  /** (Re)loads the limits from the validated queue tree (root first). */
  load(root: QueueConfig): void {
    this.levels.clear();
    const walk = (q: QueueConfig, path: string) => {
      const lv: LevelLimits = { users: new Map(), groups: [] };
      for (const l of q.limits ?? []) {
        const limit = fromConfig(l);
        for (const u of l.users ?? []) lv.users.set(u, limit);
        for (const g of l.groups ?? []) lv.groups.push([g, limit]);
      }
      if (lv.users.size > 0 || lv.groups.length > 0) this.levels.set(path, lv);
      for (const c of q.queues ?? []) walk(c, `${path}.${c.name.toLowerCase()}`);
    };
    walk(root, "root");
  }

  private static prefixes(leafPath: string): string[] {
    const parts = leafPath.split(".");
    return parts.map((_, i) => parts.slice(0, i + 1).join("."));
  }

  private userLimit(path: string, user: string): Limit | undefined {
    const lv = this.levels.get(path);
    return lv?.users.get(user) ?? lv?.users.get("*");
  }

  /** The group the app is tracked under (undefined: no group limit applies). */
  groupOf(appId: string, leafPath: string, groups: readonly string[]): string | undefined {
    if (this.appGroup.has(appId)) return this.appGroup.get(appId);
    let found: string | undefined;
    const levels = LimitTracker.prefixes(leafPath).reverse();
    for (const path of levels) {
      const lv = this.levels.get(path);
      if (!lv) continue;
      const named = lv.groups.find(([g]) => g !== "*" && groups.includes(g));
      if (named) {
        found = named[0];
        break;
      }
      if (lv.groups.some(([g]) => g === "*")) {
        found = "*";
        break;
      }
    }
    this.appGroup.set(appId, found);
    return found;
  }

  private groupLimit(path: string, group: string): Limit | undefined {
    return this.levels.get(path)?.groups.find(([g]) => g === group)?.[1];
  }

  private usage(map: Map<string, Map<string, Usage>>, name: string, path: string): Usage {
    let byPath = map.get(name);
    if (!byPath) map.set(name, (byPath = new Map()));
    let u = byPath.get(path);
    if (!u) byPath.set(path, (u = { res: {}, apps: new Set() }));
    return u;
  }

  /**
   * Why `ask` may not be allocated for this app now, or undefined when user and group headroom allow it.
   * @returns e.g. `user alice: root.a maximum map[memory:100] reached`
   */
  headroomBlock(appId: string, leafPath: string, user: string, groups: readonly string[], ask: Res): string | undefined {
    const group = this.groupOf(appId, leafPath, groups);
    for (const path of LimitTracker.prefixes(leafPath)) {
      const ul = this.userLimit(path, user);
      if (ul?.maxResources && !fitsWithin(ul.maxResources, this.usage(this.users, user, path).res, ask)) return `user ${user} quota reached on ${path}`;
      if (group) {
        const gl = this.groupLimit(path, group);
        if (gl?.maxResources && !fitsWithin(gl.maxResources, this.usage(this.groups, group, path).res, ask)) return `group ${group} quota reached on ${path}`;
      }
    }
    return undefined;
  }

  /** Why the app may not start running (maxapplications of user or group), or undefined. */
  runBlock(appId: string, leafPath: string, user: string, groups: readonly string[]): string | undefined {
    const group = this.groupOf(appId, leafPath, groups);
    for (const path of LimitTracker.prefixes(leafPath)) {
      const ul = this.userLimit(path, user);
      if (ul && ul.maxApps > 0) {
        const apps = this.usage(this.users, user, path).apps;
        if (!apps.has(appId) && apps.size + 1 > ul.maxApps) return `user ${user} running applications limit ${ul.maxApps} reached on ${path}`;
      }
      if (group) {
        const gl = this.groupLimit(path, group);
        if (gl && gl.maxApps > 0) {
          const apps = this.usage(this.groups, group, path).apps;
          if (!apps.has(appId) && apps.size + 1 > gl.maxApps) return `group ${group} running applications limit ${gl.maxApps} reached on ${path}`;
        }
      }
    }
    return undefined;
  }

  /** Records an allocation (`sign` +1) or its release (−1); `running` says whether the app still has allocations. */
  track(appId: string, leafPath: string, user: string, groups: readonly string[], r: Res, sign: 1 | -1, running: boolean): void {
    const group = this.groupOf(appId, leafPath, groups);
    for (const path of LimitTracker.prefixes(leafPath)) {
      for (const [map, name] of [[this.users, user], ...(group ? [[this.groups, group] as const] : [])] as const) {
        const u = this.usage(map, name, path);
        if (sign > 0) addTo(u.res, r);
        else subFrom(u.res, r);
        if (running) u.apps.add(appId);
        else u.apps.delete(appId);
      }
    }
  }

  /** Usage for the REST API: name → path → resources and running apps. */
  snapshot(kind: "users" | "groups"): Map<string, Map<string, Usage>> {
    return kind === "users" ? this.users : this.groups;
  }

  forget(appId: string): void {
    this.appGroup.delete(appId);
  }
}

function fromConfig(l: LimitConfig): Limit {
  const res = l.maxresources && Object.keys(l.maxresources).length > 0 ? parseResource(l.maxresources) : undefined;
  return { maxResources: res, maxApps: l.maxapplications ?? 0 };
}
