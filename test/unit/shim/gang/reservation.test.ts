import { describe, expect, it } from "vitest";
import { checkGangSubmission } from "../../../../src/scheduler/core/gang/submission.js";
import {
  gangReservation,
  placeholderResource,
  placeholdersToCreate,
  reservationShortfall,
} from "../../../../src/scheduler/shim/gang/reservation.js";
import { type TaskGroup, parseTaskGroups } from "../../../../src/scheduler/shim/gang/task-groups.js";

const groups = (raw: string): TaskGroup[] => {
  const r = parseTaskGroups(raw);
  if (!r.ok) throw new Error(r.problem.problem);
  return r.taskGroups;
};

// apache/yunikorn-k8shim pkg/cache/placeholder_test.go taskGroups: 10 members of 500m, 1024M, 2 GPUs, 2G ephemeral, 2 hugepages
const UPSTREAM_PLACEHOLDER_GROUP = groups(
  '[{"name":"test-group-1","minMember":10,"minResource":{"cpu":"500m","memory":"1024M",' +
    '"nvidia.com/gpu":"2","ephemeral-storage":"2G","hugepages-1Gi":"2"}}]',
);
// the user guide's Spark example shape, with driver 1 + executors 4
const SPARK = groups(
  '[{"name":"spark-driver","minMember":1,"minResource":{"cpu":"1","memory":"2Gi"}},' +
    '{"name":"spark-executor","minMember":4,"minResource":{"cpu":"1","memory":"2Gi"}}]',
);

describe("gangReservation", () => {
  it("upstream's placeholder test: vcore 10×500, memory 10×1024M, pods 10 (TestNewPlaceholder's asserts), and the rest", () => {
    expect(gangReservation(UPSTREAM_PLACEHOLDER_GROUP)).toEqual({
      pods: 10,
      vcore: 5000,
      memory: 10 * 1024e6,
      "nvidia.com/gpu": 20,
      "ephemeral-storage": 20e9,
      "hugepages-1Gi": 20,
    });
  });
  it("Spark driver 1 + executors 4: five pods, five cores, 10 GiB", () => {
    expect(gangReservation(SPARK)).toEqual({ pods: 5, vcore: 5000, memory: 10 * 2 ** 30 });
    expect(placeholderResource(SPARK[1]!)).toEqual({ pods: 1, vcore: 1000, memory: 2 ** 30 * 2 });
  });
  it("cpu rounds up to whole millicores, as the pod's own resources do; no groups reserve nothing", () => {
    expect(gangReservation(groups('[{"name":"g","minMember":3,"minResource":{"cpu":"0.0001"}}]'))).toEqual({ pods: 3, vcore: 3 });
    expect(gangReservation([])).toEqual({});
  });
});

describe("placeholdersToCreate, reservationShortfall", () => {
  it("a new application: every group's minMember", () => {
    expect(placeholdersToCreate(SPARK, []).map((p) => [p.taskGroup.name, p.count])).toEqual([
      ["spark-driver", 1],
      ["spark-executor", 4],
    ]);
  });
  it("after a restart with some placeholders present: only the missing ones; unknown groups ignored", () => {
    expect(
      placeholdersToCreate(SPARK, ["spark-executor", "spark-driver", "spark-executor", "other"]).map((p) => [p.taskGroup.name, p.count]),
    ).toEqual([["spark-executor", 2]]);
    expect(placeholdersToCreate(SPARK, ["spark-driver", ...Array(5).fill("spark-executor")])).toEqual([]);
  });
  it("the reservation completes when every group has minMember bound placeholders", () => {
    expect(reservationShortfall(SPARK, [])).toEqual([
      { taskGroup: "spark-driver", missing: 1 },
      { taskGroup: "spark-executor", missing: 4 },
    ]);
    expect(reservationShortfall(SPARK, ["spark-driver", "spark-executor", "spark-executor", "spark-executor", "stray"])).toEqual([
      { taskGroup: "spark-executor", missing: 1 },
    ]);
    expect(reservationShortfall(SPARK, ["spark-driver", ...Array(4).fill("spark-executor")])).toEqual([]);
  });
});

