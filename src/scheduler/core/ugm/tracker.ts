/**
 * User and group usage against their limits (apache/yunikorn-core pkg/scheduler/ugm manager.go, user_tracker.go,
 * group_tracker.go, queue_tracker.go; yunikorn-core reference §2.6, §4.7).
 *
 * - Usage is tracked for every user at every level of the application's queue path (root … leaf): resources of its
 *   allocations and the running applications (for `maxapplications`): from an application's first allocation until
 *   it holds no allocation and asks for none (upstream application.go `hasZeroAllocations`).
 * - At each level the user's named limit applies, else the queue's wildcard user limit.
 * - An application is tracked under at most one group, resolved when it is first checked or tracked
 *   (`ensureGroupInternal`): from the leaf up, the first level where one of the configured named groups (config
 *   order) is one of the user's groups gives that group; else a wildcard group limit at that level gives the shared
 *   group `*`; else the next level up; none: the application is not tracked under any group. That group's limits
 *   apply at every level.
 * - The link is dropped when the application stops running (upstream `removeApp`).
 * - A configuration that removes a group's limit on a queue (`clearEarlierSetGroupLimits`) stops tracking that group
 *   for the applications at or below that queue: their usage leaves the group and their link is dropped. Unlike
 *   upstream (which re-resolves at the application's next check and leaves its existing usage uncounted), the
 *   application is resolved again at once under the new configuration and its current usage moves to the group it
 *   resolves to, so group totals always equal the sum of their applications'.
 * Groups come from the caller (design 002: the core never resolves them).
 */
import type { QueueConfig } from "../config.js";
import { type Res, addInto, addTo, fitsHeadroom, hasPositive, subFrom } from "../resources.js";
import type { LimitHold } from "./hold.js";
import { type LevelLimits, type Limit, type LimitTable, WILDCARD, groupLimit, limitTable, limitedGroups } from "./limits.js";

/** What the tracker needs of an application (the core's Application has these fields). */
export interface TrackedApp {
  readonly id: string;
  readonly user: string;
  /** The user's groups as the resource manager sent them. */
  readonly groups: readonly string[];
  /** The application's leaf queue. */
  readonly queue: TrackedQueue;
  /**
   * Kept by the tracker on the application (a cache of its entry by id), so an allocation of a known application looks
   * nothing up by id or path. Never set by callers.
   */
  ugm?: AppTracking;
}

/**
 * What the tracker needs of a queue, and keeps on it: the usage record of the user and of the group looked up there
 * last, so the next application of the same user (or group) in that leaf finds its record without a lookup (on a leaf
 * last touched long ago, a lookup reads a hash table entry and a record that are far apart). The slots are never set by
 * callers; a tracker uses a slot only when the record in it is its own.
 */
export interface TrackedQueue {
  readonly path: string;
  /** The parent queue (none: root, or a queue that does not link to its parent, whose parents are found by path). */
  readonly parent?: TrackedQueue;
  ugmUser?: UsageRecord;
  ugmGroup?: UsageRecord;
}

/**
 * The tracker's state of one application whose group link is resolved: the group, the usage records along its queue
 * path it is counted in, and its allocated resources while it has allocations.
 */
export interface AppTracking {
  readonly app: TrackedApp;
  /** The group it is tracked under; undefined: none (no group limit applies). */
  group: string | undefined;
  /** The user's usage on the leaf queue, linked to the levels above (resolved on the first charge). */
  userUsage?: UsageRecord;
  /** The group's usage on the leaf queue, linked to the levels above; undefined until charged or without a group. */
  groupUsage?: UsageRecord;
  /** Allocated resources while the application has allocations ("running"); undefined: none. */
  running?: Res;
  /** False once dropped (the application stopped running, link removed by a configuration, application forgotten). */
  live: boolean;
  /** Neighbours in the tracker's list of linked applications (oldest link first); kept by the tracker. */
  prev: AppTracking | undefined;
  next: AppTracking | undefined;
}

/** Constructor input of {@link LimitTracker}. */
export interface LimitTrackerOptions {
  /**
   * True: the caller passes the same object for an application every time (the partition's Application, from its
   * registry), so an application's tracking is found on it (`TrackedApp.ugm`) and the tracker keeps no index by id.
   * False (default): applications are indexed by id, and two objects with the same id are one application.
   */
  oneObjectPerApplication?: boolean;
}

/** Usage of one user or group on one queue path. */
export interface Usage {
  /** Allocated resources in core units. */
  res: Res;
  /** Applications with at least one allocation. */
  apps: Set<string>;
}

