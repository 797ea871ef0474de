/**
 * The REST API's route table: `METHOD /path/:param` patterns (httprouter's syntax, as upstream's routes.go) matched
 * segment by segment, and what upstream's server does around them (apache/yunikorn-core pkg/webservice webservice.go,
 * gzip.go, handlers.go; julienschmidt/httprouter v1.3.0 `Router.ServeHTTP` with its defaults):
 *
 * 1. The path is unescaped once before routing (Go's `URL.Path`), so `%2F` separates segments; each parameter is then
 *    unescaped again as upstream's handlers do (`url.QueryUnescape`: `%2E` written as `%252E` is a dot, `+` a space). A
 *    malformed escape at either step is 400 `invalid URL escape "%Zt"`.
 * 2. A path that matches no route of the request's method but would with a trailing slash added or removed, or once
 *    cleaned (`//`, `.`, `..`) and matched ignoring case, is redirected there: 301 for GET, 307 otherwise; the
 *    `Location` escapes the path again as Go's `URL.String()` does (`a%3Fb` stays `a%3Fb`, never a query).
 * 3. OPTIONS on a known path: 200, empty, `Allow`. Another method on a known path: 405 `Method Not Allowed`, `Allow`
 *    (the methods sorted, OPTIONS among them).
 * 4. Anything else: 404 `404 page not found` (text, as Go's `http.NotFound`).
 * 5. Answers of 1,400 bytes or more are gzip-compressed (fastest level) for a client whose `Accept-Encoding` takes
 *    gzip (not `gzip;q=0`), with `Vary: Accept-Encoding` (gzip.go, YUNIKORN-2249); the event stream never is.
 *
 * Headers and error bodies of the handlers are YuniKorn's (handlers.go writeHeaders, buildJSONErrorResponse).
 */
import { type IncomingMessage, STATUS_CODES, type ServerResponse } from "node:http";
import { posix } from "node:path";
import { constants, gzipSync } from "node:zlib";

const JSON_HEADERS = {
  "content-type": "application/json; charset=UTF-8",
  "access-control-allow-origin": "*",
  "access-control-allow-headers": "X-Requested-With,Content-Type,Accept,Origin",
};

/** Smallest body compressed, bytes (upstream gzip.go minCompressionSize). */
export const GZIP_MIN_BYTES = 1400;

/** True when an `Accept-Encoding` value takes gzip: listed, and not with `q=0` (upstream clientAcceptsGzip). */
export function acceptsGzip(header: string | string[] | undefined): boolean {
  const value = Array.isArray(header) ? header.join(",") : (header ?? "");
  for (const token of value.split(",")) {
    const [coding, params] = token.trim().split(/;(.*)/s, 2);
    if (coding!.trim().toLowerCase() !== "gzip") continue;
    return params === undefined || params.trim() !== "q=0";
  }
  return false;
}

/**
 * Writes a whole answer: `body` gzip-compressed when it is at least {@link GZIP_MIN_BYTES} and the request takes gzip
 * (module comment, step 5), else as it is.
 */
export function send(res: ServerResponse, status: number, headers: Record<string, string>, body: string | Buffer): void {
  const raw = typeof body === "string" ? Buffer.from(body) : body;
  if (raw.length >= GZIP_MIN_BYTES && acceptsGzip(res.req?.headers["accept-encoding"])) {
    res.writeHead(status, { ...headers, "content-encoding": "gzip", vary: "Accept-Encoding" });
    res.end(gzipSync(raw, { level: constants.Z_BEST_SPEED }));
    return;
  }
  res.writeHead(status, headers);
  res.end(raw);
}

/** Answers `status` with `body` as JSON (CORS headers as upstream; `methods` for Access-Control-Allow-Methods). */
export function json(res: ServerResponse, status: number, body: unknown, methods = "GET, OPTIONS"): void {
  send(res, status, { ...JSON_HEADERS, "access-control-allow-methods": methods }, JSON.stringify(body));
}

/** The CORS headers upstream's handlers set on every answer (writeHeaders), for answers that are not JSON. */
export function corsHeaders(methods = "GET, OPTIONS"): Record<string, string> {
  const { "content-type": _, ...cors } = JSON_HEADERS;
  return { ...cors, "access-control-allow-methods": methods };
}

