/**
 * `corral simulate`: runs the scheduling core on a virtual clock over a scenario (nodes, a queues.yaml, and a
 * workload of applications with users, groups, queue, asks, arrival times and durations) and reports, per queue and per
 * user, allocated resources over time, wait times (p50/p99) and asks held back by quotas. Pure apart from reading the
 * scenario: the same scenario always gives the same report.
 */
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { allocationOf } from "./core/allocation-result.js";
import { formatHoldReason, holdState } from "./core/hold-reason.js";
import { parseResource } from "./core/quantity.js";
import { type Res, addTo } from "./core/resources.js";
import { SchedulerCore } from "./core/scheduler.js";
import { formatZodError } from "../util/zod.js";

const duration = z.union([z.number().nonnegative(), z.string().regex(/^\d+(\.\d+)?(ms|s|m|h)$/, "duration like 30s, 5m, 1h")]);
const quantities = z.record(z.string(), z.union([z.string(), z.number()]));
/**
 * The scenario file's schema (zod, strict: an unknown key is an error): `queues` (queues.yaml text), `step`, `until`,
 * `nodes` and `applications`; durations are seconds or strings like `30s`, `5m`, `1h`, `250ms`.
 */
export const scenarioSchema = z
  .object({
    queues: z.string().describe("queues.yaml text"),
    step: duration.default("1s"),
    until: duration.optional(),
    nodes: z
      .array(
        z
          .object({
            name: z.string().min(1),
            count: z.number().int().positive().default(1),
            resources: quantities,
          })
          .strict(),
      )
      .min(1),
    applications: z
      .array(
        z
          .object({
            id: z.string().min(1),
            queue: z.string().default(""),
            user: z.string().min(1),
            groups: z.array(z.string()).default([]),
            arrival: duration.default(0),
            tags: z.record(z.string(), z.string()).default({}),
            asks: z
              .object({
                count: z.number().int().positive(),
                resources: quantities,
                duration: duration,
                priority: z.number().int().default(0),
              })
              .strict(),
          })
          .strict(),
      )
      .default([]),
  })
  .strict();

/** A parsed scenario ({@link parseScenario}). */
export type Scenario = z.infer<typeof scenarioSchema>;

/** Seconds → milliseconds; strings like `30s`, `5m`, `1h`, `250ms`. */
function ms(d: number | string): number {
  if (typeof d === "number") return d * 1000;
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(d)!;
  return Number(m[1]) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] as "ms" | "s" | "m" | "h"];
}

/** @throws Error on a malformed quantity or one above 2^53 (as the core's own configuration) */
function res(q: Record<string, string | number>): Res {
  return parseResource(Object.fromEntries(Object.entries(q).map(([k, v]) => [k, String(v)])));
}

/**
 * Reads a scenario file's text.
 * @throws Error naming the field when the scenario is malformed
 */
export function parseScenario(text: string): Scenario {
  let raw: unknown;
  try {
    raw = parseYaml(text, { uniqueKeys: true });
  } catch (err) {
    throw new Error(`scenario is not valid YAML: ${(err as Error).message}`, { cause: err });
  }
  const r = scenarioSchema.safeParse(raw);
  if (!r.success) throw new Error(`invalid scenario: ${formatZodError("", r.error)}`);
  return r.data;
}

/**
 * The report's row for one queue or one user: asks, asks allocated, wait from arrival to allocation (p50/p99, seconds),
 * asks held by a quota at least once, and the peak allocated amount per resource (as in `series`).
 */
export interface GroupStats {
  name: string;
  asks: number;
  allocated: number;
  waitP50s: number;
  waitP99s: number;
  quotaHeld: number;
  peak: Res;
}

/**
 * What {@link simulate} reports: the virtual end time (seconds), per queue and per user statistics, asks never placed,
 * rejections, preemptions and the allocation time series.
 */
export interface SimulationReport {
  endSeconds: number;
  queues: GroupStats[];
  users: GroupStats[];
  unplaced: number;
  rejectedApplications: { id: string; reason: string }[];
  /** Applications at the end by life-cycle state (rejected ones included). */
  applicationStates: Record<string, number>;
  /** Asks held by a quota, by the reason's kind and text (the first quota hold seen for each ask). */
  quotaHolds: { kind: string; reason: string; asks: number }[];
  /**
   * Preemptions: per preempting queue and victim queue, the victims evicted (released at once on the virtual clock,
   * as an eviction with no grace period; a preempted pod is not asked again).
   */
  preemptions: { queue: string; victimQueue: string; victims: number }[];
  /** Time series: seconds, kind (queue|user), name, resource, allocated amount. */
  series: [number, "queue" | "user", string, string, number][];
}

const pct = (xs: number[], p: number) => {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
};