/**
 * What is kept per user or group and queue path: the resources and the number of running applications (which ones
 * is known from the applications' own state, `snapshot` lists them), and the same user's or group's record on the
 * parent queue (none on root), so an allocation charges a path by following links from its leaf, not through an array.
 */
export interface UsageRecord {
  readonly res: Res;
  running: number;
  readonly parent: UsageRecord | undefined;
  /** The user or group. */
  readonly name: string;
  /** The tracker's map of users or of groups the record is in (a queue's slot is only trusted by its owner). */
  readonly owner: object;
  /** True once the user's or group's records were removed from the tracker (`prune`): a queue's slot then ignores it. */
  removed: boolean;
}

/**
 * A user or group resource limit that applies to an application, with the usage it is measured against (over-limit
 * reports). `name`: the user, or the group the application is tracked under. Core units.
 */
export interface TrackedLimit {
  kind: "user" | "group";
  name: string;
  /** Queue path the limit is set on. */
  path: string;
  wildcard: boolean;
  max: Res;
  used: Res;
}

const NO_USAGE: UsageRecord = { res: {}, running: 0, parent: undefined, name: "", owner: {}, removed: false };

/**
 * What changed in the tracker, as data (upstream ugm_events.go; the core sends them as USERGROUP records). `queuePath`
 * is the application's leaf queue for usage, the queue the limit is set on for limits. Resources in core units.
 */
export type UgmChange =
  /** Usage of a user or group went up (`sign` 1) or down (−1) by `resource` (UG_USER_RESOURCE / UG_GROUP_RESOURCE). */
  | {
      readonly kind: "usage";
      readonly who: "user" | "group";
      readonly name: string;
      readonly queuePath: string;
      readonly sign: 1 | -1;
      readonly resource: Readonly<Res>;
    }
  /** An application was linked to (or unlinked from) the group it is tracked under (UG_APP_LINK). */
  | { readonly kind: "appLink"; readonly group: string; readonly appId: string; readonly linked: boolean }
  /**
   * A user or group limit was set by a configuration (every load, as upstream) or is gone (UG_USER_LIMIT /
   * UG_GROUP_LIMIT); `name` is `*` for a wildcard limit.
   */
  | { readonly kind: "limit"; readonly who: "user" | "group"; readonly name: string; readonly queuePath: string; readonly set: boolean };

/** User and group usage and limits of one partition (module comment). */
export class LimitTracker {
  private table: LimitTable = new Map();
  private readonly users = new Map<string, Map<string, UsageRecord>>();
  private readonly groups = new Map<string, Map<string, UsageRecord>>();
  /** Applications whose group link is resolved, oldest link first (a list through `AppTracking.prev`/`next`). */
  private firstLink: AppTracking | undefined;
  private lastLink: AppTracking | undefined;
  /** The same by id, unless one object stands for each application (absent: not resolved yet). */
  private readonly byId: Map<string, AppTracking> | undefined;
  /** Changes since the last `drainChanges`. */
  private changes: UgmChange[] = [];
  /**
   * Whether changes are recorded for `drainChanges`; false when nothing reads them (the core without an event sink),
   * so an allocation makes no change record.
   */
  recordChanges = true;

  constructor(o: LimitTrackerOptions = {}) {
    this.byId = o.oneObjectPerApplication ? undefined : new Map();
  }

  /** The changes since the last call, oldest first. */
  drainChanges(): UgmChange[] {
    const c = this.changes;
    this.changes = [];
    return c;
  }

