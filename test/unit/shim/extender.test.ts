/** The extender wire format and the binding outcome rule. */
import { describe, expect, it } from "vitest";
import type { ExtenderFilterResult } from "../../../src/scheduler/shim/context.js";
import { bindErrorOutcome, filterReply, parseBindArgs, parseFilterArgs } from "../../../src/scheduler/shim/extender.js";

const result: ExtenderFilterResult = {
  Nodes: null,
  NodeNames: ["n2"],
  FailedNodes: { n1: "x" },
  FailedAndUnresolvableNodes: { n1: "x" },
  Error: "",
};

describe("extender filter wire format", () => {
  it("NodeNames in (nodeCacheCapable), NodeNames out", () => {
    const p = parseFilterArgs(JSON.stringify({ Pod: { metadata: { uid: "u1" } }, Nodes: null, NodeNames: ["n1", "n2"] }));
    expect(p).toMatchObject({ ok: true, candidates: ["n1", "n2"] });
    if (!p.ok) throw new Error(p.error);
    expect(filterReply(p.args, result)).toEqual(result);
  });

  it("Nodes in, the kept Node objects out", () => {
    const nodes = { items: [{ metadata: { name: "n1" } }, { metadata: { name: "n2" }, status: { allocatable: { cpu: "4" } } }] };
    const p = parseFilterArgs(JSON.stringify({ Pod: { metadata: { uid: "u1" } }, Nodes: nodes, NodeNames: null }));
    if (!p.ok) throw new Error(p.error);
    expect(p.candidates).toEqual(["n1", "n2"]);
    expect(filterReply(p.args, result)).toEqual({ ...result, Nodes: { items: [nodes.items[1]] }, NodeNames: null });
  });

  it("malformed bodies are named", () => {
    expect(parseFilterArgs("{")).toMatchObject({ ok: false, error: expect.stringContaining("ExtenderArgs is not JSON") });
    expect(parseFilterArgs(JSON.stringify({ Pod: { metadata: {} } }))).toEqual({
      ok: false,
      error: "ExtenderArgs.Pod with metadata.uid is required",
    });
    expect(parseFilterArgs("null")).toMatchObject({ ok: false });
  });
});

describe("extender bind wire format", () => {
  it("decodes ExtenderBindingArgs", () => {
    const body = { PodName: "p", PodNamespace: "ns", PodUID: "u1", Node: "n1" };
    expect(parseBindArgs(JSON.stringify(body))).toEqual({ ok: true, args: body });
  });

  it.each([
    ["{", /^ExtenderBindingArgs is not JSON: /],
    ["null", /^ExtenderBindingArgs needs PodName, PodNamespace, PodUID and Node$/],
    [
      JSON.stringify({ PodName: "p", PodNamespace: "ns", Node: "n1" }),
      /^ExtenderBindingArgs needs PodName, PodNamespace, PodUID and Node$/,
    ],
  ])("names what is wrong with %s", (text, error) => {
    const r = parseBindArgs(text);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error).toMatch(error);
  });
});

describe("bindErrorOutcome", () => {
  it("classifies API answers", () => {
    expect(bindErrorOutcome(404, undefined, "n1")).toBe("gone");
    expect(bindErrorOutcome(409, "n1", "n1")).toBe("bound");
    expect(bindErrorOutcome(409, "n2", "n1")).toBe("fatal");
    expect(bindErrorOutcome(403, undefined, "n1")).toBe("fatal");
    expect(bindErrorOutcome(429, undefined, "n1")).toBe("retry");
    expect(bindErrorOutcome(503, undefined, "n1")).toBe("retry");
    expect(bindErrorOutcome(undefined, undefined, "n1")).toBe("retry");
  });
});
