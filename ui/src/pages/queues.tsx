/**
 * Queues: the tree with, per queue, used / guaranteed / max per resource type, pending / running / max applications,
 * each queue's place in its parent's fair-share order (the least served first), and preemption: usage chosen as
 * victims (`preemptingResource`) and waiting pods preempting for the queue. A queue's name opens its applications.
 */
import type { JSX } from "preact";
import type { PendingList, QueueInfo, Resource } from "../../../src/scheduler/rest/api-types.js";
import { enc, useApi } from "../api.js";
import { fairOrder, fairShare, preemptorsByQueue } from "../model.js";
import { Status, UsageBar } from "../components.js";
import { num, resourceOrder, resources } from "../format.js";
import { href } from "../route.js";

interface Row {
  q: QueueInfo;
  depth: number;
  /** What a bar without a max of its own is drawn against: the nearest ancestor's max per type. */
  scale: Resource;
  rank?: number;
  siblings?: number;
}

function flatten(q: QueueInfo, depth: number, out: Row[], scale: Resource, rank?: number, siblings?: number): void {
  out.push({ q, depth, scale, rank, siblings });
  const inner = { ...scale, ...(q.maxResource ?? {}) };
  const kids = fairOrder(q.children ?? []);
  kids.forEach((c, i) => flatten(c, depth + 1, out, inner, i + 1, kids.length));
}

export function QueuesPage(props: { partition: string }): JSX.Element {
  const queues = useApi<QueueInfo>(`/ws/v1/partition/${enc(props.partition)}/queues`);
  const pending = useApi<PendingList>(`/ws/v1/corral/pending?partition=${enc(props.partition)}`);
  const root = queues.data;
  const rows: Row[] = [];
  if (root) flatten(root, 0, rows, root.maxResource ?? {});
  // pending applications per leaf queue: applications with a waiting pod that have not started running
  const pendingApps = new Map<string, Set<string>>();
  for (const p of pending.data?.pending ?? []) {
    if (p.applicationState !== "New" && p.applicationState !== "Accepted") continue;
    let s = pendingApps.get(p.queue);
    if (!s) pendingApps.set(p.queue, (s = new Set()));
    s.add(p.applicationId);
  }
  const pendingUnder = (path: string) => {
    let n = 0;
    for (const [q, s] of pendingApps) if (q === path || q.startsWith(`${path}.`)) n += s.size;
    return n;
  };
  const capacity: Resource = root?.maxResource ?? {};
  const preemptors = preemptorsByQueue(pending.data);
  return (
    <section aria-labelledby="queues-h">
      <h1 id="queues-h">Queues</h1>
      <p class="lead">
        Used, guaranteed (tick) and max per resource. Siblings are listed in fair-share order: the queue with the smallest share of its
        guarantee is offered resources first.
      </p>
      <Status loading={!root} error={queues.error} />
      {root ? (
        <div class="table-wrap">
          <table class="queues" aria-label="Queue tree">
            <thead>
              <tr>
                <th scope="col">Queue</th>
                <th scope="col">Fair-share order</th>
                <th scope="col">Resources: used of max</th>
                <th scope="col" class="num">
                  Pending apps
                </th>
                <th scope="col" class="num">
                  Running apps
                </th>
                <th scope="col" class="num">
                  Max apps
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map(({ q, depth, scale, rank, siblings }) => {
                const types = resourceOrder([
                  ...Object.keys(q.maxResource ?? {}),
                  ...Object.keys(q.guaranteedResource ?? {}),
                  ...Object.keys(q.allocatedResource ?? {}),
                  "vcore",
                  "memory",
                ]).filter((k) => capacity[k] !== undefined || q.maxResource?.[k] !== undefined);
                const name = q.queuename.slice(q.queuename.lastIndexOf(".") + 1);
                return (
                  <tr key={q.queuename} data-queue={q.queuename}>
                    <th scope="row" class="queue-name">
                      <span class={`indent d${Math.min(depth, 8)}`} aria-hidden="true" />
                      <a href={href("apps", { queue: q.queuename })} aria-label={`${q.queuename}: show its applications`}>
                        {depth === 0 ? q.queuename : name}
                      </a>
                      {q.status !== "Active" ? <span class="badge">{q.status}</span> : null}
                      {!q.isManaged ? (
                        <span class="badge" title="created by a placement rule">
                          dynamic
                        </span>
                      ) : null}
                      <div class="muted small">
                        {q.isLeaf ? "leaf" : "parent"}
                        {q.isLeaf ? ` · ${q.sortingPolicy} order` : ""}
                      </div>
                    </th>
                    <td>
                      {rank ? (
                        <span title={`share of its guarantee (or max): ${num(fairShare(q) * 100, 1)} %`}>
                          {rank} of {siblings}
                        </span>
                      ) : (
                        "—"
                      )}
                    </td>
                    <td class="bars">
                      {types.map((k) => (
                        <UsageBar
                          key={k}
                          name={k}
                          used={q.allocatedResource?.[k] ?? 0}
                          max={q.maxResource?.[k]}
                          guaranteed={q.guaranteedResource?.[k]}
                          scale={scale[k]}
                        />
                      ))}
                      {q.preemptingResource && Object.keys(q.preemptingResource).length > 0 ? (
                        <div class="preempting-line" data-preempting={q.queuename}>
                          <span class="badge preempting">being preempted</span> {resources(q.preemptingResource)} of{" "}
                          {q.isLeaf ? "its usage" : "the usage below it"} chosen as preemption victims, being evicted
                        </div>
                      ) : null}
                      {preemptors.get(q.queuename) ? (
                        <div class="preempting-line" data-preemptor={q.queuename}>
                          <span class="badge">preempting</span>{" "}
                          <a href={href("waiting", { kind: "preemption", q: q.queuename })}>
                            {preemptors.get(q.queuename)} waiting pod{preemptors.get(q.queuename) === 1 ? "" : "s"}
                          </a>{" "}
                          preempting other queues' pods for it
                        </div>
                      ) : null}
                    </td>
                    <td class="num">{pendingUnder(q.queuename)}</td>
                    <td class="num">{q.runningApps}</td>
                    <td class="num">{q.maxRunningApps > 0 ? q.maxRunningApps : "no max"}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}
