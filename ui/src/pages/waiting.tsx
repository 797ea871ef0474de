/**
 * Why waiting: every pod the scheduler holds, searchable by pod, application, user, namespace or queue, with the hold
 * reason in plain words and numbers, what would unblock it and since when it waits.
 */
import type { JSX } from "preact";
import { useMemo } from "preact/hooks";
import type { PendingList } from "../../../src/scheduler/rest/api-types.js";
import { enc, useApi } from "../api.js";
import { matches } from "../model.js";
import { Ago, type Column, DataTable, Search, Status } from "../components.js";
import { resources } from "../format.js";
import { holdWords } from "../hold.js";
import { href, setParam } from "../route.js";

export function WaitingPage(props: { partition: string; query: string; kind: string }): JSX.Element {
  const list = useApi<PendingList>(`/ws/v1/corral/pending?partition=${enc(props.partition)}`);
  const now = list.data?.time ?? Date.now();
  const rows = useMemo(() => (list.data?.pending ?? []).map((p) => ({ p, w: holdWords(p.hold) })), [list.data]);
  const kinds = useMemo(() => {
    const m = new Map<string, number>();
    for (const r of rows) m.set(r.w.kind, (m.get(r.w.kind) ?? 0) + 1);
    return [...m.entries()].sort((a, b) => b[1] - a[1]);
  }, [rows]);
  const q = props.query.toLowerCase();
  const shown = useMemo(
    () => rows.filter((r) => (!q || matches(r.p, q)) && (!props.kind || r.w.kind === props.kind)),
    [rows, q, props.kind],
  );
  type R = (typeof rows)[number];
  const columns: Column<R>[] = [
    {
      key: "pod",
      label: "Pod",
      sort: (r) => `${r.p.namespace}/${r.p.pod}`,
      render: (r) => (
        <span class="pod">
          {r.p.pod ? (
            <>
              {r.p.namespace}/<strong>{r.p.pod}</strong>
            </>
          ) : (
            <span class="muted">ask {r.p.allocationKey}</span>
          )}
          <div class="muted small">needs {resources(r.p.resource)}</div>
        </span>
      ),
    },
    {
      key: "app",
      label: "Application",
      sort: (r) => r.p.applicationId,
      render: (r) => (
        <>
          <a href={href("apps", { app: r.p.applicationId })}>{r.p.applicationId}</a>
          <div class="muted small">{r.p.applicationState}</div>
        </>
      ),
    },
    { key: "user", label: "User", sort: (r) => r.p.user, render: (r) => <a href={href("users", { q: r.p.user })}>{r.p.user}</a> },
    { key: "queue", label: "Queue", sort: (r) => r.p.queue, render: (r) => <a href={href("apps", { queue: r.p.queue })}>{r.p.queue}</a> },
    { key: "since", label: "Waiting since", sort: (r) => r.p.since, render: (r) => <Ago ms={r.p.since} now={now} /> },
    {
      key: "reason",
      label: "Why it waits",
      sort: (r) => r.w.kind,
      render: (r) => (
        <div class="reason">
          <span class={`badge kind-${r.p.hold?.kind ?? "none"}`}>{r.w.kind}</span> <span class="reason-text">{r.w.reason}</span>
          {r.p.hold?.kind === "preemption" ? (
            <div class="muted small">
              victims chosen <Ago ms={r.p.hold.since} now={now} />
            </div>
          ) : null}
          {r.w.victims ? (
            <ul class="victims" aria-label={`Victims preempted for ${r.p.pod || r.p.allocationKey}`}>
              {r.w.victims.map((v) => (
                <li key={v.key} data-victim={v.pod} class={v.released ? "released" : undefined}>
                  <span class={`badge ${v.released ? "" : "victim"}`}>{v.state}</span> <strong>{v.pod}</strong> of{" "}
                  <a href={href("apps", { app: v.applicationId })}>{v.applicationId}</a> on {v.node}, {v.resources}
                  <div class="muted small">{v.rule}</div>
                </li>
              ))}
            </ul>
          ) : null}
        </div>
      ),
    },
    { key: "unblock", label: "What would unblock it", render: (r) => <span class="unblock">{r.w.unblock}</span> },
  ];
  return (
    <section aria-labelledby="waiting-h">
      <h1 id="waiting-h">Why waiting</h1>
      <p class="lead">Each pod the scheduler holds back, and why. Search by pod, application, user, namespace or queue.</p>
      <div class="controls">
        <Search
          id="waiting-q"
          label="Search waiting pods"
          value={props.query}
          placeholder="e.g. alice or batch/job-1"
          onInput={(v) => setParam("q", v)}
        />
        <div class="search">
          <label for="waiting-kind">Reason</label>
          <select id="waiting-kind" value={props.kind} onChange={(e) => setParam("kind", (e.target as HTMLSelectElement).value)}>
            <option value="">all ({rows.length})</option>
            {kinds.map(([k, n]) => (
              <option key={k} value={k}>
                {k} ({n})
              </option>
            ))}
          </select>
        </div>
      </div>
      <Status loading={!list.data} error={list.error} />
      {list.data ? (
        <>
          <p class="summary" role="status">
            {shown.length === rows.length
              ? `${rows.length} waiting pod${rows.length === 1 ? "" : "s"}`
              : `${shown.length} of ${rows.length} waiting pods match`}
          </p>
          <DataTable
            label="Waiting pods"
            rows={shown}
            columns={columns}
            rowKey={(r) => `${r.p.applicationId}/${r.p.allocationKey}`}
            initialSort={{ key: "since" }}
            empty={rows.length === 0 ? "No pod is waiting." : "No waiting pod matches."}
          />
        </>
      ) : null}
    </section>
  );
}