/** YuniKorn's error body `{"status_code","message","description"}`. */
export function error(res: ServerResponse, status: number, message: string): void {
  json(res, status, { status_code: status, message, description: message });
}

/** A handler's refusal: answered with YuniKorn's error body. */
export class RestError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** What a handler gets: the request, the response, path parameters (decoded) and the query. */
export interface RouteContext {
  req: IncomingMessage;
  res: ServerResponse;
  params: Record<string, string>;
  query: URLSearchParams;
}

/** A handler; a thrown (or rejected) RestError is answered with its status, any other error with 500. */
export type Handler = (c: RouteContext) => void | Promise<void>;

interface Route {
  method: string;
  segments: string[];
  handler: Handler;
}

/** Where a request goes (module comment): a handler, a redirect, the allowed methods, or nowhere. */
export type Resolution =
  | { kind: "handler"; handler: Handler; params: Record<string, string> }
  | { kind: "redirect"; status: 301 | 307; path: string }
  | { kind: "options"; allow: string }
  | { kind: "methodNotAllowed"; allow: string }
  | { kind: "notFound" };

/** The route table of the module comment: `METHOD /path/:param` patterns to handlers. */
export class Router {
  private readonly routes: Route[] = [];

  /** Adds a route; a later pattern never shadows an earlier one with the same shape. */
  add(method: string, pattern: string, handler: Handler): this {
    this.routes.push({ method, segments: pattern.split("/").slice(1), handler });
    return this;
  }

  /**
   * Where a request for the raw (still escaped) `rawPath` goes (module comment, steps 1–4).
   * @throws RestError 400 for a malformed escape in the path or a parameter
   */
  resolve(method: string, rawPath: string): Resolution {
    const path = unescapePath(rawPath);
    const parts = path.split("/").slice(1);
    const exact = this.find(method, parts, false);
    if (exact) return { kind: "handler", handler: exact.handler, params: decodeParams(exact, parts) };
    if (path !== "/") {
      const status = method === "GET" ? 301 : 307;
      const slashed = path.endsWith("/") ? path.slice(0, -1) : `${path}/`;
      if (this.find(method, slashed.split("/").slice(1), false)) return { kind: "redirect", status, path: slashed };
      const cleaned = posix.normalize(path);
      for (const candidate of [cleaned, cleaned.endsWith("/") ? cleaned.slice(0, -1) : `${cleaned}/`]) {
        const cparts = candidate.split("/").slice(1);
        const fixed = this.find(method, cparts, true);
        if (fixed) return { kind: "redirect", status, path: fixedPath(fixed, cparts) };
      }
    }
    const others = new Set(this.routes.filter((r) => r.method !== method && matches(r, parts, false)).map((r) => r.method));
    if (others.size === 0) return { kind: "notFound" };
    const allow = [...others, "OPTIONS"].sort().join(", ");
    return method === "OPTIONS" ? { kind: "options", allow } : { kind: "methodNotAllowed", allow };
  }

  /** Answers a request (module comment). A handler's errors become YuniKorn's error body. */
  serve(req: IncomingMessage, res: ServerResponse): void {
    const target = req.url ?? "/";
    const q = target.indexOf("?");
    const rawPath = q >= 0 ? target.slice(0, q) : target;
    let url: URL;
    let r: Resolution;
    try {
      url = new URL(target, "http://localhost");
      r = this.resolve(req.method ?? "GET", rawPath);
    } catch (err) {
      // a target no URL parser takes (`//a:b/`) is the client's error, as Go's server answers it
      error(res, (err as RestError).status ?? 400, (err as Error).message);
      return;
    }
    switch (r.kind) {
      case "handler":
        return runHandler(r.handler, { req, res, params: r.params, query: url.searchParams });
      case "redirect":
        return redirect(res, r.status, `${escapePath(r.path)}${q >= 0 ? target.slice(q) : ""}`, req.method ?? "GET");
      case "options":
        res.writeHead(200, { allow: r.allow });
        return void res.end();
      case "methodNotAllowed":
        return plain(res, 405, "Method Not Allowed\n", { allow: r.allow });
      case "notFound":
        return notFound(res);
    }
  }

  private find(method: string, parts: readonly string[], ignoreCase: boolean): Route | undefined {
    return this.routes.find((route) => route.method === method && matches(route, parts, ignoreCase));
  }
}

