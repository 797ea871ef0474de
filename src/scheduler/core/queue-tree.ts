/**
 * The queue tree of a partition (apache/yunikorn-core pkg/scheduler/partition.go addQueue / createQueue,
 * partition_manager.go cleanQueues, objects/queue.go NewConfiguredQueue / NewDynamicQueue / ApplyConf; yunikorn-core
 * reference §4.3):
 *
 * 1. `configure` builds the tree from a validated configuration and updates it in place on a reload: a queue added or
 *    changed keeps its applications; a configured queue the new configuration leaves out drains (no new applications;
 *    it is removed once empty).
 * 2. `create` makes the queue placement chose and did not find: missing dynamic parents and the leaf (the leaf takes
 *    its parent's child template), or the recovery queue.
 * 3. `removeEmpty` removes dynamic queues and drained queues that hold nothing (upstream every 10 s).
 * 4. Fair maxima and the allocation orders of queue.ts are brought up to date by `refreshOrder` when the configuration
 *    or the cluster size changed (`orderDirty`), never per allocation.
 *
 * Every change is recorded as data (`QueueChange`, queue-change.ts) for the core's QUEUE events. Resources in core
 * units, times in milliseconds since the epoch.
 */
import type { QueueConfig } from "./config.js";
import { parseResource } from "./quantity.js";
import { Acl, Queue, type QueueTemplate, type SortPolicy } from "./queue.js";
import type { QueueChange } from "./queue-change.js";
import {
  inheritQueueProperties,
  parseQueuePreemptionProperties,
  type PropertyProblem,
  unsupportedPropertyProblems,
} from "./queue-properties.js";
import { type Res, hasPositive, isZero, sameResource, strictlyPositive } from "./resources.js";
import { isRecoveryQueue } from "./placement/types.js";
import type { QuotaPreemptionTracker } from "./preemption/quota-tracker.js";

/**
 * How stale the queue orders are: `full` after a configuration change (policies, guarantees: every order rebuilt),
 * `fairMax` after the cluster size changed (fair maxima recomputed, only the keys that depend on them re-keyed).
 */
export type OrderStaleness = "none" | "fairMax" | "full";

/** A resource map of the configuration; undefined when empty or not strictly positive ("no limit", §4.3). */
function configuredResource(m: Record<string, string> | undefined): Res | undefined {
  if (!m || Object.keys(m).length === 0) return undefined;
  const r = parseResource(m);
  return strictlyPositive(r) ? r : undefined;
}

/**
 * `application.sort.policy` of a leaf (fifo without it or for an unknown value); a parent is always fair, as upstream
 * (resetProperties, UpdateQueueProperties reads the property for a leaf only).
 */
function sortPolicyOf(props: Record<string, string> | undefined, isLeaf = true): SortPolicy {
  if (!isLeaf) return "fair";
  return props?.["application.sort.policy"] === "fair" ? "fair" : "fifo";
}

/** `application.sort.priority` (default enabled; only `disabled`, any case, turns it off). */
function sortPriorityOf(props: Record<string, string> | undefined): boolean {
  return (props?.["application.sort.priority"] ?? "enabled").toLowerCase() !== "disabled";
}

/**
 * A child template from the configuration; undefined when it sets nothing (upstream template.FromConf: no
 * maxapplications, no resources, no property with both a key and a value).
 */
function templateOf(t: QueueConfig["childtemplate"]): QueueTemplate | undefined {
  if (!t) return undefined;
  const properties = Object.fromEntries(Object.entries(t.properties ?? {}).filter(([k, v]) => k !== "" && v !== ""));
  const guaranteed = configuredResource(t.resources?.guaranteed);
  const max = configuredResource(t.resources?.max);
  const maxApps = t.maxapplications ?? 0;
  if (maxApps === 0 && !guaranteed && !max && Object.keys(properties).length === 0) return undefined;
  return { guaranteed, max, maxApps, sortPolicy: sortPolicyOf(properties), sortPriority: sortPriorityOf(properties), properties };
}

