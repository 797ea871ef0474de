/**
 * `fixed`: the queue in the rule's `value`, lower-cased (apache/yunikorn-core pkg/scheduler/placement/fixed_rule.go).
 * A value starting with `root` is fully qualified and may not have a parent rule; any other value is placed below
 * the parent rule's queue (root by default). As upstream, the value `root` is qualified: on its own it names the root
 * queue (a parent, so placement tries the next rule); as a parent rule it makes the child `root.root.<child>`
 * (upstream fixed_rule_test.go TestFixedRuleParent, user_rule_test.go TestUserRuleParent).
 */
import type { PlacementRuleConfig } from "../config.js";
import { QUEUE_NAME } from "../validate.js";
import { type PlacementRule, type RuleOptions, existingOrCreatable, next, placeUnderParent } from "./rule.js";
import type { PlacementApp, PlacementContext, RuleResult } from "./types.js";
import { formatPlacementRefusal } from "./types.js";

/** The `fixed` placement rule (module comment). */
export class FixedRule implements PlacementRule {
  readonly name = "fixed";
  private readonly queue: string;
  private readonly qualified: boolean;

  /**
   * @throws Error with upstream's texts: `a fixed queue rule must have a queue name set`, an invalid queue name,
   *   `cannot have a fixed queue rule with qualified queue getName and a parent rule: <rule>`
   */
  constructor(
    conf: PlacementRuleConfig,
    private readonly opts: RuleOptions,
  ) {
    this.queue = (conf.value ?? "").toLowerCase();
    if (this.queue === "") throw new Error("a fixed queue rule must have a queue name set");
    for (const part of this.queue.split(".")) {
      if (!QUEUE_NAME.test(part)) throw new Error(formatPlacementRefusal({ reason: "invalid queue name", rule: this.name, name: part }));
    }
    this.qualified = this.queue.startsWith("root");
    if (this.qualified && opts.parent)
      throw new Error(`cannot have a fixed queue rule with qualified queue getName and a parent rule: ${goRule(conf)}`);
  }

  place(app: PlacementApp, ctx: PlacementContext): RuleResult {
    if (!this.opts.filter.allows(app.user, app.groups)) return next();
    if (this.qualified) return existingOrCreatable(this.queue, this.opts.create, ctx);
    return placeUnderParent(this.name, this.queue, this.opts, app, ctx);
  }
}

/** A rule as Go's `%v` prints upstream's PlacementRule (the parent as `&{…}` where Go prints its address). */
function goRule(r: PlacementRuleConfig): string {
  const f = r.filter ?? {};
  return (
    `{${r.name} ${!!r.create} {${f.type ?? ""} [${(f.users ?? []).join(" ")}] [${(f.groups ?? []).join(" ")}]} ` +
    `${r.parent ? `&${goRule(r.parent)}` : "<nil>"} ${r.value ?? ""}}`
  );
}