  /**
   * (Re)loads the limits from the validated queue tree (root first). Group limits that are gone stop applying to the
   * applications tracked under them at or below that queue; those applications are resolved again (see the module
   * comment).
   */
  load(root: QueueConfig): void {
    const next = limitTable(root);
    const unlinked: AppTracking[] = [];
    for (const [path, level] of this.table) {
      const now = new Set(limitedGroups(next.get(path)));
      for (const group of limitedGroups(level)) {
        if (now.has(group)) continue;
        for (let t = this.firstLink, next = t?.next; t; t = next, next = t?.next) {
          if (t.group !== group) continue;
          const leaf = t.running && t.app.queue.path;
          if (leaf && leaf !== path && !leaf.startsWith(`${path}.`)) continue;
          if (t.running) {
            this.charge(t, "group", t.running, -1, "delete");
            unlinked.push(t);
          }
          this.drop(t);
        }
      }
    }
    for (const [path, level] of next)
      for (const [who, name] of limitNames(level))
        if (this.recordChanges) this.changes.push({ kind: "limit", who, name, queuePath: path, set: true });
    for (const [path, level] of this.table) {
      const now = new Set(limitNames(next.get(path)).map(([who, name]) => `${who}\0${name}`));
      for (const [who, name] of limitNames(level))
        if (!now.has(`${who}\0${name}`) && this.recordChanges) this.changes.push({ kind: "limit", who, name, queuePath: path, set: false });
    }
    this.table = next;
    // names kept only by limits that are gone now go (upstream resetUserEarlierUsage / resetGroupEarlierUsage)
    for (const name of [...this.users.keys()]) this.prune(this.users, "users", name);
    for (const name of [...this.groups.keys()]) this.prune(this.groups, "groups", name);
    // every user and group a limit names has records from the configuration on (upstream setUserLimits and
    // setGroupLimits make its tracker at load; the wildcard user has none, the wildcard group has): the usage routes
    // list it with its limits before it uses anything, and it is kept while a limit names it
    for (const [path, level] of this.table) {
      for (const user of level.users.keys()) this.recordOn(this.users, this.byPathOf(this.users, user), user, { path });
      for (const group of limitedGroups(level)) this.recordOn(this.groups, this.byPathOf(this.groups, group), group, { path });
    }
    for (const old of unlinked) {
      // running: linked again at once under the new configuration, with the usage it has
      const t = this.tracking(old.app);
      t.running = old.running;
      t.userUsage = old.userUsage;
      if (t.group !== undefined) {
        t.groupUsage = this.usageRecord(this.groups, t.group, t.app);
        this.charge(t, "group", t.running!, 1, "add");
      }
    }
  }

  /** The group `app` is tracked under (undefined: no group limit applies); resolved and linked on first use. */
  groupOf(app: TrackedApp): string | undefined {
    return this.tracking(app).group;
  }

  /** The application's tracked state, linked to its group on first use (upstream `ensureGroupInternal`). */
  private tracking(app: TrackedApp): AppTracking {
    const cached = app.ugm;
    if (cached?.live) return cached;
    let t = this.linkOf(app.id);
    if (!t) {
      // every field set at once: one object shape for every application's tracking
      t = {
        app,
        group: this.resolveGroup(app),
        userUsage: undefined,
        groupUsage: undefined,
        running: undefined,
        live: true,
        prev: this.lastLink,
        next: undefined,
      };
      if (this.lastLink) this.lastLink.next = t;
      else this.firstLink = t;
      this.lastLink = t;
      this.byId?.set(app.id, t);
      if (t.group !== undefined && this.recordChanges) this.changes.push({ kind: "appLink", group: t.group, appId: app.id, linked: true });
    }
    app.ugm = t;
    return t;
  }

  /** The linked tracking of another object with this id, or undefined (none when one object stands for each application). */
  private linkOf(id: string): AppTracking | undefined {
    return this.byId?.get(id);
  }

  /** Forgets an application's link (resolved again on its next use). */
  private drop(t: AppTracking): void {
    if (!t.live) return; // dropped already (live exactly while linked)
    t.live = false;
    if (t.prev) t.prev.next = t.next;
    else this.firstLink = t.next;
    if (t.next) t.next.prev = t.prev;
    else this.lastLink = t.prev;
    t.prev = t.next = undefined;
    this.byId?.delete(t.app.id);
    if (t.group !== undefined && this.recordChanges) this.changes.push({ kind: "appLink", group: t.group, appId: t.app.id, linked: false });
  }

  /** The usage record of one user or group on the application's leaf queue, linked up to root (created when missing). */
  private usageRecord(map: Map<string, Map<string, UsageRecord>>, name: string, app: TrackedApp): UsageRecord {
    return this.recordOn(map, this.byPathOf(map, name), name, app.queue);
  }

  /** The records of user or group `name` by queue path (an empty map made when missing). */
  private byPathOf(map: Map<string, Map<string, UsageRecord>>, name: string): Map<string, UsageRecord> {
    let byPath = map.get(name);
    if (!byPath) map.set(name, (byPath = new Map()));
    return byPath;
  }

