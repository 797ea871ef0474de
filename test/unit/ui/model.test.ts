import { describe, expect, it } from "vitest";
import type { LimitInfo, PendingList, PendingPod, QueueInfo, UsageInfo } from "../../../src/scheduler/rest/api-types.js";
import {
  fairOrder,
  fairShare,
  limitFor,
  matches,
  placeholdersPlaced,
  podOf,
  preemptionsOf,
  preemptorsByQueue,
  usageRows,
} from "../../../ui/src/model.js";
import { victimInfo } from "./fixtures.js";

const queue = (name: string, o: Partial<QueueInfo> = {}): QueueInfo => ({
  queuename: name,
  status: "Active",
  partition: "",
  isLeaf: true,
  isManaged: true,
  parent: "root",
  childNames: [],
  maxRunningApps: 0,
  runningApps: 0,
  sortingPolicy: "fifo",
  prioritySorting: true,
  ...o,
});

describe("dashboard view logic", () => {
  it("fair share: used over guaranteed, else over max; siblings least served first", () => {
    const a = queue("root.a", { guaranteedResource: { vcore: 4000 }, allocatedResource: { vcore: 3000 } });
    const b = queue("root.b", { guaranteedResource: { vcore: 4000, memory: 100 }, allocatedResource: { vcore: 1000, memory: 50 } });
    const c = queue("root.c", { maxResource: { vcore: 2000 }, allocatedResource: { vcore: 2000 } });
    const d = queue("root.d");
    expect(fairShare(a)).toBe(0.75);
    expect(fairShare(b)).toBe(0.5);
    expect(fairShare(c)).toBe(1);
    expect(fairShare(d)).toBe(0);
    expect(fairOrder([c, a, d, b]).map((q) => q.queuename)).toEqual(["root.d", "root.b", "root.a", "root.c"]);
  });

  it("usage rows: one per queue level, with the named limit, else the wildcard", () => {
    const limits: LimitInfo[] = [
      { queuePath: "root.a", kind: "user", name: "*", maxResources: { vcore: 2000 }, maxApplications: 0 },
      { queuePath: "root.a", kind: "user", name: "alice", maxResources: { vcore: 1000 }, maxApplications: 0 },
      { queuePath: "root", kind: "group", name: "dev", maxApplications: 3 },
    ];
    const users: UsageInfo[] = [
      {
        userName: "alice",
        queues: {
          queuePath: "root",
          resourceUsage: { vcore: 1000 },
          runningApplications: ["x"],
          children: [{ queuePath: "root.a", resourceUsage: { vcore: 1000 }, runningApplications: ["x"] }],
        },
      },
      { userName: "bob", queues: { queuePath: "root", children: [{ queuePath: "root.a", resourceUsage: { vcore: 500 } }] } },
    ];
    const rows = usageRows("user", users, limits);
    expect(rows.map((r) => `${r.name}@${r.queuePath}:${r.limit?.name ?? "-"}`)).toEqual([
      "alice@root:-",
      "alice@root.a:alice",
      "bob@root:-",
      "bob@root.a:*",
    ]);
    expect(rows[1]).toMatchObject({ usage: { vcore: 1000 }, running: ["x"] });
    expect(limitFor(limits, "group", "dev", "root")?.maxApplications).toBe(3);
    expect(limitFor(limits, "group", "ops", "root")).toBeUndefined();
  });

  it("search over waiting pods: every term must match pod, application, user, namespace or queue", () => {
    const p: PendingPod = {
      namespace: "batch",
      pod: "cap-3",
      allocationKey: "uid-1",
      applicationId: "capped",
      partition: "default",
      queue: "root.capped",
      user: "bob",
      groups: [],
      applicationState: "Running",
      resource: {},
      since: 0,
    };
    expect(matches(p, "bob")).toBe(true);
    expect(matches(p, "batch/cap")).toBe(true);
    expect(matches(p, "bob root.capped")).toBe(true);
    expect(matches(p, "alice")).toBe(false);
    expect(matches(p, "bob alice")).toBe(false);
  });

  it("the pod of an allocation from the shim's tags, else its key", () => {
    expect(
      podOf({ allocationKey: "k", allocationTags: { "kubernetes.io/meta/namespace": "batch", "kubernetes.io/meta/podName": "p-1" } }),
    ).toBe("batch/p-1");
    expect(podOf({ allocationKey: "k" })).toBe("k");
  });
  it("preemptions seen from an application and per queue; placeholders placed per task group", () => {
    const pod = (o: Partial<PendingPod>): PendingPod => ({
      namespace: "ns",
      pod: "p",
      allocationKey: "k",
      applicationId: "a",
      partition: "default",
      queue: "root.a",
      user: "u",
      groups: [],
      applicationState: "Running",
      resource: { vcore: 1000 },
      since: 0,
      ...o,
    });
    const preemptor = pod({
      allocationKey: "a-0",
      pod: "a-0",
      hold: {
        state: "Failed",
        message: "",
        kind: "preemption",
        nodeId: "n1",
        ask: { vcore: 2000 },
        available: {},
        queuePath: "root.a",
        fence: "root",
        since: 0,
        victims: [victimInfo({ allocationKey: "b-1" }), victimInfo({ allocationKey: "b-2", released: true })],
      },
    });
    const list: PendingList = {
      partition: "default",
      time: 0,
      pending: [preemptor, pod({ applicationId: "b", allocationKey: "b-9", queue: "root.b" })],
    };
    const b = preemptionsOf(list, "b");
    expect([...b.victimOf.keys()]).toEqual(["b-1"]);
    expect(b.victimOf.get("b-1")!.pod).toBe("a-0");
    expect([...b.waiting.keys()]).toEqual(["b-9"]);
    expect(preemptionsOf(list, "a").victimOf.size).toBe(0);
    expect([...preemptorsByQueue(list)]).toEqual([["root.a", 1]]);
    expect([
      ...placeholdersPlaced([
        { allocationKey: "1", placeholder: true, taskGroupName: "exec" },
        { allocationKey: "2", placeholder: true, taskGroupName: "exec" },
        { allocationKey: "3", taskGroupName: "exec" },
      ]),
    ]).toEqual([["exec", 2]]);
  });
});
