/**
 * The dashboard's static files (built by `npm run build` into `dist/ui/`), served read-only at `/ui/` on the REST port,
 * same origin as the API it reads. Every answer carries a Content-Security-Policy that allows only this origin's
 * scripts, styles and fetches (no inline script, no framing), `X-Content-Type-Options: nosniff` and no referrer.
 * Hashed assets (`/ui/assets/*`) are cached for a year; `index.html` is revalidated on every load.
 */
import { readFile } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { extname, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

/** Where `npm run build` puts the dashboard: `<package>/dist/ui/` (this file is `src|dist/scheduler/rest/`). */
export const DEFAULT_UI_DIR = fileURLToPath(new URL("../../../dist/ui/", import.meta.url));

/** The path the dashboard is served under. */
export const UI_PREFIX = "/ui/";

/** The Content-Security-Policy of every dashboard answer (module comment). */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const SECURITY_HEADERS = {
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
};

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8",
};

/**
 * The file under `dir` a `/ui/...` path names, or undefined for a path outside `dir` (`..`, encoded or not) or with a
 * NUL byte. `/ui/` and unknown extension-less paths are `index.html` (the dashboard routes in the URL fragment).
 */
export function uiFile(dir: string, urlPath: string): string | undefined {
  let rel: string;
  try {
    rel = decodeURIComponent(urlPath.slice(UI_PREFIX.length));
  } catch {
    return undefined;
  }
  if (rel.includes("\0")) return undefined;
  if (rel === "" || rel.endsWith("/")) rel += "index.html";
  const root = resolve(dir);
  const file = resolve(root, rel);
  if (file !== root && !file.startsWith(root + sep)) return undefined;
  return file;
}

/**
 * Answers `GET`/`HEAD` of `/`, `/ui` and `/ui/...`; false for any other request (the API routes go on).
 * @param dir the built dashboard (default `DEFAULT_UI_DIR`)
 */
export function serveUi(req: IncomingMessage, res: ServerResponse, dir = DEFAULT_UI_DIR): boolean {
  const path = (req.url ?? "/").split("?")[0]!;
  if (req.method !== "GET" && req.method !== "HEAD") return false;
  if (path === "/" || path === "/ui") {
    res.writeHead(302, { location: UI_PREFIX, ...SECURITY_HEADERS });
    res.end();
    return true;
  }
  if (!path.startsWith(UI_PREFIX)) return false;
  const file = uiFile(dir, path);
  if (!file) {
    res.writeHead(400, { "content-type": "text/plain; charset=utf-8", ...SECURITY_HEADERS });
    res.end("bad path\n");
    return true;
  }
  void readFile(file).then(
    (body) => {
      const hashed = path.startsWith(`${UI_PREFIX}assets/`);
      res.writeHead(200, {
        "content-type": TYPES[extname(file)] ?? "application/octet-stream",
        "content-length": body.length,
        "cache-control": hashed ? "public, max-age=31536000, immutable" : "no-cache",
        ...SECURITY_HEADERS,
      });
      res.end(req.method === "HEAD" ? undefined : body);
    },
    (err: NodeJS.ErrnoException) => {
      const missing = err.code === "ENOENT" || err.code === "EISDIR" || err.code === "ENOTDIR";
      res.writeHead(missing ? 404 : 500, { "content-type": "text/plain; charset=utf-8", ...SECURITY_HEADERS });
      res.end(
        missing && file.endsWith("index.html")
          ? "the dashboard is not built: run `npm run build`\n"
          : missing
            ? "not found\n"
            : "cannot read the file\n",
      );
    },
  );
  return true;
}