/** Runs the scenario. @throws Error when the queues config is invalid */
export function simulate(s: Scenario): SimulationReport {
  let now = 0;
  const core = new SchedulerCore(() => now, s.queues);
  for (const n of s.nodes) {
    const capacity = res(n.resources);
    const nodes = Array.from({ length: n.count }, (_, i) => ({
      nodeID: n.count === 1 ? n.name : `${n.name}-${i}`,
      action: "CREATE" as const,
      schedulableResource: capacity,
    }));
    const r = core.updateNode(nodes);
    if (r.rejectedNodes.length > 0) throw new Error(`node ${r.rejectedNodes[0]!.id}: ${r.rejectedNodes[0]!.reason}`);
  }
  const step = Math.max(1, ms(s.step));
  const apps = [...s.applications].sort((a, b) => ms(a.arrival) - ms(b.arrival) || (a.id < b.id ? -1 : 1));
  const lastArrival = apps.reduce((m, a) => Math.max(m, ms(a.arrival)), 0);
  const until = s.until !== undefined ? ms(s.until) : Number.POSITIVE_INFINITY;
  interface Track {
    queue: string;
    user: string;
    arrival: number;
    duration: number;
    resource: Res;
    allocatedAt?: number;
    held: boolean;
  }
  const holds = new Map<string, { kind: string; reason: string; asks: number }>();
  const asks = new Map<string, Track>();
  const rejected: { id: string; reason: string }[] = [];
  const running: { app: string; key: string; end: number }[] = [];
  const series: SimulationReport["series"] = [];
  const preempted = new Map<string, number>();
  let next = 0;
  const pendingCount = () => [...asks.values()].filter((a) => a.allocatedAt === undefined).length;

  for (;;) {
    // arrivals
    while (next < apps.length && ms(apps[next]!.arrival) <= now) {
      const a = apps[next++]!;
      const r = core.updateApplication({
        new: [{ applicationID: a.id, queueName: a.queue, ugi: { user: a.user, groups: a.groups }, tags: a.tags }],
      });
      if (r.rejectedApplications.length > 0) {
        rejected.push(r.rejectedApplications[0]!);
        continue;
      }
      const queue = core.applicationQueue(a.id)!;
      const resource = res(a.asks.resources);
      const allocations = Array.from({ length: a.asks.count }, (_, i) => ({
        allocationKey: `${a.id}-${i}`,
        applicationID: a.id,
        resourcePerAlloc: resource,
        priority: a.asks.priority,
        allocationTags: { creationTime: String(now / 1000) },
      }));
      for (const al of allocations)
        asks.set(`${a.id}\u0000${al.allocationKey}`, {
          queue,
          user: a.user,
          arrival: now,
          duration: ms(a.asks.duration),
          resource,
          held: false,
        });
      core.updateAllocation({ allocations });
    }
    // completions
    for (let i = running.length - 1; i >= 0; i--) {
      if (running[i]!.end <= now) {
        core.updateAllocation({ releases: [{ applicationID: running[i]!.app, allocationKey: running[i]!.key }] });
        running.splice(i, 1);
      }
    }
    // scheduling; the victims of a preemption are released at once (the eviction), their preemptor placed next step
    for (const r of core.scheduleResults()) {
      if (r.kind === "preempting") {
        for (const v of r.preemption.victims) {
          const i = running.findIndex((x) => x.app === v.applicationId && x.key === v.allocationKey);
          if (i >= 0) running.splice(i, 1);
          core.updateAllocation({ releases: [{ applicationID: v.applicationId, allocationKey: v.allocationKey, message: "preempted" }] });
          const k = `${r.preemption.ask.queuePath}\u0000${v.queuePath}`;
          preempted.set(k, (preempted.get(k) ?? 0) + 1);
        }
        continue;
      }
      const a = allocationOf(r);
      if (!a) continue;
      const t = asks.get(`${a.appId}\u0000${a.key}`)!;
      t.allocatedAt = now;
      running.push({ app: a.appId, key: a.key, end: now + t.duration });
    }
    // quota holds: asks still pending whose queue, maxapplications or user/group limit holds them
    for (const [id, t] of asks) {
      if (t.allocatedAt !== undefined || t.held) continue;
      const [appId, key] = id.split("\u0000") as [string, string];
      const hold = core.quotaHold(appId, key);
      if (!hold || holdState(hold) !== "Skipped") continue;
      t.held = true;
      const reason = formatHoldReason(hold);
      const h = holds.get(reason) ?? { kind: hold.kind, reason, asks: 0 };
      h.asks++;
      holds.set(reason, h);
    }
    // sample
    const t = now / 1000;
    const sample = (kind: "queue" | "user", name: string, r: Res) => {
      for (const k of Object.keys(r).sort()) series.push([t, kind, name, k, r[k]!]);
    };
    const byQueue = new Map<string, Res>(),
      byUser = new Map<string, Res>();
    for (const r of running) {
      const tr = asks.get(`${r.app}\u0000${r.key}`)!;
      for (const [m, name] of [
        [byQueue, tr.queue],
        [byUser, tr.user],
      ] as const) {
        const cur = m.get(name) ?? {};
        addTo(cur, tr.resource);
        m.set(name, cur);
      }
    }
    for (const [q, r] of [...byQueue].sort()) sample("queue", q, r);
    for (const [u, r] of [...byUser].sort()) sample("user", u, r);

    const done = next >= apps.length && running.length === 0 && (pendingCount() === 0 || now > lastArrival + 3_600_000);
    if (done || now >= until) break;
    now += step;
  }

  const stats = (kind: "queue" | "user"): GroupStats[] => {
    const groups = new Map<string, Track[]>();
    for (const tr of asks.values()) {
      const k = kind === "queue" ? tr.queue : tr.user;
      const list = groups.get(k);
      if (list) list.push(tr);
      else groups.set(k, [tr]);
    }
    return [...groups.entries()]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([name, list]) => {
        const waits = list.filter((x) => x.allocatedAt !== undefined).map((x) => (x.allocatedAt! - x.arrival) / 1000);
        const peak: Res = {};
        for (const [, k, n, r, v] of series) if (k === kind && n === name) peak[r] = Math.max(peak[r] ?? 0, v);
        return {
          name,
          asks: list.length,
          allocated: waits.length,
          waitP50s: pct(waits, 50),
          waitP99s: pct(waits, 99),
          quotaHeld: list.filter((x) => x.held).length,
          peak,
        };
      });
  };
  return {
    endSeconds: now / 1000,
    queues: stats("queue"),
    users: stats("user"),
    unplaced: pendingCount(),
    rejectedApplications: rejected,
    preemptions: [...preempted.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, victims]) => {
        const [queue, victimQueue] = k.split("\u0000") as [string, string];
        return { queue, victimQueue, victims };
      }),
    applicationStates: core
      .applicationViews("all", undefined, { holds: false })
      .reduce<Record<string, number>>((m, a) => ({ ...m, [a.state]: (m[a.state] ?? 0) + 1 }), {}),
    quotaHolds: [...holds.values()].sort((a, b) => (a.reason < b.reason ? -1 : 1)),
    series,
  };
}

