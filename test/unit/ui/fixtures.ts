/** Wire data for the dashboard's unit tests. */
import type { PreemptionVictimInfo } from "../../../src/scheduler/rest/api-types.js";

/** A victim of application `b` in root.b on node n1 (1 core, priority 0, not released), with `o` over it. */
export function victimInfo(o: Partial<PreemptionVictimInfo> & { allocationKey: string }): PreemptionVictimInfo {
  return {
    applicationId: "b",
    queuePath: "root.b",
    nodeId: "n1",
    resource: { vcore: 1000 },
    priority: 0,
    createTime: 0,
    placeholder: false,
    originator: false,
    allowPreemption: true,
    released: false,
    queueRule: { rule: "victim-queue-over-guarantee", queue: "root.b", allocated: {} },
    priorityRule: { rule: "priority-lower-or-equal", victimPriority: 0, askPriority: 0 },
    helps: { rule: "frees-node", nodeId: "n1" },
    ...o,
  };
}
