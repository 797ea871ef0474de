import { isObject } from "../util/objects.js";

/**
 * JSON Patch (RFC 6902) construction helpers. Patches are built against the object as the API server sent it, so
 * every `add` targets a parent that exists: when a parent is missing the op adds the nearest missing ancestor with the
 * nested value instead (e.g. a Job template without `metadata`).
 */

/** One RFC 6902 JSON Patch operation (`path` a JSON Pointer, RFC 6901). */
export interface PatchOp {
  op: "add" | "replace" | "remove" | "test";
  /** JSON Pointer (RFC 6901), segments escaped with ~0 / ~1. */
  path: string;
  value?: unknown;
}

/** Escapes one JSON Pointer segment. */
export function escapePointerSegment(segment: string): string {
  if (segment.indexOf("~") < 0 && segment.indexOf("/") < 0) return segment;
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}

/**
 * An `add` op that sets `root[segments...] = value`, creating missing parents.
 * @param root the document the patch will be applied to
 * @param segments unescaped path segments, at least one
 * @throws Error when an existing ancestor is not an object (the caller validated the shape before)
 */
export function addAt(root: unknown, segments: readonly string[], value: unknown): PatchOp {
  if (segments.length === 0) throw new Error("addAt needs a path");
  let node: unknown = root;
  let depth = 0;
  // Walk while the parent of the next segment exists.
  while (depth < segments.length - 1) {
    if (!isObject(node)) throw new Error(`/${segments.slice(0, depth).join("/")} is not an object`);
    const next = node[segments[depth]!];
    if (next === undefined || next === null) break;
    node = next;
    depth++;
  }
  if (!isObject(node)) throw new Error(`/${segments.slice(0, depth).join("/")} is not an object`);
  let nested: unknown = value;
  for (let i = segments.length - 1; i > depth; i--) nested = { [segments[i]!]: nested };
  const path =
    "/" +
    segments
      .slice(0, depth + 1)
      .map(escapePointerSegment)
      .join("/");
  return { op: "add", path, value: nested };
}

/**
 * The ops that turn the string map at `segments` of `root` into `after`: one `add` per entry that is new or changed
 * and one `remove` per entry that is gone, when the map exists; else one `add` of the whole map (addAt). The answer
 * names only what changes, so it stays small however large the map is (a pod with thousands of labels gets a
 * patch of a few entries, not its labels echoed back: less memory and work per admission, see webhook-server.ts).
 * @param root the document the patch will be applied to
 * @param segments unescaped path segments of the map, e.g. `["metadata", "labels"]`
 * @param after the complete new map
 * @throws Error as {@link addAt}
 */
export function entriesPatch(root: unknown, segments: readonly string[], after: Readonly<Record<string, string>>): PatchOp[] {
  let node: unknown = root;
  for (const s of segments) node = isObject(node) ? node[s] : undefined;
  if (!isObject(node)) return [addAt(root, segments, after)];
  const before = node;
  const base = "/" + segments.map(escapePointerSegment).join("/") + "/";
  const ops: PatchOp[] = [];
  for (const k in after) if (before[k] !== after[k]) ops.push({ op: "add", path: base + escapePointerSegment(k), value: after[k] });
  for (const k in before) if (!Object.hasOwn(after, k)) ops.push({ op: "remove", path: base + escapePointerSegment(k) });
  return ops;
}

/** Base64 of the JSON array, as AdmissionResponse.patch expects. */
export function encodePatch(ops: readonly PatchOp[]): string {
  return Buffer.from(JSON.stringify(ops)).toString("base64");
}

/**
 * A copy of a string map with entries set. Object.assign rather than object spread: V8 makes later property writes
 * on a spread copy ~20× slower (measured 9.5 µs vs 0.5 µs for a 7-label pod plus 5 labels), and this runs on every
 * admission.
 */
export function withEntries(
  base: Readonly<Record<string, string>> | null | undefined,
  entries: Record<string, string>,
): Record<string, string> {
  return Object.assign({}, base, entries);
}