/** Go's `http.NotFound`: 404 `404 page not found`, as text. */
export function notFound(res: ServerResponse): void {
  plain(res, 404, "404 page not found\n");
}

/** Go's `http.Error`: a text answer. */
function plain(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...headers, "content-type": "text/plain; charset=utf-8", "x-content-type-options": "nosniff" });
  res.end(text);
}

/** Go's `http.Redirect`: `Location`, and for GET and HEAD a short HTML body naming it. */
export function redirect(res: ServerResponse, status: number, location: string, method: string): void {
  if (method !== "GET" && method !== "HEAD") {
    res.writeHead(status, { location });
    return void res.end();
  }
  res.writeHead(status, { location, "content-type": "text/html; charset=utf-8" });
  const href = location.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  res.end(method === "GET" ? `<a href="${href}">${STATUS_CODES[status]}</a>.\n` : undefined);
}

function runHandler(handler: Handler, c: RouteContext): void {
  const fail = (err: unknown) => {
    if (c.res.headersSent) return void c.res.destroy();
    error(c.res, err instanceof RestError ? err.status : 500, (err as Error).message);
  };
  try {
    const r = handler(c);
    if (r) r.catch(fail);
  } catch (err) {
    fail(err);
  }
}

function matches(route: Route, parts: readonly string[], ignoreCase: boolean): boolean {
  if (route.segments.length !== parts.length) return false;
  for (let i = 0; i < parts.length; i++) {
    const seg = route.segments[i]!;
    if (seg.startsWith(":")) {
      if (parts[i] === "") return false; // httprouter: a parameter is never empty
    } else if (ignoreCase ? seg.toLowerCase() !== parts[i]!.toLowerCase() : seg !== parts[i]) return false;
  }
  return true;
}

function decodeParams(route: Route, parts: readonly string[]): Record<string, string> {
  const params: Record<string, string> = {};
  route.segments.forEach((seg, i) => {
    if (seg.startsWith(":")) params[seg.slice(1)] = queryUnescape(parts[i]!);
  });
  return params;
}

/** The route's own spelling of a path matched ignoring case (parameters as the request wrote them). */
function fixedPath(route: Route, parts: readonly string[]): string {
  return `/${route.segments.map((seg, i) => (seg.startsWith(":") ? parts[i]! : seg)).join("/")}`;
}

/**
 * Go's `url.PathUnescape` (a request path as `URL.Path` holds it): `%XX` escapes; `+` stays.
 * @throws RestError 400 `invalid URL escape "%Zt"` naming the malformed escape
 */
export function unescapePath(s: string): string {
  return unescapeGo(s, false);
}

/**
 * Go's `url.QueryUnescape` (upstream's handlers on each path parameter): `%XX` escapes, `+` a space.
 * @throws RestError 400 `invalid URL escape "%Zt"` naming the malformed escape
 */
export function queryUnescape(s: string): string {
  return unescapeGo(s, true);
}

const HEX = /^[0-9a-fA-F]{2}$/;

/**
 * Go's `url.PathEscape`-like escaping of a path for `Location` (net/url escape with encodePath): letters, digits,
 * `-_.~` and `$&+,/:;=@` stay, every other byte of the UTF-8 text is `%XX`.
 */
export function escapePath(path: string): string {
  let out = "";
  for (const b of Buffer.from(path, "utf8")) {
    const c = String.fromCharCode(b);
    out += /[A-Za-z0-9\-_.~$&+,/:;=@]/.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

function unescapeGo(s: string, plusIsSpace: boolean): string {
  if (!s.includes("%") && !(plusIsSpace && s.includes("+"))) return s;
  const bytes: number[] = [];
  const raw = Buffer.from(s, "utf8");
  for (let i = 0; i < raw.length; i++) {
    const b = raw[i]!;
    if (b === 0x25) {
      const hex = raw.subarray(i + 1, i + 3).toString("latin1");
      if (!HEX.test(hex)) throw new RestError(400, `invalid URL escape "${raw.subarray(i, i + 3).toString("utf8")}"`);
      bytes.push(Number.parseInt(hex, 16));
      i += 2;
    } else bytes.push(plusIsSpace && b === 0x2b ? 0x20 : b);
  }
  return Buffer.from(bytes).toString("utf8");
}
