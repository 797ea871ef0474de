/**
 * Leader election on a coordination.k8s.io/v1 Lease, as client-go's leaderelection package does it: the holder
 * renews `spec.renewTime` every `retryPeriod`; another candidate takes the Lease only after `leaseDuration` without a
 * renewal; a leader that cannot renew within `renewDeadline` stops leading. Writes use the Lease's resourceVersion,
 * so two candidates can never both win the same term (the loser gets 409 Conflict).
 *
 * `leaseDecision` is the pure rule; `runLeaderElection` is the edge.
 */
import type { Logger } from "pino";
import { k8s, statusCode } from "./client.js";

/** Leader election timings of a Lease, in seconds (client-go leaderelection's names). */
export interface LeaseTimings {
  /** Seconds a Lease is valid after its last renewal (client-go default 15). */
  leaseDurationSeconds: number;
  /** Seconds a leader keeps trying to renew before giving up (default 10). */
  renewDeadlineSeconds: number;
  /** Seconds between attempts (default 2). */
  retryPeriodSeconds: number;
}

/** client-go's defaults: a 15 s lease, renewed within 10 s, tried every 2 s. */
export const DEFAULT_LEASE_TIMINGS: LeaseTimings = { leaseDurationSeconds: 15, renewDeadlineSeconds: 10, retryPeriodSeconds: 2 };

/** The fields of a `coordination.k8s.io/v1` Lease that leader election reads; times in Unix milliseconds. */
export interface LeaseView {
  holderIdentity?: string;
  /** Milliseconds since the epoch. */
  renewTime?: number;
  leaseDurationSeconds?: number;
}

/**
 * What a candidate does with the Lease it read.
 * @param lease the Lease's spec, or undefined when there is none
 * @param now milliseconds since the epoch
 * @returns `create` (no Lease), `renew` (we hold it), `acquire` (free or expired), `wait` (someone else holds it)
 */
export function leaseDecision(lease: LeaseView | undefined, identity: string, now: number): "create" | "renew" | "acquire" | "wait" {
  if (!lease) return "create";
  if (lease.holderIdentity === identity) return "renew";
  if (!lease.holderIdentity) return "acquire";
  const expires = (lease.renewTime ?? 0) + (lease.leaseDurationSeconds ?? DEFAULT_LEASE_TIMINGS.leaseDurationSeconds) * 1000;
  return now >= expires ? "acquire" : "wait";
}

/** Options of {@link runLeaderElection}: the Lease (`namespace`/`name`), this replica's identity and callbacks. */
export interface LeaderElectionOptions {
  kc: k8s.KubeConfig;
  namespace: string;
  name: string;
  identity: string;
  log: Logger;
  timings?: LeaseTimings;
  /** Called once, when this candidate becomes the leader. */
  onStartedLeading: () => void;
  /** Called once, when a leader loses the Lease (the process should exit, as Kubernetes components do). */
  onStoppedLeading: () => void;
  /** Annotations the holder writes on the Lease with every create, acquire and renewal (e.g. its REST address). */
  annotations?: Record<string, string>;
  /** Called with the Lease as read on every attempt (followers learn the holder and its annotations this way). */
  onObserved?: (lease: { holderIdentity?: string; annotations: Record<string, string> } | undefined) => void;
}

/**
 * A metav1.MicroTime: RFC 3339 with exactly six fractional digits (the API server refuses three). client-node 2.x's
 * `V1MicroTime` serialises so; test/integration/lease-microtime.test.ts checks the body the client really sends.
 */
export const microTime = (ms: number): k8s.V1MicroTime => new k8s.V1MicroTime(ms);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms).unref());

