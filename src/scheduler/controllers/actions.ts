/**
 * Carries out the shim's {@link ShimAction}s against the API server (design 004; yunikorn-shim reference §2.12, §4,
 * §7): one controller per kind of call on the keyed work queue, and one bounded queue for events and status writes.
 *
 *  - bindings: keyed by pod UID, `bindConcurrency` at once, `bindAttempts` attempts with backoff 250 ms doubling; the
 *    result goes back to the shim (`bindSucceeded`, or `bindFailed` rolling the allocation back to an ask). A binding
 *    whose allocation is gone when its turn comes is not sent (`ShimContext.bindWanted`): above all a placeholder a
 *    real pod already took the place of, which is then deleted unbound. A gang member taking a placeholder's place
 *    waits for the placeholder's own binding to settle; a placeholder that was bound is deleted first and the member
 *    bound after (the node never holds both), one never bound is deleted in the background while the member is bound
 *    at once. No binding races its pod's deletion;
 *  - placeholder calls (gang scheduling): creates (3 attempts; 403/422 final), deletes (`bindAttempts` attempts; a
 *    missing pod is deleted) and the status of a Hard timeout's pods, half as many at once as bindings, never dropped.
 *    The delete a member's binding waits for has a queue of its own (as many at once again): entering Reserving
 *    queues a whole gang's creates, and many gangs enter together, so behind them it waited until every other gang's
 *    placeholders were created, holding the member's binding slot (all slots, with a few gangs);
 *  - evictions of preemption victims: keyed by pod UID, 8 at once, 3 attempts (429/403/422 final); a refused eviction
 *    goes back to the shim (`evictionRefused`);
 *  - events and status writes: informational, so at most `eventQueueLimit` wait (the oldest is dropped and counted),
 *    and while any binding is pending they use one connection, otherwise four.
 *
 * Actions that are only for logs and metrics (`preempting`, `quotaPreempting`, `notJoined`, `overLimit`) are logged and
 * counted here.
 */
import type { Logger } from "pino";
import { eventFor } from "../../kube/events.js";
import { JobQueue } from "../../kube/job-queue.js";
import { runRetryingCalls } from "../../kube/retrying-calls.js";
import { type Clock, SYSTEM_CLOCK } from "../../kube/workqueue.js";
import { statusCode } from "../../kube/client.js";
import type { PodCalls } from "../../kube/pod-calls.js";
import type { PodRef, ShimAction, ShimContext } from "../shim/context.js";
import {
  type BindResult,
  type CreateResult,
  type DeleteResult,
  type EvictResult,
  annotateAllocatedNode,
  bindAttempt,
  createAttempt,
  deleteAttempt,
  errorText,
  evictAttempt,
  patchPodPhase,
  patchUnschedulable,
} from "./calls.js";
import type { SchedulerMetrics } from "./metrics.js";

type Action<K extends ShimAction["kind"]> = Extract<ShimAction, { kind: K }>;
type StatusJob = Action<"event" | "condition" | "activate">;
type PlaceholderJob = Action<"createPod" | "deletePod" | "podStatus">;

/** Options of {@link runActions}. */
export interface ActionsOptions {
  api: PodCalls;
  /** The shim methods that take the results of bindings, placeholder creates and evictions. */
  shim: Pick<ShimContext, "bindSucceeded" | "bindFailed" | "placeholderCreateFailed" | "evictionRefused" | "bindWanted" | "isReleasing">;
  /** Asks for a scheduling cycle (after a failed binding or a refused eviction, resources changed). */
  kick: () => void;
  /** `spec.nodeName` of the pod in the informer cache, if any. */
  liveNode: (pod: PodRef) => string | undefined;
  /** The Eviction API version the cluster serves (discovered once; rejects when there is none). */
  evictionApiVersion: () => Promise<string>;
  metrics: Pick<
    SchedulerMetrics,
    "binds" | "events" | "gang" | "preemptions" | "quotaPreemptions" | "evictions" | "notJoined" | "overLimit"
  >;
  log: Logger;
  /** `source.component` of events (the scheduler name) and `reportingInstance` (this replica's identity). */
  component: string;
  identity: string;
  /** Binding calls in flight at once; placeholder calls get half as many (at least one). */
  bindConcurrency: number;
  /** Attempts per binding (and placeholder delete) before it fails. */
  bindAttempts: number;
  /** Events and status writes waiting at most. */
  eventQueueLimit: number;
  clock?: Clock;
}

/** The running controllers. */
export interface Actions {
  /** Hands each action to its controller (or logs and counts it). */
  run(actions: ShimAction[]): void;
  /** Binds a pod now (plugin mode's `bind` verb) and reports the result to the shim. */
  bind(pod: PodRef, node: string): Promise<BindResult>;
  /** Actions pending, by queue (REST `GET /ws/v1/scheduler/shim`). */
  queued(): { binds: number; status: number; placeholders: number };
  /** Stops taking actions; resolves when the calls in flight have ended. */
  stop(): Promise<void>;
}