  /**
   * The record of `name` on queue `q` (created with those above it when missing): the one the queue keeps from its
   * last lookup when it is the same user's or group's (and this tracker's), else by path. Parents are found through
   * `q.parent`, or by path for a queue that does not link to its parent.
   */
  private recordOn(
    map: Map<string, Map<string, UsageRecord>>,
    byPath: Map<string, UsageRecord>,
    name: string,
    q: TrackedQueue,
  ): UsageRecord {
    const user = map === this.users;
    const last = user ? q.ugmUser : q.ugmGroup;
    if (last?.name === name && last.owner === map && !last.removed) return last;
    let u = byPath.get(q.path);
    if (!u) {
      const dot = q.path.lastIndexOf(".");
      const parent = q.parent
        ? this.recordOn(map, byPath, name, q.parent)
        : dot < 0
          ? undefined
          : this.recordOn(map, byPath, name, { path: q.path.slice(0, dot) });
      byPath.set(q.path, (u = { res: {}, running: 0, parent, name, owner: map, removed: false }));
    }
    if (user) q.ugmUser = u;
    else q.ugmGroup = u;
    return u;
  }

  /**
   * Upstream `ensureGroupInternal`: the leaf first, then each parent. Without limits the queue is not read (on a leaf
   * last touched long ago its path is a cache miss).
   */
  private resolveGroup(app: TrackedApp): string | undefined {
    const userGroups = app.groups;
    if (this.table.size === 0 || userGroups.length === 0) return undefined;
    const levels = prefixes(app.queue.path);
    for (let i = levels.length - 1; i >= 0; i--) {
      const level = this.table.get(levels[i]!);
      if (!level) continue;
      for (const [g] of level.groups) if (userGroups.includes(g)) return g;
      if (level.wildcardGroup) return WILDCARD;
    }
    return undefined;
  }

  /** The user's limit on one queue: named, else the wildcard user limit. */
  private userLimit(path: string, user: string): { limit: Limit; wildcard: boolean } | undefined {
    const level = this.table.get(path);
    const named = level?.users.get(user);
    if (named) return { limit: named, wildcard: false };
    return level?.wildcardUser ? { limit: level.wildcardUser, wildcard: true } : undefined;
  }

  private static usageOf(map: Map<string, Map<string, UsageRecord>>, name: string, path: string): UsageRecord {
    return map.get(name)?.get(path) ?? NO_USAGE;
  }

  /**
   * The user or group limit that `ask` would exceed for `app`, or undefined when both have headroom for it. Levels
   * are checked from root to leaf, the user before the group at each level.
   */
  headroom(app: TrackedApp, ask: Readonly<Res>): LimitHold | undefined {
    if (this.table.size === 0) return undefined; // no limits configured (the group is linked at the first charge)
    const group = this.groupOf(app);
    for (const path of prefixes(app.queue.path)) {
      const ul = this.userLimit(path, app.user);
      if (ul?.limit.maxResources) {
        const used = LimitTracker.usageOf(this.users, app.user, path).res;
        if (!fitsHeadroom(ul.limit.maxResources, used, ask)) {
          return {
            kind: "user",
            name: app.user,
            queuePath: path,
            wildcard: ul.wildcard,
            limit: { type: "resources", max: { ...ul.limit.maxResources }, used: { ...used }, ask: { ...ask } },
          };
        }
      }
      if (group === undefined) continue;
      const gl = groupLimit(this.table.get(path), group);
      if (gl?.maxResources) {
        const used = LimitTracker.usageOf(this.groups, group, path).res;
        if (!fitsHeadroom(gl.maxResources, used, ask)) {
          return {
            kind: "group",
            name: group,
            queuePath: path,
            wildcard: group === WILDCARD,
            limit: { type: "resources", max: { ...gl.maxResources }, used: { ...used }, ask: { ...ask } },
          };
        }
      }
    }
    return undefined;
  }

  /**
   * The user and group resource limits that apply to `app` at each level of its queue path, root first (the user
   * before the group at each level), with the usage tracked against them. Reads only.
   */
  limitsAlong(app: TrackedApp): TrackedLimit[] {
    const group = this.groupOf(app);
    const out: TrackedLimit[] = [];
    for (const path of prefixes(app.queue.path)) {
      const ul = this.userLimit(path, app.user);
      if (ul?.limit.maxResources) {
        out.push({
          kind: "user",
          name: app.user,
          path,
          wildcard: ul.wildcard,
          max: { ...ul.limit.maxResources },
          used: { ...LimitTracker.usageOf(this.users, app.user, path).res },
        });
      }
      const gl = group === undefined ? undefined : groupLimit(this.table.get(path), group);
      if (gl?.maxResources) {
        out.push({
          kind: "group",
          name: group!,
          path,
          wildcard: group === WILDCARD,
          max: { ...gl.maxResources },
          used: { ...LimitTracker.usageOf(this.groups, group!, path).res },
        });
      }
    }
    return out;
  }

