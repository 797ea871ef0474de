import { describe, expect, it } from "vitest";
import type { IncomingMessage } from "node:http";
import { clientAddress, forwardDecision } from "../../../src/scheduler/rest/forward.js";

describe("forwardDecision: a follower's REST reads go to the leader", () => {
  const follower = { leading: false, leaderAddress: "http://10.0.0.7:9080" };
  it("the leader answers everything itself", () => {
    expect(forwardDecision("GET", "/ws/v1/partitions", false, { leading: true })).toEqual({ action: "local" });
  });
  it("a follower forwards state reads, streams and dumps; keeps metrics, its health probe and validate-conf", () => {
    for (const p of ["/ws/v1/partitions", "/ws/v1/events/stream", "/debug/fullstatedump", "/ws/v1/config", "/ws/v1/scheduler/shim"]) {
      expect(forwardDecision("GET", p, false, follower)).toEqual({ action: "forward", target: "http://10.0.0.7:9080" });
    }
    for (const [m, p] of [
      ["GET", "/ws/v1/metrics"],
      ["GET", "/ws/v1/scheduler/healthcheck"],
      ["POST", "/ws/v1/validate-conf"],
      ["GET", "/ui/index.html"],
    ]) {
      expect(forwardDecision(m!, p!, false, follower)).toEqual({ action: "local" });
    }
  });
  it("a follower forwards plugin mode's extender verbs: only the leader holds the allocations they answer from", () => {
    for (const p of ["/scheduler/filter", "/scheduler/bind"]) {
      expect(forwardDecision("POST", p, false, follower)).toEqual({ action: "forward", target: "http://10.0.0.7:9080" });
      expect(forwardDecision("POST", p, false, { leading: true })).toEqual({ action: "local" });
      expect(forwardDecision("POST", p, true, follower)).toMatchObject({ action: "unavailable" });
    }
  });
  it("no leader known, or a request already forwarded once: 503, never the empty core", () => {
    expect(forwardDecision("GET", "/ws/v1/partitions", false, { leading: false })).toMatchObject({
      action: "unavailable",
      reason: expect.stringMatching(/no leader known/),
    });
    expect(forwardDecision("GET", "/ws/v1/partitions", true, follower)).toMatchObject({
      action: "unavailable",
      reason: expect.stringMatching(/already forwarded/),
    });
  });
});

describe("clientAddress: event streams are counted per original client", () => {
  const req = (headers: Record<string, string>, remoteAddress = "10.0.0.9") =>
    ({ headers, socket: { remoteAddress } }) as unknown as IncomingMessage;
  it("a forwarded request counts the client the follower names; a direct one its peer, whatever it claims", () => {
    expect(clientAddress(req({ "x-corral-forwarded": "replica-b", "x-corral-client": "192.168.1.5" }))).toBe("192.168.1.5");
    expect(clientAddress(req({ "x-corral-client": "192.168.1.5" }))).toBe("10.0.0.9");
    expect(clientAddress(req({}))).toBe("10.0.0.9");
  });
});
