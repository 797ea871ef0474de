/**
 * Lookahead of the allocation walk: after an allocation, read the objects the next few allocations will read, so the
 * processor fetches them from memory side by side instead of one after the other when the walk gets there (a software
 * prefetch; JavaScript has none, so plain reads whose results nobody uses stand in for it). Reads only: no field is
 * written and no decision changes, with or without it.
 *
 * Why: with many queues or applications, each allocation is the first of a queue and an application that no
 * allocation touched for a long time (fair ordering moves the queue just served to the back of a thousand), so each of
 * their objects (the queue, its resources, its usage record, its order's array, the application, its ask, the ask's
 * resources) is a cache miss, and the walk reaches them one pointer after another: the misses add up instead of
 * overlapping. Read ahead in a pipeline they overlap: a member moves one place to the front with every allocation
 * served before it, and at each place the lookahead reads the next object along its chain, which the previous places
 * already brought in. So the reads of one lookahead are independent of each other, and by the time the walk reaches
 * the member its whole chain was read. `npm run bench:scheduler`'s 1,000-queue shape is the case this is for (README,
 * "Scheduling core").
 *
 * The order read ahead: from root down, the first order that is a leaf's or holds more than one member (the one the
 * walk moves along from allocation to allocation: a parent's queues, or a leaf's applications). Its member at place
 * `i` (0: the next one served) gets step `i`:
 *
 * | place | a queue (member of a parent)                                       | an application (member of a leaf) |
 * | ----- | ------------------------------------------------------------------ | --------------------------------- |
 * | 4     | the queue's own fields                                             | —                                 |
 * | 3     | its resources, usage record and order array                        | —                                 |
 * | 2     | its first application's own fields; the usage record's resources   | the application's own fields      |
 * | 1     | that application's resources, tracking, asks map and first ask     | the same                          |
 * | 0     | that ask's resources                                               | the same                          |
 *
 * A parent among the queues gets places 4 and 3 only (the walk goes down a path of its own below it). When the walk
 * serves another member than the first (one held by a limit), the reads were wasted, never wrong. Only members in
 * the first chunk of an order are read (`SortedStore.valueAt`: no search), so a lookahead is a few dozen field reads
 * whatever the size of the order. The fields a `touchLines` method reads are chosen by the field order of its class:
 * at most seven fields apart, so that every 64-byte line of the object is read (test/unit/scheduler/lookahead.test.ts
 * checks it against the fields of real objects).
 */
import type { Application, Ask } from "./application.js";
import type { Queue } from "./queue.js";

/** A value no field holds: `touched` compares against it, so the JIT must load each field it is given. */
const NEVER: unique symbol = Symbol("never held");

/** 1 when `v` is `NEVER` (never): a read the compiler cannot drop. */
export function touched(v: unknown): number {
  return v === NEVER ? 1 : 0;
}

/**
 * Where the reads' results go (always 0): written after every lookahead, so the compiler cannot prove the reads
 * unused. Exported for tests only.
 */
export let lookaheadSink = 0;

/** How many members of the order are read ahead (the pipeline's depth; see the table above). */
export const LOOKAHEAD_PLACES = 5;

/** Reads ahead of the walk from `root` (module comment). */
export function lookahead(root: Queue): void {
  let order = root;
  // down the walk's path while a parent's order has one member: the order the walk moves along is below
  while (!order.isLeaf && order.orderLength === 1) order = order.memberAt(0) as Queue;
  let n = 0;
  for (let place = 0; place < LOOKAHEAD_PLACES; place++) {
    const m = order.memberAt(place);
    if (m === undefined) break;
    n += order.isLeaf ? applicationStep(m as Application, place) : queueStep(m as Queue, place);
  }
  lookaheadSink = n;
}

/** Step `place` for a queue `place` members from the front of its parent's order. */
function queueStep(q: Queue, place: number): number {
  if (place === 4) return q.touchLines();
  if (place === 3) return q.touchParts();
  // below a parent among the leaves the walk goes down a path of its own: only its own objects are read
  if (!q.isLeaf) return 0;
  const app = q.memberAt(0) as Application | undefined;
  return (app === undefined ? 0 : applicationStep(app, place)) + (place === 2 ? q.touchUsage() : 0);
}

/** Step `place` for an application (none beyond place 2: its chain is three objects long). */
function applicationStep(app: Application, place: number): number {
  if (place > 2) return 0;
  if (place === 2) return app.touchLines();
  if (place === 1) return app.touchParts();
  const ask = app.firstPending();
  return ask === undefined ? 0 : touchResource(ask);
}

/** The ask's lines (two: nine in-object fields). */
export function touchAsk(ask: Ask): number {
  return touched(ask.key) + touched(ask.allocatedAt);
}

/** The ask's resources. */
function touchResource(ask: Ask): number {
  return touched(ask.resource.memory);
}