  /** The user or group `maxapplications` that keeps `app` from starting to run, or undefined (upstream `CanRunApp`). */
  runHold(app: TrackedApp): LimitHold | undefined {
    if (this.table.size === 0) return undefined; // no limits configured (the group is linked at the first charge)
    const t = this.tracking(app);
    if (t.running) return undefined; // counted already: it runs
    const group = t.group;
    for (const path of prefixes(app.queue.path)) {
      const ul = this.userLimit(path, app.user);
      if (ul && ul.limit.maxApps > 0) {
        const running = LimitTracker.usageOf(this.users, app.user, path).running;
        if (running + 1 > ul.limit.maxApps) {
          return {
            kind: "user",
            name: app.user,
            queuePath: path,
            wildcard: ul.wildcard,
            limit: { type: "applications", max: ul.limit.maxApps, running },
          };
        }
      }
      if (group === undefined) continue;
      const gl = groupLimit(this.table.get(path), group);
      if (gl && gl.maxApps > 0) {
        const running = LimitTracker.usageOf(this.groups, group, path).running;
        if (running + 1 > gl.maxApps) {
          return {
            kind: "group",
            name: group,
            queuePath: path,
            wildcard: group === WILDCARD,
            limit: { type: "applications", max: gl.maxApps, running },
          };
        }
      }
    }
    return undefined;
  }

  /**
   * Records an allocation (`sign` +1) or its release (−1) of `r` for `app` (undefined: no resource moves, the
   * application only stops running, `stopRunning`); `running` says whether the app still runs afterwards (it holds an
   * allocation or asks for one). When it does not, it stops counting as running and its group link is dropped
   * (resolved again on its next allocation).
   */
  track(app: TrackedApp, r: Readonly<Res> | undefined, sign: 1 | -1, running: boolean): void {
    const t = this.tracking(app);
    // a running application is counted at every level already; only starting or stopping to run changes the counts
    const mark = running === (t.running !== undefined) ? "keep" : running ? "add" : "delete";
    t.userUsage ??= this.usageRecord(this.users, app.user, app);
    this.charge(t, "user", r, sign, mark);
    if (t.group !== undefined) {
      t.groupUsage ??= this.usageRecord(this.groups, t.group, app);
      this.charge(t, "group", r, sign, mark);
    }
    if (!running) {
      this.drop(t);
      if (mark === "delete") {
        this.prune(this.users, "users", app.user);
        if (t.group !== undefined) this.prune(this.groups, "groups", t.group);
      }
    } else if (r) {
      if (sign > 0) t.running = addInto(t.running, r);
      else subFrom((t.running ??= {}), r);
    }
  }

  /**
   * Removes every record of user or group `name` when it has no usage and no running application left and no limit
   * applies to it on any queue it has a record on (upstream manager.go DecreaseTrackedResource deletes a tracker whose
   * queue trackers are all empty and unlimited): what is kept grows with the users and groups active now, not with
   * every one ever seen. The root record holds the whole of the name's usage, so it alone says whether it is empty.
   */
  private prune(map: Map<string, Map<string, UsageRecord>>, kind: "users" | "groups", name: string): void {
    const byPath = map.get(name);
    const top = byPath?.get("root");
    if (!byPath || !top || top.running !== 0 || hasPositive(top.res)) return;
    for (const path of byPath.keys()) if (this.hasLimit(kind, name, path)) return;
    map.delete(name);
    for (const u of byPath.values()) u.removed = true;
  }

  /**
   * Adds (or removes) `r` on each of the application's usage records along its path for its user (`t.userUsage`) or
   * group (`t.groupUsage`, set by the caller) and counts it as running there (or no longer); the change is recorded.
   */
  private charge(t: AppTracking, who: "user" | "group", r: Readonly<Res> | undefined, sign: 1 | -1, mark: "add" | "delete" | "keep"): void {
    const { app } = t;
    const name = who === "user" ? app.user : t.group!;
    // no usage record when no resource moves (`stopRunning`): only the running count changes
    if (this.recordChanges && r) this.changes.push({ kind: "usage", who, name, queuePath: app.queue.path, sign, resource: { ...r } });
    for (let u = who === "user" ? t.userUsage : t.groupUsage; u; u = u.parent) {
      if (r) {
        if (sign > 0) addTo(u.res, r);
        else subFrom(u.res, r);
      }
      if (mark === "add") u.running++;
      else if (mark === "delete") u.running--;
    }
  }

