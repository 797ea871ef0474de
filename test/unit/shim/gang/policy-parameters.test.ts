import { describe, expect, it } from "vitest";
import { parseSchedulingPolicyParameters, placeholderTimeoutMs } from "../../../../src/scheduler/shim/gang/policy-parameters.js";

describe("parseSchedulingPolicyParameters", () => {
  // The first eight rows are apache/yunikorn-k8shim pkg/cache/gang_utils_test.go TestGetSchedulingPolicyParams (the
  // row reading another annotation key is the "absent" row below); then the user guide's examples
  // (yunikorn-site docs/user_guide/gang_scheduling.md) and corral's edge cases.
  it.each([
    [
      "unknownPara=unkown placeholderTimeoutInSeconds=50=25 gangSchedulingStyle=Hard=Soft",
      0,
      "Soft",
      [
        ["unknownPara=unkown", "unknown parameter"],
        ["placeholderTimeoutInSeconds=50=25", "malformed"],
        ["gangSchedulingStyle=Hard=Soft", "malformed"],
      ],
    ],
    [
      "unknownPara=unkown placeholderTimeoutInSeconds=50 gangSchedulingStyle=Hard=Soft",
      50,
      "Soft",
      [
        ["unknownPara=unkown", "unknown parameter"],
        ["gangSchedulingStyle=Hard=Soft", "malformed"],
      ],
    ],
    [
      "unknownPara=unkown placeholderTimeoutInSeconds=oneSecond gangSchedulingStyle=Soft",
      0,
      "Soft",
      [
        ["unknownPara=unkown", "unknown parameter"],
        ["placeholderTimeoutInSeconds=oneSecond", "timeout not an integer"],
      ],
    ],
    ["unknownPara=unkown", 0, "Soft", [["unknownPara=unkown", "unknown parameter"]]],
    [
      "unknownPara=unkown placeholderTimeoutInSeconds=50  gangSchedulingStyle=Hard",
      50,
      "Hard",
      [["unknownPara=unkown", "unknown parameter"]],
    ],
    ["unknownPara=unkown gangSchedulingStyle=Soft", 0, "Soft", [["unknownPara=unkown", "unknown parameter"]]],
    [
      "unknownPara=unkown gangSchedulingStyle=abc",
      0,
      "Soft",
      [
        ["unknownPara=unkown", "unknown parameter"],
        ["gangSchedulingStyle=abc", "unknown style"],
      ],
    ],
    [
      "placeholderTimeoutInSeconds gangSchedulingStyle",
      0,
      "Soft",
      [
        ["placeholderTimeoutInSeconds", "malformed"],
        ["gangSchedulingStyle", "malformed"],
      ],
    ],
    ["placeholderTimeoutInSeconds=30 gangSchedulingStyle=Hard", 30, "Hard", []],
    ["placeholderTimeoutInSeconds=60 gangSchedulingStyle=Hard", 60, "Hard", []],
    ["gangSchedulingStyle=Soft", 0, "Soft", []],
    ["gangSchedulingStyle=hard", 0, "Soft", [["gangSchedulingStyle=hard", "unknown style"]]],
    ["placeholderTimeoutInSeconds=-5", -5, "Soft", []],
    ["placeholderTimeoutInSeconds=+7", 7, "Soft", []],
    ["placeholderTimeoutInSeconds=1.5", 0, "Soft", [["placeholderTimeoutInSeconds=1.5", "timeout not an integer"]]],
    [
      "placeholderTimeoutInSeconds=50 placeholderTimeoutInSeconds=x",
      0,
      "Soft",
      [["placeholderTimeoutInSeconds=x", "timeout not an integer"]],
    ],
    [
      "placeholderTimeoutInSeconds=9223372036854775807",
      0,
      "Soft",
      [["placeholderTimeoutInSeconds=9223372036854775807", "timeout not an integer"]],
    ],
    [
      "gangSchedulingStyle=Hard\tplaceholderTimeoutInSeconds=5",
      0,
      "Soft",
      [["gangSchedulingStyle=Hard\tplaceholderTimeoutInSeconds=5", "malformed"]],
    ],
  ])("%j", (raw, timeout, style, ignored) => {
    const r = parseSchedulingPolicyParameters(raw);
    expect(r.parameters).toEqual({ placeholderTimeoutSeconds: timeout, gangSchedulingStyle: style });
    expect(r.ignored.map((i) => [i.pair, i.reason])).toEqual(ignored);
  });
  it.each([undefined, ""])("absent (%j): the defaults, nothing ignored", (raw) => {
    expect(parseSchedulingPolicyParameters(raw)).toEqual({
      parameters: { placeholderTimeoutSeconds: 0, gangSchedulingStyle: "Soft" },
      ignored: [],
    });
  });
});

describe("placeholderTimeoutMs", () => {
  it.each([
    [30, 30_000],
    [0, 15 * 60_000],
    [-5, 15 * 60_000],
    [1, 1000],
  ])("%i s → %i ms (0 or less: the core's 15-minute default)", (s, ms) => {
    expect(placeholderTimeoutMs({ placeholderTimeoutSeconds: s })).toBe(ms);
  });
});
