import { describe, expect, it } from "vitest";
import {
  allocationOf,
  applicationIdOf,
  applicationRequest,
  identityOf,
  namespaceTags,
  nodeInfoOf,
} from "../../../src/scheduler/shim/translate.js";

const pod = (o: { labels?: Record<string, string>; annotations?: Record<string, string>; scheduler?: string; node?: string } = {}) => ({
  metadata: {
    name: "p",
    namespace: "team-a",
    uid: "uid-1",
    labels: o.labels,
    annotations: o.annotations,
    creationTimestamp: "2026-11-21T10:00:00Z",
  },
  spec: {
    schedulerName: o.scheduler ?? "yunikorn",
    nodeName: o.node,
    priority: 5,
    containers: [{ name: "main", resources: { requests: { cpu: "250m", memory: "1Gi" } } }],
  },
});

describe("pod translation", () => {
  it("application id by YuniKorn's precedence; foreign pods have none", () => {
    expect(applicationIdOf(pod({ labels: { "yunikorn.apache.org/app-id": "canon", applicationId: "legacy" } }))).toBe("canon");
    expect(applicationIdOf(pod({ labels: { "spark-app-selector": "spark-1" } }))).toBe("spark-1");
    expect(applicationIdOf(pod())).toBe("yunikorn-team-a-autogen");
    expect(applicationIdOf(pod({ scheduler: "default-scheduler" }))).toBeUndefined();
  });
  // apache/yunikorn-k8shim pkg/common/utils/utils_test.go TestGetApplicationIDFromPod (unique autogen cases)
  it("a unique generated id (<ns>-uniqueautogen, written before the pod had a UID) becomes <ns>-<pod UID>", () => {
    expect(applicationIdOf(pod({ labels: { applicationId: "team-a-uniqueautogen" } }))).toBe("team-a-uid-1");
    expect(applicationIdOf(pod({ annotations: { "yunikorn.apache.org/app-id": "team-a-uniqueautogen" } }))).toBe("team-a-uid-1");
    expect(applicationIdOf(pod({ labels: { "yunikorn.apache.org/app-id": "team-a-uniqueautogen" } }))).toBe("team-a-uid-1");
    // a pod naming no application: the namespace's id, or one of its own with generateUniqueAppId on
    expect(applicationIdOf(pod(), "yunikorn", false)).toBe("yunikorn-team-a-autogen");
    expect(applicationIdOf(pod(), "yunikorn", true)).toBe("team-a-uid-1");
  });
  it("identity only from user.info; groups as given (design 002)", () => {
    expect(identityOf(pod({ annotations: { "yunikorn.apache.org/user.info": '{"user":"alice","groups":["users","devops"]}' } }))).toEqual({
      user: "alice",
      groups: ["users", "devops"],
    });
    expect(identityOf(pod({ annotations: { "yunikorn.apache.org/user.info": "{" } }))).toEqual({ user: "nobody", groups: [] });
    expect(identityOf(pod({ labels: { "yunikorn.apache.org/username": "mallory" } }))).toEqual({ user: "nobody", groups: [] });
  });

  it.each([
    ["a group that is not a string", '{"user":"alice","groups":["users",7]}'],
    ["groups that are not an array", '{"user":"alice","groups":"users"}'],
    ["a user that is not a string", '{"user":["alice"],"groups":["users"]}'],
    ["not an object", '["alice"]'],
  ])("a malformed user.info (%s) is user nobody with no groups, never a partial identity", (_what, value) => {
    expect(identityOf(pod({ annotations: { "yunikorn.apache.org/user.info": value } }))).toEqual({ user: "nobody", groups: [] });
  });

  it("groups: null reads as no groups", () => {
    expect(identityOf(pod({ annotations: { "yunikorn.apache.org/user.info": '{"user":"alice","groups":null}' } }))).toEqual({
      user: "alice",
      groups: [],
    });
  });
  it("keys match as Go's encoding/json matches the struct's fields: any case, the last one wins", () => {
    const id = (value: string) => identityOf(pod({ annotations: { "yunikorn.apache.org/user.info": value } }));
    expect(id('{"User":"bob","GROUPS":["ops"]}')).toEqual({ user: "bob", groups: ["ops"] });
    expect(id('{"user":"alice","USER":"bob"}')).toEqual({ user: "bob", groups: [] });
    expect(id('{"USER":"bob","user":"alice","extra":1}')).toEqual({ user: "alice", groups: [] });
  });
  it("application request and ask", () => {
    const p = pod({
      labels: { queue: "root.batch", disableStateAware: "true" },
      annotations: { "yunikorn.apache.org/user.info": '{"user":"bob","groups":["users"]}' },
    });
    expect(applicationRequest(p, "app")).toEqual({
      applicationID: "app",
      queueName: "root.batch",
      ugi: { user: "bob", groups: ["users"] },
      tags: { namespace: "team-a", disableStateAware: "true" },
    });
    expect(allocationOf(p, "app")).toEqual({
      allocationKey: "uid-1",
      applicationID: "app",
      resourcePerAlloc: { vcore: 250, memory: 2 ** 30, pods: 1 },
      priority: 5,
      nodeID: undefined,
      allocationTags: {
        "kubernetes.io/meta/namespace": "team-a",
        "kubernetes.io/meta/podName": "p",
        "kubernetes.io/label/queue": "root.batch",
        "kubernetes.io/label/disableStateAware": "true",
        creationTime: "1795255200",
      },
    });
    expect(allocationOf(pod({ node: "n1" }), "app").nodeID).toBe("n1");
    expect(applicationRequest(pod({ node: "n1" }), "app").tags!["application.create.force"]).toBe("true");
  });
  it("nodes: allocatable as capacity, cordoned nodes unschedulable", () => {
    expect(nodeInfoOf({ metadata: { name: "n1" }, status: { allocatable: { cpu: "4", memory: "16Gi", pods: "110" } } })).toEqual({
      nodeID: "n1",
      action: "CREATE",
      schedulableResource: { vcore: 4000, memory: 16 * 2 ** 30, pods: 110 },
      attributes: { "si/hostname": "n1", "si/rackname": "/rack-default" },
    });
    expect(nodeInfoOf({ metadata: { name: "n2" }, spec: { unschedulable: true } }).action).toBe("CREATE_DRAIN");
  });
});

