import { describe, expect, it } from "vitest";
import type { HoldReasonInfo } from "../../../src/scheduler/rest/api-types.js";
import { holdWords, overTypes } from "../../../ui/src/hold.js";

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

  it("only the types that go over count", () => {
    expect(overTypes({ vcore: 2000, memory: 8 * GI }, { vcore: 1000, memory: 8 * GI }, { vcore: 1000, memory: GI })).toEqual(["memory"]);
    expect(overTypes({ vcore: 2000 }, { vcore: 1000 }, { vcore: 1000, memory: GI })).toEqual([]);
  });
});
