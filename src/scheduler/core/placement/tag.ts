/**
 * `tag`: the value of an application tag (`value` names it, matched case-insensitively; the k8s shim sets
 * `namespace`) (apache/yunikorn-core pkg/scheduler/placement/tag_rule.go). A missing or empty tag does not match;
 * a fully qualified value is used as given, any other value as `provided` uses a name.
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

/** The `tag` placement rule (module comment). */
export class TagRule implements PlacementRule {
  readonly name = "tag";
  private readonly tag: string;

  /** @throws Error `a tag queue rule must have a tag name set` */
  constructor(
    tag: string,
    private readonly opts: RuleOptions,
  ) {
    this.tag = tag.toLowerCase();
    if (this.tag === "") throw new Error("a tag queue rule must have a tag name set");
  }

  place(app: PlacementApp, ctx: PlacementContext): RuleResult {
    const value = tagValue(app.tags, this.tag);
    if (!value || !this.opts.filter.allows(app.user, app.groups)) return next();
    if (isQualified(value)) return checkNames(this.name, value, true) ?? existingOrCreatable(value, this.opts.create, ctx);
    const child = replaceDot(value);
    return checkNames(this.name, child, false) ?? placeUnderParent(this.name, child, this.opts, app, ctx);
  }
}

/** A tag's value, the key compared case-insensitively (upstream `Application.GetTag`); "" when absent. */
export function tagValue(tags: Readonly<Record<string, string>>, name: string): string {
  for (const k in tags) if (k.toLowerCase() === name) return tags[k]!;
  return "";
}
