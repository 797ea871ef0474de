/**
 * A partition: its queue tree, nodes and applications, and the allocation step (yunikorn-core reference §4.1-4.8).
 *
 * `tryAllocate(now)` returns at most one allocation, as upstream's scheduling cycle: queues are walked from root, at
 * each parent the children with pending resources ordered by (priority when enabled, dominant share of guaranteed /
 * fair max, path); at a leaf the applications by the queue's policy (`fifo`: priority then submission time, `fair`:
 * usage share of the leaf's guaranteed); in an application the asks by priority then age; for an ask the nodes by the
 * partition's policy (`fair`: least used first, `binpacking`: most used first). Queue max, user/group limits,
 * maxapplications and node free capacity are never exceeded. Every tie is broken by a stable key (path, id, key), so
 * the same inputs give the same schedule.
 */
import type { PartitionConfig, QueueConfig } from "./config.js";
import { formatLimitHold } from "./ugm/hold.js";
import { LimitTracker } from "./ugm/tracker.js";
import { BTree } from "../../util/btree.js";
import { Acl, type Application, type Ask, Node, Queue, nodeOrder, type NodeOrder } from "./objects.js";
import { Application as App } from "./objects.js";
import { toRes } from "./partition-config.js";
import { parseResource } from "./quantity.js";
import { type Res, addTo, dominantShare, fitsIn, fitsWithin, format, isZero, strictlyPositive, subFrom } from "./resources.js";
import { PlacementManager } from "./placement/manager.js";
import { tagValue } from "./placement/tag.js";
import { PlacementRefusedError, isRecoveryQueue } from "./placement/types.js";

/** A decision of the core: the ask `key` of `appId` goes to `nodeId`. */
export interface Allocation {
  key: string;
  appId: string;
  nodeId: string;
  resource: Res;
  queue: string;
}

/** An application state change, for the resource manager. */
export interface AppStateChange {
  appId: string;
  from: string;
  to: string;
  at: number;
}

const res = (m: Record<string, string> | undefined): Res | undefined => {
  if (!m || Object.keys(m).length === 0) return undefined;
  const r = toRes(parseResource(m));
  // A max that is not strictly positive means "no limit" (§4.3); guaranteed likewise.
  return strictlyPositive(r) ? r : undefined;
};

export class Partition {
  readonly nodes = new Map<string, Node>();
  readonly apps = new Map<string, Application>();
  readonly rejected = new Map<string, string>();
  readonly limits = new LimitTracker();
  /**
   * Schedulable nodes in allocation order. Only a node whose usage changed is re-keyed (O(log n)), so choosing a node
   * costs O(log n) plus the nodes skipped because the ask does not fit — not a sort of every node per allocation.
   */
  private nodeIndex = new BTree<NodeOrder, Node>(undefined, nodeOrder);
  root!: Queue;
  private placement = new PlacementManager([]);
  nodeSortPolicy: "fair" | "binpacking" = "fair";
  weights: Record<string, number> = { vcore: 1, memory: 1 };
  /** State changes since the last drain (see `drainStateChanges`). */
  private changes: AppStateChange[] = [];

  constructor(readonly name: string, cfg: PartitionConfig) {
    this.applyConfig(cfg);
  }

