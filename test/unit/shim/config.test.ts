import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { SchedulerCore } from "../../../src/scheduler/core/scheduler.js";
import { DEFAULT_POLICY_GROUP, generateUniqueAppIdsOf, queuesYamlOf } from "../../../src/scheduler/shim/config.js";
import { MAX_INFLATED_BYTES, flattenConfigMaps } from "../../../src/yunikorn/config-maps.js";

const QUEUES = "partitions:\n  - name: default\n    queues:\n      - name: root\n        submitacl: '*'\n        queues: [{name: batch}]\n";
const gz = (text: string) => gzipSync(Buffer.from(text, "utf8")).toString("base64");
const b64 = (text: string) => Buffer.from(text, "utf8").toString("base64");

describe("flattenConfigMaps (yunikorn-defaults, then yunikorn-configs)", () => {
  it("configs override defaults key by key; keys only in defaults stay", () => {
    const defaults = { data: { "queues.yaml": "from-defaults", "service.schedulingInterval": "1s", "log.level": "0" } };
    const configs = { data: { "queues.yaml": "from-configs", "log.level": "-1" } };
    expect(flattenConfigMaps([defaults, configs])).toEqual({
      "queues.yaml": "from-configs",
      "service.schedulingInterval": "1s",
      "log.level": "-1",
    });
    // order matters: the later map wins
    expect(flattenConfigMaps([configs, defaults])["queues.yaml"]).toBe("from-defaults");
  });

  it("missing maps and null data are skipped", () => {
    expect(flattenConfigMaps([undefined, undefined])).toEqual({});
    expect(flattenConfigMaps([undefined, { data: { a: "1" } }])).toEqual({ a: "1" });
    expect(flattenConfigMaps([{ data: null, binaryData: null }, { data: { a: "1" } }])).toEqual({ a: "1" });
  });

  it("a gzip binaryData key `queues.yaml.gz` becomes `queues.yaml`", () => {
    const flat = flattenConfigMaps([{ data: { x: "1" } }, { binaryData: { "queues.yaml.gz": gz(QUEUES) } }]);
    expect(flat).toEqual({ x: "1", "queues.yaml": QUEUES });
    expect(flat).not.toHaveProperty("queues.yaml.gz");
    // the suffix is matched case-insensitively
    expect(flattenConfigMaps([{ binaryData: { "queues.yaml.GZ": gz("x: 1") } }])).toEqual({ "queues.yaml": "x: 1" });
  });

  it("a gzipped queues.yaml in configs overrides plain data in defaults; binaryData wins over data in the same map", () => {
    const defaults = { data: { "queues.yaml": "old" } };
    expect(flattenConfigMaps([defaults, { binaryData: { "queues.yaml.gz": gz(QUEUES) } }])["queues.yaml"]).toBe(QUEUES);
    expect(flattenConfigMaps([{ data: { "queues.yaml": "plain" }, binaryData: { "queues.yaml.gz": gz("zipped") } }])["queues.yaml"]).toBe(
      "zipped",
    );
  });

  it("other binaryData is base64-decoded under its own key", () => {
    expect(flattenConfigMaps([{ binaryData: { "note.txt": b64("héllo") } }])).toEqual({ "note.txt": "héllo" });
  });

  it("a .gz value that is not gzip is refused naming the key", () => {
    expect(() => flattenConfigMaps([{ binaryData: { "queues.yaml.gz": b64("not gzip at all") } }])).toThrow(
      /binaryData key queues\.yaml\.gz is not valid gzip/,
    );
  });

  it("a .gz value inflating beyond MAX_INFLATED_BYTES is refused naming the key, without inflating it all", () => {
    // 256 MiB of spaces compress to about 256 KiB: a gzip bomb
    const bomb = gzipSync(Buffer.alloc(256 * 1024 * 1024, 0x20)).toString("base64");
    const before = process.memoryUsage().rss;
    expect(() => flattenConfigMaps([{ binaryData: { "queues.yaml.gz": bomb } }])).toThrow(
      "binaryData key queues.yaml.gz inflates to more than 3 MiB, the limit",
    );
    expect(process.memoryUsage().rss - before).toBeLessThan(64 * 1024 * 1024);
    // at the limit exactly it is read
    const atLimit = "#".repeat(MAX_INFLATED_BYTES);
    expect(flattenConfigMaps([{ binaryData: { "queues.yaml.gz": gz(atLimit) } }])["queues.yaml"]).toHaveLength(MAX_INFLATED_BYTES);
  });
});

describe("queuesYamlOf", () => {
  it("reads <policyGroup>.yaml, `queues` by default", () => {
    expect(DEFAULT_POLICY_GROUP).toBe("queues");
    const flat = { "queues.yaml": "q", "batch.yaml": "b" };
    expect(queuesYamlOf(flat)).toBe("q");
    expect(queuesYamlOf(flat, "batch")).toBe("b");
  });

  it('returns "" when the policy group has no key (the core\'s default config)', () => {
    expect(queuesYamlOf({ "queues.yaml": "q" }, "other")).toBe("");
    expect(queuesYamlOf({})).toBe("");
    // the key is exact: no .gz fallback, no other suffix
    expect(queuesYamlOf({ "queues.yml": "q", "queues.yaml.gz": "z" })).toBe("");
  });

  it("an empty key is returned as is (empty text)", () => {
    expect(queuesYamlOf({ "queues.yaml": "" })).toBe("");
  });

  it("end to end: a gzipped yunikorn-configs queues.yaml configures the core; absent, the core uses its default", () => {
    const text = queuesYamlOf(flattenConfigMaps([{ data: { "log.level": "0" } }, { binaryData: { "queues.yaml.gz": gz(QUEUES) } }]));
    const core = new SchedulerCore(() => 0, text);
    expect(core.partitions.get("default")!.find("root.batch")).toBeDefined();

    const none = queuesYamlOf(flattenConfigMaps([{ data: { "log.level": "0" } }, undefined]));
    expect(none).toBe("");
    const dflt = new SchedulerCore(() => 0);
    expect(dflt.updateConfiguration(none)).toEqual({ ok: true });
    expect(dflt.partitions.get("default")!.find("root.batch")).toBeUndefined();
  });
});

describe("generateUniqueAppIdsOf (admissionController.filtering.generateUniqueAppId, read by the scheduler at start)", () => {
  const key = "admissionController.filtering.generateUniqueAppId";
  it("absent: off, nothing to report", () => {
    expect(generateUniqueAppIdsOf({})).toEqual({ on: false });
  });
  it("Go booleans as strconv.ParseBool reads them", () => {
    for (const v of ["true", "TRUE", "1", "t", "True"]) expect(generateUniqueAppIdsOf({ [key]: v })).toEqual({ on: true });
    for (const v of ["false", "0", "F"]) expect(generateUniqueAppIdsOf({ [key]: v })).toEqual({ on: false });
  });
  it("a value that is no Go boolean is off and reported as invalid", () => {
    expect(generateUniqueAppIdsOf({ [key]: "yes" })).toEqual({ on: false, invalid: "yes" });
    expect(generateUniqueAppIdsOf({ [key]: "" })).toEqual({ on: false, invalid: "" });
  });
});
