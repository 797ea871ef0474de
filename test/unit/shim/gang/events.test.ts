import { describe, expect, it } from "vitest";
import { gangEvents, reservationTimeoutPodStatus } from "../../../../src/scheduler/shim/gang/events.js";
import { gangSpecOf } from "../../../../src/scheduler/shim/gang/membership.js";

describe("gang events", () => {
  it("a refused task-groups annotation: a Warning naming the annotation, the group, the field and what was wrong", () => {
    // apache/yunikorn-k8shim pkg/cache/utils_test.go testGroupErr6
    const { problem } = gangSpecOf({
      metadata: {
        annotations: {
          "yunikorn.apache.org/task-groups": '[{"name": "test-group-err-6","minMember": -100,"minResource": {"cpu": 2,"memory": "1Gi"}}]',
        },
      },
    });
    expect(gangEvents.taskGroupsError(problem!)).toEqual({
      type: "Warning",
      reason: "GangScheduling",
      action: "TaskGroupsError",
      message:
        'unable to get taskGroups for pod, reason: yunikorn.apache.org/task-groups: task group 0 ("test-group-err-6") ' +
        "minMember: cannot be negative, got -100",
    });
  });
  it.each([
    [
      gangEvents.taskGroupMatch("spark-executor"),
      "Normal",
      "TaskGroupMatch",
      "Pod belongs to the taskGroup spark-executor, it will be scheduled as a gang member",
    ],
    [gangEvents.creatingPlaceholders("app-1"), "Normal", "CreatingPlaceholders", "Application app-1 creating placeholders"],
    [
      gangEvents.placeholderTimeoutExceeded("app-1"),
      "Warning",
      "PlaceholderTimeout",
      "Application app-1 placeholder timeout exceeded, not creating placeholders",
    ],
    [gangEvents.placeholderCreateFailed("app-1"), "Warning", "PlaceholderCreateFailed", "Application app-1 fall back to normal scheduling"],
    [gangEvents.placeholderAllocated("app-1"), "Normal", "PlaceholderAllocated", "Application app-1 placeholder has been allocated."],
    [
      gangEvents.reservationComplete("app-1"),
      "Normal",
      "GangReservationComplete",
      "Application app-1 all placeholders are allocated. Transitioning to running state.",
    ],
    [gangEvents.placeholderTimedOut("app-1"), "Warning", "PlaceholderTimeOut", "Application app-1 placeholder has been timed out"],
    [gangEvents.resumingAsNonGang("app-1"), "Warning", "GangSchedulingFailed", "Application app-1 resuming as non-gang application (SOFT)"],
  ])("%# %s", (e, type, action, message) => {
    expect(e).toEqual({ type, reason: "GangScheduling", action, message });
  });
});

describe("reservationTimeoutPodStatus", () => {
  it("a Hard timeout fails the unscheduled pods with upstream's reason and message", () => {
    expect(reservationTimeoutPodStatus("ResourceReservationTimeout")).toEqual({
      phase: "Failed",
      reason: "ResourceReservationTimeout",
      message: "Scheduling has timed out due to insufficient resources",
    });
  });
  it("other failures leave the pod status alone", () => {
    expect(reservationTimeoutPodStatus("ApplicationRejected: queue root.x does not exist")).toBeUndefined();
  });
});