const podKey = (p: PodRef) => `${p.namespace}/${p.name}`;
const createdName = (a: Action<"createPod">) => `${a.pod.metadata?.namespace ?? "default"}/${a.pod.metadata?.name}`;

/** Starts the controllers (see the module comment). */
export function runActions(o: ActionsOptions): Actions {
  const { api, log, metrics: m } = o;
  const clock = o.clock ?? SYSTEM_CLOCK;

  const status = new JobQueue<StatusJob>({
    // bindings go first: while any is pending, events and status patches use one connection
    concurrency: () => (binds.size > 0 ? 1 : 4),
    limit: o.eventQueueLimit,
    onDrop: () => m.events.inc({ result: "dropped" }),
    work: async (a) => {
      try {
        if (a.kind === "event") {
          await api.createNamespacedEvent({
            namespace: a.object.namespace ?? "default",
            body: eventFor(a.object, { type: a.type, reason: a.reason, message: a.message, component: o.component, instance: o.identity }),
          });
        } else if (a.kind === "condition") {
          await patchUnschedulable(api, a.pod, { reason: a.reason, message: a.message, now: new Date(clock.now()) });
        } else {
          await annotateAllocatedNode(api, a.pod, a.node);
        }
        m.events.inc({ result: "sent" });
      } catch (err) {
        m.events.inc({ result: "failed" });
        if (statusCode(err) !== 404) log.warn({ action: a.kind, err: errorText(err) }, "could not write event or pod status");
      }
    },
  });

  /** A controller of placeholder calls (creates, deletes, a Hard timeout's pod status) with `workers` at once. */
  const placeholderCalls = (workers: number) =>
    runRetryingCalls<PlaceholderJob, CreateResult | DeleteResult | undefined>({
      clock,
      workers,
      key: (a) => (a.kind === "createPod" ? `create ${createdName(a)}` : `${a.kind} ${podKey(a.pod)}`),
      attempts: (a) => (a.kind === "createPod" ? 3 : a.kind === "deletePod" ? o.bindAttempts : 1),
      attempt: async (a) => {
        if (a.kind === "createPod") return createAttempt(api, a.pod);
        if (a.kind === "deletePod") return deleteAttempt(api, a.pod);
        try {
          await patchPodPhase(api, a.pod, { phase: a.phase, reason: a.reason, message: a.message });
        } catch (err) {
          if (statusCode(err) !== 404) log.warn({ pod: podKey(a.pod), err: errorText(err) }, "could not fail the pod of a timed-out gang");
        }
        return { retry: false, result: undefined };
      },
      onReject: (a, err) => (a.kind === "createPod" ? { outcome: "failed", error: errorText(err) } : { ok: false, error: errorText(err) }),
      settle: (a, r) => {
        if (a.kind === "createPod") {
          const c = r as CreateResult;
          if (c.outcome === "created") m.gang.inc({ action: "create", result: "done" });
          if (c.outcome !== "failed") return;
          m.gang.inc({ action: "create", result: "failed" });
          log.warn({ pod: createdName(a), err: c.error }, "could not create placeholder");
          run(o.shim.placeholderCreateFailed(a.pod.metadata?.labels?.["yunikorn.apache.org/app-id"] ?? ""));
        } else if (a.kind === "deletePod") {
          const d = r as DeleteResult;
          m.gang.inc({ action: "delete", result: d.ok ? "done" : "failed" });
          if (!d.ok) log.warn({ pod: podKey(a.pod), err: d.error }, "could not delete placeholder; retried at the next resync");
        }
      },
    });
  const placeholders = placeholderCalls(Math.max(1, Math.ceil(o.bindConcurrency / 2)));
  /**
   * Deletes of bound placeholders a gang member's binding waits for: on a queue of their own, so they never wait behind
   * the creates of other gangs' placeholders (a whole reservation's worth is queued at once) nor hold the member's
   * binding slot that long.
   */
  const replacements = placeholderCalls(Math.max(1, Math.ceil(o.bindConcurrency / 2)));

  /** Placeholders whose binding was not sent (a real pod took their place first); consumed by the replacement. */
  const neverBound = new Set<string>();
  /** Bindings asked by plugin mode's `bind` verb: kube-scheduler's decision, always sent. */
  const verbBinds = new WeakSet<Action<"bind">>();

  const binds = runRetryingCalls<Action<"bind">, BindResult>({
    clock,
    workers: o.bindConcurrency,
    key: (a) => a.pod.uid,
    attempts: o.bindAttempts,
    blockedBy: (a) => a.replaces?.uid,
    // a failed delete is retried at the next resync
    before: async (a) => {
      if (!a.replaces) return;
      const deletion: PlaceholderJob = { kind: "deletePod", pod: a.replaces };
      // one never bound holds no node: deleted in the background, after the creates already queued
      if (neverBound.delete(a.replaces.uid)) void placeholders.push(deletion);
      else await replacements.push(deletion);
    },
    attempt: (a) => {
      if (!a.replaces && !verbBinds.has(a) && !o.shim.bindWanted(a.pod.uid, a.node)) {
        if (o.shim.isReleasing(a.pod.uid)) neverBound.add(a.pod.uid);
        return Promise.resolve({ retry: false, result: { skipped: true } });
      }
      return bindAttempt(api, { pod: a.pod, node: a.node, liveNode: o.liveNode });
    },
    onReject: (_a, err) => ({ error: errorText(err) }),
    settle: (a, r) => {
      if (r.skipped) m.binds.inc({ result: "skipped" });
      else settleBind(a.pod, a.node, r);
      if (binds.size <= 1) clock.setTimeout(() => status.pump(), 0);
    },
  });

  /** Reports a binding's result to the shim: metrics, Scheduled event or rollback. */
  function settleBind(pod: PodRef, node: string, r: BindResult): void {
    if (!r.error) {
      m.binds.inc({ result: "bound" });
      run(o.shim.bindSucceeded(pod.uid, node));
      return;
    }
    m.binds.inc({ result: r.gone ? "pod-gone" : "failed" });
    log.warn({ pod: podKey(pod), node, err: r.error }, "binding failed; allocation rolled back");
    run(o.shim.bindFailed(pod.uid, node, r.error, r.gone));
    o.kick();
  }

  const evictions = runRetryingCalls<Action<"evict">, EvictResult>({
    clock,
    workers: 8,
    key: (a) => a.pod.uid,
    attempts: 3,
    attempt: (a) => evictAttempt(api, a.pod, o.evictionApiVersion),
    onReject: (_a, err) => ({ outcome: "refused", error: errorText(err) }),
    settle: (a, r) => {
      m.evictions.inc({ result: r.outcome, queue: a.queue });
      if (r.outcome === "evicted") {
        log.info({ pod: podKey(a.pod), preemptor: a.preemptor, quota: a.quota }, "preemption victim evicted");
        status.push({ kind: "event", object: { kind: "Pod", ...a.pod }, type: "Normal", reason: "Preempted", message: a.message });
      } else if (r.outcome === "refused") {
        log.warn({ pod: podKey(a.pod), preemptor: a.preemptor, quota: a.quota, err: r.error }, "preemption victim eviction refused");
        run(o.shim.evictionRefused(a, r.error));
        o.kick();
      }
    },
  });

  function run(actions: ShimAction[]): void {
    for (const a of actions) {
      if (a.kind === "bind") void binds.push(a);
      else if (a.kind === "evict") void evictions.push(a);
      else if (a.kind === "createPod" || a.kind === "deletePod" || a.kind === "podStatus") {
        if (a.kind === "deletePod") neverBound.delete(a.pod.uid);
        void placeholders.push(a);
      } else if (a.kind === "preempting") {
        m.preemptions.inc({ queue: a.queue });
        const { applicationId, allocationKey, queue, nodeId: node, victims } = a;
        log.info({ applicationId, allocationKey, queue, node, victims }, "preemption started");
      } else if (a.kind === "quotaPreempting") {
        m.quotaPreemptions.inc({ queue: a.queue });
        log.info({ queue: a.queue, victims: a.victims }, "quota-change preemption started");
      } else if (a.kind === "notJoined") {
        m.notJoined.inc({ differs: a.differs });
        const { podApplicationId, applicationId, user, differs } = a;
        log.info(
          { pod: podKey(a.pod), podApplicationId, applicationId, user, differs },
          "application id held by another namespace or user: the pod runs as its own application",
        );
      } else if (a.kind === "overLimit") {
        for (const kind of new Set(a.limits.map((l) => l.kind))) m.overLimit.inc({ limit: kind });
        log.warn(
          { pod: podKey(a.pod), applicationId: a.applicationId, node: a.node, limits: a.limits },
          "allocation of an already bound pod recorded over a limit",
        );
      } else status.push(a);
    }
  }

  return {
    run,
    async bind(pod, node) {
      const a: Action<"bind"> = { kind: "bind", pod, node };
      verbBinds.add(a);
      return (await binds.push(a)) ?? { error: "the scheduler is stopping" };
    },
    queued: () => ({ binds: binds.size, status: status.size, placeholders: placeholders.size + replacements.size }),
    async stop() {
      status.stop();
      await Promise.all([binds.stop(), evictions.stop(), placeholders.stop(), replacements.stop()]);
    },
  };
}
