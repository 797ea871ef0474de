/**
 * The dashboard's address: pages and their parameters live in the URL fragment (`#/waiting?q=alice`), so every view
 * can be bookmarked and shared, and the server serves one file.
 */
import { useEffect, useState } from "preact/hooks";

export const PAGES = ["queues", "waiting", "apps", "users", "nodes"] as const;
export type Page = (typeof PAGES)[number];

export interface Route {
  page: Page;
  params: URLSearchParams;
}

export function parseHash(hash: string): Route {
  const h = hash.replace(/^#\/?/, "");
  const q = h.indexOf("?");
  const name = q < 0 ? h : h.slice(0, q);
  const params = new URLSearchParams(q < 0 ? "" : h.slice(q + 1));
  return { page: (PAGES as readonly string[]).includes(name) ? (name as Page) : "queues", params };
}

/** The fragment for a page with parameters (empty values left out). */
export function href(page: Page, params: Record<string, string | undefined> = {}): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v) p.set(k, v);
  const s = p.toString();
  return `#/${page}${s ? `?${s}` : ""}`;
}

/** Changes one parameter of the current page without adding a history entry per keystroke. */
export function setParam(name: string, value: string | undefined): void {
  const r = parseHash(location.hash);
  if (value) r.params.set(name, value);
  else r.params.delete(name);
  if (name !== "page") r.params.delete("page");
  const s = r.params.toString();
  history.replaceState(null, "", `#/${r.page}${s ? `?${s}` : ""}`);
  window.dispatchEvent(new HashChangeEvent("hashchange"));
}

export function useRoute(): Route {
  const [route, set] = useState(() => parseHash(location.hash));
  useEffect(() => {
    const on = () => set(parseHash(location.hash));
    window.addEventListener("hashchange", on);
    return () => window.removeEventListener("hashchange", on);
  }, []);
  return route;
}
