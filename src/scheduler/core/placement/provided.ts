/**
 * `provided`: the queue named on submission (apache/yunikorn-core pkg/scheduler/placement/provided_rule.go).
 * A fully qualified name (`root.…`) is used as given (every part must be a valid queue name, the parent rule is not
 * run); any other name has its dots replaced by `_dot_` and is placed below the parent rule's queue (root by default).
 */
import {
  type PlacementRule,
  type RuleOptions,
  checkNames,
  existingOrCreatable,
  isQualified,
  next,
  placeUnderParent,
  replaceDot,
} from "./rule.js";
import type { PlacementApp, PlacementContext, RuleResult } from "./types.js";

/** The `provided` placement rule (module comment). */
export class ProvidedRule implements PlacementRule {
  readonly name = "provided";
  constructor(private readonly opts: RuleOptions) {}

  place(app: PlacementApp, ctx: PlacementContext): RuleResult {
    const queue = app.queueName;
    if (queue === "" || !this.opts.filter.allows(app.user, app.groups)) return next();
    if (isQualified(queue)) return checkNames(this.name, queue, true) ?? existingOrCreatable(queue, this.opts.create, ctx);
    const child = replaceDot(queue);
    return checkNames(this.name, child, false) ?? placeUnderParent(this.name, child, this.opts, app, ctx);
  }
}
