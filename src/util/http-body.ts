/**
 * Reading an HTTP request body with a size limit: one reader for both HTTP servers (server/webhook-server.ts and
 * scheduler/rest/server.ts). It only reads; the caller answers (413, 429, …) and decides whether to close the
 * connection.
 */
import type { IncomingMessage } from "node:http";

/** How reading ended: the whole body, or why not. Chunks after a failure are dropped. */
export type BodyRead =
  | { ok: true; body: Buffer }
  /** More than `limitBytes` arrived. */
  | { ok: false; reason: "too_large"; limitBytes: number }
  /** The `grow` callback refused more bytes (e.g. the server's in-flight byte budget is spent). */
  | { ok: false; reason: "refused" }
  /** The request stream failed (client went away, socket error). */
  | { ok: false; reason: "error"; error: Error };

/** Options of {@link readBody}. */
export interface ReadBodyOptions {
  /** Largest body accepted, in bytes. */
  limitBytes: number;
  /** Called with the bytes received so far after each chunk (within the limit); returning false stops reading. */
  grow?: (receivedBytes: number) => boolean;
  /**
   * The body's declared length (Content-Length), when known and within `limitBytes`: the body is then copied into
   * one buffer of that size as it arrives, so it is held once rather than as chunks plus their concatenation.
   */
  declaredBytes?: number;
}

/** Reads `req`'s body (see {@link BodyRead}); never rejects. */
export function readBody(req: IncomingMessage, o: ReadBodyOptions): Promise<BodyRead> {
  return new Promise((resolve) => {
    const declared = o.declaredBytes !== undefined && o.declaredBytes > 0 && o.declaredBytes <= o.limitBytes ? o.declaredBytes : 0;
    let whole: Buffer | undefined = declared > 0 ? Buffer.allocUnsafeSlow(declared) : undefined;
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (r: BodyRead) => {
      if (done) return;
      done = true;
      chunks.length = 0;
      whole = undefined;
      resolve(r);
    };
    req.on("data", (c: Buffer) => {
      if (done) return;
      if (o.limitBytes - size < c.length) return finish({ ok: false, reason: "too_large", limitBytes: o.limitBytes });
      if (o.grow && !o.grow(size + c.length)) return finish({ ok: false, reason: "refused" });
      if (whole && size + c.length <= whole.length) c.copy(whole, size);
      else {
        // more than declared (the HTTP parser does not let this happen): keep the chunks instead
        if (whole) chunks.push(whole.subarray(0, size));
        whole = undefined;
        chunks.push(c);
      }
      size += c.length;
    });
    req.on("end", () => {
      if (done) return;
      done = true;
      const body = whole ? whole.subarray(0, size) : chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
      chunks.length = 0;
      resolve({ ok: true, body });
    });
    req.on("error", (error) => finish({ ok: false, reason: "error", error }));
  });
}
