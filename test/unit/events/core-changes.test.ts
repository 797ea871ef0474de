/**
 * QUEUE and USERGROUP records the core sends from the partition's typed changes (queue-change.ts, ugm/tracker.ts
 * UgmChange), as upstream's queue_events.go and ugm_events.go: configuration changes, queue creation and removal,
 * user and group usage, application–group links and limits set or removed.
 */
import { describe, expect, it } from "vitest";
import { SchedulerCore } from "../../../src/scheduler/core/scheduler.js";
import {
  ChangeDetail as D,
  ChangeType as C,
  type EventRecord,
  EventType as T,
  eventRecordJson,
} from "../../../src/scheduler/events/record.js";

const G = 1024 ** 3;
const CFG = `partitions:
  - name: default
    placementrules:
      - {name: provided, create: false}
      - {name: tag, value: namespace, create: true, parent: {name: fixed, value: root.tenants}}
    queues:
      - name: root
        submitacl: '*'
        queues:
          - name: a
            resources: {max: {vcore: 4}}
            limits:
              - {limit: alice, users: [alice], maxresources: {vcore: 2}}
              - {limit: devs, groups: [devs], maxapplications: 3}
          - name: tenants
            parent: true
`;
const short = (e: EventRecord) => [e.type, e.objectID, e.referenceID, e.eventChangeType, e.eventChangeDetail];

function coreWith(ev: EventRecord[], now = () => 1_000) {
  const core = new SchedulerCore(now, CFG, { events: (e) => ev.push(e) });
  core.updateNode([{ nodeID: "n1", action: "CREATE", schedulableResource: { vcore: 8000, memory: 8 * G } }]);
  return core;
}

describe("QUEUE records from queue changes", () => {
  it("a new configuration: queues added, max and guaranteed set or cleared, a leaf turned parent, a removed queue drains then goes", () => {
    const ev: EventRecord[] = [];
    let now = 1_000;
    const core = coreWith(ev, () => now);
    ev.length = 0;
    const r = core.updateConfiguration(`partitions:
  - name: default
    queues:
      - name: root
        submitacl: '*'
        queues:
          - name: a
            resources: {guaranteed: {vcore: 1}}
            queues:
              - name: child
          - name: b
`);
    expect(r).toEqual({ ok: true });
    expect(ev.map(short)).toEqual([
      [T.QUEUE, "root.a", "", C.SET, D.QUEUE_TYPE],
      [T.QUEUE, "root.a", "", C.SET, D.QUEUE_GUARANTEED],
      [T.QUEUE, "root.a", "", C.SET, D.QUEUE_MAX],
      [T.QUEUE, "root.a.child", "", C.ADD, D.DETAILS_NONE],
      [T.QUEUE, "root.b", "", C.ADD, D.DETAILS_NONE],
      // the limits of root.a are gone
      [T.USERGROUP, "alice", "root.a", C.REMOVE, D.UG_USER_LIMIT],
      [T.USERGROUP, "devs", "root.a", C.REMOVE, D.UG_GROUP_LIMIT],
    ]);
    expect(ev[0]!.message).toBe("leaf queue: false");
    expect(ev[1]!.resource).toEqual({ vcore: 1000 });
    expect(ev[2]!.resource).toEqual({}); // no max any more
    // root.tenants is no longer configured: it drains and is removed at the next cleanup (it holds nothing)
    ev.length = 0;
    now += 20_000;
    core.schedule();
    expect(ev.map(short)).toEqual([[T.QUEUE, "root.tenants", "", C.REMOVE, D.DETAILS_NONE]]);
    expect(eventRecordJson(ev[0]!)).toEqual({
      type: 4,
      objectID: "root.tenants",
      timestampNano: 21_000_000_000,
      eventChangeType: 3,
      resource: {},
    });
  });

  it("placement creates dynamic queues (QUEUE_DYNAMIC, parents first) and the cleanup removes them once empty", () => {
    const ev: EventRecord[] = [];
    let now = 1_000;
    const core = coreWith(ev, () => now);
    ev.length = 0;
    core.updateApplication({ new: [{ applicationID: "x", queueName: "", ugi: { user: "u" }, tags: { namespace: "team" } }] });
    expect(ev.filter((e) => e.type === T.QUEUE).map(short)).toEqual([
      [T.QUEUE, "root.tenants.team", "", C.ADD, D.QUEUE_DYNAMIC],
      [T.QUEUE, "root.tenants.team", "x", C.ADD, D.QUEUE_APP],
    ]);
    core.updateApplication({ remove: [{ applicationID: "x" }] });
    ev.length = 0;
    now += 20_000;
    core.schedule();
    expect(ev.filter((e) => e.type === T.QUEUE).map(short)).toEqual([[T.QUEUE, "root.tenants.team", "", C.REMOVE, D.QUEUE_DYNAMIC]]);
    // created again: announced again
    ev.length = 0;
    core.updateApplication({ new: [{ applicationID: "y", queueName: "", ugi: { user: "u" }, tags: { namespace: "team" } }] });
    expect(ev.filter((e) => e.type === T.QUEUE && e.eventChangeDetail === D.QUEUE_DYNAMIC)).toHaveLength(1);
  });
});

