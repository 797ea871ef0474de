import { describe, expect, it } from "vitest";
import type { ApiWrite } from "../../../src/kube/client.js";
import {
  annotateAllocatedNode,
  bindAttempt,
  createAttempt,
  deleteAttempt,
  evictAttempt,
  patchPodPhase,
} from "../../../src/scheduler/controllers/calls.js";
import { writerPodCalls } from "../../../src/kube/pod-calls.js";
import { apiError, fakeApi } from "./fake-api.js";

const pod = { namespace: "ns", name: "p", uid: "u1" };
const network = Object.assign(new Error("ECONNRESET"), {});

describe("bindAttempt", () => {
  it.each([
    ["201", undefined, "n2", { retry: false, result: {} }],
    ["404: the pod is gone", apiError(404), undefined, { retry: false, result: { error: "404 status 404", gone: true } }],
    ["409 on this node: a lost answer, bound", apiError(409), "n1", { retry: false, result: {} }],
    ["409 elsewhere: final", apiError(409), "n2", { retry: false, result: { error: "409 status 409" } }],
    ["403: final", apiError(403), undefined, { retry: false, result: { error: "403 status 403" } }],
    ["429: retried", apiError(429), undefined, { retry: true, result: { error: "429 status 429" } }],
    ["500: retried", apiError(500), undefined, { retry: true, result: { error: "500 status 500" } }],
    ["no answer: retried", network, undefined, { retry: true, result: { error: "ECONNRESET" } }],
  ])("%s", async (_what, err, liveNode, expected) => {
    const f = fakeApi({ createNamespacedPodBinding: err ? [err] : [] });
    expect(await bindAttempt(f.api, { pod, node: "n1", liveNode: () => liveNode })).toEqual(expected);
    expect(f.bodies[0]).toEqual({
      apiVersion: "v1",
      kind: "Binding",
      metadata: { name: "p", namespace: "ns", uid: "u1" },
      target: { apiVersion: "v1", kind: "Node", name: "n1" },
    });
  });
});

describe("deleteAttempt, createAttempt, evictAttempt", () => {
  it.each([
    ["deleted", undefined, { retry: false, result: { ok: true } }],
    ["404 counts as deleted", apiError(404), { retry: false, result: { ok: true } }],
    ["409 (uid precondition: another pod of that name) counts as deleted", apiError(409), { retry: false, result: { ok: true } }],
    ["500 retried", apiError(500), { retry: true, result: { ok: false, error: "status 500" } }],
  ])("delete: %s", async (_what, err, expected) => {
    const f = fakeApi({ deleteNamespacedPod: err ? [err] : [] });
    expect(await deleteAttempt(f.api, pod)).toEqual(expected);
    // only this pod: a later pod of the same name is never deleted
    expect(f.bodies).toEqual([{ preconditions: { uid: pod.uid } }]);
  });

  it.each([
    ["created", undefined, { retry: false, result: { outcome: "created" } }],
    ["409: an earlier attempt made it", apiError(409), { retry: false, result: { outcome: "exists" } }],
    ["403 final", apiError(403), { retry: false, result: { outcome: "failed", error: "status 403" } }],
    ["422 final", apiError(422), { retry: false, result: { outcome: "failed", error: "status 422" } }],
    ["503 retried", apiError(503), { retry: true, result: { outcome: "failed", error: "status 503" } }],
  ])("create: %s", async (_what, err, expected) => {
    const f = fakeApi({ createNamespacedPod: err ? [err] : [] });
    expect(await createAttempt(f.api, { metadata: { name: "ph", namespace: "ns" } })).toEqual(expected);
    expect(f.calls).toEqual(["createNamespacedPod ns/ph"]);
  });

  it.each([
    ["evicted", undefined, { retry: false, result: { outcome: "evicted" } }],
    ["404: already gone", apiError(404), { retry: false, result: { outcome: "gone" } }],
    ["429: a PodDisruptionBudget says no; final", apiError(429), { retry: false, result: { outcome: "refused", error: "429 status 429" } }],
    ["500 retried", apiError(500), { retry: true, result: { outcome: "refused", error: "500 status 500" } }],
  ])("evict: %s", async (_what, err, expected) => {
    const f = fakeApi({ createNamespacedPodEviction: err ? [err] : [] });
    expect(await evictAttempt(f.api, pod, async () => "policy/v1")).toEqual(expected);
    expect(f.bodies[0]).toEqual({ apiVersion: "policy/v1", kind: "Eviction", metadata: { name: "p", namespace: "ns" } });
  });

  it("evict: no Eviction API known yet is retried, with the discovery error", async () => {
    const f = fakeApi();
    const r = await evictAttempt(f.api, pod, () => Promise.reject(new Error("the API server serves no pods/eviction subresource")));
    expect(r).toEqual({ retry: true, result: { outcome: "refused", error: "the API server serves no pods/eviction subresource" } });
    expect(f.calls).toEqual([]);
  });
});

describe("writerPodCalls", () => {
  it("sends each call as the API server's request: path, method, body and patch kind; evictions stay on client-node", async () => {
    const sent: ApiWrite[] = [];
    const evicted: string[] = [];
    const api = writerPodCalls(async (w) => void sent.push(w), {
      createNamespacedPodEviction: async (r) => (evicted.push(`${r.namespace}/${r.name}`), {}),
    });
    const target = { apiVersion: "v1", kind: "Node", name: "n1" };
    await bindAttempt(api, { pod, node: "n1", liveNode: () => undefined });
    await deleteAttempt(api, pod);
    await createAttempt(api, { metadata: { name: "ph", namespace: "ns" } });
    await patchPodPhase(api, pod, { phase: "Failed", reason: "ResourceReservationTimeout", message: "m" });
    await annotateAllocatedNode(api, pod, "n1");
    await evictAttempt(api, pod, async () => "policy/v1");
    expect(sent).toEqual([
      {
        method: "POST",
        path: "/api/v1/namespaces/ns/pods/p/binding",
        body: { apiVersion: "v1", kind: "Binding", metadata: { name: "p", namespace: "ns", uid: "u1" }, target },
      },
      {
        method: "DELETE",
        path: "/api/v1/namespaces/ns/pods/p",
        body: { apiVersion: "v1", kind: "DeleteOptions", preconditions: { uid: "u1" }, gracePeriodSeconds: 0 },
      },
      { method: "POST", path: "/api/v1/namespaces/ns/pods", body: { metadata: { name: "ph", namespace: "ns" } } },
      {
        method: "PATCH",
        path: "/api/v1/namespaces/ns/pods/p/status",
        body: { status: { phase: "Failed", reason: "ResourceReservationTimeout", message: "m" } },
        contentType: "application/strategic-merge-patch+json",
      },
      {
        method: "PATCH",
        path: "/api/v1/namespaces/ns/pods/p",
        body: { metadata: { annotations: { "scheduling.corral.dev/allocated-node": "n1" } } },
        contentType: "application/merge-patch+json",
      },
    ]);
    expect(evicted).toEqual(["ns/p"]);
  });
});
