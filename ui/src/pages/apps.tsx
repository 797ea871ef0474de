/**
 * Applications: a searchable, sortable list (active, completed or rejected; narrowed to a queue from the Queues page)
 * and one application's details: user and groups, its state timeline (stateLog), its running pods with their nodes
 * and its waiting pods.
 */
import type { JSX } from "preact";
import { useMemo } from "preact/hooks";
import type { ApplicationInfo, ApplicationSummary, PendingList } from "../../../src/scheduler/rest/api-types.js";
import { enc, useApi } from "../api.js";
import { placeholdersPlaced, podOf, preemptionsOf } from "../model.js";
import { Ago, type Column, DataTable, Search, Status } from "../components.js";
import { dateTime, duration, nsToMs, resources } from "../format.js";
import { holdWords } from "../hold.js";
import { href, setParam } from "../route.js";

function inQueue(a: ApplicationSummary, queue: string): boolean {
  return !queue || a.queueName === queue || a.queueName.startsWith(`${queue}.`);
}

function AppDetail(props: { partition: string; id: string }): JSX.Element {
  // any state: YuniKorn's route finds active applications only
  const app = useApi<ApplicationInfo>(`/ws/v1/corral/application?id=${enc(props.id)}&partition=${enc(props.partition)}`);
  // the partition's waiting pods: who preempts this application's pods, and this application's own preemptions
  const pending = useApi<PendingList>(`/ws/v1/corral/pending?partition=${enc(props.partition)}`);
  const pre = useMemo(() => preemptionsOf(pending.data, props.id), [pending.data, props.id]);
  const a = app.data;
  const victims = (a?.allocations ?? []).filter((x) => x.preempted).length;
  const placed = placeholdersPlaced(a?.allocations ?? []);
  const now = app.at ?? Date.now();
  const log = a?.stateLog ?? [];
  return (
    <section class="detail" aria-labelledby="app-detail-h">
      <h1 id="app-detail-h">Application {props.id}</h1>
      <p>
        <a href={href("apps", {})}>Back to all applications</a>
      </p>
      <Status loading={!a} error={app.error} />
      {a ? (
        <>
          <dl class="facts">
            <dt>State</dt>
            <dd>{a.applicationState}</dd>
            <dt>Queue</dt>
            <dd>
              <a href={href("queues")}>{a.queueName || "—"}</a>
            </dd>
            <dt>User</dt>
            <dd>
              <a href={href("users", { q: a.user })}>{a.user}</a>
            </dd>
            <dt>Groups</dt>
            <dd>{(a.groups ?? []).join(", ") || "none"}</dd>
            <dt>Submitted</dt>
            <dd>{a.submissionTime ? dateTime(nsToMs(a.submissionTime)) : "—"}</dd>
            <dt>Using</dt>
            <dd>{resources(a.usedResource)}</dd>
            <dt>Waiting for</dt>
            <dd>{resources(a.pendingResource)}</dd>
            {victims > 0 ? (
              <>
                <dt>Preempted</dt>
                <dd>
                  <span class="badge victim">being preempted</span> {victims} of its pods chosen as preemption victims, being evicted
                </dd>
              </>
            ) : null}
            {a.rejectedMessage ? (
              <>
                <dt>Rejected</dt>
                <dd>{a.rejectedMessage}</dd>
              </>
            ) : null}
          </dl>
          <h3>State timeline</h3>
          <ol class="timeline" aria-label="State timeline">
            {log.map((e, i) => {
              const t = nsToMs(e.time);
              const next = log[i + 1] ? nsToMs(log[i + 1]!.time) : undefined;
              return (
                <li key={`${e.time}-${i}`}>
                  <span class={`state state-${e.applicationState.toLowerCase()}`}>{e.applicationState}</span>{" "}
                  <time dateTime={new Date(t).toISOString()}>{dateTime(t)}</time>{" "}
                  <span class="muted">{next !== undefined ? `for ${duration(next - t)}` : `since ${duration(now - t)}`}</span>
                </li>
              );
            })}
          </ol>
          {(a.placeholderData ?? []).length > 0 ? (
            <>
              <h3>Gang: placeholders per task group</h3>
              <DataTable
                label="Task groups"
                rows={a.placeholderData ?? []}
                rowKey={(d) => d.taskGroupName}
                columns={[
                  { key: "group", label: "Task group", sort: (d) => d.taskGroupName, render: (d) => d.taskGroupName },
                  {
                    key: "placed",
                    label: "Placeholders placed now / asked (minMember)",
                    numeric: true,
                    render: (d) => `${placed.get(d.taskGroupName) ?? 0} / ${d.count}`,
                  },
                  { key: "replaced", label: "Replaced by real pods", numeric: true, render: (d) => d.replaced },
                  { key: "timedout", label: "Timed out", numeric: true, render: (d) => d.timedout },
                  { key: "size", label: "Each", render: (d) => resources(d.minResource) },
                ]}
              />
            </>
          ) : null}
          <h3>Running pods ({(a.allocations ?? []).length})</h3>
          <DataTable
            label="Running pods"
            rows={a.allocations ?? []}
            rowKey={(x) => x.allocationKey}
            initialSort={{ key: "pod" }}
            rowClass={(x) => (x.preempted ? "victim-row" : undefined)}
            rowAttrs={(x): Record<string, string> => (x.preempted ? { "data-preempted": "true" } : {})}
            columns={[
              {
                key: "pod",
                label: "Pod",
                sort: podOf,
                render: (x) => {
                  const by = pre.victimOf.get(x.allocationKey);
                  return (
                    <>
                      {podOf(x)}
                      {x.preempted ? <span class="badge victim">being preempted</span> : null}
                      {x.placeholder ? <span class="badge">placeholder{x.taskGroupName ? ` · ${x.taskGroupName}` : ""}</span> : null}
                      {x.preempted && by ? (
                        <div class="small">
                          evicted for {by.pod ? `${by.namespace}/${by.pod}` : by.allocationKey} of{" "}
                          <a href={href("apps", { app: by.applicationId })}>{by.applicationId}</a> ({by.queue})
                        </div>
                      ) : null}
                    </>
                  );
                },
              },
              { key: "node", label: "Node", sort: (x) => x.nodeId ?? "", render: (x) => x.nodeId ?? "—" },
              { key: "res", label: "Resources", render: (x) => resources(x.resource) },
              {
                key: "since",
                label: "Allocated",
                sort: (x) => x.allocationTime ?? 0,
                render: (x) => (x.allocationTime ? <Ago ms={nsToMs(x.allocationTime)} now={now} /> : "—"),
              },
            ]}
            empty="No pod runs."
          />
          <h3>Waiting pods ({(a.requests ?? []).length})</h3>
          <DataTable
            label="Waiting pods of the application"
            rows={a.requests ?? []}
            rowKey={(x) => x.allocationKey}
            initialSort={{ key: "pod" }}
            columns={[
              { key: "pod", label: "Pod", sort: podOf, render: (x) => podOf(x) },
              { key: "res", label: "Resources", render: (x) => resources(x.resource) },
              {
                key: "since",
                label: "Asked",
                sort: (x) => x.requestTime ?? 0,
                render: (x) => (x.requestTime ? <Ago ms={nsToMs(x.requestTime)} now={now} /> : "—"),
              },
              {
                key: "why",
                label: "Why",
                render: (x) => {
                  const p = pre.waiting.get(x.allocationKey);
                  return (
                    <>
                      {p ? (
                        <div>
                          <span class={`badge kind-${p.hold?.kind ?? "none"}`}>{holdWords(p.hold).kind}</span> {holdWords(p.hold).reason}
                        </div>
                      ) : null}
                      <a href={href("waiting", { q: props.id })}>see why waiting</a>
                    </>
                  );
                },
              },
            ]}
            empty="No pod waits."
          />
        </>
      ) : null}
    </section>
  );
}

