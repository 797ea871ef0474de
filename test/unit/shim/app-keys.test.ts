/**
 * The keying rule of core applications (namespace, user, application id) and the over-limit report, as pure functions.
 */
import { describe, expect, it } from "vitest";
import type { LimitUsage } from "../../../src/scheduler/core/scheduler.js";
import {
  type ApplicationKey,
  ApplicationKeys,
  MAX_DERIVED_ID_LENGTH,
  derivedApplicationId,
  resolveApplicationId,
} from "../../../src/scheduler/shim/app-keys.js";
import { exceededLimits, limitText, quantitiesText } from "../../../src/scheduler/shim/over-limit.js";
import { k8sQuantities } from "../../../src/scheduler/shim/pod-resources.js";

const k = (namespace: string, user: string, applicationId: string): ApplicationKey => ({ namespace, user, applicationId });

describe("resolveApplicationId: a pod never joins an application of another namespace or user", () => {
  it.each<{ name: string; held: [string, ApplicationKey][]; key: ApplicationKey; id: string; notJoined?: "namespace" | "user" }>([
    { name: "free id: the plain id", held: [], key: k("team-b", "bob", "spark-bob-1"), id: "spark-bob-1" },
    {
      name: "own id: joined",
      held: [["spark-bob-1", k("team-b", "bob", "spark-bob-1")]],
      key: k("team-b", "bob", "spark-bob-1"),
      id: "spark-bob-1",
    },
    {
      name: "same id from another namespace and user",
      held: [["spark-bob-1", k("team-b", "bob", "spark-bob-1")]],
      key: k("team-a", "alice", "spark-bob-1"),
      id: "spark-bob-1~team-a~alice",
      notJoined: "namespace",
    },
    {
      name: "another namespace's generated id",
      held: [["yunikorn-team-b-autogen", k("team-b", "bob", "yunikorn-team-b-autogen")]],
      key: k("team-a", "alice", "yunikorn-team-b-autogen"),
      id: "yunikorn-team-b-autogen~team-a~alice",
      notJoined: "namespace",
    },
    {
      name: "shared namespace, another user",
      held: [["yunikorn-shared-autogen", k("shared", "alice", "yunikorn-shared-autogen")]],
      key: k("shared", "bob", "yunikorn-shared-autogen"),
      id: "yunikorn-shared-autogen~shared~bob",
      notJoined: "user",
    },
    {
      name: "same user, another namespace",
      held: [["etl", k("ns1", "bob", "etl")]],
      key: k("ns2", "bob", "etl"),
      id: "etl~ns2~bob",
      notJoined: "namespace",
    },
    {
      name: "the derived id is held by someone who used it as a plain id: the next candidate",
      held: [
        ["x", k("team-b", "bob", "x")],
        ["x~team-c~bob", k("team-a", "alice", "x~team-c~bob")],
      ],
      key: k("team-c", "bob", "x"),
      id: "x~team-c~bob~2",
      notJoined: "namespace",
    },
    {
      name: "its own derived id: joined",
      held: [
        ["x", k("team-b", "bob", "x")],
        ["x~team-c~bob", k("team-c", "bob", "x")],
      ],
      key: k("team-c", "bob", "x"),
      id: "x~team-c~bob",
      notJoined: "namespace",
    },
  ])("$name", ({ held, key, id, notJoined }) => {
    const holders = new Map(held);
    expect(resolveApplicationId(key, (c) => holders.get(c))).toEqual(notJoined ? { id, notJoined } : { id });
  });

  it("derived ids stay within the length bound with a stable hash", () => {
    const long = k("ns", `system:serviceaccount:ns:${"s".repeat(250)}`, "app");
    const a = derivedApplicationId(long);
    expect(a.length).toBeLessThanOrEqual(MAX_DERIVED_ID_LENGTH);
    expect(a).toMatch(/^app~[0-9a-f]{16}$/);
    expect(derivedApplicationId(long)).toBe(a);
    expect(derivedApplicationId({ ...long, namespace: "other" })).not.toBe(a);
    expect(derivedApplicationId(long, 2)).toBe(`${a}~2`);
  });
});