describe("USERGROUP records from the user and group tracker", () => {
  it("limits set at every load; usage of the user and of the group the application is linked to; the link dropped with the last allocation", () => {
    const ev: EventRecord[] = [];
    const core = new SchedulerCore(() => 1_000, CFG, { events: (e) => ev.push(e) });
    expect(ev.filter((e) => e.type === T.USERGROUP).map(short)).toEqual([
      [T.USERGROUP, "alice", "root.a", C.SET, D.UG_USER_LIMIT],
      [T.USERGROUP, "devs", "root.a", C.SET, D.UG_GROUP_LIMIT],
    ]);
    core.updateNode([{ nodeID: "n1", action: "CREATE", schedulableResource: { vcore: 8000 } }]);
    core.updateApplication({ new: [{ applicationID: "app", queueName: "root.a", ugi: { user: "alice", groups: ["devs"] } }] });
    core.updateAllocation({ allocations: [{ allocationKey: "k1", applicationID: "app", resourcePerAlloc: { vcore: 1000 } }] });
    ev.length = 0;
    expect(core.schedule()).toHaveLength(1);
    // the application is linked to its group when that is first resolved (its first headroom check), then charged
    expect(ev.filter((e) => e.type === T.USERGROUP).map(short)).toEqual([
      [T.USERGROUP, "devs", "app", C.SET, D.UG_APP_LINK],
      [T.USERGROUP, "alice", "root.a", C.ADD, D.UG_USER_RESOURCE],
      [T.USERGROUP, "devs", "root.a", C.ADD, D.UG_GROUP_RESOURCE],
    ]);
    ev.length = 0;
    core.updateAllocation({ releases: [{ applicationID: "app", allocationKey: "k1" }] });
    expect(ev.filter((e) => e.type === T.USERGROUP).map(short)).toEqual([
      [T.USERGROUP, "alice", "root.a", C.REMOVE, D.UG_USER_RESOURCE],
      [T.USERGROUP, "devs", "root.a", C.REMOVE, D.UG_GROUP_RESOURCE],
      [T.USERGROUP, "devs", "app", C.REMOVE, D.UG_APP_LINK],
    ]);
    expect(eventRecordJson(ev.find((e) => e.eventChangeDetail === D.UG_GROUP_RESOURCE)!)).toEqual({
      type: 5,
      objectID: "devs",
      referenceID: "root.a",
      timestampNano: 1_000_000_000,
      eventChangeType: 3,
      eventChangeDetail: 604,
      resource: { resources: { vcore: { value: 1000 } } },
    });
  });

  it("a user without a limit of his own is still charged with his group; without a sink nothing piles up", () => {
    const ev: EventRecord[] = [];
    const core = coreWith(ev);
    core.updateApplication({ new: [{ applicationID: "app", queueName: "root.a", ugi: { user: "bob", groups: ["devs"] } }] });
    core.updateAllocation({ allocations: [{ allocationKey: "k1", applicationID: "app", resourcePerAlloc: { vcore: 1000 } }] });
    ev.length = 0;
    core.schedule();
    expect(ev.filter((e) => e.type === T.USERGROUP).map(short)).toEqual([
      [T.USERGROUP, "devs", "app", C.SET, D.UG_APP_LINK],
      [T.USERGROUP, "bob", "root.a", C.ADD, D.UG_USER_RESOURCE],
      [T.USERGROUP, "devs", "root.a", C.ADD, D.UG_GROUP_RESOURCE],
    ]);
    const quiet = new SchedulerCore(() => 0, CFG);
    quiet.updateNode([{ nodeID: "n1", action: "CREATE", schedulableResource: { vcore: 8000 } }]);
    quiet.updateApplication({ new: [{ applicationID: "app", queueName: "root.a", ugi: { user: "bob", groups: ["devs"] } }] });
    quiet.updateAllocation({ allocations: [{ allocationKey: "k1", applicationID: "app", resourcePerAlloc: { vcore: 1000 } }] });
    quiet.schedule();
    expect(quiet.partitions.get("default")!.limits.drainChanges()).toEqual([]);
    expect(quiet.partitions.get("default")!.drainQueueChanges()).toEqual([]);
  });
});
