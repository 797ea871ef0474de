/**
 * The placement rule interface and the steps rules share (apache/yunikorn-core pkg/scheduler/placement/rule.go and
 * the common part of each rule's `placeApplication`; yunikorn-core reference §4.8).
 */
import { QUEUE_NAME } from "../validate.js";
import type { Filter } from "./filter.js";
import type { PlacementApp, PlacementContext, RuleResult } from "./types.js";

/** One placement rule: a queue path for the application, the next rule, or a refusal. */
export interface PlacementRule {
  /** `provided`, `user`, `tag`, `fixed` or `recovery`. */
  readonly name: string;
  place(app: PlacementApp, ctx: PlacementContext): RuleResult;
}

/** What every configured rule has besides its own settings. */
export interface RuleOptions {
  /** The rule may give a queue that does not exist yet (it is created on placement). */
  readonly create: boolean;
  readonly filter: Filter;
  /** Gives the parent queue of this rule's queue (only for a name that is not fully qualified). */
  readonly parent?: PlacementRule;
}

const NEXT: RuleResult = { type: "next" };
/** The result of a rule that gives no queue: placement tries the next rule. */
export const next = (): RuleResult => NEXT;

/** Dots in a generated queue name become `_dot_` (upstream `replaceDot`). */
export function replaceDot(name: string): string {
  return name.replaceAll(".", "_dot_");
}

/**
 * True for `root.…`: the prefix is matched case-sensitively, as upstream's rules do (`strings.HasPrefix(name, "root.")`),
 * so `ROOT.a` is a plain name (`root.root_dot_a` once its dots are replaced and the path lower-cased).
 */
export function isQualified(name: string): boolean {
  return name.startsWith("root.");
}

/** A refusal when one of the dotted parts is not a valid queue name (upstream `configs.IsQueueNameValid`). */
export function checkNames(rule: string, name: string, qualified: boolean): RuleResult | undefined {
  for (const part of qualified ? name.split(".") : [name]) {
    if (!QUEUE_NAME.test(part)) return { type: "refused", refusal: { reason: "invalid queue name", rule, name: part } };
  }
  return undefined;
}

/**
 * The fully qualified path of `child` below the queue the parent rule gives (root without a parent rule), then the
 * create check. A parent rule that does not match makes this rule not match; a parent that is an existing leaf is a
 * refusal; the parent rule's own `create` decides whether the parent may be created.
 */
export function placeUnderParent(rule: string, child: string, opts: RuleOptions, app: PlacementApp, ctx: PlacementContext): RuleResult {
  let parent = "root";
  if (opts.parent) {
    const p = opts.parent.place(app, ctx);
    if (p.type !== "queue") return p;
    parent = isQualified(p.path) ? p.path : `root.${p.path}`;
    if (ctx.queue(parent)?.isLeaf) return { type: "refused", refusal: { reason: "parent is a leaf", rule, queuePath: parent } };
  }
  return existingOrCreatable(`${parent}.${child}`, opts.create, ctx);
}

/** The path when the queue exists or the rule may create it; else the next rule. */
export function existingOrCreatable(path: string, create: boolean, ctx: PlacementContext): RuleResult {
  const p = path.toLowerCase();
  return create || ctx.queue(p) ? { type: "queue", path: p } : NEXT;
}
