/**
 * Two replicas over real HTTP (rest/forward.ts `replicaIntercept`, as the scheduler process installs it): a follower
 * passes plugin mode's extender verbs, body and all, to the leader (kube-scheduler reaches the Service, and only the
 * leader holds allocations), and the leader's answer comes back unchanged; a follower that knows no leader answers
 * 503 instead of its empty core's verdict.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { replicaIntercept } from "../../src/scheduler/rest/forward.js";
import { type RestServer, json, readBody, startRestServer } from "../../src/scheduler/rest/server.js";
import type { SchedulerConfig } from "../../src/scheduler/core/config.js";

const log = pino({ level: "silent" });
const config = () => ({ partitions: [] }) as unknown as SchedulerConfig;

/** A replica whose extender verbs answer with who it is and the body it was sent. */
const replica = (identity: string, view: () => { leading: boolean; leaderAddress?: string }) => {
  const verb = (name: string) => (req: IncomingMessage, res: ServerResponse) => {
    void readBody(req, 1 << 20).then((body) => json(res, 200, { verb: name, answeredBy: identity, got: JSON.parse(body) }));
  };
  return startRestServer({
    host: "127.0.0.1",
    port: 0,
    log,
    config,
    uiDir: false,
    routes: { "POST /scheduler/filter": verb("filter"), "POST /scheduler/bind": verb("bind") },
    intercept: replicaIntercept({ identity, leaderElect: true, view }),
  });
};

let leader: RestServer;
let follower: RestServer;
let orphan: RestServer;
beforeAll(async () => {
  leader = await replica("replica-a", () => ({ leading: true }));
  follower = await replica("replica-b", () => ({ leading: false, leaderAddress: `http://127.0.0.1:${leader.port}` }));
  orphan = await replica("replica-c", () => ({ leading: false }));
});
afterAll(async () => {
  await Promise.all([leader.close(), follower.close(), orphan.close()]);
});

const post = (port: number, path: string, body: unknown) =>
  fetch(`http://127.0.0.1:${port}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

describe("plugin mode's extender verbs on two replicas", () => {
  it("the follower forwards filter and bind with their bodies; the leader answers", async () => {
    const args = { Pod: { metadata: { name: "p", namespace: "ns", uid: "u1" } }, NodeNames: ["n1", "n2"] };
    for (const verb of ["filter", "bind"]) {
      const r = await post(follower.port, `/scheduler/${verb}`, args);
      expect(r.status).toBe(200);
      expect(r.headers.get("x-corral-served-by")).toBe("replica-a");
      expect(await r.json()).toEqual({ verb, answeredBy: "replica-a", got: args });
    }
  });

  it("the leader answers itself; a follower knowing no leader answers 503, not its empty core's verdict", async () => {
    const direct = await post(leader.port, "/scheduler/filter", { NodeNames: ["n1"] });
    expect(direct.headers.get("x-corral-served-by")).toBe("replica-a");
    expect(await direct.json()).toMatchObject({ answeredBy: "replica-a" });
    const refused = await post(orphan.port, "/scheduler/filter", { NodeNames: ["n1"] });
    expect(refused.status).toBe(503);
    expect(((await refused.json()) as { message: string }).message).toMatch(/no leader known/);
  });
});