/** The report as text tables. */
export function formatReport(r: SimulationReport): string {
  const table = (title: string, rows: GroupStats[]) => {
    const head = [title, "asks", "allocated", "wait p50 s", "wait p99 s", "quota-held", "peak allocated"];
    const body = rows.map((g) => [
      g.name,
      String(g.asks),
      String(g.allocated),
      g.waitP50s.toFixed(1),
      g.waitP99s.toFixed(1),
      String(g.quotaHeld),
      Object.keys(g.peak)
        .sort()
        .map((k) => `${k}=${g.peak[k]}`)
        .join(" "),
    ]);
    const all = [head, ...body];
    const w = head.map((_, i) => Math.max(...all.map((x) => x[i]!.length)));
    return all
      .map((x) =>
        x
          .map((v, i) => v.padEnd(w[i]!))
          .join("  ")
          .trimEnd(),
      )
      .join("\n");
  };
  const lines = [`simulated ${r.endSeconds}s; ${r.unplaced} ask(s) never placed`, "", table("QUEUE", r.queues), "", table("USER", r.users)];
  for (const rej of r.rejectedApplications) lines.push(`rejected application ${rej.id}: ${rej.reason}`);
  lines.push(
    "",
    `applications: ${Object.keys(r.applicationStates)
      .sort()
      .map((s) => `${s}=${r.applicationStates[s]}`)
      .join(" ")}`,
  );
  for (const h of r.quotaHolds) lines.push(`held (${h.kind}): ${h.asks} ask(s): ${h.reason}`);
  for (const p of r.preemptions) lines.push(`preempted: ${p.victims} pod(s) of ${p.victimQueue} for ${p.queue}`);
  return lines.join("\n") + "\n";
}

/** The time series as CSV: `seconds,kind,name,resource,allocated`. */
export function reportCsv(r: SimulationReport): string {
  return ["seconds,kind,name,resource,allocated", ...r.series.map((x) => x.join(","))].join("\n") + "\n";
}

/** Loads a scenario's nodes and applications (all at once, ignoring arrival times) into a running core. */
export function loadScenario(
  core: SchedulerCore,
  s: Scenario,
): { nodes: number; applications: number; rejected: { id: string; reason: string }[] } {
  let nodes = 0;
  for (const n of s.nodes) {
    const capacity = res(n.resources);
    nodes += core.updateNode(
      Array.from({ length: n.count }, (_, i) => ({
        nodeID: n.count === 1 ? n.name : `${n.name}-${i}`,
        action: "CREATE" as const,
        schedulableResource: capacity,
      })),
    ).acceptedNodes.length;
  }
  const rejected: { id: string; reason: string }[] = [];
  let applications = 0;
  for (const a of s.applications) {
    const r = core.updateApplication({
      new: [{ applicationID: a.id, queueName: a.queue, ugi: { user: a.user, groups: a.groups }, tags: a.tags }],
    });
    rejected.push(...r.rejectedApplications);
    if (r.acceptedApplications.length === 0) continue;
    applications++;
    const resource = res(a.asks.resources);
    core.updateAllocation({
      allocations: Array.from({ length: a.asks.count }, (_, i) => ({
        allocationKey: `${a.id}-${i}`,
        applicationID: a.id,
        resourcePerAlloc: resource,
        priority: a.asks.priority,
      })),
    });
  }
  return { nodes, applications, rejected };
}
