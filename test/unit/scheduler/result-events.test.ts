/**
 * The event records of allocations, releases, reservations and quota-change preemption (events/result-events.ts):
 * one rendered as YuniKorn's REST API shows it (`eventRecordJson`), the others as records, and a real core's records
 * through its event sink.
 * Follows apache/yunikorn-core pkg/scheduler/objects/events (application_events.go, node_events.go, queue_events.go,
 * ask_events.go and their tests; ask_events_test.go TestSendPreemptedByQuotaChange for the REQUEST record;
 * quota_preemptor_test.go TestQuotaChangeTryPreemption for the quota-preemption summary).
 */
import { describe, expect, it } from "vitest";
import { ChangeDetail, ChangeType, type EventRecord, EventType, eventRecordJson } from "../../../src/scheduler/events/record.js";
import {
  allocationEvents,
  quotaWithoutVictimsEvent,
  releaseEvents,
  reservationEvent,
} from "../../../src/scheduler/events/result-events.js";
import { SchedulerCore } from "../../../src/scheduler/core/scheduler.js";
import { decideQuotaPreemption } from "../../../src/scheduler/core/preemption/quota.js";
import { type PreemptionAllocation, clusterSnapshot } from "../../../src/scheduler/core/preemption/snapshot.js";

const NOW_MS = 1_700_000_000_000;
/** A core with events whose queue root.q (quota.preemption.delay 1s) runs three 2-cpu pods on one node. */
function quotaCore() {
  const clock = { now: 100_000 };
  const records: EventRecord[] = [];
  const core = new SchedulerCore(() => clock.now, quotaConfig(8), { events: (e) => records.push(e) });
  core.updateNode([{ nodeID: "n1", action: "CREATE", schedulableResource: { vcore: 8000 } }]);
  core.updateApplication({ new: [{ applicationID: "app", queueName: "root.q", ugi: { user: "u" } }] });
  core.updateAllocation({
    allocations: [0, 1, 2].map((i) => ({
      allocationKey: `p${i}`,
      applicationID: "app",
      resourcePerAlloc: { vcore: 2000 },
      nodeID: "n1",
      allocationTags: { creationTime: String(i + 1) },
    })),
  });
  return { core, clock, records };
}

const quotaConfig = (max: number) => `partitions:
  - name: default
    preemption: {quotapreemptionenabled: true}
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: q
            resources: {max: {vcore: ${max}}}
            properties: {quota.preemption.delay: 1s}
`;

const ALLOC = { key: "pod-1", appId: "app-1", nodeId: "node-a", resource: { memory: 2 ** 30, vcore: 500 }, queue: "root.a" };

