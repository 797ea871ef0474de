/**
 * `recovery`: the implicit last rule; a forced application (one already running in the cluster) that no other rule
 * placed goes to `root.@recovery@` (apache/yunikorn-core pkg/scheduler/placement/recovery_rule.go). Never configured.
 */
import { type PlacementRule, next } from "./rule.js";
import { type PlacementApp, RECOVERY_QUEUE, type RuleResult } from "./types.js";

/** The implicit `recovery` placement rule (module comment). */
export class RecoveryRule implements PlacementRule {
  readonly name = "recovery";

  place(app: PlacementApp): RuleResult {
    return app.forced ? { type: "queue", path: RECOVERY_QUEUE } : next();
  }
}
