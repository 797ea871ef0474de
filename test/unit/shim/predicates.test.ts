/**
 * Node predicates (nodeSelector, required node affinity, taints/tolerations) with kube-scheduler's semantics, and
 * their use by the shim: the core only places a pod on a node the predicates accept.
 */
import { describe, expect, it } from "vitest";
import { SchedulerCore } from "../../../src/scheduler/core/scheduler.js";
import { ShimContext } from "../../../src/scheduler/shim/context.js";
import { type NodeView, nodeRejection, tolerates } from "../../../src/scheduler/shim/predicates.js";
import type { PodObject } from "../../../src/scheduler/shim/translate.js";

const node = (name: string, labels: Record<string, string> = {}, taints: NodeView["taints"] = []): NodeView => ({ name, labels, taints });

describe("nodeRejection", () => {
  it("nodeSelector: every pair must match", () => {
    expect(nodeRejection({ nodeSelector: { disk: "ssd" } }, node("n1", { disk: "ssd", zone: "a" }))).toBeUndefined();
    expect(nodeRejection({ nodeSelector: { disk: "ssd", zone: "b" } }, node("n1", { disk: "ssd", zone: "a" }))).toBe(
      "node(s) didn't match node selector",
    );
    expect(nodeRejection({ nodeSelector: { disk: "ssd" } }, node("n1"))).toBe("node(s) didn't match node selector");
  });

  it("required node affinity: terms are ORed, expressions ANDed, all operators, matchFields on metadata.name", () => {
    const aff = (terms: unknown[]) => ({
      affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms as never } } },
    });
    const gpu = node("gpu-1", { accel: "a100", cores: "64" });
    expect(nodeRejection(aff([{ matchExpressions: [{ key: "accel", operator: "In", values: ["a100", "h100"] }] }]), gpu)).toBeUndefined();
    expect(nodeRejection(aff([{ matchExpressions: [{ key: "accel", operator: "NotIn", values: ["a100"] }] }]), gpu)).toBe(
      "node(s) didn't match node affinity",
    );
    expect(
      nodeRejection(
        aff([
          {
            matchExpressions: [
              { key: "accel", operator: "Exists" },
              { key: "spot", operator: "DoesNotExist" },
            ],
          },
        ]),
        gpu,
      ),
    ).toBeUndefined();
    expect(nodeRejection(aff([{ matchExpressions: [{ key: "cores", operator: "Gt", values: ["32"] }] }]), gpu)).toBeUndefined();
    expect(nodeRejection(aff([{ matchExpressions: [{ key: "cores", operator: "Lt", values: ["32"] }] }]), gpu)).toBe(
      "node(s) didn't match node affinity",
    );
    // second term matches
    expect(
      nodeRejection(
        aff([
          { matchExpressions: [{ key: "accel", operator: "In", values: ["t4"] }] },
          { matchFields: [{ key: "metadata.name", operator: "In", values: ["gpu-1"] }] },
        ]),
        gpu,
      ),
    ).toBeUndefined();
    // an empty term selects no node
    expect(nodeRejection(aff([{}]), gpu)).toBe("node(s) didn't match node affinity");
  });

  it("taints: NoSchedule and NoExecute need a toleration, PreferNoSchedule does not", () => {
    const tainted = node("n1", {}, [{ key: "dedicated", value: "spark", effect: "NoSchedule" }]);
    expect(nodeRejection({}, tainted)).toBe("node(s) had taint {dedicated: spark}, that the pod didn't tolerate");
    expect(
      nodeRejection({ tolerations: [{ key: "dedicated", operator: "Equal", value: "spark", effect: "NoSchedule" }] }, tainted),
    ).toBeUndefined();
    expect(nodeRejection({ tolerations: [{ key: "dedicated", operator: "Exists" }] }, tainted)).toBeUndefined();
    expect(nodeRejection({ tolerations: [{ operator: "Exists" }] }, tainted)).toBeUndefined();
    expect(nodeRejection({ tolerations: [{ key: "dedicated", value: "ml" }] }, tainted)).toBeDefined();
    expect(nodeRejection({}, node("n2", {}, [{ key: "x", effect: "PreferNoSchedule" }]))).toBeUndefined();
    expect(nodeRejection({}, node("n3", {}, [{ key: "node.kubernetes.io/not-ready", effect: "NoExecute" }]))).toBeDefined();
  });

  it("tolerates: effect must match when the toleration names one", () => {
    expect(tolerates({ key: "k", operator: "Exists", effect: "NoExecute" }, { key: "k", effect: "NoSchedule" })).toBe(false);
    expect(tolerates({ key: "k", value: "v" }, { key: "k", value: "v", effect: "NoSchedule" })).toBe(true);
  });
});

