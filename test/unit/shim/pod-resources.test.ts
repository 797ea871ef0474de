import { describe, expect, it } from "vitest";
import { type PodLike, parseK8sQuantity, podResource, toCoreResource } from "../../../src/scheduler/shim/pod-resources.js";

describe("Kubernetes quantities", () => {
  it.each([
    ["1", 0, 1],
    ["500m", 3, 500],
    ["1", 3, 1000],
    ["0.5", 3, 500],
    ["1.5Gi", 0, 1610612736],
    ["128974848", 0, 128974848],
    ["129e6", 0, 129000000],
    ["123Mi", 0, 128974848],
    ["1k", 0, 1000],
    ["100n", 3, 1],
    ["1.1", 3, 1100],
    ["4.096", 3, 4096],
    ["0.1m", 3, 1],
  ] as const)("%s ×10^%i = %i (rounded up)", (q, scale, expected) => {
    expect(parseK8sQuantity(q, scale)).toBe(expected);
  });
  it("rejects garbage naming it", () => {
    expect(() => parseK8sQuantity("1.2.3")).toThrow('invalid quantity "1.2.3"');
    expect(() => toCoreResource({ memory: "lots" })).toThrow(/lots/);
  });
});

describe("pod resources (yunikorn-shim reference §2.7 worked examples)", () => {
  it("sums containers, maps cpu to vcore millis, adds pods: 1 and overhead", () => {
    const pod = {
      spec: {
        containers: [
          { resources: { requests: { memory: "500M", cpu: "1", "nvidia.com/gpu": "1" } } },
          { resources: { requests: { memory: "1024M", cpu: "2", "nvidia.com/gpu": "4" } } },
        ],
      },
    };
    expect(podResource(pod)).toEqual({ memory: 1524000000, vcore: 3000, "nvidia.com/gpu": 5, pods: 1 });
    expect(podResource({ spec: { ...pod.spec, overhead: { memory: "500M", cpu: "1", "nvidia.com/gpu": "1" } } })).toEqual({
      memory: 2024000000,
      vcore: 4000,
      "nvidia.com/gpu": 6,
      pods: 1,
    });
  });
  it("native sidecars run beside the containers; init containers count as their peak", () => {
    expect(
      podResource({
        spec: {
          initContainers: [{ restartPolicy: "Always", resources: { requests: { memory: "10M", cpu: "1" } } }],
          containers: [
            { resources: { requests: { memory: "2000M", cpu: "4.096" } } },
            { resources: { requests: { memory: "5000M", cpu: "1.024" } } },
          ],
        },
      }),
    ).toEqual({ memory: 7010000000, vcore: 6120, pods: 1 });
    expect(
      podResource({
        spec: {
          initContainers: [{ resources: { requests: { memory: "8Gi" } } }],
          containers: [{ resources: { requests: { memory: "1Gi", cpu: "1" } } }],
        },
      }),
    ).toEqual({ memory: 8 * 2 ** 30, vcore: 1000, pods: 1 });
  });
  it("pod-level requests override cpu, memory and hugepages; allocated resources of a resized container count", () => {
    expect(
      podResource({
        spec: { resources: { requests: { cpu: "3" } }, containers: [{ resources: { requests: { cpu: "1", memory: "1Gi" } } }] },
      }),
    ).toEqual({ vcore: 3000, memory: 2 ** 30, pods: 1 });
    // hugepages too (component-helpers IsSupportedPodLevelResource); other types stay the containers'
    expect(
      podResource({
        spec: {
          resources: { requests: { "hugepages-2Mi": "200Mi", "nvidia.com/gpu": "4" } },
          containers: [{ resources: { requests: { cpu: "1", "hugepages-2Mi": "100Mi", "nvidia.com/gpu": "1" } } }],
        },
      }),
    ).toEqual({ vcore: 1000, "hugepages-2Mi": 200 * 2 ** 20, "nvidia.com/gpu": 1, pods: 1 });
    expect(
      podResource({
        spec: { containers: [{ name: "a", resources: { requests: { cpu: "1" } } }] },
        status: { containerStatuses: [{ name: "a", allocatedResources: { cpu: "2" } }] },
      }),
    ).toEqual({ vcore: 2000, pods: 1 });
  });

  // apache/yunikorn-k8shim pkg/common/resource_test.go TestGetPodResourcesWithInPlacePodVerticalScaling
  it("in-place resize: the larger of requests, allocated and running requests; after a refused resize the running ones", () => {
    const req = (memory: string, cpu: string) => ({ requests: { memory, cpu } });
    type Status = { name: string; allocatedResources?: Record<string, string>; resources?: { requests: Record<string, string> } };
    const containers = [
      { name: "container-01", resources: req("1000M", "1") },
      { name: "container-02", resources: req("2000M", "2") },
    ];
    const status: { containerStatuses: Status[]; resize?: string; conditions?: { type: string; reason?: string }[] } = {
      containerStatuses: [],
    };
    const pod: PodLike = { spec: { containers }, status };
    const size = () => podResource(pod);
    const at = (memoryM: number, vcore: number) => ({ memory: memoryM * 1e6, vcore, pods: 1 });
    expect(size()).toEqual(at(3000, 3000));
    status.containerStatuses = [{ name: "container-01" }, { name: "container-02" }];
    expect(size()).toEqual(at(3000, 3000));
    // running as requested
    status.containerStatuses = containers.map((c) => ({
      name: c.name,
      allocatedResources: { ...c.resources.requests },
      resources: { requests: { ...c.resources.requests } },
    }));
    expect(size()).toEqual(at(3000, 3000));
    // a resize proposed (memory up, cpu down): the larger of each
    containers[0]!.resources = req("2000M", "500m");
    containers[1]!.resources = req("4000M", "1");
    expect(size()).toEqual(at(6000, 3000));
    // refused: what the containers run with
    status.resize = "Infeasible";
    expect(size()).toEqual(at(3000, 3000));
    status.resize = "";
    status.conditions = [{ type: "PodResizePending", reason: "Infeasible" }];
    expect(size()).toEqual(at(3000, 3000));
    // in progress: admitted at the new size, still running at the old one
    status.resize = "InProgress";
    status.conditions = [{ type: "PodResizing" }];
    for (const [i, st] of status.containerStatuses.entries()) st.allocatedResources = { ...containers[i]!.resources.requests };
    expect(size()).toEqual(at(6000, 3000));
    // done
    status.resize = "";
    status.conditions = [];
    for (const [i, st] of status.containerStatuses.entries()) st.resources = { requests: { ...containers[i]!.resources.requests } };
    expect(size()).toEqual(at(6000, 1500));
  });

  it("a native sidecar's status counts as a container's (initContainerStatuses)", () => {
    expect(
      podResource({
        spec: {
          initContainers: [{ name: "proxy", restartPolicy: "Always", resources: { requests: { cpu: "100m", memory: "100M" } } }],
          containers: [{ name: "app", resources: { requests: { cpu: "100m", memory: "100M" } } }],
        },
        status: { initContainerStatuses: [{ name: "proxy", allocatedResources: { cpu: "1", memory: "500M" } }] },
      }),
    ).toEqual({ vcore: 1100, memory: 600e6, pods: 1 });
  });
});
