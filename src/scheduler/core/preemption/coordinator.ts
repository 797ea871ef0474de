/**
 * A partition's preemption, applied to the live core (apache/yunikorn-core pkg/scheduler/objects/application.go
 * tryPreemption, queue.go TryQuotaPreemption, partition.go; docs/preemption.md). The decisions are pure and live
 * beside this file (`decidePreemption` in preemptor.ts: rules 1-7; `decideQuotaPreemption` in quota.ts: rule 8);
 * this class gates when they run, applies what they decide and undoes it when a preemption ends:
 *
 * 1. `tryHeld` / `tryAsk`: ask-triggered preemption for an ask held by a quota or taken by no node, within the
 *    attempt limits.
 * 2. `start`: the preemptor reserves its node (cancelling the reservations the decision names); its victims are
 *    marked preempting and stay allocated and counted until the resource manager releases them.
 * 3. `stalled` / `end` / `blocked`: a preemption whose victims are gone without room appearing, or whose victim's
 *    eviction was refused, ends; victims not yet released are kept.
 * 4. `tryQuota` / `quotaBlocked`: quota-change preemption of queues whose max was lowered below their usage.
 * 5. `hold`: a preemptor's hold reason, as data.
 *
 * Times in milliseconds since the epoch, resources in core units.
 */
import { type Allocation, type AllocationResult, allocationOfAsk } from "../allocation-result.js";
import type { AllocationContext, Application, Ask, AskHoldKind, Decision } from "../application.js";
import type { HoldReason } from "../hold-reason.js";
import { type Node, allocationId } from "../node.js";
import type { Queue } from "../queue.js";
import type { Reservations } from "../reservations.js";
import { type CoreSnapshotSource, coreSnapshot } from "./core-snapshot.js";
import { PREEMPT_ATTEMPT_FREQUENCY_MS, decidePreemption } from "./preemptor.js";
import { type QuotaNoVictims, decideQuotaPreemption } from "./quota.js";
import { QuotaPreemptionTracker } from "./quota-tracker.js";
import type { Preempting, VictimAllocation } from "./result.js";

/**
 * Preemption attempts per leaf queue in one walk of the queues, the search for the next allocation (upstream
 * maxPreemptionsPerQueue, given afresh to each leaf's Queue.TryAllocate).
 */
export const MAX_PREEMPTIONS_PER_QUEUE = 10;

/** What the coordinator reads and changes of its partition. */
export interface PreemptionHost extends CoreSnapshotSource {
  readonly root: Queue;
  readonly nodes: ReadonlyMap<string, Node>;
}

/** Constructor input of {@link PreemptionCoordinator}. */
export interface PreemptionCoordinatorOptions {
  /** The partition (queues, applications, nodes in allocation order). */
  host: PreemptionHost;
  /** The partition's reservations: a preemptor holds its node as a preemption reservation. */
  reservations: Reservations;
  /** Releases whatever reservation a node has (the partition's; a preemptor's ends through `end`). */
  unreserveNode(node: Node): void;
  /** A quota that holds an ask back now (the allocation walk's check). */
  askHold: AllocationContext["askHold"];
  /**
   * Times each preemption decision (upstream ObserveTryPreemptionLatency): `clock` monotonic, in seconds; `observe`
   * gets the seconds one decision took. Absent: nothing is timed.
   */
  latency?: { clock: () => number; observe: (seconds: number) => void };
}

/** One queue's quota-change preemption pass (`PreemptionCoordinator.tryQuota`). */
export type QuotaPass =
  /** Victims taken: the result for the resource manager. */
  | { readonly kind: "preempting"; readonly result: Extract<AllocationResult, { kind: "quotaPreempting" }> }
  /** An excess to preempt but no victim taken: the decision, with the allocations looked at per leaf. */
  | { readonly kind: "withoutVictims"; readonly decision: QuotaNoVictims };

/** One partition's preemption (module comment). */
export class PreemptionCoordinator {
  /** Partition `preemption.enabled` (default true, upstream). */
  enabled = true;
  /** Quota-change preemption: per-queue start times and the partition's `quotapreemptionenabled` switch. */
  readonly quota = new QuotaPreemptionTracker();
  /** Attempts per leaf queue in the running walk (reset by `newWalk`). */
  private readonly attempts = new Map<Queue, number>();

  constructor(private readonly o: PreemptionCoordinatorOptions) {}

  /** A new walk of the queues (the search for the next allocation): every leaf has its attempts again. */
  newWalk(): void {
    if (this.attempts.size > 0) this.attempts.clear();
  }

  /**
   * Preemption for an ask as the walk found it (upstream tryAllocate): held by a user/group limit it never preempts
   * (no victim frees a limit); held by a queue max or the cluster size it is tried before any node was (`nodesTried`
   * false, upstream's failed headroom check); with no hold (`hold` undefined) no node takes it. See `tryAsk`.
   */
  tryHeld(app: Application, ask: Ask, hold: AskHoldKind | undefined, now: number): Decision | undefined {
    return hold === "limit" ? undefined : this.tryAsk(app, ask, now, hold === undefined);
  }