export function AppsPage(props: { partition: string; queue: string; query: string; state: string; app: string }): JSX.Element {
  const state = props.state || "active";
  const list = useApi<ApplicationSummary[]>(
    props.app ? undefined : `/ws/v1/corral/applications?partition=${enc(props.partition)}&state=${enc(state)}`,
  );
  const q = props.query.toLowerCase();
  const rows = useMemo(
    () =>
      (list.data ?? []).filter(
        (a) =>
          inQueue(a, props.queue) && (!q || `${a.applicationID} ${a.user} ${a.queueName} ${a.groups.join(" ")}`.toLowerCase().includes(q)),
      ),
    [list.data, props.queue, q],
  );
  if (props.app) return <AppDetail partition={props.partition} id={props.app} />;
  const now = list.at ?? Date.now();
  const columns: Column<ApplicationSummary>[] = [
    {
      key: "id",
      label: "Application",
      sort: (a) => a.applicationID,
      render: (a) => <a href={href("apps", { app: a.applicationID })}>{a.applicationID}</a>,
    },
    { key: "queue", label: "Queue", sort: (a) => a.queueName, render: (a) => a.queueName || "—" },
    { key: "user", label: "User", sort: (a) => a.user, render: (a) => a.user },
    {
      key: "state",
      label: "State",
      sort: (a) => a.applicationState,
      render: (a) =>
        a.rejectedMessage ? (
          <span title={a.rejectedMessage}>
            {a.applicationState}: {a.rejectedMessage}
          </span>
        ) : (
          a.applicationState
        ),
    },
    {
      key: "pods",
      label: "Running / waiting pods",
      sort: (a) => a.running * 1e6 + a.waiting,
      numeric: true,
      render: (a) => (
        <>
          {a.running} / {a.waiting}
          {a.preempted > 0 ? <span class="badge victim">{a.preempted} being preempted</span> : null}
        </>
      ),
    },
    { key: "used", label: "Using", sort: (a) => a.usedResource.vcore ?? 0, render: (a) => resources(a.usedResource) },
    {
      key: "submitted",
      label: "Submitted",
      sort: (a) => a.submissionTime,
      render: (a) => (a.submissionTime ? <Ago ms={a.submissionTime} now={now} /> : "—"),
    },
  ];
  return (
    <section aria-labelledby="apps-h">
      <h1 id="apps-h">Applications</h1>
      <div class="controls">
        <Search
          id="apps-q"
          label="Search applications"
          value={props.query}
          placeholder="id, user, group or queue"
          onInput={(v) => setParam("q", v)}
        />
        <div class="search">
          <label for="apps-state">Show</label>
          <select id="apps-state" value={state} onChange={(e) => setParam("state", (e.target as HTMLSelectElement).value)}>
            <option value="active">active</option>
            <option value="completed">completed</option>
            <option value="rejected">rejected</option>
          </select>
        </div>
        {props.queue ? (
          <p class="filter">
            In queue <strong>{props.queue}</strong> <a href={href("apps", { state: props.state })}>(all queues)</a>
          </p>
        ) : null}
      </div>
      <Status loading={!list.data} error={list.error} />
      {list.data ? (
        <DataTable
          label="Applications"
          rows={rows}
          columns={columns}
          rowKey={(a) => a.applicationID}
          rowClass={(a) => (a.preempted > 0 ? "victim-row" : undefined)}
          initialSort={{ key: "submitted", desc: true }}
          empty="No application."
        />
      ) : null}
    </section>
  );
}
