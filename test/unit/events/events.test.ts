import { describe, expect, it } from "vitest";
import {
  ChangeDetail,
  ChangeType,
  type EventRecord,
  appEvent,
  eventRecordJson,
  nodeEvent,
  requestEvent,
} from "../../../src/scheduler/events/record.js";
import { EventRingBuffer } from "../../../src/scheduler/events/ring-buffer.js";
import {
  DEFAULT_EVENT_CONFIG,
  EventSystem,
  STREAM_BACKLOG,
  type StreamConsumer,
  eventConfigOf,
} from "../../../src/scheduler/events/system.js";

const rec = (i: number): EventRecord =>
  appEvent(1_700_000_000_000 + i, { objectID: `app-${i}`, changeType: ChangeType.ADD, detail: ChangeDetail.APP_NEW });

describe("EventRingBuffer", () => {
  it("gives ids from 0, overwrites the oldest when full and reports the ids held", () => {
    const b = new EventRingBuffer<number>(3);
    expect(b.fromId(0, 10)).toEqual({ records: [], lowestId: 0, highestId: 0 });
    for (let i = 0; i < 5; i++) expect(b.add(i * 10)).toBe(i);
    expect(b.fromId(2, 10)).toEqual({ records: [20, 30, 40], lowestId: 2, highestId: 4 });
    expect(b.fromId(3, 1).records).toEqual([30]);
    expect(b.fromId(1, 10).records).toEqual([]); // overwritten
    expect(b.fromId(5, 10).records).toEqual([]); // not yet there
    expect(b.recent(2)).toEqual([30, 40]);
    expect(b.recent(99)).toEqual([20, 30, 40]);
  });

  it("resizes keeping the newest records and their ids", () => {
    const b = new EventRingBuffer<number>(4);
    for (let i = 0; i < 6; i++) b.add(i);
    b.resize(2);
    expect(b.fromId(0, 10)).toEqual({ records: [], lowestId: 4, highestId: 5 });
    expect(b.fromId(4, 10).records).toEqual([4, 5]);
    b.resize(5);
    b.add(6);
    expect(b.fromId(4, 10)).toEqual({ records: [4, 5, 6], lowestId: 4, highestId: 6 });
    expect(() => new EventRingBuffer(0)).toThrow(/positive integer/);
  });
});

describe("eventRecordJson", () => {
  it("renders si.EventRecord as YuniKorn's REST API: enums as numbers, empty fields left out, resource always there", () => {
    expect(
      eventRecordJson(
        nodeEvent(1701347180239, {
          objectID: "yk8s-worker",
          message: "Node added to the scheduler",
          changeType: ChangeType.ADD,
          detail: ChangeDetail.DETAILS_NONE,
          resource: { memory: 33424998400, vcore: 8000, "hugepages-1Gi": 0 },
        }),
      ),
    ).toEqual({
      type: 3,
      objectID: "yk8s-worker",
      message: "Node added to the scheduler",
      timestampNano: 1701347180239000000,
      eventChangeType: 2,
      resource: { resources: { "hugepages-1Gi": {}, memory: { value: 33424998400 }, vcore: { value: 8000 } } },
    });
    expect(eventRecordJson(requestEvent(1, { objectID: "pod-uid", referenceID: "app-1", message: "held" }))).toEqual({
      type: 1,
      objectID: "pod-uid",
      referenceID: "app-1",
      message: "held",
      timestampNano: 1_000_000,
      resource: {},
    });
    expect(String(eventRecordJson(rec(1)).timestampNano)).toBe("1700000000001000000");
  });
});

describe("eventConfigOf", () => {
  it("reads YuniKorn's event.* keys; bad values keep the default and are named", () => {
    expect(eventConfigOf({}).config).toEqual(DEFAULT_EVENT_CONFIG);
    const r = eventConfigOf({
      "event.ringBufferCapacity": "50",
      "event.maxStreams": "2",
      "event.maxStreamsPerHost": "x",
      "event.trackingEnabled": "false",
      "event.RESTResponseSize": "0",
    });
    expect(r.config).toEqual({
      trackingEnabled: false,
      ringBufferCapacity: 50,
      maxStreams: 2,
      maxStreamsPerHost: 15,
      restResponseSize: 10_000,
    });
    expect(r.errors).toEqual([
      'event.maxStreamsPerHost: "x" is not a non-negative integer',
      "event.RESTResponseSize: 0 is not allowed, using the default 10000",
    ]);
  });
});