describe("namespaceTags", () => {
  it("encodes quota and guarantee as si.Resource JSON, keeps maxApps and parentqueue, drops what does not parse", () => {
    expect(
      namespaceTags({
        "yunikorn.apache.org/namespace.quota": '{"cpu":"1","memory":"256M","nvidia.com/gpu":"1"}',
        "yunikorn.apache.org/namespace.guaranteed": '{"cpu":"500m"}',
        "yunikorn.apache.org/namespace.maxApps": "3",
        "yunikorn.apache.org/parentqueue": "root.tenants",
      }),
    ).toEqual({
      "namespace.resourcequota": '{"resources":{"vcore":{"value":1000},"memory":{"value":256000000},"nvidia.com/gpu":{"value":1}}}',
      "namespace.resourceguaranteed": '{"resources":{"vcore":{"value":500}}}',
      "namespace.resourcemaxapps": "3",
      "namespace.parentqueue": "root.tenants",
    });
    // deprecated keys as the fallback; a zero is kept beside a positive value (upstream GetResource keeps it)
    expect(namespaceTags({ "yunikorn.apache.org/namespace.max.cpu": "2", "yunikorn.apache.org/namespace.max.memory": "0" })).toEqual({
      "namespace.resourcequota": '{"resources":{"vcore":{"value":2000},"memory":{"value":0}}}',
    });
    expect(namespaceTags({ "yunikorn.apache.org/namespace.quota": "{not json", "yunikorn.apache.org/namespace.maxApps": "-1" })).toEqual(
      {},
    );
    expect(namespaceTags({ "yunikorn.apache.org/namespace.quota": '{"cpu":"lots"}' })).toEqual({});
  });

  it("namespace.quota as upstream's GetNamespaceQuotaFromAnnotation: zeros kept, all zeros none, no fallback once it is set", () => {
    const quota = (raw: string, legacy: Record<string, string> = {}) =>
      namespaceTags({ "yunikorn.apache.org/namespace.quota": raw, ...legacy })["namespace.resourcequota"];
    // a zero beside a positive value is an explicit cap of 0 (upstream: {vcore: 0, memory: 1G})
    expect(quota('{"cpu":"0","memory":"1G"}')).toBe('{"resources":{"vcore":{"value":0},"memory":{"value":1000000000}}}');
    // only zeros, or an empty map: no quota (upstream common.IsZero in updateApplicationTags)
    expect(quota('{"cpu":"0","memory":"0"}')).toBeUndefined();
    expect(quota("{}")).toBeUndefined();
    // values must be strings (upstream unmarshals into map[string]string); one bad quantity spoils the map
    expect(quota('{"cpu":1}')).toBeUndefined();
    expect(quota('{"cpu":"1","memory":"x"}')).toBeUndefined();
    expect(quota('["cpu"]')).toBeUndefined();
    // a namespace.quota that does not parse gives no quota: the deprecated annotations are not read then
    const legacy = { "yunikorn.apache.org/namespace.max.cpu": "2", "yunikorn.apache.org/namespace.max.memory": "1Gi" };
    expect(quota("{not json", legacy)).toBeUndefined();
    expect(quota('{"cpu":1}', legacy)).toBeUndefined();
    // both set: namespace.quota wins
    expect(quota('{"cpu":"3"}', legacy)).toBe('{"resources":{"vcore":{"value":3000}}}');
    // an empty namespace.quota counts as absent: the deprecated ones apply
    expect(quota("", legacy)).toBe('{"resources":{"vcore":{"value":2000},"memory":{"value":1073741824}}}');
    // namespace.guaranteed follows the same rules
    expect(namespaceTags({ "yunikorn.apache.org/namespace.guaranteed": '{"cpu":"0","memory":"1Gi"}' })).toEqual({
      "namespace.resourceguaranteed": '{"resources":{"vcore":{"value":0},"memory":{"value":1073741824}}}',
    });
    expect(namespaceTags({ "yunikorn.apache.org/namespace.guaranteed": '{"cpu":2}' })).toEqual({});
  });
});