  /**
   * Applies a validated partition config: queues added or changed in place, removed managed queues drain (no new
   * applications; running ones finish), limits and policies replaced.
   */
  applyConfig(cfg: PartitionConfig): void {
    const rootCfg = cfg.queues![0]!;
    const seen = new Set<Queue>();
    const build = (qc: QueueConfig, parent: Queue | undefined): Queue => {
      const name = qc.name.toLowerCase();
      const isLeaf = parent !== undefined && !qc.parent && (qc.queues ?? []).length === 0;
      const props = qc.properties ?? {};
      const sortPolicy = props["application.sort.policy"] === "fair" ? "fair" : "fifo";
      const sortPriority = (props["application.sort.priority"] ?? "enabled").toLowerCase() !== "disabled";
      let q = parent ? parent.children.get(name) : this.root;
      if (!q) {
        q = new Queue(name, parent, isLeaf, res(qc.resources?.guaranteed), res(qc.resources?.max), qc.maxapplications ?? 0,
          sortPolicy, sortPriority, new Acl(qc.submitacl), new Acl(qc.adminacl), true);
        parent?.children.set(name, q);
      } else {
        q.isLeaf = isLeaf && q.children.size === 0;
        q.guaranteed = res(qc.resources?.guaranteed);
        if (parent) q.max = res(qc.resources?.max);
        q.maxApps = qc.maxapplications ?? 0;
        q.sortPolicy = sortPolicy;
        q.sortPriority = sortPriority;
        q.submitAcl = new Acl(qc.submitacl);
        q.adminAcl = new Acl(qc.adminacl);
        q.draining = false;
      }
      const t = qc.childtemplate;
      q.template = t ? {
        guaranteed: res(t.resources?.guaranteed), max: res(t.resources?.max), maxApps: t.maxapplications ?? 0,
        sortPolicy: t.properties?.["application.sort.policy"] === "fair" ? "fair" : "fifo",
        sortPriority: (t.properties?.["application.sort.priority"] ?? "enabled").toLowerCase() !== "disabled",
      } : undefined;
      seen.add(q);
      for (const c of qc.queues ?? []) build(c, q);
      return q;
    };
    if (!this.root) {
      this.root = new Queue("root", undefined, false, undefined, undefined, rootCfg.maxapplications ?? 0, "fifo", true,
        new Acl(rootCfg.submitacl), new Acl(rootCfg.adminacl), true);
    }
    build(rootCfg, undefined);
    const markDraining = (q: Queue) => {
      for (const c of q.children.values()) {
        if (c.managed && !seen.has(c)) c.draining = true;
        markDraining(c);
      }
    };
    markDraining(this.root);
    this.placement = new PlacementManager(cfg.placementrules ?? []);
    this.nodeSortPolicy = cfg.nodesortpolicy?.type === "binpacking" ? "binpacking" : "fair";
    this.weights = { vcore: 1, memory: 1, ...(cfg.nodesortpolicy?.resourceweights ?? {}) };
    this.limits.load(rootCfg);
    this.updateRootMax();
    for (const n of this.nodes.values()) this.reindex(n);
  }

  private reindex(n: Node): void {
    if (n.sortKey) this.nodeIndex.delete(n.sortKey);
    n.sortKey = undefined;
    if (!n.schedulable || !this.nodes.has(n.id)) return;
    const u = n.usage(this.weights);
    n.sortKey = { score: this.nodeSortPolicy === "binpacking" ? -u : u, id: n.id };
    this.nodeIndex.set(n.sortKey, n);
  }

  /** Sum of node capacities, kept incrementally (the root queue's max, §4.3). */
  private readonly clusterCapacity: Res = {};

  private updateRootMax(): void {
    this.root.max = isZero(this.clusterCapacity) ? {} : { ...this.clusterCapacity };
  }

  // ---------------------------------------------------------------- nodes

  /** @throws Error when the node exists */
  addNode(id: string, capacity: Res, occupied: Res = {}, schedulable = true, attributes: Record<string, string> = {}): void {
    if (this.nodes.has(id)) throw new Error(`partition ${this.name} has an existing node ${id}, node name must be unique`);
    const n = new Node(id, { ...capacity }, schedulable, attributes);
    n.occupied = { ...occupied };
    this.nodes.set(id, n);
    addTo(this.clusterCapacity, n.capacity);
    this.reindex(n);
    this.updateRootMax();
  }

  /** New capacity, occupied resources or schedulable flag. @throws Error for an unknown node */
  updateNode(id: string, update: { capacity?: Res; occupied?: Res; schedulable?: boolean }): void {
    const n = this.nodes.get(id);
    if (!n) throw new Error(`failed to find node ${id}`);
    if (update.capacity) {
      subFrom(this.clusterCapacity, n.capacity);
      n.capacity = { ...update.capacity };
      addTo(this.clusterCapacity, n.capacity);
    }
    if (update.occupied) n.occupied = { ...update.occupied };
    if (update.schedulable !== undefined) n.schedulable = update.schedulable;
    this.reindex(n);
    this.updateRootMax();
  }