describe("ApplicationKeys: live mapping", () => {
  it("the first key keeps the plain id; others get their own id until the owner's application is gone", () => {
    const keys = new ApplicationKeys();
    const bob = k("team-b", "bob", "x");
    const alice = k("team-a", "alice", "x");
    expect(keys.acquire(bob)).toEqual({ id: "x" });
    expect(keys.acquire(bob)).toEqual({ id: "x" });
    expect(keys.acquire(alice)).toEqual({ id: "x~team-a~alice", notJoined: "namespace" });
    expect(keys.keyOf("x")).toEqual(bob);
    keys.release("x");
    keys.release("x", true); // the core still holds bob's application (completing)
    expect(keys.keyOf("x")).toEqual(bob);
    // alice's next pod joins her own application, even though bob's id may soon be free
    expect(keys.acquire(alice)).toEqual({ id: "x~team-a~alice", notJoined: "namespace" });
    keys.forgetIfUnused("x", false);
    expect(keys.keyOf("x")).toBeUndefined();
    expect(keys.acquire(alice)).toEqual({ id: "x~team-a~alice" });
    for (let i = 0; i < 3; i++) keys.release("x~team-a~alice");
    expect(keys.size).toBe(0);
    // with everything gone, the id goes to whoever comes first
    expect(keys.acquire(alice)).toEqual({ id: "x" });
  });
});

describe("over-limit report", () => {
  const user: LimitUsage = {
    kind: "user",
    name: "alice",
    path: "root",
    wildcard: false,
    max: { vcore: 1000 },
    used: { vcore: 4150, memory: 3 * 2 ** 30 },
  };
  const queue: LimitUsage = {
    kind: "queue",
    name: "root.a",
    path: "root.a",
    wildcard: false,
    max: { vcore: 8000, memory: 2 ** 30 },
    used: { vcore: 4150, memory: 3 * 2 ** 30 },
  };
  const group: LimitUsage = { kind: "group", name: "devs", path: "root", wildcard: false, max: { vcore: 10_000 }, used: { vcore: 4150 } };

  it("an allocation exceeds the limits whose usage is above the maximum for a type it uses", () => {
    expect(exceededLimits([user, queue, group], { vcore: 1150, pods: 1 })).toEqual([user]);
    expect(exceededLimits([user, queue, group], { vcore: 1150, memory: 2 ** 30, pods: 1 })).toEqual([user, queue]);
    // a pod without memory requests does not count against the memory maximum it did not take usage over
    expect(exceededLimits([queue], { vcore: 100 })).toEqual([]);
    expect(exceededLimits([{ ...user, used: { vcore: 1000 } }], { vcore: 1000 })).toEqual([]);
  });

  it("speaks Kubernetes quantities", () => {
    expect(k8sQuantities({ vcore: 4150, memory: 1536 * 2 ** 20, pods: 3, "nvidia.com/gpu": 1 })).toEqual({
      cpu: "4150m",
      memory: "1536Mi",
      "nvidia.com/gpu": "1",
      pods: "3",
    });
    expect(Object.keys(k8sQuantities({ pods: 1, memory: 1, vcore: 1, "a.io/x": 1 }))).toEqual(["cpu", "memory", "a.io/x", "pods"]);
    expect(k8sQuantities({ vcore: 2000, memory: 2 * 2 ** 30 })).toEqual({ cpu: "2", memory: "2Gi" });
    expect(k8sQuantities({ memory: 1000 })).toEqual({ memory: "1000" });
    expect(quantitiesText({ vcore: 1150, memory: 2 ** 30, pods: 1 })).toBe("cpu 1150m, memory 1Gi, pods 1");
    expect(limitText(user, { vcore: 1150, pods: 1 })).toBe("user alice limit on root: cpu 1 allowed, cpu 4150m used");
    expect(limitText(queue, { vcore: 1150, memory: 2 ** 30 })).toBe("queue root.a maximum: memory 1Gi allowed, memory 3Gi used");
  });
});
