import { describe, expect, it } from "vitest";
import type { HoldReasonInfo, PreemptionVictimInfo } from "../../../src/scheduler/rest/api-types.js";
import { holdWords, overTypes } from "../../../ui/src/hold.js";
import { victimInfo } from "./fixtures.js";

const GI = 1024 ** 3;
const base = { state: "Skipped" as const, message: "" };

describe("hold reasons in plain words", () => {
  it("queue max: the queue, the exceeded type with used of max, what the pod needs and what frees it", () => {
    const h: HoldReasonInfo = {
      ...base,
      kind: "queueMax",
      queuePath: "root.analytics",
      max: { vcore: 2000, memory: 8 * GI },
      used: { vcore: 2000, memory: 2 * GI },
      ask: { vcore: 1000, memory: GI },
    };
    const w = holdWords(h);
    expect(w.kind).toBe("queue max");
    expect(w.reason).toBe("root.analytics is at its max: cpu 2 of 2 cores used; this pod needs 1 core");
    expect(w.unblock).toBe("Pods in root.analytics finishing and freeing 1 core, or a higher max for root.analytics.");
  });

  it("a user's resource limit names the user and the queue", () => {
    const h: HoldReasonInfo = {
      ...base,
      kind: "limit",
      hold: {
        kind: "user",
        name: "alice",
        queuePath: "root.limited",
        wildcard: false,
        limit: { type: "resources", max: { vcore: 1000 }, used: { vcore: 1000, memory: GI }, ask: { vcore: 1000, memory: GI } },
      },
    };
    const w = holdWords(h);
    expect(w.kind).toBe("user limit");
    expect(w.reason).toBe("alice's limit on root.limited: cpu 1 of 1 core used; this pod needs 1 core");
    expect(w.unblock).toContain("alice's other pods under root.limited finishing and freeing 1 core");
  });

  it("memory over a group's wildcard limit, and an applications limit", () => {
    const mem: HoldReasonInfo = {
      ...base,
      kind: "limit",
      hold: {
        kind: "group",
        name: "*",
        queuePath: "root",
        wildcard: true,
        limit: { type: "resources", max: { memory: 4 * GI }, used: { memory: 3.5 * GI }, ask: { memory: GI } },
      },
    };
    expect(holdWords(mem).reason).toBe(
      "the shared limit of users in no limited group on root: memory 3.5 of 4 Gi used; this pod needs 1 Gi of memory",
    );
    const apps: HoldReasonInfo = {
      ...base,
      kind: "limit",
      hold: { kind: "user", name: "bob", queuePath: "root.a", wildcard: true, limit: { type: "applications", max: 2, running: 2 } },
    };
    expect(holdWords(apps).reason).toBe("bob's limit (the limit for every user without their own) on root.a: 2 of 2 running applications");
  });

  it("node and cluster holds", () => {
    expect(holdWords({ state: "Failed", message: "", kind: "noNodeFits", ask: { vcore: 6000 }, nodes: 4 }).reason).toBe(
      "No node has cpu 6 cores free (4 nodes)",
    );
    expect(
      holdWords({
        state: "Failed",
        message: "",
        kind: "clusterCapacity",
        capacity: { vcore: 8000 },
        used: { vcore: 3000 },
        ask: { vcore: 6000 },
      }).reason,
    ).toBe("The cluster is full: cpu 3 of 8 cores used; this pod needs 6 cores");
    expect(holdWords({ state: "Skipped", message: "", kind: "queueMaxApplications", queuePath: "root.x", maxApplications: 1 }).reason).toBe(
      "root.x already runs its maximum of 1 application; this application waits to start",
    );
    expect(holdWords(undefined).kind).toBe("none");
  });

  it("a preemption under way: victims per queue and node, the guarantee it is for, how many are gone, what unblocks it", () => {
    const victim = (key: string, pod: string | undefined, released: boolean): PreemptionVictimInfo =>
      victimInfo({
        allocationKey: key,
        nodeId: "n3",
        resource: { vcore: 1000, memory: GI / 4 },
        released,
        queueRule: {
          rule: "victim-queue-over-guarantee",
          queue: "root.b",
          guaranteed: { vcore: 4000 },
          allocated: { vcore: 8000, memory: 2 * GI },
        },
        helps: { rule: "frees-node", nodeId: "n3" },
        ...(pod ? { namespace: "batch", pod } : {}),
      });
    const h = (victims: PreemptionVictimInfo[]): HoldReasonInfo => ({
      state: "Failed",
      message: "",
      kind: "preemption",
      nodeId: "n3",
      ask: { vcore: 2000, memory: GI / 2 },
      available: { vcore: 0, memory: 8 * GI },
      queuePath: "root.a",
      guarantee: { queuePath: "root.a", guaranteed: { vcore: 4000 }, allocated: { vcore: 1000 } },
      fence: "root",
      since: 0,
      victims,
    });
    const w = holdWords(h([victim("k1", "b-7", false), victim("k2", "b-6", false)]));
    expect(w.kind).toBe("preemption");
    expect(w.reason).toBe(
      "Preempting 2 pods on node n3 in root.b (over its guarantee of 4 cores, using 8 cores) to get root.a its guarantee of 4 cores " +
        "(using 1 core now); waiting for them to go. Node n3 is reserved for this pod (free now: memory 8 Gi; it needs cpu 2 cores, memory 512 Mi).",
    );
    expect(w.unblock).toMatch(/^The victims' pods terminating \(2 pods left\); it then runs on n3\. An eviction refused/);
    expect(w.victims).toEqual([
      {
        key: "b/k1",
        pod: "batch/b-7",
        applicationId: "b",
        queue: "root.b",
        node: "n3",
        resources: "cpu 1 core, memory 256 Mi",
        released: false,
        state: "being evicted",
        rule: "root.b over its guarantee of 4 cores, using 8 cores; priority 0, not above 0",
      },
      expect.objectContaining({ pod: "batch/b-6" }),
    ]);
    const half = holdWords(h([victim("k1", undefined, true), victim("k2", "b-6", false)]));
    expect(half.reason).toContain("waiting for them to go (1 of 2 gone)");
    expect(half.victims![0]).toMatchObject({ pod: "allocation k1", state: "gone", released: true });
    expect(holdWords(h([victim("k1", undefined, true)])).unblock).toBe("Nothing: it is placed on n3 in the next scheduling cycle.");
  });

  it("a gang still reserving: placeholders placed per task group", () => {
    const w = holdWords({
      state: "Skipped",
      message: "",
      kind: "gangReservation",
      appId: "spark-1",
      allocated: { vcore: 1000 },
      reservation: { vcore: 5000 },
      taskGroups: [
        { taskGroupName: "driver", minMember: 1, allocated: 1 },
        { taskGroupName: "executor", minMember: 4, allocated: 0 },
      ],
    });
    expect(w.reason).toBe(
      "Its gang (application spark-1) is still reserving: placeholders placed per task group: driver 1 of 1, executor 0 of 4; they hold cpu 1 core of cpu 5 cores",
    );
  });

  it("only the types that go over count", () => {
    expect(overTypes({ vcore: 2000, memory: 8 * GI }, { vcore: 1000, memory: 8 * GI }, { vcore: 1000, memory: GI })).toEqual(["memory"]);
    expect(overTypes({ vcore: 2000 }, { vcore: 1000 }, { vcore: 1000, memory: GI })).toEqual([]);
  });
});