/** A queue's fair max from its parent's (root: its max, the cluster size); a child's own max overrides its types. */
function fairMaxOf(q: Queue): Res | undefined {
  if (!q.parent) return q.max;
  return q.max ? { ...q.parent.fairMax, ...q.max } : q.parent.fairMax;
}

/** The queues of one partition (module comment). */
export class QueueTree {
  readonly root: Queue;
  /** Orders and fair maxima to bring up to date before the next allocation (`refreshOrder`). */
  get orderDirty(): OrderStaleness {
    return this.staleness;
  }
  private staleness: OrderStaleness = "full";
  /** Queue properties that fell back to their default in the last configuration (queue path with each). */
  propertyProblems: (PropertyProblem & { queue: string })[] = [];
  /** Changes since the last `drainChanges`. */
  private changes: QueueChange[] = [];
  /**
   * Queues the last configuration makes leaves that stayed parents because children (draining, or dynamic) were still
   * below them, with that configuration: once their last child is removed they become the leaves it asks for.
   */
  private leavesOnceEmpty = new Set<Queue>();
  private last?: { rootCfg: QueueConfig; quotaPreemption: QuotaPreemptionTracker };

  /** Creates the root queue; `configure` sets it up and fills the tree. */
  constructor() {
    this.root = new Queue({ name: "root", leaf: false, managed: true });
    this.changes.push({ kind: "added", path: "root", managed: true });
  }

  /**
   * Applies the root queue's configuration (validated, config.ts): queues added or changed in place, configured
   * queues left out marked draining, orders marked for a full rebuild. With `now`, every configured queue below root
   * that existed before is reported to `quotaPreemption` with its previous max and `quota.preemption.delay`
   * (`QuotaPreemptionTracker.configChanged` decides whether its quota-change preemption starts or moves).
   */
  configure(rootCfg: QueueConfig, quotaPreemption: QuotaPreemptionTracker, now?: number): void {
    const seen = new Set<Queue>();
    this.propertyProblems = [];
    this.leavesOnceEmpty = new Set();
    this.last = { rootCfg, quotaPreemption };
    const build = (qc: QueueConfig, parent: Queue | undefined, parentProps: Record<string, string> | undefined): void => {
      const name = qc.name.toLowerCase();
      const isLeaf = parent !== undefined && !qc.parent && (qc.queues ?? []).length === 0;
      const props = qc.properties ?? {};
      const merged = inheritQueueProperties(parentProps, props);
      let q = parent ? parent.children.get(name) : this.root;
      let quotaBefore: { max?: Res; delayMs: number } | undefined;
      if (!q) {
        q = new Queue({
          name,
          parent,
          leaf: isLeaf,
          managed: true,
          guaranteed: configuredResource(qc.resources?.guaranteed),
          max: configuredResource(qc.resources?.max),
          maxApps: qc.maxapplications ?? 0,
          // read from the properties in force, the parent's merged in (upstream NewConfiguredQueue mergeProperties)
          sortPolicy: sortPolicyOf(merged, isLeaf),
          sortPriority: sortPriorityOf(merged),
          submitAcl: new Acl(qc.submitacl),
          adminAcl: new Acl(qc.adminacl),
        });
        parent?.addChild(name, q);
        this.changes.push({ kind: "added", path: q.path, managed: true });
      } else {
        // a dynamic queue the configuration now names is configured from now on: kept when empty, its limits its own
        // (upstream queue.go applyConf "Change from unmanaged to managed")
        q.managed = true;
        const wasLeaf = q.isLeaf;
        if (parent) quotaBefore = { max: q.max, delayMs: q.preemption.quotaPreemptionDelayMs };
        // a leaf in the configuration with children still below stays a parent until they are gone (`removeEmpty`):
        // the walk goes on serving them (upstream turns it into a leaf at once and stops walking them)
        q.isLeaf = isLeaf && q.children.size === 0;
        if (isLeaf && !q.isLeaf) this.leavesOnceEmpty.add(q);
        if (wasLeaf !== q.isLeaf) this.changes.push({ kind: "type", path: q.path, isLeaf: q.isLeaf });
        const guaranteed = configuredResource(qc.resources?.guaranteed);
        if (!sameResource(q.guaranteed, guaranteed)) this.changes.push({ kind: "guaranteed", path: q.path, guaranteed });
        q.guaranteed = guaranteed;
        if (parent) {
          // root's max is the cluster size (`setRootMax`), never configured
          const max = configuredResource(qc.resources?.max);
          if (!sameResource(q.max, max)) this.changes.push({ kind: "max", path: q.path, max });
          q.max = max;
        }
        q.maxApps = qc.maxapplications ?? 0;
        q.sortPolicy = sortPolicyOf(merged, q.isLeaf);
        q.sortPriority = sortPriorityOf(merged);
        q.submitAcl = new Acl(qc.submitacl);
        q.adminAcl = new Acl(qc.adminacl);
        q.draining = false;
      }
      // A parent without a child template of its own uses its parent's (upstream addChildQueue).
      q.template = templateOf(qc.childtemplate) ?? (q.isLeaf ? undefined : parent?.template);
      q.properties = merged;
      const parsed = parseQueuePreemptionProperties(merged, q.isLeaf);
      q.preemption = parsed.properties;
      if (quotaBefore && now !== undefined) quotaPreemption.configChanged(q, quotaBefore, now);
      for (const problem of [...parsed.problems, ...unsupportedPropertyProblems(merged, q.isLeaf)])
        this.propertyProblems.push({ ...problem, queue: q.path });
      seen.add(q);
      for (const c of qc.queues ?? []) build(c, q, merged);
    };
    build(rootCfg, undefined, undefined);
    const markDraining = (q: Queue) => {
      for (const c of q.children.values()) {
        if (c.managed && !seen.has(c)) c.draining = true;
        markDraining(c);
      }
    };
    markDraining(this.root);
    this.staleness = "full";
  }