  /**
   * Ask-triggered preemption for an ask nothing takes now (upstream Application.tryPreemption): only when the
   * partition's preemption is on, the ask may preempt (`preemptionPolicy` not Never), has no required node
   * (required-node preemption is not implemented, docs/preemption.md) and no preemption under way, its leaf's
   * `preemption.delay` has passed since its creation, 15 s have passed since its last attempt, a queue on its path has
   * a guarantee, and the leaf has attempts left in this walk (10). The decision itself (rules 1-7) is
   * `decidePreemption`. `nodesTried` false (a queue max or the cluster size held the ask before any node was tried):
   * a node that needs no victim may be the answer, the victims then freeing the queue's quota.
   * @returns a `preempt` decision for the partition to apply (`start`), or undefined
   */
  private tryAsk(app: Application, ask: Ask, now: number, nodesTried: boolean): Decision | undefined {
    if (!this.enabled || ask.allowPreemptOther === false || ask.requiredNode || ask.preemption) return undefined;
    const leaf = app.queue;
    if (now < ask.createTime + leaf.preemption.preemptionDelayMs) return undefined;
    if (ask.lastPreemptionCheck !== undefined && now < ask.lastPreemptionCheck + PREEMPT_ATTEMPT_FREQUENCY_MS) return undefined;
    const attempts = this.attempts.get(leaf) ?? 0;
    if (attempts >= MAX_PREEMPTIONS_PER_QUEUE) return undefined;
    if (!leaf.nearestGuaranteed()) return undefined;
    this.attempts.set(leaf, attempts + 1);
    const start = this.o.latency?.clock();
    const result = decidePreemption(
      coreSnapshot(this.o.host, ask.blockedVictims),
      {
        key: ask.key,
        applicationId: app.id,
        queuePath: leaf.path,
        priority: ask.priority,
        resource: ask.resource,
        createTime: ask.createTime,
        allowPreemptOther: true,
        lastPreemptionCheck: ask.lastPreemptionCheck,
      },
      {
        now,
        enabled: true,
        nodesTried,
        predicate: ask.predicate && ((c) => ({ success: ask.predicate!(c.nodeId), index: c.startIndex })),
      },
    );
    if (start !== undefined) this.o.latency!.observe(this.o.latency!.clock() - start);
    ask.lastPreemptionCheck = now;
    return result.outcome === "preempting" ? { kind: "preempt", app, ask, result } : undefined;
  }

  /**
   * Applies a preemption decision: reservations it cancelled are released, the node is reserved for the ask, the
   * victims are marked preempting (they stay allocated and counted until the resource manager releases them).
   */
  start(app: Application, ask: Ask, result: Preempting, now: number): AllocationResult {
    for (const c of result.cancelledReservations) {
      const n = this.o.host.nodes.get(c.nodeId);
      if (n?.reservation) this.o.unreserveNode(n);
    }
    // the ask's own ordinary reservation (made while preemption was not due) gives way to the preemption's
    const before = ask.reservedNode === undefined ? undefined : this.o.host.nodes.get(ask.reservedNode);
    if (before?.reservation) this.o.unreserveNode(before);
    const node = this.o.host.nodes.get(result.nodeId)!;
    if (node.reservation) this.o.unreserveNode(node);
    this.o.reservations.reserve(ask, node, now, true);
    ask.preemption = result;
    return {
      kind: "preempting",
      appId: app.id,
      key: ask.key,
      nodeId: node.id,
      victims: this.markVictims(result.victims),
      preemption: result,
    };
  }

  /**
   * Marks chosen victims preempting: each stays allocated and counted (queue `preempting`) until the resource manager
   * releases it, and is never chosen again meanwhile.
   * @returns the victims' allocations, leaving out any no longer allocated
   */
  private markVictims(victims: readonly VictimAllocation[]): Allocation[] {
    const out: Allocation[] = [];
    for (const v of victims) {
      const { app: va, ask: victim } = this.allocation(v.applicationId, v.allocationKey);
      if (!va || !victim?.node) continue;
      victim.preempted = true;
      va.queue.incPreempting(victim.resource);
      out.push(allocationOfAsk(va, victim, victim.node));
    }
    return out;
  }