describe("the shim places pods only where the predicates allow", () => {
  const nodeObj = (name: string, labels: Record<string, string> = {}, taints: NodeView["taints"] = []) => ({
    metadata: { name, labels },
    spec: { taints },
    status: { allocatable: { cpu: "8", memory: "16Gi", pods: "110" } },
  });
  const pod = (name: string, spec: Record<string, unknown> = {}): PodObject => ({
    metadata: { name, namespace: "ml", uid: `uid-${name}`, labels: { applicationId: "job" }, creationTimestamp: "2026-01-05T09:00:00Z" },
    spec: {
      schedulerName: "yunikorn",
      containers: [{ name: "c", resources: { requests: { cpu: "1", memory: "1Gi" } } }],
      ...spec,
    } as PodObject["spec"],
    status: { phase: "Pending" },
  });

  it("nodeSelector and taints steer the core's choice; an unmatched pod is held with the reason", () => {
    const ctx = new ShimContext(new SchedulerCore(() => 0));
    ctx.syncNode(nodeObj("plain"));
    ctx.syncNode(nodeObj("ssd", { disk: "ssd" }));
    ctx.syncNode(nodeObj("gpu", { accel: "a100" }, [{ key: "gpu", effect: "NoSchedule" }]));
    ctx.syncPod(pod("wants-ssd", { nodeSelector: { disk: "ssd" } }));
    ctx.syncPod(pod("wants-gpu", { nodeSelector: { accel: "a100" }, tolerations: [{ key: "gpu", operator: "Exists" }] }));
    ctx.syncPod(pod("wants-tpu", { nodeSelector: { accel: "tpu" } }));
    for (let i = 0; i < 6; i++) ctx.syncPod(pod(`any-${i}`));
    const binds = ctx.schedule().filter((a) => a.kind === "bind") as { pod: { name: string }; node: string }[];
    const where = Object.fromEntries(binds.map((b) => [b.pod.name, b.node]));
    expect(where["wants-ssd"]).toBe("ssd");
    expect(where["wants-gpu"]).toBe("gpu");
    expect(where["wants-tpu"]).toBeUndefined();
    for (let i = 0; i < 6; i++) expect(where[`any-${i}`]).not.toBe("gpu");
    const held = ctx.holdReasons().find((a) => a.kind === "condition");
    expect(held).toMatchObject({ kind: "condition", reason: "Unschedulable", pod: { name: "wants-tpu" } });
    expect((held as { message: string }).message).toContain("node selector");
  });

  it("plugin mode: when kube-scheduler rules out the allocated node, the allocation moves to a candidate with room", () => {
    const core = new SchedulerCore(() => 0);
    const ctx = new ShimContext(core, { mode: "plugin" });
    ctx.syncNode(nodeObj("n1"));
    ctx.syncNode(nodeObj("n2"));
    const q = pod("q");
    ctx.syncPod(q);
    ctx.schedule();
    const allocated = ctx.tasks.get("uid-q")!.node!;
    const elsewhere = allocated === "n1" ? "n2" : "n1";
    const r = ctx.filter(q, [elsewhere]).result;
    expect(r.NodeNames).toEqual([elsewhere]);
    expect(ctx.tasks.get("uid-q")).toMatchObject({ state: "InProgress", node: elsewhere });
    const part = core.partitions.get("default")!;
    expect(part.nodes.get(elsewhere)!.allocations.size).toBe(1);
    expect(part.nodes.get(allocated)!.allocations.size).toBe(0);
    expect(part.nodes.get(elsewhere)!.allocated.vcore).toBe(1000);
  });
});