  /** Removes a node; its allocations are released and returned. */
  removeNode(id: string, now: number): Allocation[] {
    const n = this.nodes.get(id);
    if (!n) return [];
    const released: Allocation[] = [];
    for (const key of [...n.allocations]) {
      const [appId, askKey] = splitAllocationId(key);
      const app = this.apps.get(appId);
      const ask = app?.asks.get(askKey);
      if (app && ask) {
        released.push({ key: askKey, appId, nodeId: id, resource: { ...ask.resource }, queue: app.queue.path });
        this.removeAsk(appId, askKey, now);
      }
    }
    this.nodes.delete(id);
    subFrom(this.clusterCapacity, n.capacity);
    this.reindex(n);
    this.updateRootMax();
    return released;
  }

  // ---------------------------------------------------------------- applications

  /**
   * Places and adds an application. A forced application (`application.create.force`) without a user runs as
   * `nobody` in group `nogroup` (§4.7).
   * @returns the leaf queue path, or throws with the rejection reason (the app is then kept as rejected)
   */
  addApplication(id: string, queueName: string, user: string, groups: readonly string[], tags: Record<string, string>, now: number): string {
    // A completed application's id may be used again (a new run of the same job): the old record is dropped.
    if (this.apps.get(id)?.state === "Completed") this.removeApplication(id, now);
    this.rejected.delete(id);
    if (this.apps.has(id)) throw new Error(`adding application ${id} to partition ${this.name}, but application already existed`);
    try {
      const forced = isForced(tags);
      if (!user && !forced) throw new Error("empty user cannot resolve");
      if (!user) {
        user = "nobody";
        groups = ["nogroup"];
      }
      const leaf = this.place(queueName, user, groups, tags);
      if (!leaf.managed) applyNamespaceTags(leaf, tags);
      const disable = (tags["application.stateaware.disable"] ?? tags.disableStateAware ?? "") !== "";
      const app = new App(id, leaf, user, groups.length > 0 ? groups : [user], now, disable, tags);
      leaf.apps.set(id, app);
      this.apps.set(id, app);
      return leaf.path;
    } catch (err) {
      this.rejected.set(id, (err as Error).message);
      throw err;
    }
  }

  /** Removes an application, releasing everything it holds. */
  removeApplication(id: string, now: number): Allocation[] {
    const app = this.apps.get(id);
    if (!app) return [];
    const released: Allocation[] = [];
    for (const ask of [...app.asks.values()]) {
      if (ask.node) released.push({ key: ask.key, appId: id, nodeId: ask.node, resource: { ...ask.resource }, queue: app.queue.path });
      this.removeAsk(id, ask.key, now);
    }
    app.queue.apps.delete(id);
    if (app.state === "Running" || app.state === "Starting") this.decRunning(app.queue);
    this.apps.delete(id);
    this.limits.forget(id);
    return released;
  }

  /**
   * Queue for an application: the placement rules (placement/manager.ts), the queue created when it does not exist.
   * @throws PlacementRefusedError with the rejection reason
   */
  private place(queueName: string, user: string, groups: readonly string[], tags: Record<string, string>): Queue {
    const r = this.placement.place({ user, groups, tags, queueName, forced: isForced(tags) }, { queue: (path) => this.find(path) });
    if (r.type === "refused") throw new PlacementRefusedError(r.refusal);
    return this.find(r.path) ?? this.resolve(r.path);
  }

  /** Creates the queue placement chose: missing parents and the leaf, or the recovery queue (fifo, no ACL). */
  private resolve(path: string): Queue {
    if (isRecoveryQueue(path)) {
      const rec = new Queue("@recovery@", this.root, true, undefined, undefined, 0, "fifo", true, new Acl(""), new Acl(""), false);
      this.root.children.set("@recovery@", rec);
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
        ? new Queue(parts[i]!, q, true, t?.guaranteed, t?.max, t?.maxApps ?? 0, t?.sortPolicy ?? "fifo", t?.sortPriority ?? true, new Acl(""), new Acl(""), false)
        : new Queue(parts[i]!, q, false, undefined, undefined, 0, "fifo", true, new Acl(""), new Acl(""), false);
      if (!leaf) c.template = t;
      q.children.set(parts[i]!, c);
      q = c;
    }
    return q;
  }

