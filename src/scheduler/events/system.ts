/**
 * The event system (apache/yunikorn-core pkg/events/event_system.go, event_streaming.go; pkg/webservice
 * streaming_limit.go): the core's records go into a bounded history (`EventRingBuffer`) and out to stream consumers.
 *
 * Streams are fanned out in batches: records added while the core works are serialised once, after the current task
 * (`defer`, default `setImmediate`), and the same chunk is written to every consumer. A consumer whose connection does
 * not take what it is sent (its `write` returns false and no `drained()` follows) accumulates a backlog; beyond
 * `STREAM_BACKLOG` records it is dropped with YuniKorn's closing message — the core is never slowed or blocked by a
 * reader, and memory per consumer stays bounded.
 *
 * Config keys (yunikorn-configs ConfigMap, as upstream pkg/common/configs/configs.go): `event.trackingEnabled`
 * (default true), `event.ringBufferCapacity` (100000), `event.maxStreams` (100), `event.maxStreamsPerHost` (15),
 * `event.RESTResponseSize` (10000, the most records one batch call returns).
 */
import { type EventRecord, eventRecordJson } from "./record.js";
import { EventRingBuffer } from "./ring-buffer.js";
import { parseGoBool } from "../../util/go-strconv.js";

/** The event settings (`event.*` keys of the ConfigMaps; module comment). */
export interface EventSystemConfig {
  trackingEnabled: boolean;
  ringBufferCapacity: number;
  maxStreams: number;
  maxStreamsPerHost: number;
  restResponseSize: number;
}

/** Upstream's defaults (pkg/common/configs/configs.go). */
export const DEFAULT_EVENT_CONFIG: Readonly<EventSystemConfig> = Object.freeze({
  trackingEnabled: true,
  ringBufferCapacity: 100_000,
  maxStreams: 100,
  maxStreamsPerHost: 15,
  restResponseSize: 10_000,
});

/** Records a stream consumer may fall behind by before it is dropped (upstream defaultChannelBufSize). */
export const STREAM_BACKLOG = 1000;

/** The message a dropped or closed stream ends with (upstream getStream). */
export const STREAM_CLOSED_MESSAGE = "Event stream was closed by the producer";

const KEYS: Record<Exclude<keyof EventSystemConfig, "trackingEnabled">, string> = {
  ringBufferCapacity: "event.ringBufferCapacity",
  maxStreams: "event.maxStreams",
  maxStreamsPerHost: "event.maxStreamsPerHost",
  restResponseSize: "event.RESTResponseSize",
};

/**
 * The event settings in a flattened scheduler ConfigMap. A malformed value keeps the default and is reported (as
 * upstream, which logs and keeps the default); a capacity or response size of 0 also keeps the default.
 * @returns the settings and one error text per bad key, naming the key and the value
 */
export function eventConfigOf(flat: Readonly<Record<string, string>>): { config: EventSystemConfig; errors: string[] } {
  const config: EventSystemConfig = { ...DEFAULT_EVENT_CONFIG };
  const errors: string[] = [];
  const tracking = flat["event.trackingEnabled"];
  if (tracking !== undefined) {
    const b = parseGoBool(tracking);
    if (b === undefined) errors.push(`event.trackingEnabled: "${tracking}" is not a boolean`);
    else config.trackingEnabled = b;
  }
  for (const [field, key] of Object.entries(KEYS) as [keyof typeof KEYS, string][]) {
    const raw = flat[key];
    if (raw === undefined) continue;
    const n = /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN;
    if (!Number.isSafeInteger(n)) errors.push(`${key}: "${raw}" is not a non-negative integer`);
    else if (n === 0 && field !== "maxStreams" && field !== "maxStreamsPerHost")
      errors.push(`${key}: 0 is not allowed, using the default ${config[field]}`);
    else config[field] = n;
  }
  return { config, errors };
}

/** The edge's side of a stream: an HTTP response, or a test's collector. */
export interface StreamConsumer {
  /** Writes a chunk of NDJSON lines; false when the connection is backed up (`drained()` is then expected). */
  write(chunk: string): boolean;
  /** Ends the stream with a last line (YuniKorn's error body). */
  close(lastLine: string): void;
}

/** A consumer's stream as the REST server drives it. */
export interface StreamHandle {
  /** The consumer's connection took its buffered data; queued records are written. */
  drained(): void;
  /** The consumer went away: the stream is removed. */
  remove(): void;
}

interface Stream {
  consumer: StreamConsumer;
  host: string;
  name: string;
  createdAt: number;
  blocked: boolean;
  /** Chunks not yet written while the connection is backed up, with their record counts. */
  queued: { chunk: string; records: number }[];
  queuedRecords: number;
}

/** Options of {@link EventSystem}. */
export interface EventSystemOptions {
  /** Unix milliseconds. */
  now: () => number;
  /** The instance id streams and batches report (a UUID; a restart gives a new one). */
  instanceUUID: string;
  config?: EventSystemConfig;
  /** Runs the fan-out after the current task (default setImmediate). */
  defer?: (f: () => void) => void;
}

/**
 * Records the core's events in the ring buffer and fans them out to streams (upstream pkg/events): `add` is the
 * core's sink, the REST API reads batches (`/ws/v1/events/batch`) and opens streams (`/ws/v1/events/stream`).
 */