describe("checkGangSubmission (partition.go AddApplication)", () => {
  const base = {
    applicationId: "spark-1",
    queue: "root.spark",
    reservation: gangReservation(SPARK),
    queueIsLeaf: true,
    sortPolicy: "fifo",
  };
  it.each([
    ["a FIFO leaf without max", {}, { ok: true }],
    ["a max that holds the whole gang exactly", { queueMax: { vcore: 5000, memory: 10 * 2 ** 30 } }, { ok: true }],
    ["a max on other resources only (missing types are unlimited)", { queueMax: { "nvidia.com/gpu": 1 } }, { ok: true }],
    ["not a gang: anything goes", { reservation: {}, sortPolicy: "fair", queueIsLeaf: false }, { ok: true }],
    [
      "a fair queue",
      { sortPolicy: "fair" },
      {
        ok: false,
        reason: "unsupportedQueue",
        message: "queue root.spark cannot run application spark-1 with task group request: unsupported sort type",
      },
    ],
    ["a parent queue", { queueIsLeaf: false }, { ok: false, reason: "unsupportedQueue" }],
    [
      "a max one core short",
      { queueMax: { vcore: 4000 } },
      {
        ok: false,
        reason: "exceedsQueueMax",
        message:
          `queue root.spark cannot fit application spark-1: task group request map[memory:${10 * 2 ** 30} pods:5 ` +
          `vcore:5000] larger than max queue allocation map[vcore:4000]`,
      },
    ],
    ["a pods max below the gang size", { queueMax: { pods: 4 } }, { ok: false, reason: "exceedsQueueMax" }],
  ])("%s", (_, over, want) => {
    expect(checkGangSubmission({ ...base, ...over })).toMatchObject(want);
  });
});

describe("accepted task groups always reserve exactly (upstream TestValidatedTaskGroupsNeverProduceNegativePlaceholderAsk)", () => {
  // upstream's grid: quantities × resource names × minMember for group a, group b with minMember 1
  const strs = ["0", "1", "500m", "1.5", "2", "1Gi", "5E", "5P", "9223372036854775807", "9223372036854775808", "18446744073709551616"];
  const keys = ["cpu", "vcore", "memory", "pods", "nvidia.com/gpu"];
  const members = [1, 2, 2000000000, 2147483647];
  const SUFFIX: Record<string, [bigint, bigint]> = {
    "": [1n, 1n],
    m: [1n, 1000n],
    k: [10n ** 3n, 1n],
    M: [10n ** 6n, 1n],
    G: [10n ** 9n, 1n],
    T: [10n ** 12n, 1n],
    P: [10n ** 15n, 1n],
    E: [10n ** 18n, 1n],
    Ki: [1n << 10n, 1n],
    Mi: [1n << 20n, 1n],
    Gi: [1n << 30n, 1n],
  };
  /** The exact quantity (cpu in millicores), rounded up: an oracle independent of the parser under test. */
  const exact = (key: string, q: string): bigint => {
    const m = /^(\d+)(?:\.(\d+))?(m|k|M|G|T|P|E|Ki|Mi|Gi)?$/.exec(q)!;
    const frac = m[2] ?? "";
    const [mul, div] = SUFFIX[m[3] ?? ""]!;
    const num = BigInt(m[1]! + frac) * mul * (key === "cpu" ? 1000n : 1n);
    const den = 10n ** BigInt(frac.length) * div;
    return (num + den - 1n) / den;
  };
  const SAFE = BigInt(Number.MAX_SAFE_INTEGER);
  it("over the grid: an accepted annotation's reservation matches big-integer arithmetic; everything representable is accepted", () => {
    let accepted = 0;
    for (const k1 of keys)
      for (const k2 of keys)
        for (const s of strs)
          for (const m of members) {
            const raw =
              `[{"name":"a","minMember":${m},"minResource":{${JSON.stringify(k1)}:${JSON.stringify(s)}}},` +
              `{"name":"b","minMember":1,"minResource":{${JSON.stringify(k2)}:${JSON.stringify(s)}}}]`;
            const want = new Map<string, bigint>([["pods", BigInt(m) + 1n]]);
            const canon = (k: string) => (k === "cpu" ? "vcore" : k);
            const a = BigInt(m) * exact(k1, s);
            const b = exact(k2, s);
            want.set(canon(k1), (want.get(canon(k1)) ?? 0n) + a);
            want.set(canon(k2), (want.get(canon(k2)) ?? 0n) + b);
            const representable = k1 !== "pods" && k2 !== "pods" && a <= SAFE && b <= SAFE && [...want.values()].every((v) => v <= SAFE);
            const r = parseTaskGroups(raw);
            expect(r.ok, raw).toBe(representable);
            if (!r.ok) continue;
            accepted++;
            const got = gangReservation(r.taskGroups);
            for (const [key, v] of want) expect(BigInt(got[key] ?? 0), `${key} of ${raw}`).toBe(v);
          }
    expect(accepted).toBe(358); // of 1100: the rest hold an explicit `pods` or exceed 2^53
  });
});
