/**
 * A partition's gang scheduling, applied to the live core (apache/yunikorn-core pkg/scheduler/objects/application.go
 * addAllocationInternal, timeoutPlaceholderProcessing, tryPlaceholderAllocate, removeAllocationInternal). The
 * decisions are pure and live beside this file (timeout.ts, replacement.ts, submission.ts); this class keeps the
 * placeholder timers and the releases the core decides on its own, and applies the timer's decisions:
 *
 * 1. `allocated`: a placeholder was allocated; the timer starts at the first, the gang runs once its reservation is
 *    complete (Reserving → Running).
 * 2. `gone`: an allocated placeholder left (released, removed, replaced); the timer stops once a running gang has none.
 * 3. `tick` / `timeoutReservation`: the timer fired; a running gang releases its unused placeholders, a gang still
 *    Reserving (or Accepted) gives up its reservation and resumes (Soft) or fails (Hard).
 * 4. `replacement`: how a real ask would use its allocated placeholders; placeholders too small for it are released.
 *    The partition performs the replacement itself (usage moves from the placeholder to the ask in one step).
 * 5. `release` / `drainReleases`: a placeholder the core gives up is removed and recorded for the resource manager.
 *
 * Times in milliseconds since the epoch, resources in core units.
 */
import { type Allocation, allocationOfAsk } from "../allocation-result.js";
import type { Application, Ask } from "../application.js";
import type { TaskGroupProgress } from "../hold-reason.js";
import type { Lifecycle } from "../lifecycle.js";
import type { Node } from "../node.js";
import { type Res, fitsIn } from "../resources.js";
import { type Replacement, matchPlaceholder } from "./replacement.js";
import { placeholderTimeout, placeholderTimerMs } from "./timeout.js";
import type { GangSchedulingStyle } from "./constants.js";

/**
 * An allocation or ask the core released on its own (upstream ReleaseAllocation from the core to the shim): gang
 * placeholders timed out, too small for their real pod, or given up for an allocation elsewhere. The resource manager
 * removes the pod; the core has already taken it out of every usage.
 */
export interface CoreRelease {
  allocation: Allocation;
  /** False: the placeholder was still a pending ask. */
  allocated: boolean;
  cause: "timeout" | "tooLarge" | "replacedElsewhere";
  message: string;
  /** `tooLarge`: the real ask's resource the placeholder is smaller than (core units). */
  askResource?: Res;
}

/** Constructor input of {@link GangCoordinator}. */
export interface GangCoordinatorOptions {
  /** The partition's active applications. */
  apps: ReadonlyMap<string, Application>;
  /** The partition's nodes (a placeholder's node must still accept the real ask). */
  nodes: ReadonlyMap<string, Node>;
  /** The partition's application life cycle (Reserving → Running, Resuming, Failing). */
  life: Lifecycle;
  /** Removes an ask or allocation from the partition, releasing every usage (the partition's `removeAsk`). */
  removeAsk(appId: string, key: string, now: number): void;
}

/** One partition's gang scheduling (module comment). */
export class GangCoordinator {
  /** Gang applications whose placeholder timer runs. */
  private readonly timers = new Set<Application>();
  /** Releases decided since the last `drainReleases`. */
  private releases: CoreRelease[] = [];
  /** The same, since the last `drainReleaseRecords` (for the core's event records). */
  private records: CoreRelease[] = [];

  constructor(private readonly o: GangCoordinatorOptions) {}

  /** A placeholder was allocated (upstream addAllocationInternal): the timer starts at the first; the gang runs once complete. */
  allocated(app: Application, ask: Ask, now: number): void {
    app.addPlaceholderAllocated(ask.resource);
    app.placeholderAllocations++;
    const g = app.gang;
    if (!g) return;
    if (g.timerAt === undefined) {
      // counted from the pod's creation as seen when the core accepted the application (upstream ConvertSITimeoutWithAdjustment)
      const created = Number(app.tags["yunikorn.apache.org/creationTime"]);
      g.timerAt =
        now +
        placeholderTimerMs({
          timeoutMs: g.timeoutMs,
          createdAtMs: Number.isFinite(created) && created > 0 ? created * 1000 : undefined,
          acceptedAtMs: app.stateLog[0]!.time,
        });
      this.timers.add(app);
    }
    if (app.state === "Reserving" && fitsIn(app.allocatedPlaceholder, g.placeholderAsk)) this.o.life.fire(app, "runApplication", now);
  }

  /** An allocated placeholder left (released, removed, replaced); the timer stops once a running gang has none. */
  gone(app: Application, ask: Ask): void {
    app.removePlaceholderAllocated(ask.resource);
    app.placeholderAllocations--;
    if (app.placeholderAllocations === 0 && app.state !== "Reserving") this.timers.delete(app);
  }

  /** The application left the partition: its timer stops. */
  forget(app: Application): void {
    this.timers.delete(app);
  }

  /**
   * Removes a placeholder the core gives up and records the release for the resource manager: `why.cause`, its text,
   * and for `tooLarge` the real ask's resource.
   */
  release(app: Application, key: string, why: Pick<CoreRelease, "cause" | "message" | "askResource">, now: number): void {
    const { cause, message, askResource } = why;
    const ask = app.asks.get(key);
    if (!ask) return;
    if (cause === "timeout" && ask.taskGroup) {
      const d = app.placeholderData.get(ask.taskGroup);
      if (d) d.timedOut++;
    }
    const r: CoreRelease = { allocation: allocationOfAsk(app, ask, ask.node ?? ""), allocated: ask.node !== undefined, cause, message };
    if (askResource) r.askResource = { ...askResource };
    this.releases.push(r);
    this.records.push(r);
    this.o.removeAsk(app.id, key, now);
  }

