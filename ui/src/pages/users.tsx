/**
 * Users and groups: what each uses on each queue of its path, against the user or group limit that applies there
 * (the named limit, else the queue's wildcard limit), and the limits configured.
 */
import type { JSX } from "preact";
import type { LimitInfo, UsageInfo } from "../../../src/scheduler/rest/api-types.js";
import { enc, useApi } from "../api.js";
import { type UsageRow, usageRows } from "../model.js";
import { type Column, DataTable, Search, Status, UsageBar } from "../components.js";
import { resourceOrder, resources } from "../format.js";
import { href, setParam } from "../route.js";

function UsageTable(props: { label: string; kind: "user" | "group"; rows: UsageRow[] }): JSX.Element {
  const columns: Column<UsageRow>[] = [
    {
      key: "name",
      label: props.kind === "group" ? "Group" : "User",
      sort: (r) => `${r.name}\0${r.queuePath}`,
      render: (r) =>
        r.kind === "user" ? (
          <a href={href("waiting", { q: r.name })} title="this user's waiting pods">
            {r.name}
          </a>
        ) : (
          r.name
        ),
    },
    { key: "queue", label: "Queue", sort: (r) => r.queuePath, render: (r) => r.queuePath },
    {
      key: "usage",
      label: "Usage against the limit",
      sort: (r) => share(r),
      render: (r) => {
        const max = r.limit?.maxResources;
        const types = resourceOrder([...Object.keys(max ?? {}), ...Object.keys(r.usage)]).filter((k) => max?.[k] !== undefined);
        return (
          <div class="bars">
            {types.map((k) => (
              <UsageBar key={k} name={k} used={r.usage[k] ?? 0} max={max![k]} />
            ))}
            <div class={types.length ? "muted small" : undefined}>
              {r.limit
                ? `${r.limit.name === "*" ? "wildcard" : "own"} limit${types.length === 0 ? " (no resource max)" : ""}; `
                : "no limit here; "}
              uses {resources(r.usage)}
            </div>
          </div>
        );
      },
    },
    {
      key: "apps",
      label: "Running applications",
      sort: (r) => r.running.length,
      numeric: true,
      render: (r) => (
        <>
          {r.running.length}
          {r.limit?.maxApplications ? ` of ${r.limit.maxApplications}` : ""}
          <div class="muted small">
            {r.running.slice(0, 5).map((a, i) => (
              <span key={a}>
                {i ? ", " : ""}
                <a href={href("apps", { app: a })}>{a}</a>
              </span>
            ))}
            {r.running.length > 5 ? ` and ${r.running.length - 5} more` : ""}
          </div>
        </>
      ),
    },
  ];
  return (
    <DataTable
      label={props.label}
      rows={props.rows}
      columns={columns}
      rowKey={(r) => `${r.name}@${r.queuePath}`}
      initialSort={{ key: "name" }}
      pageSize={25}
      rowAttrs={(r) => ({ "data-usage": `${r.kind}:${r.name}@${r.queuePath}` })}
      empty="Nothing in use."
    />
  );
}

/** The largest used / limit over the limited types (0 without a resource limit), for sorting by how close to it. */
function share(r: UsageRow): number {
  const max = r.limit?.maxResources ?? {};
  let s = 0;
  for (const k in max) if (max[k]! > 0) s = Math.max(s, (r.usage[k] ?? 0) / max[k]!);
  return s;
}

export function UsersPage(props: { partition: string; query: string }): JSX.Element {
  const p = enc(props.partition);
  const users = useApi<UsageInfo[]>(`/ws/v1/partition/${p}/usage/users`);
  const groups = useApi<UsageInfo[]>(`/ws/v1/partition/${p}/usage/groups`);
  const limits = useApi<LimitInfo[]>(`/ws/v1/corral/limits?partition=${p}`);
  const q = props.query.toLowerCase();
  const keep = (r: UsageRow) => !q || r.name.toLowerCase().includes(q);
  const ls = limits.data ?? [];
  return (
    <section aria-labelledby="users-h">
      <h1 id="users-h">Users and groups</h1>
      <p class="lead">Usage on every queue of each user's and group's path, against the limit that applies there.</p>
      <div class="controls">
        <Search id="users-q" label="Search users and groups" value={props.query} onInput={(v) => setParam("q", v)} />
      </div>
      <Status loading={!users.data || !limits.data} error={users.error ?? groups.error ?? limits.error} />
      {users.data && limits.data ? (
        <>
          <h2>Users</h2>
          <UsageTable label="User usage" kind="user" rows={usageRows("user", users.data, ls).filter(keep)} />
          <h2>Groups</h2>
          <UsageTable label="Group usage" kind="group" rows={usageRows("group", groups.data ?? [], ls).filter(keep)} />
          <h2>Limits configured</h2>
          <div class="table-wrap">
            <table aria-label="Limits configured">
              <thead>
                <tr>
                  <th scope="col">Queue</th>
                  <th scope="col">Applies to</th>
                  <th scope="col">Max resources</th>
                  <th scope="col">Max applications</th>
                </tr>
              </thead>
              <tbody>
                {ls.length === 0 ? (
                  <tr>
                    <td colSpan={4} class="empty">
                      No user or group limit is configured.
                    </td>
                  </tr>
                ) : null}
                {ls.map((l) => (
                  <tr key={`${l.queuePath}/${l.kind}/${l.name}`}>
                    <td>{l.queuePath}</td>
                    <td>
                      {l.name === "*"
                        ? `every ${l.kind}${l.kind === "user" ? " without their own limit" : " not named (shared)"}`
                        : `${l.kind} ${l.name}`}
                    </td>
                    <td>{l.maxResources ? resources(l.maxResources) : "no max"}</td>
                    <td>{l.maxApplications || "no max"}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      ) : null}
    </section>
  );
}
