/**
 * The mutating webhook's rules name the CronJob version discovery chose (batch/v1beta1 on 1.20, batch/v1 from 1.21).
 */
import { describe, expect, it } from "vitest";
import { MUTATE_RULE, mutateRules, mutatingWebhookConfiguration } from "../../../src/admission/webhooks.js";

const webhookRules = (cronJobApiVersion?: string) =>
  (
    mutatingWebhookConfiguration({ target: { mode: "url", url: "https://127.0.0.1:9089" }, caBundle: "ca", cronJobApiVersion }) as {
      webhooks: { rules: unknown[] }[];
    }
  ).webhooks[0]!.rules;

describe("mutateRules", () => {
  it("without discovery: one rule, every version", () => {
    expect(mutateRules()).toEqual([MUTATE_RULE]);
    expect(webhookRules()).toEqual([MUTATE_RULE]);
  });

  it.each([
    ["batch/v1beta1", "v1beta1"],
    ["batch/v1", "v1"],
  ])("CronJobs in %s get a rule of their own", (gv, version) => {
    const rules = webhookRules(gv) as { apiGroups: string[]; apiVersions: string[]; resources: string[]; operations: string[] }[];
    expect(rules).toHaveLength(2);
    expect(rules[0]!.resources).toEqual(MUTATE_RULE.resources.filter((r) => r !== "cronjobs"));
    expect(rules[1]).toEqual({ ...MUTATE_RULE, apiGroups: ["batch"], apiVersions: [version], resources: ["cronjobs"] });
  });
});