  /** Releases the core decided since the last call, for the resource manager to remove the pods. */
  drainReleases(): CoreRelease[] {
    const r = this.releases;
    this.releases = [];
    return r;
  }

  /** Releases since the last call, for the core's event records (drained apart from the resource manager's list). */
  drainReleaseRecords(): CoreRelease[] {
    const r = this.records;
    this.records = [];
    return r;
  }

  /** Fires every placeholder timer due at `now`. */
  tick(now: number): void {
    if (this.timers.size === 0) return;
    for (const app of [...this.timers]) if (app.gang?.timerAt !== undefined && app.gang.timerAt <= now) this.timedOut(app, now);
  }

  /**
   * Ends a reserving gang's reservation now, as if its timer fired (see `SchedulerCore.timeoutReservation`); with
   * `style`, as if the gang had that style (`Soft`: resume as a normal application).
   * @returns false when the application is unknown, not a gang or not Reserving
   */
  timeoutReservation(appId: string, now: number, style?: GangSchedulingStyle): boolean {
    const app = this.o.apps.get(appId);
    if (!app?.gang || app.state !== "Reserving") return false;
    app.gang.timerAt = now;
    this.timedOut(app, now, style);
    return true;
  }

  /**
   * The placeholder timer fired (upstream timeoutPlaceholderProcessing, timeout.ts): a running gang releases its
   * unused placeholders; otherwise every placeholder goes and the application resumes as a normal one (Soft:
   * Reserving → Resuming → Accepted) or fails (Hard: Failing with `ResourceReservationTimeout`, Failed once its last
   * ask is gone). `style`: the gang's own unless the caller decides otherwise (`timeoutReservation`).
   */
  private timedOut(app: Application, now: number, style: GangSchedulingStyle = app.gang!.style): void {
    const g = app.gang!;
    this.timers.delete(app);
    if (this.o.apps.get(app.id) !== app) return;
    const placeholders = [...app.asks.values()]
      .filter((a) => a.placeholder)
      .map((a) => ({ allocationKey: a.key, taskGroupName: a.taskGroup ?? "", allocated: a.node !== undefined }));
    const d = placeholderTimeout({ now, timerStartedAt: g.timerAt!, timerMs: 0, style, state: app.state, placeholders });
    const msg = `placeholder of application ${app.id} timed out`;
    if (d.kind === "releaseUnused") {
      for (const k of d.release) this.release(app, k, { cause: "timeout", message: msg }, now);
      return;
    }
    // only a gang still waiting for its reservation gives it up (a completing or running one has nothing left to do)
    if ((d.kind !== "resume" && d.kind !== "fail") || (app.state !== "Reserving" && app.state !== "Accepted")) return;
    app.gang = undefined;
    this.o.life.fire(app, d.kind === "resume" ? "resumeApplication" : "failApplication", now, d.reason);
    for (const k of [...d.releaseAllocated, ...d.cancelPending]) this.release(app, k, { cause: "timeout", message: msg }, now);
    if (d.kind === "resume") this.o.life.fire(app, "runApplication", now);
    app.queue.update(app);
  }

  /**
   * How a real ask of `app` uses its allocated placeholders (replacement.ts); placeholders too small for it are
   * released (cause `tooLarge`) at `now`.
   */
  replacement(app: Application, ask: Ask, now: number): Replacement {
    const placeholders = [];
    for (const a of app.asks.values()) {
      if (a.placeholder && a.node && a.taskGroup && a.taskGroup === ask.taskGroup)
        placeholders.push({
          allocationKey: a.key,
          taskGroupName: a.taskGroup,
          nodeID: a.node,
          resource: a.resource,
          preempted: a.preempted,
        });
    }
    const r = matchPlaceholder({
      applicationId: app.id,
      ask: { allocationKey: ask.key, taskGroupName: ask.taskGroup, resource: ask.resource },
      placeholders,
      nodeAccepts: (id) => {
        const n = this.o.nodes.get(id);
        return !!n && n.schedulable && (!ask.requiredNode || ask.requiredNode === id) && (!ask.predicate || ask.predicate(id));
      },
    });
    if (r.kind !== "notApplicable")
      for (const t of r.tooLarge)
        this.release(app, t.placeholder, { cause: "tooLarge", message: t.message, askResource: ask.resource }, now);
    return r;
  }

  /** A gang's task groups: placeholders asked and allocated now, in the order first seen. */
  taskGroups(app: Application): TaskGroupProgress[] {
    const allocated = new Map<string, number>();
    for (const x of app.asks.values())
      if (x.placeholder && x.node && x.taskGroup) allocated.set(x.taskGroup, (allocated.get(x.taskGroup) ?? 0) + 1);
    return [...app.placeholderData.values()].map((d) => ({
      taskGroupName: d.taskGroupName,
      minMember: d.count,
      allocated: allocated.get(d.taskGroupName) ?? 0,
    }));
  }
}