  find(path: string): Queue | undefined {
    const parts = path.toLowerCase().split(".");
    if (parts[0] !== "root") return undefined;
    let q: Queue | undefined = this.root;
    for (const p of parts.slice(1)) q = q?.children.get(p);
    return q;
  }

  // ---------------------------------------------------------------- asks and allocations

  /**
   * Adds a pending ask, or records an allocation the resource manager already made (`node` set: recovery).
   * @throws Error with upstream's texts for an unknown app or node, empty or negative resources
   */
  addAsk(appId: string, key: string, resource: Res, priority: number, createTime: number, now: number, opts: { node?: string; requiredNode?: string; predicate?: (nodeId: string) => boolean } = {}): void {
    const app = this.apps.get(appId);
    if (!app) throw new Error(`failed to find application ${appId}`);
    if (app.asks.has(key)) throw new Error(`duplicate allocation key ${key} for application ${appId}`);
    for (const k in resource) if (resource[k]! < 0) throw new Error("allocation contains negative resources");
    if (!strictlyPositive(resource)) throw new Error("allocation contains no resources");
    if (opts.node && !this.nodes.has(opts.node)) throw new Error(`failed to find node ${opts.node}`);
    if (!opts.node && this.nodes.size > 0 && !this.fitsSomeNode(resource)) {
      throw new Error(`ask ${key} requests ${format(resource)}, more than any node provides (nodes: ${this.nodes.size})`);
    }
    const ask: Ask = { key, appId, resource: { ...resource }, priority, createTime, requiredNode: opts.requiredNode, predicate: opts.predicate };
    app.asks.set(key, ask);
    if (createTime < app.submissionTime) app.submissionTime = createTime;
    if (app.state === "Completed") {
      // a new pod of a finished application (same id): the application is reopened in its queue
      app.queue.apps.set(app.id, app);
      this.transition(app, "Accepted", now);
    }
    if (app.state === "New") this.transition(app, "Accepted", now);
    if (app.state === "Completing") this.transition(app, "Running", now);
    if (opts.node) {
      // Recovered: usage may exceed max (the RM already bound it).
      this.commit(app, ask, this.nodes.get(opts.node)!, now);
    } else {
      addTo(app.pending, ask.resource);
      app.queue.incPending(ask.resource);
      app.addPending(ask);
    }
  }

  /** Releases an allocation or removes a pending ask. */
  removeAsk(appId: string, key: string, now: number): void {
    const app = this.apps.get(appId);
    const ask = app?.asks.get(key);
    if (!app || !ask) return;
    app.asks.delete(key);
    if (ask.node) {
      this.detach(ask);
      subFrom(app.allocated, ask.resource);
      app.queue.decAllocated(ask.resource);
      const stillRunning = !isZero(app.allocated); // asks are strictly positive: zero means none allocated
      this.limits.track(app, ask.resource, -1, stillRunning);
    } else {
      subFrom(app.pending, ask.resource);
      app.queue.decPending(ask.resource);
      app.deletePending(ask);
    }
    if (app.asks.size === 0 && (app.state === "Accepted" || app.state === "Starting" || app.state === "Running")) {
      if (app.state !== "Accepted") this.decRunning(app.queue);
      this.transition(app, "Completing", now);
    }
  }

  /** Puts an allocation on a node (usage, allocation set, node order). */
  private attach(ask: Ask, node: Node): void {
    ask.node = node.id;
    addTo(node.allocated, ask.resource);
    node.allocations.add(allocationId(ask.appId, ask.key));
    this.reindex(node);
  }

  /** Takes an allocation off its node (the node may be gone already). */
  private detach(ask: Ask): void {
    const n = ask.node ? this.nodes.get(ask.node) : undefined;
    if (!n) return;
    subFrom(n.allocated, ask.resource);
    n.allocations.delete(allocationId(ask.appId, ask.key));
    this.reindex(n);
  }

