/**
 * Preemption and priority queue properties, read as yunikorn-core reads them (objects/queue_test.go
 * TestQueueProps / TestPriorityOffset / TestPreemptionDelay, policies/preemption_policy_test.go,
 * policies/priority_policy_test.go, configs: defaults in configvalidator.go).
 */
import { describe, expect, it } from "vitest";
import { decodeQueuesYaml } from "../../../src/scheduler/core/config.js";
import {
  DEFAULT_PREEMPTION_DELAY_MS,
  inheritQueueProperties,
  parseGoDuration,
  parseQueuePreemptionProperties,
  partitionPreemptionFlags,
  unsupportedPropertyProblems,
} from "../../../src/scheduler/core/queue-properties.js";
import { Partition } from "../../../src/scheduler/core/partition.js";
import { validateQueuesYaml, validateSchedulerConfig } from "../../../src/scheduler/core/validate.js";

describe("parseGoDuration (time.ParseDuration)", () => {
  it.each([
    ["30s", 30_000],
    ["5m", 300_000],
    ["1h30m", 5_400_000],
    ["1.5h", 5_400_000],
    ["300ms", 300],
    ["1500us", 1.5],
    ["2\u00b5s", 0.002],
    ["0", 0],
    ["-1s", -1000],
    ["+2s", 2000],
    [".5s", 500],
    ["1.s", 1000],
  ])("%s = %d ms", (text, ms) => {
    expect(parseGoDuration(text)).toBeCloseTo(ms, 9);
  });
  it.each([
    ["", 'time: invalid duration ""'],
    ["5", 'time: missing unit in duration "5"'],
    ["5d", 'time: unknown unit "d" in duration "5d"'],
    [".s", 'time: invalid duration ".s"'],
    ["s", 'time: invalid duration "s"'],
    ["1e3s", 'time: unknown unit "e" in duration "1e3s"'],
  ])("%j is refused", (text, msg) => {
    expect(() => parseGoDuration(text)).toThrow(msg);
  });
});

describe("parseQueuePreemptionProperties", () => {
  it("defaults: policies default, offset 0, preemption.delay 30s, quota delay 0", () => {
    expect(parseQueuePreemptionProperties(undefined, true)).toEqual({
      properties: {
        preemptionPolicy: "default",
        preemptionDelayMs: DEFAULT_PREEMPTION_DELAY_MS,
        priorityPolicy: "default",
        priorityOffset: 0,
        quotaPreemptionDelayMs: 0,
      },
      problems: [],
    });
  });

  it("reads every key; policy values are case-insensitive", () => {
    const r = parseQueuePreemptionProperties(
      {
        "preemption.policy": "FENCE",
        "preemption.delay": "2m",
        "priority.policy": "Fence",
        "priority.offset": "-100",
        "quota.preemption.delay": "15m",
      },
      true,
    );
    expect(r).toEqual({
      properties: {
        preemptionPolicy: "fence",
        preemptionDelayMs: 120_000,
        priorityPolicy: "fence",
        priorityOffset: -100,
        quotaPreemptionDelayMs: 900_000,
      },
      problems: [],
    });
    expect(parseQueuePreemptionProperties({ "preemption.policy": "disabled" }, false).properties.preemptionPolicy).toBe("disabled");
  });

  it("preemption.delay is read on leaf queues only (queue.go: `if sq.isLeaf`)", () => {
    expect(parseQueuePreemptionProperties({ "preemption.delay": "5s" }, false).properties.preemptionDelayMs).toBe(30_000);
    expect(parseQueuePreemptionProperties({ "preemption.delay": "5s" }, true).properties.preemptionDelayMs).toBe(5_000);
  });

  it("a bad value falls back to the default and is reported with upstream's reason", () => {
    const r = parseQueuePreemptionProperties(
      {
        "preemption.policy": "never",
        "priority.policy": "up",
        "priority.offset": "2147483648",
        "preemption.delay": "0s",
        "quota.preemption.delay": "7200",
      },
      true,
    );
    expect(r.properties).toEqual({
      preemptionPolicy: "default",
      preemptionDelayMs: 30_000,
      priorityPolicy: "default",
      priorityOffset: 0,
      quotaPreemptionDelayMs: 0,
    });
    expect(r.problems).toEqual([
      { key: "preemption.policy", value: "never", reason: "undefined preemption.policy: never" },
      { key: "priority.policy", value: "up", reason: "undefined priority.policy: up" },
      { key: "priority.offset", value: "2147483648", reason: 'strconv.ParseInt: parsing "2147483648": value out of range' },
      { key: "preemption.delay", value: "0s", reason: "delay must be positive value: 0s" },
      { key: "quota.preemption.delay", value: "7200", reason: 'time: missing unit in duration "7200"' },
    ]);
  });

  it("upstream's application backoff keys (YUNIKORN-3115), which corral does not implement, are reported on leaves", () => {
    const props = { "application.unschedasks.backoff": "3", "application.unschedasks.backoff.delay": "1m" };
    const reason = "not supported by corral: applications are never backed off";
    expect(unsupportedPropertyProblems(props, true)).toEqual([
      { key: "application.unschedasks.backoff", value: "3", reason },
      { key: "application.unschedasks.backoff.delay", value: "1m", reason },
    ]);
    // a parent only passes them on to its leaves, where they are reported
    expect(unsupportedPropertyProblems(props, false)).toEqual([]);
    // the partition reports them with the queue, as every ignored property
    const p = new Partition({
      name: "default",
      config: validateSchedulerConfig(
        decodeQueuesYaml(
          "partitions: [{name: default, queues: [{name: root, queues: " +
            '[{name: a, properties: {"application.unschedasks.backoff": "3"}}]}]}]',
        ),
      ).partitions[0]!,
    });
    expect(p.propertyProblems).toEqual([{ key: "application.unschedasks.backoff", value: "3", reason, queue: "root.a" }]);
  });

  it("negative delays are refused like zero (convertDelay)", () => {
    expect(parseQueuePreemptionProperties({ "quota.preemption.delay": "-5m" }, true).problems[0]!.reason).toBe(
      "delay must be positive value: -5m",
    );
  });

  it("offsets use strconv.ParseInt base 10: a sign is allowed, decimals and spaces are not", () => {
    expect(parseQueuePreemptionProperties({ "priority.offset": "+7" }, true).properties.priorityOffset).toBe(7);
    expect(parseQueuePreemptionProperties({ "priority.offset": "1.5" }, true).problems).toHaveLength(1);
    expect(parseQueuePreemptionProperties({ "priority.offset": " 1" }, true).problems).toHaveLength(1);
  });
});