  /** The root queue's max is the cluster size (§4.3; empty without nodes); fair maxima follow at the next refresh. */
  setRootMax(clusterSize: Res): void {
    const max = isZero(clusterSize) ? {} : { ...clusterSize };
    if (!sameResource(this.root.max, max)) this.changes.push({ kind: "max", path: "root", max });
    this.root.max = max;
    if (this.staleness === "none") this.staleness = "fairMax";
  }

  /**
   * Recomputes every queue's fair max (reference §4.3: root = cluster size; a child overrides the types its own max
   * sets) and brings the orders up to date: after a configuration change every order is rebuilt; after a change of the
   * cluster size only keys that use a fair max are recomputed (the children of every parent; applications are ordered
   * without it), and only those that changed move. Never per allocation.
   */
  refreshOrder(): void {
    const full = this.staleness === "full";
    const walk = (q: Queue) => {
      q.fairMax = fairMaxOf(q);
      if (full) q.clearOrder();
      for (const c of q.children.values()) walk(c);
      if (full || !q.isLeaf) q.rebuildOrder();
    };
    walk(this.root);
    this.staleness = "none";
  }

  /** Every order is rebuilt before the next allocation (a queue's guarantee or policy changed outside `configure`). */
  invalidateOrder(): void {
    this.staleness = "full";
  }

  /** The fair max of a queue created or changed after the last rebuild, and of its ancestors. */
  setFairMax(q: Queue): void {
    for (const x of q.ancestry()) if (x.parent) x.fairMax = fairMaxOf(x);
  }

  /** The queue at a full path (any case), or undefined. */
  find(path: string): Queue | undefined {
    const parts = path.toLowerCase().split(".");
    if (parts[0] !== "root") return undefined;
    let q: Queue | undefined = this.root;
    for (const p of parts.slice(1)) q = q?.children.get(p);
    return q;
  }