  private commit(app: Application, ask: Ask, node: Node, now: number): void {
    this.attach(ask, node);
    addTo(app.allocated, ask.resource);
    app.queue.incAllocated(ask.resource);
    this.limits.track(app, ask.resource, 1, true);
    if (app.state === "Accepted") {
      this.incRunning(app.queue);
      this.transition(app, app.stateAwareDisabled ? "Running" : "Starting", now);
    } else if (app.state === "Starting") {
      this.transition(app, "Running", now);
    }
  }

  private incRunning(q: Queue): void {
    for (let x: Queue | undefined = q; x; x = x.parent) x.runningApps++;
  }
  private decRunning(q: Queue): void {
    for (let x: Queue | undefined = q; x; x = x.parent) x.runningApps--;
  }

  private transition(app: Application, to: Application["state"], now: number): void {
    if (app.state === to) return;
    this.changes.push({ appId: app.id, from: app.state, to, at: now });
    app.state = to;
    app.stateSince = now;
  }

  /** Timers (§4.2): Starting → Running after 5 min, Completing → Completed after 30 s, Completed/Failed/Rejected → Expired after 3 days. */
  tick(now: number): void {
    for (const app of this.apps.values()) {
      const age = now - app.stateSince;
      if (app.state === "Starting" && age >= 5 * 60_000) this.transition(app, "Running", now);
      else if (app.state === "Completing" && age >= 30_000) {
        this.transition(app, "Completed", now);
        app.queue.apps.delete(app.id);
      } else if ((app.state === "Completed" || app.state === "Failed") && age >= 3 * 86_400_000) {
        this.transition(app, "Expired", now);
        this.removeApplication(app.id, now);
      }
    }
  }

  drainStateChanges(): AppStateChange[] {
    const c = this.changes;
    this.changes = [];
    return c;
  }

  // ---------------------------------------------------------------- scheduling

  /** One allocation, or undefined when nothing can be placed now. */
  tryAllocate(now: number): Allocation | undefined {
    if (!hasPositive(this.root.pending)) return undefined;
    return this.allocateIn(this.root, now);
  }

  /** The first node in allocation order with room for `r`. */
  private pickNode(ask: Ask): Node | undefined {
    if (ask.requiredNode) {
      const n = this.nodes.get(ask.requiredNode);
      return n && n.schedulable && n.fits(ask.resource) && (!ask.predicate || ask.predicate(n.id)) ? n : undefined;
    }
    for (const n of this.nodeIndex.values()) if (n.fits(ask.resource) && (!ask.predicate || ask.predicate(n.id))) return n;
    return undefined;
  }

  /** Moves an allocation to `nodeId` when that node is schedulable, has room and passes the ask's predicate. */
  relocate(appId: string, key: string, nodeId: string): boolean {
    const ask = this.apps.get(appId)?.asks.get(key);
    const to = this.nodes.get(nodeId);
    if (!ask?.node || !to || !to.schedulable) return false;
    if (ask.node === nodeId) return true;
    if (!to.fits(ask.resource) || (ask.predicate && !ask.predicate(nodeId))) return false;
    this.detach(ask);
    this.attach(ask, to);
    return true;
  }

  private fairMax(q: Queue): Res | undefined {
    if (!q.parent) return q.max;
    const pm = this.fairMax(q.parent);
    return q.max ? { ...pm, ...q.max } : pm;
  }

