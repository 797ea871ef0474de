import { describe, expect, it } from "vitest";
import { DEFAULT_LEASE_TIMINGS, leaseDecision } from "../../../src/kube/leader.js";

const T = Date.parse("2026-01-05T10:00:00Z");

describe("leaseDecision (client-go leaderelection rule)", () => {
  it("no Lease: create", () => {
    expect(leaseDecision(undefined, "corral-0", T)).toBe("create");
  });

  it("our own Lease: renew, even when it has expired", () => {
    expect(leaseDecision({ holderIdentity: "corral-0", renewTime: T - 1_000, leaseDurationSeconds: 15 }, "corral-0", T)).toBe("renew");
    expect(leaseDecision({ holderIdentity: "corral-0", renewTime: T - 3_600_000, leaseDurationSeconds: 15 }, "corral-0", T)).toBe("renew");
  });

  it("a Lease without a holder (released): acquire", () => {
    expect(leaseDecision({ renewTime: T, leaseDurationSeconds: 15 }, "corral-0", T)).toBe("acquire");
    expect(leaseDecision({ holderIdentity: "", renewTime: T, leaseDurationSeconds: 15 }, "corral-0", T)).toBe("acquire");
  });

  it("held by another candidate: wait until renewTime + leaseDuration, acquire from then on", () => {
    const lease = { holderIdentity: "corral-1", renewTime: T, leaseDurationSeconds: 15 };
    expect(leaseDecision(lease, "corral-0", T)).toBe("wait");
    expect(leaseDecision(lease, "corral-0", T + 14_999)).toBe("wait");
    expect(leaseDecision(lease, "corral-0", T + 15_000)).toBe("acquire");
    expect(leaseDecision(lease, "corral-0", T + 60_000)).toBe("acquire");
    // a clock behind the renewal is not an expiry
    expect(leaseDecision(lease, "corral-0", T - 5_000)).toBe("wait");
  });

  it("uses the Lease's own duration, and client-go's default of 15 s when it has none", () => {
    const long = { holderIdentity: "corral-1", renewTime: T, leaseDurationSeconds: 60 };
    expect(leaseDecision(long, "corral-0", T + 59_999)).toBe("wait");
    expect(leaseDecision(long, "corral-0", T + 60_000)).toBe("acquire");
    expect(DEFAULT_LEASE_TIMINGS.leaseDurationSeconds).toBe(15);
    const noDuration = { holderIdentity: "corral-1", renewTime: T };
    expect(leaseDecision(noDuration, "corral-0", T + 14_999)).toBe("wait");
    expect(leaseDecision(noDuration, "corral-0", T + 15_000)).toBe("acquire");
  });

  it("held by another candidate that never renewed: acquire", () => {
    expect(leaseDecision({ holderIdentity: "corral-1", leaseDurationSeconds: 15 }, "corral-0", T)).toBe("acquire");
  });

  it("identities are compared exactly", () => {
    const lease = { holderIdentity: "Corral-0", renewTime: T, leaseDurationSeconds: 15 };
    expect(leaseDecision(lease, "corral-0", T + 1_000)).toBe("wait");
    expect(leaseDecision(lease, "Corral-0", T + 1_000)).toBe("renew");
  });
});
