/**
 * The placement manager: runs the configured rules in order, then the implicit `recovery` rule, and checks the
 * queue each gives (apache/yunikorn-core pkg/scheduler/placement/placement.go; yunikorn-core reference §4.8).
 *
 * For each rule's queue: an existing queue must be a leaf, allow the user to submit and not be draining; a queue
 * that does not exist yet needs the deepest existing ancestor to allow the user to submit (corral also requires that
 * ancestor to be a parent that is not draining; upstream rejects the application when the ancestor is a leaf, as the
 * creation fails, and creates the queue below a draining one).
 * Otherwise the next rule is tried. After the last rule gives nothing, `root.default` is tried when it exists.
 * `root.@recovery@` is only for forced applications and bypasses every check for them; for any other application it
 * is never a usable queue, whichever rule names it (upstream: its ACL check always fails).
 * A rule error (an invalid queue name, a parent rule giving a leaf) refuses the application at once.
 */
import type { PlacementRuleConfig } from "../config.js";
import { Filter } from "./filter.js";
import { FixedRule } from "./fixed.js";
import { ProvidedRule } from "./provided.js";
import { RecoveryRule } from "./recovery.js";
import type { PlacementRule, RuleOptions } from "./rule.js";
import { TagRule } from "./tag.js";
import { DEFAULT_QUEUE, type PlacementApp, type PlacementContext, type PlacementResult, RECOVERY_QUEUE, isRecoveryQueue } from "./types.js";
import { UserRule } from "./user.js";

/**
 * A rule from its configuration (upstream `newRule`), its parent rules included.
 * @throws Error with upstream's texts for an unknown or internal rule name and for incomplete rules
 */
export function newRule(conf: PlacementRuleConfig): PlacementRule {
  const name = conf.name.toLowerCase();
  if (name === "recovery") throw new Error("recovery rule cannot be part of the config, failing placement rule config");
  if (!["provided", "user", "tag", "fixed"].includes(name))
    throw new Error(`unknown rule name specified ${conf.name}, failing placement rule config`);
  const opts: RuleOptions = {
    create: !!conf.create,
    filter: new Filter(conf.filter),
    parent: conf.parent ? newRule(conf.parent) : undefined,
  };
  switch (name) {
    case "provided":
      return new ProvidedRule(opts);
    case "user":
      return new UserRule(opts);
    case "tag":
      return new TagRule(conf.value ?? "", opts);
    default:
      return new FixedRule(conf, opts);
  }
}

/** The placement rules of a partition, run in order (module comment). */
export class PlacementManager {
  private readonly rules: readonly PlacementRule[];

  /**
   * No rules configured: a single `provided` rule without create (upstream `buildRules`).
   * @throws Error from `newRule` (the configuration update fails with it)
   */
  constructor(rules: readonly PlacementRuleConfig[]) {
    const confs = rules.length > 0 ? rules : [{ name: "provided", create: false }];
    this.rules = [...confs.map(newRule), new RecoveryRule()];
  }

  /** The rule names in order, the implicit `recovery` rule last (REST `placementrules`). */
  get ruleNames(): string[] {
    return this.rules.map((r) => r.name);
  }

  /** The leaf queue for `app` (it may still have to be created), or why it is refused. */
  place(app: PlacementApp, ctx: PlacementContext): PlacementResult {
    for (let i = 0; i < this.rules.length; i++) {
      const r = this.rules[i]!.place(app, ctx);
      if (r.type === "refused") return r;
      let path = r.type === "queue" ? r.path : undefined;
      if (path === undefined && i === this.rules.length - 1 && ctx.queue(DEFAULT_QUEUE)) path = DEFAULT_QUEUE;
      if (path === undefined) continue;
      if (isRecoveryQueue(path)) {
        if (app.forced) return { type: "placed", path: RECOVERY_QUEUE };
        continue;
      }
      if (usable(path, app, ctx)) return { type: "placed", path };
    }
    return { type: "refused", refusal: { reason: "no rule matched" } };
  }
}

/** The checks on a rule's queue (see the module comment). */
function usable(path: string, app: PlacementApp, ctx: PlacementContext): boolean {
  const q = ctx.queue(path);
  if (q) return q.isLeaf && !q.draining && q.canSubmit(app.user, app.groups);
  const parts = path.split(".");
  if (parts[0] !== "root") return false;
  for (let n = parts.length - 1; n > 0; n--) {
    const a = ctx.queue(parts.slice(0, n).join("."));
    if (a) return !a.isLeaf && !a.draining && a.canSubmit(app.user, app.groups);
  }
  return false;
}