describe("result events", () => {
  it("a new allocation: APP ADD APP_ALLOC then NODE ADD NODE_ALLOC, with the resource", () => {
    expect(allocationEvents(ALLOC, NOW_MS).map(eventRecordJson)).toEqual([
      {
        type: 2,
        objectID: "app-1",
        referenceID: "pod-1",
        timestampNano: NOW_MS * 1_000_000,
        eventChangeType: 2,
        eventChangeDetail: 200,
        resource: { resources: { memory: { value: 2 ** 30 }, vcore: { value: 500 } } },
      },
      {
        type: 3,
        objectID: "node-a",
        referenceID: "pod-1",
        timestampNano: NOW_MS * 1_000_000,
        eventChangeType: 2,
        eventChangeDetail: 303,
        resource: { resources: { memory: { value: 2 ** 30 }, vcore: { value: 500 } } },
      },
    ]);
  });

  it("a release: APP REMOVE with the cause as detail, then NODE REMOVE NODE_ALLOC", () => {
    const [app, node] = releaseEvents(ALLOC, ChangeDetail.ALLOC_PREEMPT, NOW_MS);
    expect(app).toMatchObject({ type: 2, objectID: "app-1", eventChangeType: 3, eventChangeDetail: 501 });
    expect(node).toMatchObject({ type: 3, objectID: "node-a", referenceID: "pod-1", eventChangeType: 3, eventChangeDetail: 303 });
  });

  it("a reservation made and ended: NODE ADD / REMOVE NODE_RESERVATION on the node, the ask as reference", () => {
    const made = reservationEvent(NOW_MS, { nodeId: "node-a", key: "big", reserved: true, resource: { vcore: 4000 } });
    const ended = reservationEvent(NOW_MS, { nodeId: "node-a", key: "big", reserved: false, resource: undefined });
    expect(made).toMatchObject({ type: 3, objectID: "node-a", referenceID: "big", eventChangeType: 2, eventChangeDetail: 306 });
    expect(made.resource).toEqual({ vcore: 4000 });
    expect(ended).toMatchObject({ eventChangeType: 3, eventChangeDetail: 306, resource: undefined });
  });

  it("a real core sends the quota-preemption summary on the queue and a REQUEST record on each victim", () => {
    const { core, clock, records } = quotaCore();
    core.updateConfiguration(quotaConfig(4)); // 6 cpu used, max 4: 2 cpu to preempt after 1 s
    records.length = 0;
    clock.now = 101_000;
    const results = core.scheduleResults();
    expect(results.map((r) => r.kind)).toEqual(["quotaPreempting"]);
    const summary = records.find((r) => r.eventChangeDetail === ChangeDetail.QUEUE_PREEMPTION);
    expect(summary).toMatchObject({
      type: 4,
      objectID: "root.q",
      eventChangeType: 1,
      message:
        "Quota Preemption results summary: preemptable resources: map[vcore:2000], " +
        "claimed resources: map[vcore:2000], selected victims: 3, preempted victims: 1",
      resource: { vcore: 4000 },
    });
    // upstream: REQUEST, change type NONE, detail DETAILS_NONE
    const requests = records.filter((r) => r.type === EventType.REQUEST);
    expect(requests).toEqual([
      expect.objectContaining({
        objectID: "p2",
        referenceID: "app",
        eventChangeType: 0,
        eventChangeDetail: 0,
        message: "Preempted by Quota change enforcement process in root.q",
      }),
    ]);
    expect(records.indexOf(summary!)).toBeLessThan(records.indexOf(requests[0]!));
  });

  it("a real core reports a pass that selects allocations but preempts none (upstream 'victims available but none is suitable')", () => {
    const { core, clock, records } = quotaCore();
    core.updateConfiguration(quotaConfig(5)); // 6 cpu used, max 5: 1 cpu to preempt, every pod is 2 cpu
    records.length = 0;
    clock.now = 101_000;
    expect(core.scheduleResults()).toEqual([]);
    expect(records).toEqual([
      expect.objectContaining({
        type: EventType.QUEUE,
        objectID: "root.q",
        eventChangeType: ChangeType.SET,
        eventChangeDetail: ChangeDetail.QUEUE_PREEMPTION,
        message:
          "Quota Preemption results summary: preemptable resources: map[vcore:1000], " +
          "claimed resources: nil resource, selected victims: 3, preempted victims: 0",
        resource: { vcore: 5000 },
      }),
    ]);
    // one pass per lowered max: nothing more while the max stays
    records.length = 0;
    clock.now = 110_000;
    core.scheduleResults();
    expect(records.filter((r) => r.eventChangeDetail === ChangeDetail.QUEUE_PREEMPTION)).toEqual([]);
  });

  it("a parent's pass without victims reads its claimed total as an empty map; no selected allocation, no summary", () => {
    // root.p over its max by 6: each leaf's share is 3, each runs one 8-unit pod, which no share can take
    const pod = (key: string, queuePath: string): PreemptionAllocation => ({
      key,
      applicationId: key,
      queuePath,
      nodeId: "node",
      priority: 0,
      createTime: NOW_MS,
      resource: { first: 8 },
      allowPreemption: true,
      originator: false,
      placeholder: false,
    });
    const decide = (allocations: PreemptionAllocation[]) =>
      decideQuotaPreemption(
        clusterSnapshot({
          queues: [{ path: "root.p", max: { first: 10 }, quotaPreemptionDelayMs: 60_000 }, { path: "root.p.a" }, { path: "root.p.b" }],
          nodes: [{ id: "node", capacity: { first: 100 } }],
          allocations,
        }),
        "root.p",
      );
    const d = decide([pod("a1", "root.p.a"), pod("b1", "root.p.b")]);
    expect(d).toMatchObject({ outcome: "none", reason: "no-victims", isLeaf: false, preemptable: { first: 6 } });
    if (d.outcome !== "none" || d.reason !== "no-victims") return;
    expect(quotaWithoutVictimsEvent(d, NOW_MS)).toMatchObject({
      objectID: "root.p",
      message:
        "Quota Preemption results summary: preemptable resources: map[first:6], " +
        "claimed resources: map[], selected victims: 2, preempted victims: 0",
      resource: { first: 10 },
    });
    // no allocation could be a victim (required-node pods): no decision to report, so no summary
    expect(
      decide([
        { ...pod("a1", "root.p.a"), requiredNode: true },
        { ...pod("b1", "root.p.b"), requiredNode: true },
      ]),
    ).toEqual({
      outcome: "none",
      queue: "root.p",
      reason: "no-candidates",
    });
  });
});