  private allocateIn(q: Queue, now: number): Allocation | undefined {
    if (!q.isLeaf) {
      const children = [...q.children.values()].filter((c) => hasPositive(c.pending));
      const share = new Map(children.map((c) => [c, dominantShare(c.allocated, c.guaranteed, this.fairMax(c))]));
      const prio = new Map(children.map((c) => [c, q.sortPriority ? maxPriority(c) : 0]));
      children.sort((a, b) => prio.get(b)! - prio.get(a)! || share.get(a)! - share.get(b)! || (a.name < b.name ? -1 : 1));
      for (const c of children) {
        const r = this.allocateIn(c, now);
        if (r) return r;
      }
      return undefined;
    }
    const apps = [...q.apps.values()].filter((a) => a.hasPending() && (a.state === "Accepted" || a.state === "Starting" || a.state === "Running"));
    apps.sort(this.appOrder(q));
    for (const app of apps) {
      if (app.state === "Accepted" && this.runBlock(app)) continue;
      let chosen: [Ask, Node] | undefined;
      for (const ask of app.pendingAsks.values()) {
        if (this.limits.headroom(app, ask.resource)) continue;
        if (!this.queueFits(q, ask.resource)) continue;
        const n = this.pickNode(ask);
        if (n) {
          chosen = [ask, n];
          break;
        }
      }
      if (chosen) {
        const [ask, n] = chosen;
        subFrom(app.pending, ask.resource);
        q.decPending(ask.resource);
        app.deletePending(ask);
        this.commit(app, ask, n, now);
        return { key: ask.key, appId: app.id, nodeId: n.id, resource: { ...ask.resource }, queue: q.path };
      }
    }
    return undefined;
  }

  /**
   * Why a pending ask was not allocated in the last cycle, as the shim reports it (yunikorn-shim reference §2.12):
   * `Skipped` — held by a quota (queue max, user/group limit, maxapplications), `Failed` — no node has room, or
   * undefined when nothing blocks it (it is allocated in the next cycle) or it is not pending.
   */
  pendingReason(appId: string, key: string): { state: "Skipped" | "Failed"; reason: string } | undefined {
    const app = this.apps.get(appId);
    const ask = app?.asks.get(key);
    if (!app || !ask || ask.node) return undefined;
    const quota = this.quotaBlock(app, ask.resource);
    if (quota) return { state: "Skipped", reason: quota };
    const cluster = this.clusterBlock(ask.resource);
    if (cluster) return { state: "Failed", reason: `no node has ${format(ask.resource)} free (${cluster})` };
    if (!this.pickNode(ask)) {
      if (ask.predicate && this.pickNode({ ...ask, predicate: undefined })) {
        return { state: "Failed", reason: `no node with ${format(ask.resource)} free matches the pod's node selector, affinity or tolerations` };
      }
      return { state: "Failed", reason: `no node has ${format(ask.resource)} free (nodes: ${this.nodes.size})` };
    }
    return undefined;
  }

  /**
   * Why a quota holds an ask of `app` back (maxapplications while the app waits to run, user/group limits, queue
   * maxima below root), or undefined.
   */
  quotaBlock(app: Application, r: Res): string | undefined {
    if (app.state === "Accepted") {
      const rb = this.runBlock(app);
      if (rb) return rb;
    }
    const hold = this.limits.headroom(app, r);
    return (hold && formatLimitHold(hold)) ?? this.queueMaxBlock(app.queue, r);
  }

  /** Why an ask does not fit the maxima of the queues on its path below root (undefined: it fits). */
  private queueMaxBlock(q: Queue, r: Res): string | undefined {
    for (let x: Queue | undefined = q; x?.parent; x = x.parent) {
      if (!fitsWithin(x.max, x.allocated, r)) return `queue ${x.path} maximum ${format(x.max)} reached (used ${format(x.allocated)})`;
    }
    return undefined;
  }

  /** Root's max is the cluster size; a resource type no node provides never fits. */
  private clusterBlock(r: Res): string | undefined {
    const x = this.root;
    for (const k in r) if ((x.allocated[k] ?? 0) + r[k]! > (x.max?.[k] ?? 0)) return `cluster capacity ${format(x.max)} reached`;
    return undefined;
  }

  /** Why an ask does not fit the queue maxima on its path, root (the cluster size) last; undefined: it fits. */
  queueBlock(q: Queue, r: Res): string | undefined {
    return this.queueMaxBlock(q, r) ?? this.clusterBlock(r);
  }

  private queueFits(q: Queue, r: Res): boolean {
    return this.queueBlock(q, r) === undefined;
  }

