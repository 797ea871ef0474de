/**
 * When quota-change preemption runs for which queue (rule 8; apache/yunikorn-core pkg/scheduler/objects/queue.go
 * quotaPreemptionStartTime, setPreemptionTime, IncAllocatedResource, tryAcquirePreemption, TryQuotaPreemption;
 * pkg/scheduler/scheduler.go internalQuotaPreemption; yunikorn-site user_guide/quota_preemption.md). The partition
 * reports configuration changes of managed queues and allocations recorded without a quota check; `due` walks the
 * queue tree top down at most once per second and hands out the queues whose `quota.preemption.delay` has passed
 * (their start time is cleared: one run per change, as upstream). The timing rules themselves are the pure functions
 * of quota.ts; time comes from the caller (milliseconds).
 *
 * Beyond upstream: an eviction refused for a quota victim (a PodDisruptionBudget) is reported back with `refused`;
 * that allocation is not chosen again for the queue while it stays over its max, and the queue is tried again after
 * `QUOTA_PREEMPTION_RETRY_MS` (YuniKorn leaves such a victim marked and never retries).
 */
import type { Queue } from "../queue.js";
import type { Res } from "../resources.js";
import { preemptionQueue } from "./core-snapshot.js";
import { quotaPreemptionDue, quotaPreemptionStartOnAllocation, quotaPreemptionStartOnConfig } from "./quota.js";

/** How often the queues are checked (upstream's quota preemption loop: every second). */
export const QUOTA_PREEMPTION_INTERVAL_MS = 1_000;
/** Retry of a queue after an eviction of one of its victims was refused (the ask-triggered attempt interval). */
export const QUOTA_PREEMPTION_RETRY_MS = 15_000;

interface QueueQuotaState {
  /** When quota preemption is due, ms; undefined: none pending. */
  start?: number;
  /** Allocation ids (`appId/key`) whose eviction was refused; cleared when the queue is back within its max. */
  refused?: Set<string>;
}

export class QuotaPreemptionTracker {
  /** Partition `preemption.quotapreemptionenabled` (default false). */
  enabled = false;
  private readonly state = new Map<Queue, QueueQuotaState>();
  private lastCheck: number | undefined;

  /** When quota preemption of the queue is due (ms), or undefined. */
  startOf(q: Queue): number | undefined {
    return this.state.get(q)?.start;
  }

  /** Allocation ids never to be chosen for the queue's quota preemption (refused evictions). */
  refusedOf(q: Queue): ReadonlySet<string> | undefined {
    return this.state.get(q)?.refused;
  }

  /**
   * A managed queue's configuration was applied (setPreemptionTime): a max lowered below usage starts the delay,
   * a delay change moves a pending start, a raised or removed max clears it. Root (its max is the cluster size) and
   * dynamic queues are left out.
   * @param before the queue's max and `quota.preemption.delay` (ms) before the change
   */
  configChanged(q: Queue, before: { max?: Readonly<Res>; delayMs: number }, now: number): void {
    if (!q.managed || !q.parent) return;
    const s = this.state.get(q);
    const start = quotaPreemptionStartOnConfig({
      oldMax: before.max,
      newMax: q.max,
      oldDelayMs: before.delayMs,
      newDelayMs: q.preemption.quotaPreemptionDelayMs,
      allocated: q.allocated,
      startTime: s?.start,
      running: false,
      now,
    });
    this.set(q, start, start === undefined ? undefined : s?.refused);
  }

  /**
   * An allocation was recorded in `leaf` without a quota check (recovery, a pod bound outside the scheduler, a
   * resize; upstream IncAllocatedResource): every queue on the path that it pushed over its max starts the delay
   * when none is pending.
   */
  allocationAdded(leaf: Queue, now: number): void {
    if (!this.enabled) return;
    for (let q: Queue | undefined = leaf; q?.parent; q = q.parent) {
      const s = this.state.get(q);
      const start = quotaPreemptionStartOnAllocation(preemptionQueue(q), { enabled: true, startTime: s?.start, now });
      if (start !== s?.start) this.set(q, start, s?.refused);
    }
  }

  /** An eviction of `allocationId` for the queue's quota preemption was refused: retry later without it. */
  refused(q: Queue, allocationId: string, now: number): void {
    const s = this.state.get(q) ?? {};
    (s.refused ??= new Set()).add(allocationId);
    s.start ??= now + QUOTA_PREEMPTION_RETRY_MS;
    this.state.set(q, s);
  }

  /**
   * The queues whose quota preemption runs now (tryAcquirePreemption, TryQuotaPreemption), top down: a queue that
   * runs hides its subtree in this pass; a queue back within its max forgets its start and refused victims. Checked
   * at most every `QUOTA_PREEMPTION_INTERVAL_MS` and only when the partition's switch is on; a queue handed out has
   * its start cleared.
   */
  due(root: Queue, now: number): Queue[] {
    if (!this.enabled || this.state.size === 0) return [];
    if (this.lastCheck !== undefined && now >= this.lastCheck && now < this.lastCheck + QUOTA_PREEMPTION_INTERVAL_MS) return [];
    this.lastCheck = now;
    const out: Queue[] = [];
    const visit = (q: Queue): void => {
      const s = this.state.get(q);
      if (s) {
        const d = quotaPreemptionDue(preemptionQueue(q), { enabled: true, startTime: s.start, running: false, now });
        if (d.due) {
          if (s.refused) s.start = undefined;
          else this.state.delete(q);
          out.push(q);
          return;
        }
        if (d.clear) this.state.delete(q);
      }
      for (const c of q.children.values()) visit(c);
    };
    visit(root);
    for (const q of this.state.keys()) if (!attached(q, root)) this.state.delete(q);
    return out;
  }

  private set(q: Queue, start: number | undefined, refused: Set<string> | undefined): void {
    if (start === undefined && !refused) this.state.delete(q);
    else this.state.set(q, { start, refused });
  }
}

/** The queue is still in the tree below `root` (queues removed by a configuration change or cleanup are not). */
function attached(q: Queue, root: Queue): boolean {
  let x = q;
  for (; x.parent; x = x.parent) if (x.parent.children.get(x.name) !== x) return false;
  return x === root;
}
