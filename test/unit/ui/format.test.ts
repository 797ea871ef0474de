import { describe, expect, it } from "vitest";
import { duration, ofMax, quantity, resourceLabel, resourceOrder, resources } from "../../../ui/src/format.js";

const GI = 1024 ** 3;

describe("dashboard units", () => {
  it("cpu in cores, memory in Gi/Mi, counts as numbers", () => {
    expect(quantity("vcore", 2000)).toBe("2 cores");
    expect(quantity("vcore", 1000)).toBe("1 core");
    expect(quantity("vcore", 1500)).toBe("1.5 cores");
    expect(quantity("vcore", 250)).toBe("0.25 cores");
    expect(quantity("memory", 8 * GI)).toBe("8 Gi");
    expect(quantity("memory", 256 * 1024 ** 2)).toBe("256 Mi");
    expect(quantity("memory", 1.5 * GI)).toBe("1.5 Gi");
    expect(quantity("memory", 100)).toBe("100 B");
    expect(quantity("ephemeral-storage", 20 * GI)).toBe("20 Gi");
    expect(quantity("pods", 110)).toBe("110");
    expect(quantity("nvidia.com/gpu", 2)).toBe("2");
    expect(quantity("vcore", 30_998_500)).toBe("30,998.5 cores");
  });

  it("used of max in one unit", () => {
    expect(ofMax("vcore", 2000, 2000)).toBe("2 of 2 cores");
    expect(ofMax("vcore", 1000, 1000)).toBe("1 of 1 core");
    expect(ofMax("memory", GI, 8 * GI)).toBe("1 of 8 Gi");
    expect(ofMax("memory", 512 * 1024 ** 2, 8 * GI)).toBe("0.5 of 8 Gi");
    expect(ofMax("pods", 3, 110)).toBe("3 of 110");
  });

  it("resource maps in words, cpu and memory first", () => {
    expect(resources({ pods: 1, memory: GI, vcore: 1000 })).toBe("cpu 1 core, memory 1 Gi, pods 1");
    expect(resources({})).toBe("nothing");
    expect(resources({ vcore: 0 })).toBe("nothing");
    expect(resourceOrder(["zeta", "pods", "alpha", "memory", "vcore"])).toEqual(["vcore", "memory", "pods", "alpha", "zeta"]);
    expect(resourceLabel("vcore")).toBe("cpu");
  });

  it("durations", () => {
    expect(duration(42_000)).toBe("42 s");
    expect(duration(3 * 60_000 + 5000)).toBe("3 min");
    expect(duration(125 * 60_000)).toBe("2 h 5 min");
    expect(duration(76 * 3_600_000)).toBe("3 d 4 h");
    expect(duration(-5)).toBe("0 s");
  });
});