export class EventSystem {
  readonly instanceUUID: string;
  private cfg: EventSystemConfig;
  private readonly buffer: EventRingBuffer<EventRecord>;
  private readonly streams = new Set<Stream>();
  private readonly perHost = new Map<string, number>();
  private pending: EventRecord[] = [];
  private scheduled = false;
  private readonly defer: (f: () => void) => void;
  private readonly now: () => number;
  /** Counters: records added, consumers dropped for being slow. */
  readonly stats = { added: 0, dropped: 0, delivered: 0 };

  constructor(o: EventSystemOptions) {
    this.instanceUUID = o.instanceUUID;
    this.cfg = { ...(o.config ?? DEFAULT_EVENT_CONFIG) };
    this.buffer = new EventRingBuffer(this.cfg.ringBufferCapacity);
    this.defer = o.defer ?? ((f) => setImmediate(f));
    this.now = o.now;
  }

  get config(): Readonly<EventSystemConfig> {
    return this.cfg;
  }

  /** New settings (config reload): the history is resized in place; tracking off closes every stream. */
  configure(config: EventSystemConfig): void {
    this.cfg = { ...config };
    this.buffer.resize(config.ringBufferCapacity);
    if (!config.trackingEnabled) for (const s of [...this.streams]) this.drop(s);
  }

  /** Adds a record (the core's event sink). Cheap: the stream fan-out happens later, in one batch. */
  readonly add = (record: EventRecord): void => {
    if (!this.cfg.trackingEnabled) return;
    this.stats.added++;
    this.buffer.add(record);
    if (this.streams.size === 0) return;
    this.pending.push(record);
    if (!this.scheduled) {
      this.scheduled = true;
      this.defer(() => this.flush());
    }
  };

  /** `count` records from id `start` (count capped by `event.RESTResponseSize`). */
  batch(
    start: number,
    count: number,
  ): { InstanceUUID: string; LowestID: number; HighestID: number; EventRecords: Record<string, unknown>[] } {
    const r = this.buffer.fromId(start, Math.min(count, this.cfg.restResponseSize));
    return { InstanceUUID: this.instanceUUID, LowestID: r.lowestId, HighestID: r.highestId, EventRecords: r.records.map(eventRecordJson) };
  }

  /**
   * Why a stream from `host` would be refused now (`Too many streaming connections`: the total or the per-host limit
   * reached), or undefined.
   */
  streamRefusal(host: string): string | undefined {
    const onHost = this.perHost.get(host) ?? 0;
    return this.streams.size >= this.cfg.maxStreams || onHost >= this.cfg.maxStreamsPerHost ? "Too many streaming connections" : undefined;
  }

  /**
   * Opens a stream: the instance id line, the newest `count` records, then every new record.
   * @returns the handle, or the reason it was refused (`Too many streaming connections`: total or per-host limit)
   */
  openStream(o: { host: string; name?: string; count: number; consumer: StreamConsumer }): StreamHandle | { refused: string } {
    const refused = this.streamRefusal(o.host);
    if (refused) return { refused };
    const onHost = this.perHost.get(o.host) ?? 0;
    const s: Stream = {
      consumer: o.consumer,
      host: o.host,
      name: o.name ?? o.host,
      createdAt: this.now(),
      blocked: false,
      queued: [],
      queuedRecords: 0,
    };
    this.streams.add(s);
    this.perHost.set(o.host, onHost + 1);
    const history = this.buffer.recent(o.count);
    this.send(s, `${JSON.stringify({ InstanceUUID: this.instanceUUID })}\n${lines(history)}`, history.length);
    return { drained: () => this.unblock(s), remove: () => this.remove(s) };
  }

  /** Open streams (state dump `eventStreams`). */
  streamsInfo(): { Name: string; CreatedAt: string }[] {
    return [...this.streams].map((s) => ({ Name: s.name, CreatedAt: new Date(s.createdAt).toISOString() }));
  }

  /** Closes every stream (shutdown). */
  close(): void {
    for (const s of [...this.streams]) this.drop(s, false);
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0 || this.streams.size === 0) return;
    const chunk = lines(batch);
    for (const s of [...this.streams]) this.send(s, chunk, batch.length);
  }

  private send(s: Stream, chunk: string, records: number): void {
    if (s.blocked) {
      s.queued.push({ chunk, records });
      s.queuedRecords += records;
      if (s.queuedRecords > STREAM_BACKLOG) this.drop(s);
      return;
    }
    this.stats.delivered += records;
    if (!s.consumer.write(chunk)) s.blocked = true;
  }

  private unblock(s: Stream): void {
    if (!this.streams.has(s)) return;
    s.blocked = false;
    while (s.queued.length > 0 && !s.blocked) {
      const q = s.queued.shift()!;
      s.queuedRecords -= q.records;
      this.stats.delivered += q.records;
      if (!s.consumer.write(q.chunk)) s.blocked = true;
    }
  }

  /** A slow consumer (or tracking turned off): removed and told so. */
  private drop(s: Stream, slow = true): void {
    if (!this.streams.has(s)) return;
    if (slow) this.stats.dropped++;
    this.remove(s);
    s.queued = [];
    s.consumer.close(`${JSON.stringify({ status_code: 200, message: STREAM_CLOSED_MESSAGE, description: STREAM_CLOSED_MESSAGE })}\n`);
  }

  private remove(s: Stream): void {
    if (!this.streams.delete(s)) return;
    const n = (this.perHost.get(s.host) ?? 1) - 1;
    if (n <= 0) this.perHost.delete(s.host);
    else this.perHost.set(s.host, n);
  }
}

const lines = (records: readonly EventRecord[]) => records.map((r) => `${JSON.stringify(eventRecordJson(r))}\n`).join("");