  /**
   * True when a limit applies to user or group `name` on queue `path`: for a user its own or the wildcard user limit
   * there, for a group its own (`*`: the wildcard group limit).
   */
  hasLimit(kind: "users" | "groups", name: string, path: string): boolean {
    return this.limitOn(kind, name, path) !== undefined;
  }

  /**
   * The limit that applies to user or group `name` on queue `path` (see `hasLimit`), or undefined: what upstream's
   * queue tracker of that user or group holds as its maxResources and maxRunningApps (ugm queue_tracker.go
   * newQueueTracker and setLimits). Never changed by the caller.
   */
  limitOn(kind: "users" | "groups", name: string, path: string): Limit | undefined {
    const level = this.table.get(path);
    if (!level) return undefined;
    if (kind === "users") return level.users.get(name) ?? level.wildcardUser;
    return groupLimit(level, name);
  }

  /**
   * Per user, the group each of their applications is tracked under (user → application id → group; applications
   * without a group left out), as upstream's user trackers list them (user_tracker.go GetResourceUsageDAOInfo
   * `groups`). One pass over the linked applications.
   */
  groupsByUser(): Map<string, Map<string, string>> {
    const out = new Map<string, Map<string, string>>();
    for (let t = this.firstLink; t; t = t.next) {
      if (t.group === undefined) continue;
      let m = out.get(t.app.user);
      if (!m) out.set(t.app.user, (m = new Map()));
      m.set(t.app.id, t.group);
    }
    return out;
  }

  /** Usage for the REST API: name → queue path → resources and running apps (made on each call). */
  snapshot(kind: "users" | "groups"): ReadonlyMap<string, ReadonlyMap<string, Usage>> {
    const out = new Map<string, Map<string, Usage>>();
    for (const [name, byPath] of kind === "users" ? this.users : this.groups) {
      out.set(name, new Map([...byPath].map(([path, u]) => [path, { res: u.res, apps: new Set<string>() }])));
    }
    for (let t = this.firstLink; t; t = t.next) {
      const name = kind === "users" ? t.app.user : t.group;
      if (!t.running || name === undefined) continue;
      for (const path of prefixes(t.app.queue.path)) out.get(name)?.get(path)?.apps.add(t.app.id);
    }
    return out;
  }

  /**
   * Stops counting `app` as running once it holds no allocation and asks for nothing (upstream application.go: an
   * application is removed from its user's and group's trackers when both its pending and allocated resources are
   * zero, `hasZeroAllocations`): its last allocation went while an ask was pending, and that ask went too. Nothing is
   * charged; an application not counted is left alone.
   */
  stopRunning(app: TrackedApp): void {
    if (app.ugm?.live && app.ugm.running) this.track(app, undefined, -1, false);
  }

  /** Drops what is kept for a removed application (its group link). */
  forget(app: TrackedApp): void {
    const t = app.ugm?.live ? app.ugm : this.linkOf(app.id);
    if (t) this.drop(t);
  }
}

/** The users and groups with a limit on one queue (named ones, then the wildcards as `*`). */
function limitNames(level: LevelLimits | undefined): ["user" | "group", string][] {
  if (!level) return [];
  const out: ["user" | "group", string][] = [...level.users.keys()].map((u) => ["user", u] as ["user", string]);
  if (level.wildcardUser) out.push(["user", WILDCARD]);
  for (const g of limitedGroups(level)) out.push(["group", g]);
  return out;
}

/** `root.a.b` → `root`, `root.a`, `root.a.b`. */
const prefixCache = new Map<string, readonly string[]>();

/** `root.a.b` → `root`, `root.a`, `root.a.b` (cached: queue paths are few and fixed). */
export function prefixes(leafPath: string): readonly string[] {
  let cached = prefixCache.get(leafPath);
  if (!cached) {
    if (prefixCache.size > 100_000) prefixCache.clear();
    prefixCache.set(leafPath, (cached = splitPrefixes(leafPath)));
  }
  return cached;
}

function splitPrefixes(leafPath: string): string[] {
  const out: string[] = [];
  let i = leafPath.indexOf(".");
  while (i >= 0) {
    out.push(leafPath.slice(0, i));
    i = leafPath.indexOf(".", i + 1);
  }
  out.push(leafPath);
  return out;
}