  /**
   * Creates the queue placement chose (a full, lower-case path below root that `find` does not know): missing parents
   * and the leaf, all dynamic; or the recovery queue (fifo, no ACL).
   * @returns the leaf
   */
  create(path: string): Queue {
    if (isRecoveryQueue(path)) {
      const rec = new Queue({ name: "@recovery@", parent: this.root, leaf: true, managed: false });
      this.root.addChild("@recovery@", rec);
      this.changes.push({ kind: "added", path: rec.path, managed: false });
      return rec;
    }
    const parts = path.split(".");
    let q = this.root;
    let i = 1;
    for (; i < parts.length; i++) {
      const c = q.children.get(parts[i]!);
      if (!c) break;
      q = c;
    }
    for (; i < parts.length; i++) {
      const leaf = i === parts.length - 1;
      // A dynamic leaf gets its parent's child template; a dynamic parent inherits the template itself.
      const t = q.template;
      const c = leaf
        ? new Queue({
            name: parts[i]!,
            parent: q,
            leaf: true,
            managed: false,
            guaranteed: t?.guaranteed,
            max: t?.max,
            maxApps: t?.maxApps,
            sortPolicy: t?.sortPolicy,
            sortPriority: t?.sortPriority,
          })
        : new Queue({ name: parts[i]!, parent: q, leaf: false, managed: false, template: t, sortPolicy: "fair" });
      if (leaf && t) {
        // upstream applyTemplate: the leaf's properties are the template's, its preemption settings read from them
        c.properties = t.properties;
        c.preemption = parseQueuePreemptionProperties(t.properties, true).properties;
      }
      q.addChild(parts[i]!, c);
      this.changes.push({ kind: "added", path: c.path, managed: false });
      q = c;
    }
    return q;
  }

  /**
   * Removes dynamic queues and drained (removed from the configuration) queues that hold nothing: no applications (a
   * leaf a configuration made a parent may hold some) and no children (upstream partition manager `cleanQueues`). One
   * pass removes a parent whose children it removed. A queue the last configuration makes a leaf that stayed a parent
   * for its children becomes that leaf once they are gone: the configuration is applied again (without `now`, so no
   * quota-change preemption starts).
   * @returns the paths removed
   */
  removeEmpty(): string[] {
    const removed: string[] = [];
    const walk = (q: Queue) => {
      // no copy of the children: iterating a Map goes on past entries deleted behind it
      for (const c of q.children.values()) {
        walk(c);
        // a parent may still hold applications (a leaf the configuration made a parent): kept until they leave
        const empty = c.apps.size === 0 && c.children.size === 0;
        if (empty && (!c.managed || c.draining) && isZero(c.allocated) && !hasPositive(c.pending)) {
          q.removeChild(c.name);
          removed.push(c.path);
          this.changes.push({ kind: "removed", path: c.path, managed: c.managed });
        }
      }
    };
    walk(this.root);
    if (removed.length > 0) this.staleness = "full";
    // a queue the configuration makes a leaf whose last child went: the configuration applied again makes it one
    if (this.last && [...this.leavesOnceEmpty].some((q) => q.children.size === 0 && this.find(q.path) === q))
      this.configure(this.last.rootCfg, this.last.quotaPreemption);
    return removed;
  }

  /** Queue changes since the last call, oldest first (queue-change.ts). */
  drainChanges(): QueueChange[] {
    const c = this.changes;
    this.changes = [];
    return c;
  }
}

/**
 * The smallest max set on the queue and its parents below root, per resource type (upstream GetMaxQueueSet);
 * undefined when none sets one.
 */
export function maxQueueSet(q: Queue): Res | undefined {
  let out: Res | undefined;
  for (let x: Queue | undefined = q; x?.parent; x = x.parent) {
    if (!x.max) continue;
    out ??= {};
    for (const k in x.max) out[k] = Math.min(out[k] ?? Number.POSITIVE_INFINITY, x.max[k]!);
  }
  return out;
}