describe("inheritQueueProperties (filterParentProperty)", () => {
  it("priority.policy and priority.offset are never inherited; preemption.policy only when disabled; other keys as is", () => {
    expect(
      inheritQueueProperties(
        {
          "priority.policy": "fence",
          "priority.offset": "10",
          "preemption.policy": "fence",
          "preemption.delay": "1m",
          "application.sort.policy": "fair",
        },
        { "quota.preemption.delay": "5m" },
      ),
    ).toEqual({
      "priority.policy": "default",
      "priority.offset": "0",
      "preemption.policy": "default",
      "preemption.delay": "1m",
      "application.sort.policy": "fair",
      "quota.preemption.delay": "5m",
    });
    expect(inheritQueueProperties({ "preemption.policy": "DISABLED" }, {})).toEqual({ "preemption.policy": "disabled" });
  });

  it("the queue's own value wins", () => {
    expect(inheritQueueProperties({ "preemption.policy": "disabled" }, { "preemption.policy": "fence" })).toEqual({
      "preemption.policy": "fence",
    });
  });
});

describe("partition preemption flags", () => {
  it("preemption.enabled defaults to true, quotapreemptionenabled to false (PartitionContext.updatePreemption)", () => {
    expect(partitionPreemptionFlags({})).toEqual({ enabled: true, quotaPreemptionEnabled: false });
    const cfg = decodeQueuesYaml(
      "partitions:\n  - name: default\n    preemption:\n      enabled: false\n      quotapreemptionenabled: true\n" +
        "    queues: [{name: root}]\n",
    );
    expect(partitionPreemptionFlags(cfg.partitions[0]!)).toEqual({ enabled: false, quotaPreemptionEnabled: true });
  });

  it("a non-boolean flag is a decode error naming the line; unknown preemption keys are refused", () => {
    expect(
      validateQueuesYaml("partitions:\n  - name: default\n    preemption:\n      enabled: maybe\n    queues: [{name: root}]\n"),
    ).toEqual({ allowed: false, reason: expect.stringMatching(/^yaml: unmarshal errors:\n {2}line 4: cannot decode "maybe" into bool/) });
    expect(validateQueuesYaml("partitions:\n  - name: default\n    preemption:\n      delay: 5s\n    queues: [{name: root}]\n")).toEqual({
      allowed: false,
      reason: "yaml: unmarshal errors:\n  line 4: field delay not found in type configs.PartitionPreemptionConfig",
    });
  });

  it("property values are not validated by validate-conf, as upstream (the queue falls back at build time)", () => {
    const yaml =
      "partitions:\n  - name: default\n    queues:\n      - name: root\n        queues:\n          - name: a\n" +
      "            properties:\n              preemption.policy: never\n              preemption.delay: soon\n";
    expect(validateQueuesYaml(yaml)).toEqual({ allowed: true });
  });
});