  /** Why `app` may not start running: maxapplications of its queues, or of user/group limits. */
  private runBlock(app: Application): string | undefined {
    for (let x: Queue | undefined = app.queue; x; x = x.parent) {
      if (x.maxApps > 0 && x.runningApps + 1 > x.maxApps) return `queue ${x.path} running applications limit ${x.maxApps} reached`;
    }
    const hold = this.limits.runHold(app);
    return hold && formatLimitHold(hold);
  }

  private appOrder(q: Queue): (a: Application, b: Application) => number {
    const byId = (a: Application, b: Application) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
    if (q.sortPolicy === "fair") {
      const share = (a: Application) => dominantShare(a.allocated, q.guaranteed, q.guaranteed ? undefined : this.fairMax(q)) ;
      return (a, b) => (q.sortPriority ? b.maxPendingPriority() - a.maxPendingPriority() : 0) || share(a) - share(b) ||
        sumShare(a.allocated) - sumShare(b.allocated) || a.submissionTime - b.submissionTime || byId(a, b);
    }
    return (a, b) => (q.sortPriority ? b.maxPendingPriority() - a.maxPendingPriority() : 0) || a.submissionTime - b.submissionTime || byId(a, b);
  }

  /** True when some node's total capacity could hold `r` (a type no node has never fits). */
  fitsSomeNode(r: Res): boolean {
    for (const n of this.nodes.values()) if (fitsIn(n.capacity, r)) return true;
    return false;
  }
}

function hasPositive(r: Res): boolean {
  for (const k in r) if (r[k]! > 0) return true;
  return false;
}

function maxPriority(q: Queue): number {
  let p = Number.NEGATIVE_INFINITY;
  const walk = (x: Queue) => {
    for (const a of x.apps.values()) p = Math.max(p, a.maxPendingPriority());
    for (const c of x.children.values()) walk(c);
  };
  walk(q);
  return p === Number.NEGATIVE_INFINITY ? 0 : p;
}

function sumShare(r: Res): number {
  let s = 0;
  for (const k in r) s += r[k]!;
  return s;
}

/** Key of an allocation in `Node.allocations`: application id and ask key. */
export function allocationId(appId: string, key: string): string {
  return `${appId}\u0000${key}`;
}

/** The application id and ask key of an `allocationId`. */
export function splitAllocationId(id: string): [string, string] {
  const i = id.indexOf("\u0000");
  return [id.slice(0, i), id.slice(i + 1)];
}

/** `application.create.force` tag (key case-insensitive, Go ParseBool true spellings). */
function isForced(tags: Record<string, string>): boolean {
  return ["1", "t", "T", "true", "TRUE", "True"].includes(tagValue(tags, "application.create.force"));
}

/** si.Resource JSON (`{"resources":{"memory":{"value":1000}}}`) → Res of its positive values; undefined when none or malformed. */
function siResource(json: string | undefined): Res | undefined {
  if (!json) return undefined;
  try {
    const v = JSON.parse(json) as { resources?: Record<string, { value?: unknown }> };
    const out: Res = {};
    for (const [k, q] of Object.entries(v.resources ?? {})) if (typeof q?.value === "number" && q.value > 0) out[k] = q.value;
    return Object.keys(out).length > 0 ? out : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Namespace limits carried by application tags (`namespace.resourcequota`, `namespace.resourceguaranteed`,
 * `namespace.resourcemaxapps`, set by the shim from namespace annotations) onto a dynamic leaf queue when an
 * application is added to it; managed (configured) queues keep their configuration, and the recovery queue takes none
 * (yunikorn-core reference §1.3; upstream partition.go AddApplication).
 * Tag names are matched case-insensitively.
 */
function applyNamespaceTags(q: Queue, tags: Record<string, string>): void {
  if (isRecoveryQueue(q.path)) return;
  const tag = (name: string) => tagValue(tags, name);
  const max = siResource(tag("namespace.resourcequota"));
  if (max) q.max = max;
  const guaranteed = siResource(tag("namespace.resourceguaranteed"));
  if (guaranteed) q.guaranteed = guaranteed;
  const maxApps = Number(tag("namespace.resourcemaxapps"));
  if (Number.isInteger(maxApps) && maxApps > 0) q.maxApps = maxApps;
}