/** Campaigns for the Lease until stopped; returns a stop function that also releases a held Lease. */
export function runLeaderElection(o: LeaderElectionOptions): () => Promise<void> {
  const api = o.kc.makeApiClient(k8s.CoordinationV1Api);
  const t = o.timings ?? DEFAULT_LEASE_TIMINGS;
  let stopped = false;
  let leading = false;
  let lastRenew = 0;

  const attempt = async (): Promise<boolean> => {
    let current: k8s.V1Lease | undefined;
    try {
      current = await api.readNamespacedLease({ name: o.name, namespace: o.namespace });
    } catch (err) {
      if (statusCode(err) !== 404) throw err;
    }
    const s = current?.spec;
    o.onObserved?.(current ? { holderIdentity: s?.holderIdentity, annotations: current.metadata?.annotations ?? {} } : undefined);
    const view: LeaseView | undefined = current
      ? {
          holderIdentity: s?.holderIdentity,
          renewTime: s?.renewTime ? new Date(s.renewTime as unknown as string).getTime() : undefined,
          leaseDurationSeconds: s?.leaseDurationSeconds,
        }
      : undefined;
    const now = Date.now();
    const decision = leaseDecision(view, o.identity, now);
    if (decision === "wait") return false;
    const spec: k8s.V1LeaseSpec = {
      holderIdentity: o.identity,
      leaseDurationSeconds: t.leaseDurationSeconds,
      renewTime: microTime(now),
      acquireTime:
        decision === "renew" && s?.acquireTime ? microTime(new Date(s.acquireTime as unknown as string).getTime()) : microTime(now),
      leaseTransitions: (s?.leaseTransitions ?? 0) + (decision === "acquire" ? 1 : 0),
    };
    if (decision === "create") {
      await api.createNamespacedLease({
        namespace: o.namespace,
        body: {
          apiVersion: "coordination.k8s.io/v1",
          kind: "Lease",
          metadata: { name: o.name, namespace: o.namespace, annotations: o.annotations },
          spec,
        },
      });
    } else {
      const metadata = o.annotations
        ? { ...current!.metadata, annotations: { ...current!.metadata?.annotations, ...o.annotations } }
        : current!.metadata;
      await api.replaceNamespacedLease({ name: o.name, namespace: o.namespace, body: { ...current!, metadata, spec } });
    }
    o.onObserved?.({ holderIdentity: o.identity, annotations: { ...current?.metadata?.annotations, ...o.annotations } });
    if (decision !== "renew")
      o.log.info({ lease: `${o.namespace}/${o.name}`, identity: o.identity, previous: view?.holderIdentity }, "acquired the leader lease");
    return true;
  };

  void (async () => {
    while (!stopped) {
      try {
        if (await attempt()) {
          lastRenew = Date.now();
          if (!leading) {
            leading = true;
            o.onStartedLeading();
          }
        } else if (leading) {
          o.log.error(
            { lease: `${o.namespace}/${o.name}`, identity: o.identity },
            "the leader lease is held by another candidate; stopping",
          );
          stopped = true;
          o.onStoppedLeading();
          return;
        }
      } catch (err) {
        const code = statusCode(err);
        if (code !== 409) o.log.warn({ lease: `${o.namespace}/${o.name}`, err: (err as Error).message }, "leader election attempt failed");
      }
      if (leading && Date.now() - lastRenew > t.renewDeadlineSeconds * 1000) {
        o.log.error({ lease: `${o.namespace}/${o.name}`, identity: o.identity }, "could not renew the leader lease in time; stopping");
        stopped = true;
        o.onStoppedLeading();
        return;
      }
      await sleep(t.retryPeriodSeconds * 1000);
    }
  })();

  return async () => {
    stopped = true;
    if (!leading) return;
    // Give the Lease up at once (client-go ReleaseOnCancel), so a follower need not wait for it to expire.
    try {
      const current = await api.readNamespacedLease({ name: o.name, namespace: o.namespace });
      if (current.spec?.holderIdentity !== o.identity) return;
      await api.replaceNamespacedLease({
        name: o.name,
        namespace: o.namespace,
        body: {
          ...current,
          spec: { ...current.spec, holderIdentity: "", renewTime: microTime(Date.now()), acquireTime: microTime(Date.now()) },
        },
      });
      o.log.info({ lease: `${o.namespace}/${o.name}`, identity: o.identity }, "released the leader lease");
    } catch (err) {
      o.log.warn({ lease: `${o.namespace}/${o.name}`, err: (err as Error).message }, "could not release the leader lease");
    }
  };
}
