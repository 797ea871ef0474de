/**
 * `limitsOf`: the maxima that apply to an application, with the usage each is measured against (over-limit reports).
 */
import { describe, expect, it } from "vitest";
import { SchedulerCore } from "../../../src/scheduler/core/scheduler.js";

const CFG = `partitions:
  - name: default
    queues:
      - name: root
        submitacl: "*"
        limits:
          - limit: devs
            groups: [devs]
            maxresources: {vcore: 10}
        queues:
          - name: team
            resources: {max: {vcore: 6, memory: 8Gi}}
            queues:
              - name: batch
                limits:
                  - limit: everyone
                    users: ["*"]
                    maxresources: {vcore: 2}
`;

describe("SchedulerCore.limitsOf", () => {
  it("queue maxima leaf first, then user (wildcard resolved to the user) and group limits root first, with usage after recorded allocations", () => {
    const core = new SchedulerCore(() => 0, CFG);
    core.updateNode([{ nodeID: "n1", action: "CREATE", schedulableResource: { vcore: 16_000, memory: 64 * 2 ** 30 } }]);
    core.updateApplication({ new: [{ applicationID: "a", queueName: "root.team.batch", ugi: { user: "alice", groups: ["devs"] } }] });
    expect(core.limitsOf("a")).toEqual([
      { kind: "queue", name: "root.team", path: "root.team", wildcard: false, max: { vcore: 6000, memory: 8 * 2 ** 30 }, used: {} },
      { kind: "group", name: "devs", path: "root", wildcard: false, max: { vcore: 10_000 }, used: {} },
      { kind: "user", name: "alice", path: "root.team.batch", wildcard: true, max: { vcore: 2000 }, used: {} },
    ]);
    // reading creates no usage record (the REST usage listing stays empty)
    expect([...core.partitions.get("default")!.limits.snapshot("users").keys()]).toEqual([]);
    // an allocation the resource manager already made is recorded whatever the limits say
    core.updateAllocation({ allocations: [{ allocationKey: "k1", applicationID: "a", resourcePerAlloc: { vcore: 3000 }, nodeID: "n1" }] });
    const after = core.limitsOf("a");
    expect(after.map((l) => l.used.vcore)).toEqual([3000, 3000, 3000]);
    expect(core.limitsOf("nope")).toEqual([]);
  });
});
