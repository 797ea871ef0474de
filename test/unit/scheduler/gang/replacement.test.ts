import { describe, expect, it } from "vitest";
import { type PlaceholderAllocation, matchPlaceholder } from "../../../../src/scheduler/core/gang/replacement.js";
import { placeholderResource } from "../../../../src/scheduler/shim/gang/reservation.js";
import { parseTaskGroups } from "../../../../src/scheduler/shim/gang/task-groups.js";
import { podResource } from "../../../../src/scheduler/shim/pod-resources.js";

// Spark executors: the group's placeholder resource from the annotation, the real executor's from its pod spec.
const parsed = parseTaskGroups(
  '[{"name":"spark-driver","minMember":1,"minResource":{"cpu":"1","memory":"2432Mi"}},' +
    '{"name":"spark-executor","minMember":4,"minResource":{"cpu":"2","memory":"4505Mi"}}]',
);
const [DRIVER_TG, EXEC_TG] = parsed.ok ? parsed.taskGroups : [];
const executor = (cpu: string, memory: string) =>
  podResource({ spec: { containers: [{ name: "spark-kubernetes-executor", resources: { requests: { cpu, memory } } }] } });
const EXEC_PH = placeholderResource(EXEC_TG!);

const placeholders: PlaceholderAllocation[] = [
  { allocationKey: "ph-driver", taskGroupName: "spark-driver", nodeID: "n1", resource: placeholderResource(DRIVER_TG!) },
  { allocationKey: "ph-exec-1", taskGroupName: "spark-executor", nodeID: "n1", resource: EXEC_PH, released: true },
  { allocationKey: "ph-exec-2", taskGroupName: "spark-executor", nodeID: "n2", resource: EXEC_PH },
  { allocationKey: "ph-exec-3", taskGroupName: "spark-executor", nodeID: "n3", resource: EXEC_PH, preempted: true },
  { allocationKey: "ph-exec-4", taskGroupName: "spark-executor", nodeID: "n3", resource: EXEC_PH },
];
const ask = (over: object = {}) => ({
  allocationKey: "exec-1",
  taskGroupName: "spark-executor",
  resource: executor("2", "4505Mi"),
  ...over,
});
const all = () => true;

describe("matchPlaceholder", () => {
  it("same group, same size: the first usable placeholder is replaced on its node (released and preempted ones skipped)", () => {
    expect(matchPlaceholder({ applicationId: "spark-1", ask: ask(), placeholders, nodeAccepts: all })).toEqual({
      kind: "replace",
      placeholder: "ph-exec-2",
      nodeID: "n2",
      tooLarge: [],
    });
  });
  it("a smaller real pod also takes the placeholder (the difference is given back on the swap)", () => {
    expect(
      matchPlaceholder({ applicationId: "spark-1", ask: ask({ resource: executor("1500m", "4Gi") }), placeholders, nodeAccepts: all }),
    ).toMatchObject({ kind: "replace", placeholder: "ph-exec-2" });
  });
  it("the first fitting placeholder's node refuses the pod: the next one whose node accepts it", () => {
    expect(matchPlaceholder({ applicationId: "spark-1", ask: ask(), placeholders, nodeAccepts: (n) => n !== "n2" })).toMatchObject({
      kind: "replace",
      placeholder: "ph-exec-4",
      nodeID: "n3",
    });
  });
  it("no fitting placeholder's node accepts the pod: give up the first fitting one for an allocation elsewhere", () => {
    expect(matchPlaceholder({ applicationId: "spark-1", ask: ask(), placeholders, nodeAccepts: () => false })).toEqual({
      kind: "elsewhere",
      placeholder: "ph-exec-2",
      tooLarge: [],
    });
  });
  it("a real pod larger than its placeholders (1 MiB more memory): every usable placeholder of the group is released with an event", () => {
    const r = matchPlaceholder({
      applicationId: "spark-1",
      ask: ask({ resource: executor("2", "4506Mi") }),
      placeholders,
      nodeAccepts: all,
    });
    // ph-exec-1 and ph-exec-3 are still on their way out (released, preempted): the pod waits for them (canReplace)
    expect(r).toEqual({
      kind: "wait",
      tooLarge: [
        {
          placeholder: "ph-exec-2",
          terminationType: "TIMEOUT",
          message:
            `Task group 'spark-executor' in application 'spark-1': allocation resources ` +
            `'map[memory:${4506 * 2 ** 20} pods:1 vcore:2000]' are not matching placeholder ` +
            `'map[memory:${4505 * 2 ** 20} pods:1 vcore:2000]' allocation with ID 'ph-exec-2'`,
        },
        { placeholder: "ph-exec-4", terminationType: "TIMEOUT", message: expect.stringContaining("allocation with ID 'ph-exec-4'") },
      ],
    });
  });
  it("a resource the placeholder does not have at all (a GPU) makes the pod too large", () => {
    const gpu = podResource({ spec: { containers: [{ resources: { requests: { cpu: "2", memory: "4505Mi", "nvidia.com/gpu": "1" } } }] } });
    expect(matchPlaceholder({ applicationId: "spark-1", ask: ask({ resource: gpu }), placeholders, nodeAccepts: all })).toMatchObject({
      kind: "wait",
      tooLarge: [{ placeholder: "ph-exec-2" }, { placeholder: "ph-exec-4" }],
    });
    // with none of the group on its way out, the pod is scheduled normally at once
    const usable = placeholders.filter((p) => !p.released && !p.preempted);
    expect(
      matchPlaceholder({ applicationId: "spark-1", ask: ask({ resource: gpu }), placeholders: usable, nodeAccepts: all }),
    ).toMatchObject({
      kind: "noPlaceholder",
      tooLarge: [{ placeholder: "ph-exec-2" }, { placeholder: "ph-exec-4" }],
    });
  });
  it("the group's placeholders left are being preempted: the pod waits for them to go (partition_test.go TestPreemptedPlaceholderSkip)", () => {
    const leaving = placeholders.filter((p) => p.allocationKey !== "ph-exec-2" && p.allocationKey !== "ph-exec-4");
    expect(matchPlaceholder({ applicationId: "spark-1", ask: ask(), placeholders: leaving, nodeAccepts: all })).toEqual({
      kind: "wait",
      tooLarge: [],
    });
    // a preempted one of another group does not hold this pod
    const other = [{ ...placeholders[0]!, preempted: true }];
    expect(matchPlaceholder({ applicationId: "spark-1", ask: ask(), placeholders: other, nodeAccepts: all })).toEqual({
      kind: "noPlaceholder",
      tooLarge: [],
    });
  });
  it.each([
    [
      "a group with no placeholder left (more pods than minMember)",
      { taskGroupName: "spark-driver" },
      [placeholders[1]!],
      { kind: "noPlaceholder", tooLarge: [] },
    ],
    [
      "a group the application has no placeholder for",
      { taskGroupName: "spark-shuffle" },
      placeholders,
      { kind: "noPlaceholder", tooLarge: [] },
    ],
    ["a pod without a task group", { taskGroupName: undefined }, placeholders, { kind: "notApplicable" }],
    ["a placeholder ask", { placeholder: true }, placeholders, { kind: "notApplicable" }],
    ["an ask already allocated", { allocated: true }, placeholders, { kind: "notApplicable" }],
  ])("%s", (_, over, phs, want) => {
    expect(matchPlaceholder({ applicationId: "spark-1", ask: ask(over), placeholders: phs, nodeAccepts: all })).toEqual(want);
  });
});