  /**
   * Quota-change preemption (rule 8; upstream Queue.TryQuotaPreemption, checked every second): for each managed queue
   * whose max was lowered below its usage and whose `quota.preemption.delay` has passed (partition
   * `preemption.quotapreemptionenabled` on), the victims `decideQuotaPreemption` chooses are marked preempting and
   * returned for the resource manager to release. Not tied to a pending ask: no node is reserved.
   * @returns one pass per queue that had an excess to preempt, in the order the queues were checked: its result for the
   *   resource manager, or the decision that took no victim (YuniKorn still reports such a pass in an event)
   */
  tryQuota(now: number): QuotaPass[] {
    const out: QuotaPass[] = [];
    for (const q of this.quota.due(this.o.host.root, now)) {
      const result = decideQuotaPreemption(coreSnapshot(this.o.host, this.quota.refusedOf(q)), q.path);
      if (result.outcome === "preempting")
        out.push({
          kind: "preempting",
          result: { kind: "quotaPreempting", queue: q.path, victims: this.markVictims(result.victims), preemption: result },
        });
      else if (result.reason === "no-victims") out.push({ kind: "withoutVictims", decision: result });
    }
    return out;
  }

  /**
   * The resource manager could not release a victim of the quota preemption of `queuePath` (its eviction was refused):
   * the victim is kept and no longer preempting, never chosen again for that queue while it is over its max, and the
   * queue is tried again after `QUOTA_PREEMPTION_RETRY_MS` (15 s).
   * @returns false when the queue or the victim is unknown, or the victim is not being preempted
   */
  quotaBlocked(queuePath: string, victim: { appId: string; key: string }, now: number): boolean {
    const q = this.o.host.find(queuePath);
    const { app: va, ask } = this.allocation(victim.appId, victim.key);
    if (!q || !va || !ask?.preempted) return false;
    unmark(va, ask);
    this.quota.refused(q, allocationId(va.id, ask.key), now);
    return true;
  }

  /** A preemptor's victims are all gone and its node still cannot take it (no room, or a quota holds it). */
  stalled(app: Application, ask: Ask, node: Node): boolean {
    for (const v of ask.preemption!.victims) if (this.stillPreempting(v)) return false;
    return !node.fits(ask.resource) || this.o.askHold(app, ask) !== undefined;
  }

  /** Ends a preemption: the reservation goes, victims not released yet are no longer preempting. */
  end(ask: Ask, node: Node | undefined): void {
    for (const v of ask.preemption?.victims ?? []) {
      const { app: va, ask: victim } = this.allocation(v.applicationId, v.allocationKey);
      if (va && victim?.preempted) unmark(va, victim);
    }
    ask.preemption = undefined;
    this.o.reservations.release(ask, ask, node);
  }

  /**
   * The resource manager could not release a victim (its eviction was refused, e.g. by a PodDisruptionBudget): the
   * preemption of `ask` ends — its reservation is released and its victims not yet released are kept — and the
   * refused victim is never chosen again for this ask. The ask tries again after the attempt interval (15 s from its
   * last attempt), with other victims or none.
   * @returns false when the ask or its preemption is unknown
   */
  blocked(appId: string, key: string, victim: { appId: string; key: string }): boolean {
    const { ask } = this.allocation(appId, key);
    if (!ask?.preemption) return false;
    (ask.blockedVictims ??= new Set()).add(allocationId(victim.appId, victim.key));
    this.end(ask, this.o.host.nodes.get(ask.reservedNode ?? ""));
    this.o.reservations.epoch++;
    return true;
  }

  /**
   * A preemptor's hold: it waits on its reserved node for the victims of its decision to be released; each victim with
   * whether it is released yet, the nearest queue on its path with a guarantee and that queue's usage now.
   */
  hold(app: Application, ask: Ask, decision: Preempting, nodeId: string): HoldReason {
    const n = this.o.host.nodes.get(nodeId);
    const g = app.queue.nearestGuaranteed();
    return {
      kind: "preemption",
      nodeId,
      ask: { ...ask.resource },
      available: n ? n.available() : {},
      queuePath: app.queue.path,
      ...(g ? { guarantee: { queuePath: g.path, guaranteed: { ...g.guaranteed }, allocated: { ...g.allocated } } } : {}),
      fence: decision.fence,
      since: ask.lastPreemptionCheck ?? 0,
      victims: decision.victims.map((v) => ({
        ...v,
        released: !this.stillPreempting(v),
      })),
    };
  }

  /** An application of the partition and its ask or allocation `key` (either undefined when unknown). */
  private allocation(appId: string, key: string): { app: Application | undefined; ask: Ask | undefined } {
    const app = this.o.host.apps.get(appId);
    return { app, ask: app?.asks.get(key) };
  }

  /** A victim of a decision still allocated and marked preempting (not released yet). */
  private stillPreempting(v: VictimAllocation): boolean {
    return this.allocation(v.applicationId, v.allocationKey).ask?.preempted === true;
  }
}

/** A victim no longer being preempted: it stays allocated and leaves its queue's `preempting` usage. */
function unmark(app: Application, ask: Ask): void {
  ask.preempted = false;
  app.queue.decPreempting(ask.resource);
}
