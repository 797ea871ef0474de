import type { IncomingMessage } from "node:http";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { readBody } from "../../../src/util/http-body.js";

/** A request stream that sends `chunks`, then ends (or fails with `error`). */
function request(chunks: string[], error?: Error): IncomingMessage {
  const s = new PassThrough();
  setImmediate(() => {
    for (const c of chunks) s.write(Buffer.from(c));
    if (error) s.destroy(error);
    else s.end();
  });
  return s as unknown as IncomingMessage;
}

describe("readBody", () => {
  it("returns the whole body, however it was chunked", async () => {
    const r = await readBody(request(['{"a":', "1}"]), { limitBytes: 100 });
    expect(r.ok && r.body.toString()).toBe('{"a":1}');
  });

  it("an empty body is an empty buffer", async () => {
    const r = await readBody(request([]), { limitBytes: 100 });
    expect(r.ok && r.body.length).toBe(0);
  });

  it("stops at the limit", async () => {
    expect(await readBody(request(["12345", "6"]), { limitBytes: 5 })).toEqual({ ok: false, reason: "too_large", limitBytes: 5 });
    const r = await readBody(request(["12345"]), { limitBytes: 5 });
    expect(r.ok && r.body.toString()).toBe("12345");
  });

  it("stops when grow refuses more bytes, telling it the bytes received so far", async () => {
    const seen: number[] = [];
    const r = await readBody(request(["aa", "bbb", "c"]), { limitBytes: 100, grow: (n) => (seen.push(n), n < 5) });
    expect(r).toEqual({ ok: false, reason: "refused" });
    expect(seen).toEqual([2, 5]);
  });

  it("reports a failed stream", async () => {
    const r = await readBody(request(["x"], new Error("socket hang up")), { limitBytes: 100 });
    expect(r).toMatchObject({ ok: false, reason: "error", error: { message: "socket hang up" } });
  });
});
