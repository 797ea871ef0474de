import fjp from "fast-json-patch";
import { describe, expect, it } from "vitest";
import { entriesPatch } from "../../../src/webhook/json-patch.js";

const apply = <T>(doc: T, ops: ReturnType<typeof entriesPatch>): T =>
  fjp.applyPatch(structuredClone(doc), ops as fjp.Operation[], true, true).newDocument as T;

describe("entriesPatch", () => {
  it("names only the new, changed and removed entries of an existing map (keys escaped as JSON Pointer segments)", () => {
    const pod = { metadata: { labels: { app: "web", "yunikorn.apache.org/queue": "root.a", gone: "x", "a~b": "1" } } };
    const after = { app: "web", "yunikorn.apache.org/queue": "root.b", applicationId: "app-1", "a~b": "1" };
    const ops = entriesPatch(pod, ["metadata", "labels"], after);
    expect(ops).toEqual([
      { op: "add", path: "/metadata/labels/yunikorn.apache.org~1queue", value: "root.b" },
      { op: "add", path: "/metadata/labels/applicationId", value: "app-1" },
      { op: "remove", path: "/metadata/labels/gone" },
    ]);
    expect(apply(pod, ops).metadata.labels).toEqual(after);
  });

  it("adds the whole map when it (or a parent) is missing", () => {
    expect(entriesPatch({ metadata: {} }, ["metadata", "annotations"], { a: "1" })).toEqual([
      { op: "add", path: "/metadata/annotations", value: { a: "1" } },
    ]);
    const template = { spec: { template: { spec: {} } } };
    const ops = entriesPatch(template, ["spec", "template", "metadata", "annotations"], { a: "1" });
    expect(ops).toEqual([{ op: "add", path: "/spec/template/metadata", value: { annotations: { a: "1" } } }]);
    expect(apply(template, ops)).toEqual({ spec: { template: { spec: {}, metadata: { annotations: { a: "1" } } } } });
  });

  it("is empty when nothing changes", () => {
    expect(entriesPatch({ metadata: { labels: { a: "1" } } }, ["metadata", "labels"], { a: "1" })).toEqual([]);
  });
});
