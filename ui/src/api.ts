/**
 * Reading the scheduler: same-origin GETs of the REST API, a live tick driven by the event stream
 * (`/ws/v1/events/stream`, newline-delimited JSON), and the connection state behind the page's banner. Read-only:
 * nothing here writes to the scheduler.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { ErrorBody, ShimStatus } from "../../src/scheduler/rest/api-types.js";

export type Connection =
  | { state: "connecting" }
  | { state: "live" }
  /** Event tracking is off on the scheduler: the page polls. */
  | { state: "polling" }
  | { state: "unreachable"; detail: string }
  | { state: "notLeader"; detail: string };

type Listener = () => void;

/** A failed read: the HTTP status (0: no answer) and YuniKorn's error message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const POLL_MS = 15_000;
const POLL_NO_EVENTS_MS = 3_000;
const STATUS_MS = 5_000;
const DEBOUNCE_MS = 750;

/** The page's live state: a counter bumped when the scheduler reports changes, and the connection. */
class Live {
  tick = 0;
  conn: Connection = { state: "connecting" };
  /** Events received since the page loaded. */
  events = 0;
  private readonly listeners = new Set<Listener>();
  private pending: ReturnType<typeof setTimeout> | undefined;
  private started = false;

  subscribe(l: Listener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  private notify(): void {
    for (const l of this.listeners) l();
  }

  /** Something changed: data is read again (changes arriving together cause one read). */
  bump(): void {
    if (this.pending) return;
    this.pending = setTimeout(() => {
      this.pending = undefined;
      this.tick++;
      this.notify();
    }, DEBOUNCE_MS);
  }

  setConn(c: Connection): void {
    if (JSON.stringify(c) === JSON.stringify(this.conn)) return;
    const recovered = this.conn.state === "unreachable" || this.conn.state === "notLeader";
    this.conn = c;
    this.notify();
    if (recovered && (c.state === "live" || c.state === "polling")) this.bump();
  }

  /** A read failed without an answer: the scheduler is unreachable. */
  unreachable(detail: string): void {
    this.setConn({ state: "unreachable", detail });
  }

  /** Opens the event stream and the status checks once. */
  start(): void {
    if (this.started) return;
    this.started = true;
    void this.stream();
    void this.checkStatus();
    setInterval(() => void this.checkStatus(), STATUS_MS);
    setInterval(() => {
      if (this.conn.state !== "polling") this.bump();
    }, POLL_MS);
  }

  private async stream(): Promise<void> {
    let retry = 3000;
    try {
      const r = await fetch("/ws/v1/events/stream", { cache: "no-store", headers: { accept: "application/json" } });
      if (r.status === 500) {
        // "Event tracking is disabled": poll instead
        this.setConn({ state: "polling" });
        const t = setInterval(() => this.bump(), POLL_NO_EVENTS_MS);
        setTimeout(() => {
          clearInterval(t);
          void this.stream();
        }, 60_000);
        return;
      }
      if (!r.ok || !r.body) {
        const msg = await errorMessage(r);
        if (r.status === 503 && /leader/i.test(msg)) this.setConn({ state: "notLeader", detail: msg });
        // 503 for too many streams: stay with polling
        else if (r.status === 503) this.setConn({ state: "polling" });
        else this.unreachable(msg);
      } else {
        this.setConn({ state: "live" });
        const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
        let buf = "";
        let first = true;
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buf += value;
          let nl: number;
          while ((nl = buf.indexOf("\n")) >= 0) {
            const line = buf.slice(0, nl).trim();
            buf = buf.slice(nl + 1);
            if (!line) continue;
            if (first)
              first = false; // the instance id
            else {
              this.events++;
              this.bump();
            }
          }
        }
        retry = 500;
      }
    } catch (err) {
      this.unreachable(`no answer from ${location.host} (${(err as Error).message})`);
    }
    setTimeout(() => void this.stream(), retry);
  }

  /** The shim's own state (cluster mode): leader or not. 404 (standalone) says nothing. */
  private async checkStatus(): Promise<void> {
    try {
      const r = await fetch("/ws/v1/scheduler/shim", { cache: "no-store" });
      if (r.status === 503) return this.setConn({ state: "notLeader", detail: await errorMessage(r) });
      if (r.ok) {
        const s = (await r.json()) as ShimStatus;
        if (!s.leader)
          return this.setConn({ state: "notLeader", detail: "this replica is not the leader: its data is not the scheduler's" });
      }
      if (this.conn.state === "unreachable" || this.conn.state === "notLeader") this.setConn({ state: "connecting" });
    } catch (err) {
      this.unreachable(`no answer from ${location.host} (${(err as Error).message})`);
    }
  }
}

export const live = new Live();

async function errorMessage(r: Response): Promise<string> {
  try {
    const b = (await r.json()) as Partial<ErrorBody>;
    return b.message ?? `HTTP ${r.status}`;
  } catch {
    return `HTTP ${r.status}`;
  }
}

/**
 * GETs `path` (same origin) as JSON.
 * @throws ApiError with the status and YuniKorn's message; status 0 when the scheduler does not answer
 */
export async function getJson<T>(path: string): Promise<T> {
  let r: Response;
  try {
    r = await fetch(path, { cache: "no-store", headers: { accept: "application/json" } });
  } catch (err) {
    live.unreachable(`no answer from ${location.host} (${(err as Error).message})`);
    throw new ApiError(0, "the scheduler does not answer");
  }
  if (!r.ok) {
    const msg = await errorMessage(r);
    if (r.status === 503 && /leader/i.test(msg)) live.setConn({ state: "notLeader", detail: msg });
    throw new ApiError(r.status, msg);
  }
  return (await r.json()) as T;
}

/** Re-renders the caller on every live change (tick or connection). */
export function useLive(): Live {
  const [, set] = useState(0);
  useEffect(() => live.subscribe(() => set((n) => n + 1)), []);
  return live;
}

export interface Loaded<T> {
  data?: T;
  error?: ApiError;
  /** When the data was read, Unix ms. */
  at?: number;
}

/**
 * The JSON at `path`, read again whenever the scheduler reports a change (the live tick). The last good data stays on
 * the page while a new read is under way or when it fails. `path` undefined: nothing is read.
 */
export function useApi<T>(path: string | undefined): Loaded<T> {
  const l = useLive();
  const [state, setState] = useState<Loaded<T>>({});
  const inFlight = useRef<string | undefined>(undefined);
  const lastPath = useRef<string | undefined>(undefined);
  useEffect(() => {
    if (!path) return;
    if (lastPath.current !== path) {
      lastPath.current = path;
      setState({});
    }
    const key = `${path}#${l.tick}`;
    if (inFlight.current === key) return;
    inFlight.current = key;
    let cancelled = false;
    getJson<T>(path)
      .then(
        (data) => {
          if (!cancelled) setState({ data, at: Date.now() });
        },
        (error: ApiError) => {
          if (!cancelled) setState((s) => ({ ...s, error }));
        },
      )
      .finally(() => {
        if (inFlight.current === key) inFlight.current = undefined;
      });
    return () => {
      cancelled = true;
    };
  }, [path, l.tick]);
  return state;
}

/** Encodes one path segment or query value. */
export const enc = encodeURIComponent;