/** A consumer that takes `accept` writes, then reports back-pressure. */
const consumer = (accept = Number.POSITIVE_INFINITY) => {
  const c = { lines: [] as string[], closed: undefined as string | undefined, writes: 0, accept };
  const s: StreamConsumer = {
    write: (chunk) => {
      c.lines.push(...chunk.split("\n").filter(Boolean));
      return ++c.writes < c.accept;
    },
    close: (last) => (c.closed = last),
  };
  return { c, s };
};

describe("EventSystem", () => {
  const make = (config = {}) => {
    const tasks: (() => void)[] = [];
    const sys = new EventSystem({
      now: () => 0,
      instanceUUID: "uuid-1",
      config: { ...DEFAULT_EVENT_CONFIG, ...config },
      defer: (f) => tasks.push(f),
    });
    const run = () => tasks.splice(0).forEach((f) => f());
    return { sys, run };
  };

  it("batch: from an id, count capped by event.RESTResponseSize, ids reported", () => {
    const { sys } = make({ restResponseSize: 2 });
    for (let i = 0; i < 4; i++) sys.add(rec(i));
    const b = sys.batch(1, 10);
    expect(b).toMatchObject({ InstanceUUID: "uuid-1", LowestID: 0, HighestID: 3 });
    expect(b.EventRecords.map((r) => r.objectID)).toEqual(["app-1", "app-2"]);
  });

  it("stream: instance id first, then the history asked for, then new records in order", () => {
    const { sys, run } = make();
    sys.add(rec(0));
    sys.add(rec(1));
    const { c, s } = consumer();
    sys.openStream({ host: "h", count: 1, consumer: s });
    sys.add(rec(2));
    sys.add(rec(3));
    expect(c.lines).toHaveLength(2); // fan-out waits for the batch
    run();
    expect(c.lines.map((l) => JSON.parse(l))).toMatchObject([
      { InstanceUUID: "uuid-1" },
      { objectID: "app-1" },
      { objectID: "app-2" },
      { objectID: "app-3" },
    ]);
  });

  it("limits streams in total and per host: beyond them the stream is refused", () => {
    const { sys } = make({ maxStreams: 3, maxStreamsPerHost: 2 });
    const open = (host: string) => sys.openStream({ host, count: 0, consumer: consumer().s });
    const a = open("a");
    open("a");
    expect(open("a")).toEqual({ refused: "Too many streaming connections" });
    open("b");
    expect(open("c")).toEqual({ refused: "Too many streaming connections" });
    (a as { remove(): void }).remove();
    expect("refused" in open("c")).toBe(false);
  });

  it("a consumer that stops reading is dropped once its backlog passes the bound; the others keep everything", () => {
    const { sys, run } = make();
    const slow = consumer(1); // backed up after its first write
    const fast = consumer();
    sys.openStream({ host: "slow", count: 0, consumer: slow.s });
    sys.openStream({ host: "fast", count: 0, consumer: fast.s });
    for (let i = 0; i <= STREAM_BACKLOG; i++) {
      sys.add(rec(i));
      run();
    }
    expect(slow.c.closed).toContain("Event stream was closed by the producer");
    expect(JSON.parse(slow.c.closed!)).toEqual({
      status_code: 200,
      message: "Event stream was closed by the producer",
      description: "Event stream was closed by the producer",
    });
    expect(sys.stats.dropped).toBe(1);
    expect(fast.c.lines).toHaveLength(STREAM_BACKLOG + 2);
    expect(sys.streamsInfo().map((s) => s.Name)).toEqual(["fast"]);
  });

  it("a consumer that catches up gets the queued records in order", () => {
    const { sys, run } = make();
    const c = consumer(1);
    const h = sys.openStream({ host: "h", count: 0, consumer: c.s }) as { drained(): void };
    sys.add(rec(0));
    run();
    sys.add(rec(1));
    run();
    expect(c.c.lines).toHaveLength(1);
    c.c.accept = Number.POSITIVE_INFINITY;
    h.drained();
    expect(c.c.lines.slice(1).map((l) => JSON.parse(l).objectID)).toEqual(["app-0", "app-1"]);
  });
});
