/** Shared pieces of the pages: usage bars, a sortable paginated table, times. */
import type { ComponentChildren, JSX } from "preact";
import { useMemo, useState } from "preact/hooks";
import { live } from "./api.js";
import { dateTime, duration, fraction, ofMax, quantity, resourceLabel } from "./format.js";

/**
 * A usage bar for one resource type: `used` filled, the guaranteed amount marked with a tick, the full width is
 * `max` (or `scale` when the queue has no max). The words beside it say the same for screen readers and for readers
 * who cannot tell the colours apart; a bar at its max also gets a hatched pattern and "at max".
 */
export function UsageBar(props: { name: string; used: number; max?: number; guaranteed?: number; scale?: number }): JSX.Element {
  const { name, used, max, guaranteed } = props;
  const full = max ?? props.scale ?? Math.max(used, guaranteed ?? 0, 1);
  const f = fraction(used, full);
  const atMax = max !== undefined && max > 0 && used >= max;
  const words = max !== undefined ? ofMax(name, used, max) : `${quantity(name, used)} (no max)`;
  const label = `${resourceLabel(name)}: ${words}${guaranteed !== undefined ? `, guaranteed ${quantity(name, guaranteed)}` : ""}`;
  return (
    <div class="bar" role="img" aria-label={label} title={label}>
      <span class="bar-name">{resourceLabel(name)}</span>
      <svg class="bar-svg" viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true">
        <rect class="bar-track" x="0" y="0" width="100" height="10" />
        <rect class={atMax ? "bar-used bar-full" : "bar-used"} x="0" y="0" width={f * 100} height="10" />
        {guaranteed !== undefined && full > 0 ? (
          <rect class="bar-guaranteed" x={Math.min(99, fraction(guaranteed, full) * 100)} y="0" width="1" height="10" />
        ) : null}
      </svg>
      <span class="bar-words">
        {words}
        {atMax ? <strong class="at-max"> at max</strong> : null}
      </span>
    </div>
  );
}

export interface Column<T> {
  key: string;
  label: string;
  render: (row: T) => ComponentChildren;
  /** Sort value; columns without one cannot be sorted. */
  sort?: (row: T) => number | string;
  numeric?: boolean;
}

/**
 * A table of any length: sortable by clicking (or pressing Enter on) a column header, one page of rows rendered at a
 * time. Sort state and page are local to the table.
 */
export function DataTable<T>(props: {
  label: string;
  rows: readonly T[];
  columns: Column<T>[];
  rowKey: (row: T) => string;
  pageSize?: number;
  initialSort?: { key: string; desc?: boolean };
  rowClass?: (row: T) => string | undefined;
  /** Extra attributes of a row (e.g. `data-*` for tests and links). */
  rowAttrs?: (row: T) => Record<string, string>;
  empty?: string;
}): JSX.Element {
  const [sort, setSort] = useState(props.initialSort);
  const [page, setPage] = useState(0);
  const [size, setSize] = useState(props.pageSize ?? 50);
  const sorted = useMemo(() => {
    const col = props.columns.find((c) => c.key === sort?.key);
    if (!col?.sort) return props.rows;
    const v = col.sort;
    const dir = sort!.desc ? -1 : 1;
    return [...props.rows].sort((a, b) => {
      const x = v(a);
      const y = v(b);
      return (x < y ? -1 : x > y ? 1 : 0) * dir;
    });
  }, [props.rows, props.columns, sort?.key, sort?.desc]);
  const pages = Math.max(1, Math.ceil(sorted.length / size));
  const p = Math.min(page, pages - 1);
  const shown = sorted.slice(p * size, (p + 1) * size);
  const first = sorted.length === 0 ? 0 : p * size + 1;
  return (
    <div class="table-wrap">
      <table aria-label={props.label}>
        <thead>
          <tr>
            {props.columns.map((c) => {
              const active = sort?.key === c.key;
              return (
                <th
                  scope="col"
                  key={c.key}
                  class={c.numeric ? "num" : undefined}
                  aria-sort={active ? (sort!.desc ? "descending" : "ascending") : undefined}
                >
                  {c.sort ? (
                    <button
                      type="button"
                      class="sort"
                      onClick={() => {
                        setSort({ key: c.key, desc: active ? !sort!.desc : false });
                        setPage(0);
                      }}
                    >
                      {c.label}
                      <span aria-hidden="true">{active ? (sort!.desc ? " ▼" : " ▲") : " ↕"}</span>
                    </button>
                  ) : (
                    c.label
                  )}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>
          {shown.length === 0 ? (
            <tr>
              <td colSpan={props.columns.length} class="empty">
                {props.empty ?? "Nothing to show."}
              </td>
            </tr>
          ) : null}
          {shown.map((r) => (
            <tr key={props.rowKey(r)} class={props.rowClass?.(r)} {...props.rowAttrs?.(r)}>
              {props.columns.map((c) => (
                <td key={c.key} class={c.numeric ? "num" : undefined}>
                  {c.render(r)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      {sorted.length > Math.min(size, 10) ? (
        <nav class="pager" aria-label={`${props.label}: pages`}>
          <button type="button" onClick={() => setPage(0)} disabled={p === 0}>
            First
          </button>
          <button type="button" onClick={() => setPage(p - 1)} disabled={p === 0}>
            Previous
          </button>
          <span aria-live="polite">
            Rows {first}–{Math.min(sorted.length, (p + 1) * size)} of {sorted.length.toLocaleString("en")}
          </span>
          <button type="button" onClick={() => setPage(p + 1)} disabled={p >= pages - 1}>
            Next
          </button>
          <button type="button" onClick={() => setPage(pages - 1)} disabled={p >= pages - 1}>
            Last
          </button>
          <label>
            Rows per page{" "}
            <select
              value={String(size)}
              onChange={(e) => {
                setSize(Number((e.target as HTMLSelectElement).value));
                setPage(0);
              }}
            >
              {[25, 50, 100, 250].map((n) => (
                <option key={n} value={String(n)}>
                  {n}
                </option>
              ))}
            </select>
          </label>
        </nav>
      ) : null}
    </div>
  );
}

/** A point in time (Unix ms): "4 min ago" with the date and time as a tooltip and machine-readable value. */
export function Ago(props: { ms: number; now: number }): JSX.Element {
  return (
    <time dateTime={new Date(props.ms).toISOString()} title={dateTime(props.ms)}>
      {duration(props.now - props.ms)} ago
    </time>
  );
}

/** A labelled search box that filters as one types. */
export function Search(props: {
  id: string;
  label: string;
  value: string;
  onInput: (v: string) => void;
  placeholder?: string;
}): JSX.Element {
  return (
    <div class="search">
      <label for={props.id}>{props.label}</label>
      <input
        id={props.id}
        type="search"
        value={props.value}
        placeholder={props.placeholder}
        autoComplete="off"
        onInput={(e) => props.onInput((e.target as HTMLInputElement).value)}
      />
    </div>
  );
}

/** A loading / error line for a page's data (none while the banner says the scheduler or its leader cannot be read). */
export function Status(props: { loading: boolean; error?: Error & { status?: number } }): JSX.Element | null {
  const banner = live.conn.state === "unreachable" || live.conn.state === "notLeader";
  if (props.error && props.error.status !== 0 && !banner)
    return (
      <p class="error" role="status">
        Could not read the scheduler: {props.error.message}
      </p>
    );
  if (props.loading)
    return (
      <p class="muted" role="status">
        {banner ? "No data yet." : "Loading…"}
      </p>
    );
  return null;
}
