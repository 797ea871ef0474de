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

  it("with a declared length, returns the body in one buffer of that size, not the chunks' concatenation", async () => {
    const r = await readBody(request(['{"a":', "1,", '"b":2}']), { limitBytes: 100, declaredBytes: 13 });
    expect(r.ok && r.body.toString()).toBe('{"a":1,"b":2}');
    expect(r.ok && r.body.buffer.byteLength).toBe(13);
  });

  it("with a wrong declared length, still returns exactly what arrived", async () => {
    const more = await readBody(request(["12345", "678"]), { limitBytes: 100, declaredBytes: 6 });
    expect(more.ok && more.body.toString()).toBe("12345678");
    const fewer = await readBody(request(["123"]), { limitBytes: 100, declaredBytes: 6 });
    expect(fewer.ok && fewer.body.toString()).toBe("123");
    // a declared length over the limit is not allocated; the limit still applies
    expect(await readBody(request(["123456"]), { limitBytes: 5, declaredBytes: 1 << 30 })).toEqual({
      ok: false,
      reason: "too_large",
      limitBytes: 5,
    });
  });

  it("reports a failed stream", async () => {
    const r = await readBody(request(["x"], new Error("socket hang up")), { limitBytes: 100 });
    expect(r).toMatchObject({ ok: false, reason: "error", error: { message: "socket hang up" } });
  });
});
