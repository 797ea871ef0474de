/**
 * The REST API's route table: `METHOD /path/:param` patterns (httprouter's syntax, as upstream's routes.go) matched
 * segment by segment. Parameters are URL-unescaped; a malformed escape is the caller's error (400), as upstream's
 * `url.QueryUnescape` check. Headers and error bodies are YuniKorn's (pkg/webservice/handlers.go writeHeaders,
 * buildJSONErrorResponse).
 */
import type { IncomingMessage, ServerResponse } from "node:http";

const JSON_HEADERS = {
  "content-type": "application/json; charset=UTF-8",
  "access-control-allow-origin": "*",
  "access-control-allow-headers": "X-Requested-With,Content-Type,Accept,Origin",
};

/** Answers `status` with `body` as JSON (CORS headers as upstream; `methods` for Access-Control-Allow-Methods). */
export function json(res: ServerResponse, status: number, body: unknown, methods = "GET, OPTIONS"): void {
  res.writeHead(status, { ...JSON_HEADERS, "access-control-allow-methods": methods });
  res.end(JSON.stringify(body));
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

/** A route handler; a thrown (or rejected) RestError is answered with its status, any other error with 500. */
export type Handler = (c: RouteContext) => void | Promise<void>;

interface Route {
  method: string;
  segments: string[];
  handler: Handler;
}

/** The route table of the module comment: `METHOD /path/:param` patterns to handlers. */
export class Router {
  private readonly routes: Route[] = [];

  /** Adds a route; a later pattern never shadows an earlier one with the same shape. */
  add(method: string, pattern: string, handler: Handler): this {
    this.routes.push({ method, segments: pattern.split("/").filter(Boolean), handler });
    return this;
  }

  /** The handler and parameters for a request, or undefined; @throws RestError 400 for a malformed escape */
  match(method: string, path: string): { handler: Handler; params: Record<string, string> } | undefined {
    const parts = path.split("/").filter(Boolean);
    for (const r of this.routes) {
      if (r.method !== method || r.segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      let ok = true;
      for (let i = 0; i < parts.length && ok; i++) {
        const seg = r.segments[i]!;
        if (seg.startsWith(":")) params[seg.slice(1)] = unescape(parts[i]!);
        else ok = seg === parts[i];
      }
      if (ok) return { handler: r.handler, params };
    }
    return undefined;
  }

  /** Runs the matching handler; false when no route matches. Errors become YuniKorn's error body. */
  serve(req: IncomingMessage, res: ServerResponse): boolean {
    const url = new URL(req.url ?? "/", "http://localhost");
    let m: ReturnType<Router["match"]>;
    try {
      m = this.match(req.method ?? "GET", url.pathname);
    } catch (err) {
      error(res, (err as RestError).status ?? 400, (err as Error).message);
      return true;
    }
    if (!m) return false;
    const fail = (err: unknown) => {
      if (res.headersSent) return void res.destroy();
      error(res, err instanceof RestError ? err.status : 500, (err as Error).message);
    };
    try {
      const r = m.handler({ req, res, params: m.params, query: url.searchParams });
      if (r) r.catch(fail);
    } catch (err) {
      fail(err);
    }
    return true;
  }
}

function unescape(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, " "));
  } catch {
    throw new RestError(400, `invalid URL escape "${s}"`);
  }
}
