/**
 * `user`: a queue named after the submitting user, dots replaced by `_dot_`, below the parent rule's queue (root by
 * default) (apache/yunikorn-core pkg/scheduler/placement/user_rule.go).
 */
import { type PlacementRule, type RuleOptions, checkNames, next, placeUnderParent, replaceDot } from "./rule.js";
import type { PlacementApp, PlacementContext, RuleResult } from "./types.js";

/** The `user` placement rule (module comment). */
export class UserRule implements PlacementRule {
  readonly name = "user";
  constructor(private readonly opts: RuleOptions) {}

  place(app: PlacementApp, ctx: PlacementContext): RuleResult {
    if (!this.opts.filter.allows(app.user, app.groups)) return next();
    const child = replaceDot(app.user);
    return checkNames(this.name, child, false) ?? placeUnderParent(this.name, child, this.opts, app, ctx);
  }
}
