import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { formatReport, parseScenario, reportCsv, simulate } from "../../../src/scheduler/simulate.js";
import { PROJECT_ROOT } from "../../../src/testbed/testbed.js";

const GI = 2 ** 30;

describe("corral simulate", () => {
  it("the example: alice held by her 16Gi limit, bob not; analytics stays under 64Gi; same report every run", async () => {
    const text = await readFile(join(PROJECT_ROOT, "examples/scenario.yaml"), "utf8");
    const r = simulate(parseScenario(text));
    const alice = r.users.find((u) => u.name === "alice")!;
    const bob = r.users.find((u) => u.name === "bob")!;
    expect(alice.peak.memory).toBe(16 * GI);
    expect(alice.quotaHeld).toBe(8);
    expect(alice.waitP99s).toBe(120);
    expect(bob.quotaHeld).toBe(0);
    expect(r.queues.find((q) => q.name === "root.analytics")!.peak.memory).toBeLessThanOrEqual(64 * GI);
    expect(r.unplaced).toBe(0);
    expect(formatReport(simulate(parseScenario(text)))).toBe(formatReport(r));
    expect(reportCsv(r).split("\n")[0]).toBe("seconds,kind,name,resource,allocated");
  });

  it("a malformed scenario names the field", () => {
    expect(() => parseScenario("queues: ''\nnodes: []\n")).toThrow(/nodes/);
    expect(() =>
      parseScenario(
        "queues: ''\nnodes: [{name: n, resources: {memory: 1}}]\n" +
          "applications: [{id: a, user: u, asks: {count: 1, resources: {memory: 1}, duration: soon}}]\n",
      ),
    ).toThrow(/duration/);
    expect(() => parseScenario("queues: ''\nnodes: [{name: n, resources: {memory: 1}, gpus: 2}]\n")).toThrow(/gpus|Unrecognized/);
  });

  it("an application the placement rules refuse is reported, not fatal", () => {
    const r = simulate(
      parseScenario(`queues: |
  partitions:
    - name: default
      queues:
        - name: root
          submitacl: "*"
          queues: [{name: a}]
nodes: [{name: n, resources: {memory: 10}}]
applications:
  - {id: lost, queue: root.nowhere, user: u, asks: {count: 1, resources: {memory: 1}, duration: 1s}}
`),
    );
    expect(r.rejectedApplications).toEqual([
      { id: "lost", reason: "failed to place application lost: application rejected: no placement rule matched" },
    ]);
  });
  it("reports the applications' final states and the typed reasons that held asks", async () => {
    const r = simulate(parseScenario(await readFile(join(PROJECT_ROOT, "examples/scenario.yaml"), "utf8")));
    expect(r.quotaHolds).toEqual([{ kind: "limit", reason: "user alice quota reached on root.analytics", asks: 8 }]);
    expect(Object.values(r.applicationStates).reduce((a, b) => a + b, 0)).toBe(3);
    expect(Object.keys(r.applicationStates).every((s) => ["Completing", "Completed"].includes(s))).toBe(true);
    expect(formatReport(r)).toContain("held (limit): 8 ask(s): user alice quota reached on root.analytics");
  });

  it("models preemption on the virtual clock: an idle guaranteed queue takes its guarantee back after the delay", () => {
    const r = simulate(
      parseScenario(`queues: |
  partitions:
    - name: default
      queues:
        - name: root
          submitacl: "*"
          queues:
            - name: a
              resources: {guaranteed: {memory: 4}}
              properties: {preemption.delay: 5s}
            - name: b
nodes: [{name: n, count: 2, resources: {memory: 4}}]
until: 60s
applications:
  - {id: batch, queue: root.b, user: u, arrival: 0s, asks: {count: 8, resources: {memory: 1}, duration: 1h}}
  - {id: urgent, queue: root.a, user: v, arrival: 10s, asks: {count: 5, resources: {memory: 1}, duration: 1h}}
`),
    );
    expect(r.preemptions).toEqual([{ queue: "root.a", victimQueue: "root.b", victims: 4 }]);
    const a = r.queues.find((q) => q.name === "root.a")!;
    expect(a.allocated).toBe(4);
    expect(a.peak.memory).toBe(4);
    expect(r.unplaced).toBe(1);
    expect(formatReport(r)).toContain("preempted: 4 pod(s) of root.b for root.a");
  });
});
