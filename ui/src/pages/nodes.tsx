/**
 * Nodes: how many nodes sit in each tenth of utilisation for a resource type (YuniKorn's node-utilizations), and a
 * sortable table of every node with its used and free resources.
 */
import type { JSX } from "preact";
import { useMemo } from "preact/hooks";
import type { NodeSummary, NodeUtilizations } from "../../../src/scheduler/rest/api-types.js";
import { enc, useApi } from "../api.js";
import { type Column, DataTable, Search, Status } from "../components.js";
import { ofMax, quantity, resourceLabel, resourceOrder } from "../format.js";
import { setParam } from "../route.js";

function Histogram(props: { data: NodeUtilizations | undefined; type: string }): JSX.Element {
  const u = props.data?.utilizations?.find((x) => x.type === props.type);
  const buckets = u?.utilization ?? [];
  const most = Math.max(1, ...buckets.map((b) => b.numOfNodes ?? 0));
  const total = buckets.reduce((s, b) => s + (b.numOfNodes ?? 0), 0);
  return (
    <figure class="histogram">
      <figcaption>
        Nodes by {resourceLabel(props.type)} utilisation ({total} nodes)
      </figcaption>
      <ul aria-label={`Nodes by ${resourceLabel(props.type)} utilisation`}>
        {buckets.map((b) => {
          const n = b.numOfNodes ?? 0;
          return (
            <li
              key={b.bucketName}
              aria-label={`${b.bucketName}: ${n} node${n === 1 ? "" : "s"}`}
              title={(b.nodeNames ?? []).slice(0, 20).join(", ")}
            >
              <span class="h-count" aria-hidden="true">
                {n}
              </span>
              <svg viewBox="0 0 10 100" preserveAspectRatio="none" aria-hidden="true">
                <rect class="h-bar" x="0" y={100 - (n / most) * 100} width="10" height={(n / most) * 100} />
              </svg>
              <span class="h-label" aria-hidden="true">
                {b.bucketName}
              </span>
            </li>
          );
        })}
      </ul>
    </figure>
  );
}

export function NodesPage(props: { partition: string; type: string; query: string }): JSX.Element {
  const util = useApi<NodeUtilizations[]>("/ws/v1/scheduler/node-utilizations");
  const nodes = useApi<NodeSummary[]>(`/ws/v1/corral/nodes?partition=${enc(props.partition)}`);
  const mine = util.data?.find((x) => x.partition === props.partition);
  const types = resourceOrder((mine?.utilizations ?? []).map((u) => u.type));
  const type = props.type || (types.includes("vcore") ? "vcore" : (types[0] ?? "vcore"));
  const q = props.query.toLowerCase();
  const rows = useMemo(() => (nodes.data ?? []).filter((n) => !q || n.nodeID.toLowerCase().includes(q)), [nodes.data, q]);
  const shownTypes = resourceOrder(["vcore", "memory", "pods"].filter((k) => (nodes.data ?? []).some((n) => n.capacity[k] !== undefined)));
  const columns: Column<NodeSummary>[] = [
    {
      key: "node",
      label: "Node",
      sort: (n) => n.nodeID,
      render: (n) => (
        <>
          {n.nodeID}
          {!n.schedulable ? <span class="badge">draining</span> : null}
        </>
      ),
    },
    ...shownTypes.map((k): Column<NodeSummary> => ({
      key: `used-${k}`,
      label: `${resourceLabel(k)} used`,
      numeric: true,
      sort: (n) => n.utilized[k] ?? 0,
      render: (n) => (
        <span title={`free ${quantity(k, n.available[k] ?? 0)}`}>
          {ofMax(k, (n.allocated[k] ?? 0) + (n.occupied[k] ?? 0), n.capacity[k] ?? 0)} <span class="muted">({n.utilized[k] ?? 0} %)</span>
        </span>
      ),
    })),
    { key: "allocs", label: "Pods placed", numeric: true, sort: (n) => n.allocations, render: (n) => n.allocations },
  ];
  return (
    <section aria-labelledby="nodes-h">
      <h1 id="nodes-h">Nodes</h1>
      <Status loading={!util.data || !nodes.data} error={util.error ?? nodes.error} />
      <div class="controls">
        <div class="search">
          <label for="nodes-type">Resource</label>
          <select id="nodes-type" value={type} onChange={(e) => setParam("type", (e.target as HTMLSelectElement).value)}>
            {types.map((t) => (
              <option key={t} value={t}>
                {resourceLabel(t)}
              </option>
            ))}
          </select>
        </div>
        <Search id="nodes-q" label="Search nodes" value={props.query} onInput={(v) => setParam("q", v)} />
      </div>
      {util.data ? <Histogram data={mine} type={type} /> : null}
      {nodes.data ? (
        <DataTable label="Nodes" rows={rows} columns={columns} rowKey={(n) => n.nodeID} initialSort={{ key: `used-${type}`, desc: true }} />
      ) : null}
    </section>
  );
}
