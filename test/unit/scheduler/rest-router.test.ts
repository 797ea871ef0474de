/**
 * The REST router's rules (src/scheduler/rest/router.ts) as data: Go's two unescapes (the server's `URL.Path`, then
 * the handlers' `url.QueryUnescape`), httprouter v1.3.0's redirects, OPTIONS and 405, and upstream's gzip choice
 * (apache/yunikorn-core pkg/webservice gzip.go clientAcceptsGzip, handlers_test.go TestGetPartitionQueueHandler's
 * double-escaped names).
 */
import { describe, expect, it } from "vitest";
import { RestError, Router, acceptsGzip, escapePath, queryUnescape, unescapePath } from "../../../src/scheduler/rest/router.js";

const router = () =>
  new Router()
    .add("GET", "/ws/v1/clusters", () => {})
    .add("POST", "/ws/v1/validate-conf", () => {})
    .add("GET", "/ws/v1/partition/:partition/queue/:queue", () => {});

const params = (path: string) => {
  const r = router().resolve("GET", path);
  return r.kind === "handler" ? r.params : r;
};

describe("REST router", () => {
  it("unescapes the path once and each parameter once more, as upstream's server and handlers", () => {
    expect(params("/ws/v1/partition/default/queue/root.a")).toEqual({ partition: "default", queue: "root.a" });
    // handlers_test.go: a queue name escaped twice ("root%252Ea") is root.a
    expect(params("/ws/v1/partition/default/queue/root%252Ea")).toEqual({ partition: "default", queue: "root.a" });
    expect(params("/ws/v1/partition/default/queue/root%2Ea")).toEqual({ partition: "default", queue: "root.a" });
    expect(params("/ws/v1/partition/default/queue/a+b")).toEqual({ partition: "default", queue: "a b" });
    // %2F is a separator once the server unescaped the path: no route has that many segments
    expect(router().resolve("GET", "/ws/v1/partition/default/queue/root%2Fa")).toEqual({ kind: "notFound" });
  });

  it('names the malformed escape as Go does (`invalid URL escape "%Zt"`)', () => {
    const refusal = (f: () => unknown) => {
      try {
        f();
      } catch (err) {
        return [(err as RestError).status, (err as Error).message];
      }
      return undefined;
    };
    expect(refusal(() => router().resolve("GET", "/ws/v1/partition/default/queue/%25Zt"))).toEqual([400, 'invalid URL escape "%Zt"']);
    expect(refusal(() => router().resolve("GET", "/ws/v1/partition/default/queue/%Zt"))).toEqual([400, 'invalid URL escape "%Zt"']);
    expect(refusal(() => queryUnescape("ab%4"))).toEqual([400, 'invalid URL escape "%4"']);
    expect(refusal(() => queryUnescape("%"))).toEqual([400, 'invalid URL escape "%"']);
    expect(unescapePath("a+b%20c")).toBe("a+b c");
    expect(queryUnescape("%E2%82%AC")).toBe("€");
  });

  it("redirects a trailing slash and a path that only differs in case or cleaning (301 for GET, 307 otherwise)", () => {
    expect(router().resolve("GET", "/ws/v1/clusters/")).toEqual({ kind: "redirect", status: 301, path: "/ws/v1/clusters" });
    expect(router().resolve("GET", "/WS/V1/Clusters")).toEqual({ kind: "redirect", status: 301, path: "/ws/v1/clusters" });
    expect(router().resolve("GET", "//ws/v1//clusters")).toEqual({ kind: "redirect", status: 301, path: "/ws/v1/clusters" });
    expect(router().resolve("GET", "/ws/v1/x/../clusters/")).toEqual({ kind: "redirect", status: 301, path: "/ws/v1/clusters" });
    expect(router().resolve("POST", "/ws/v1/validate-conf/")).toEqual({ kind: "redirect", status: 307, path: "/ws/v1/validate-conf" });
    // parameters keep the request's spelling
    expect(router().resolve("GET", "/WS/v1/partition/Default/queue/root.A")).toEqual({
      kind: "redirect",
      status: 301,
      path: "/ws/v1/partition/Default/queue/root.A",
    });
  });

  it("answers OPTIONS and other methods on a known path with the allowed ones; nothing else is found", () => {
    expect(router().resolve("OPTIONS", "/ws/v1/clusters")).toEqual({ kind: "options", allow: "GET, OPTIONS" });
    expect(router().resolve("HEAD", "/ws/v1/clusters")).toEqual({ kind: "methodNotAllowed", allow: "GET, OPTIONS" });
    // httprouter v1.3.0 allowed(): sorted, OPTIONS among them
    expect(router().resolve("GET", "/ws/v1/validate-conf")).toEqual({ kind: "methodNotAllowed", allow: "OPTIONS, POST" });
    expect(router().resolve("OPTIONS", "/ws/v1/nothing")).toEqual({ kind: "notFound" });
    expect(router().resolve("GET", "/ws/v1/nothing")).toEqual({ kind: "notFound" });
    // a parameter is never empty
    expect(router().resolve("GET", "/ws/v1/partition//queue/root")).toEqual({ kind: "notFound" });
  });

  it("escapes a redirect's path again as Go's URL.String() does", () => {
    expect(escapePath("/ws/v1/partition/default/application/a?b")).toBe("/ws/v1/partition/default/application/a%3Fb");
    expect(escapePath("/x/中/%2F y")).toBe("/x/%E4%B8%AD/%252F%20y");
    expect(escapePath("/a-b_c.d~e$f&g+h,i:j;k=l@m")).toBe("/a-b_c.d~e$f&g+h,i:j;k=l@m");
  });

  it("takes gzip when Accept-Encoding lists it without q=0 (upstream clientAcceptsGzip)", () => {
    expect(acceptsGzip("gzip")).toBe(true);
    expect(acceptsGzip("deflate, GZIP;q=0.5")).toBe(true);
    expect(acceptsGzip("br, gzip ; q=0.1")).toBe(true);
    expect(acceptsGzip("gzip;q=0")).toBe(false);
    expect(acceptsGzip("gzip; q=0")).toBe(false);
    expect(acceptsGzip("deflate, br")).toBe(false);
    expect(acceptsGzip(undefined)).toBe(false);
    expect(acceptsGzip(["br", "gzip"])).toBe(true);
  });
});
