/**
 * Lookahead of the allocation walk: after each decision of the walk (allocate, replace, reserve, preempt), read the
 * objects the next few allocations will read, so the processor fetches them from memory side by side instead of one
 * after the other when the walk gets there (a software prefetch; JavaScript has none, so plain reads whose results
 * nobody uses stand in for it). Reads only: no field is written and no decision changes, with or without it.
 *
 * Why: with many queues or applications, each allocation is the first of a queue and an application that no
 * allocation touched for a long time (fair ordering moves the queue just served to the back of a thousand), so each of
 * their objects (the queue, its resources, its usage record, its order's array, the application, its ask, the ask's
 * resources) is a cache miss, and the walk reaches them one pointer after another: the misses add up instead of
 * overlapping. Read ahead in a pipeline they overlap: a member moves one place to the front with every allocation
 * served before it, and at each place the lookahead reads the next object along its chain, which the previous places
 * already brought in. So the reads of one lookahead hardly depend on each other, and by the time the walk reaches the
 * member its whole chain was read. `npm run bench:scheduler`'s 1,000-queue shape is the case this is for (README,
 * "Scheduling core").
 *
 * The orders read ahead: root's, then, while the first member of the order is a parent queue or the order's only
 * member, that member's (the orders the walk goes down at its next allocation). In each, the member at place `i` (0:
 * the next one served) gets step `i`:
 *
 * | place | a leaf queue (member of a parent)                            | an application (member of a leaf)      |
 * | ----- | ------------------------------------------------------------ | -------------------------------------- |
 * | 4     | the queue's own fields                                       | -                                      |
 * | 3     | its resources, usage record, order array                     | -                                      |
 * | 2     | its first application's fields, ask order; usage resources   | its fields and ask order               |
 * | 1     | that application's resources, tracking, asks map, first ask  | its resources, tracking, asks, 1st ask |
 * | 0     | that ask's resources                                         | its first ask's resources              |
 *
 * A parent queue among the members gets places 4 and 3 only: below it the walk goes down orders of its own, which the
 * lookahead reaches only when the parent is first. When the walk serves another member than the first (one held by a
 * limit), the reads were wasted, never wrong. Only members in the first chunk of an order are read
 * (`SortedStore.valueAt`: no search), so a lookahead is a few dozen field reads per level whatever the size of the
 * orders. The fields a `touchLines` method reads are chosen by the field order of its class: every eight consecutive
 * words of the object (a 64-byte line, wherever it starts) hold one that is read, the header's first word (its map,
 * read by every access) counting as read (test/unit/scheduler/lookahead.test.ts checks it on real objects).
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
 * unused. Nothing reads it; exported so that it is not a write-only variable to the linter either.
 */
export let lookaheadSink = 0;

/** How many members of an order are read ahead (the pipeline's depth; see the table above). */
const PLACES = 5;

/** Reads ahead of the walk from `root` (module comment). */
export function lookahead(root: Queue): void {
  let n = 0;
  for (let order: Queue | undefined = root; order !== undefined;) {
    n += readAhead(order);
    if (order.isLeaf) break;
    const first = order.memberAt(0) as Queue | undefined;
    order = first !== undefined && (!first.isLeaf || order.orderLength === 1) ? first : undefined;
  }
  lookaheadSink = n;
}

/** The steps over one order's first members (module comment). */
function readAhead(order: Queue): number {
  let n = 0;
  for (let place = 0; place < PLACES; place++) {
    const m = order.memberAt(place);
    if (m === undefined) break;
    n += order.isLeaf ? applicationStep(m as Application, place) : queueStep(m as Queue, place);
  }
  return n;
}

/** Step `place` for a queue `place` members from the front of its parent's order. */
function queueStep(q: Queue, place: number): number {
  if (place === 4) return q.touchLines();
  if (place === 3) return q.touchParts();
  // below a parent among the leaves the walk goes down orders of its own: only its own objects are read
  if (!q.isLeaf) return 0;
  const app = q.memberAt(0) as Application | undefined;
  return (app === undefined ? 0 : applicationStep(app, place)) + (place === 2 ? q.touchUsage() : 0);
}

/** Step `place` for an application (none beyond place 2: its chain is three objects long). */
function applicationStep(app: Application, place: number): number {
  if (place > 2) return 0;
  // the ask order's array, when the application has two asks or more (not the ask: that is place 1's)
  if (place === 2) return app.touchLines() + touched(app.firstPending());
  if (place === 1) return app.touchParts();
  const ask = app.firstPending();
  return ask === undefined ? 0 : touched(ask.resource.memory);
}

/** The ask's lines: an ask as the partition makes it has seven in-object fields, `key` first and `predicate` last. */
export function touchAsk(ask: Ask): number {
  return touched(ask.key) + touched(ask.predicate);
}
