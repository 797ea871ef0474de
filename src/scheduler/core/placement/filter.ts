/**
 * A placement rule's user/group filter (apache/yunikorn-core pkg/scheduler/placement/filter.go; yunikorn-core
 * reference §2.5, §4.8).
 *
 * - `type`: `deny` makes a match deny; anything else allows (`allow`, "", absent).
 * - No users and no groups (absent or empty lists): the filter matches nobody and returns its type for everyone —
 *   `type: deny` alone denies every user.
 * - A single entry containing one of `^$*+?()[{}|` is a regular expression (Go syntax, unanchored; an expression that
 *   does not compile matches nothing); a single other entry is a name; two or more entries are a list of names
 *   (entries that are not valid user or group names are dropped). Names match case-sensitively.
 * - The user is checked first, then each group: the first match returns the type, no match its opposite.
 */
import type { FilterConfig } from "../config.js";
import { GROUP_NAME, USER_NAME } from "../validate.js";
import { goRegExp } from "../../../util/go-regexp.js";

/** Characters that make a filter entry a regular expression (upstream `configs.SpecialRegExp`). */
const SPECIAL = /[\^$*+?()[{}|]/;

interface Matcher {
  readonly names: ReadonlySet<string>;
  readonly exp?: RegExp;
}

/** A compiled placement rule filter (module comment). */
export class Filter {
  readonly allow: boolean;
  /** True when the filter names no user and no group. */
  readonly empty: boolean;
  private readonly users: Matcher;
  private readonly groups: Matcher;

  constructor(conf: FilterConfig | undefined) {
    // Upstream compares the type with "deny" exactly; the validator accepts any case, so corral does too.
    this.allow = (conf?.type ?? "").toLowerCase() !== "deny";
    const users = conf?.users ?? [];
    const groups = conf?.groups ?? [];
    this.empty = users.length === 0 && groups.length === 0;
    this.users = matcher(users, USER_NAME);
    this.groups = matcher(groups, GROUP_NAME);
  }

  /** Whether the rule may place an application of this user (upstream `allowUser`). */
  allows(user: string, groups: readonly string[]): boolean {
    if (this.empty) return this.allow;
    if (matches(this.users, user)) return this.allow;
    for (const g of groups) if (matches(this.groups, g)) return this.allow;
    return !this.allow;
  }
}

function matcher(entries: readonly string[], valid: RegExp): Matcher {
  if (entries.length === 1) {
    const e = entries[0]!;
    if (SPECIAL.test(e)) return { names: new Set(), exp: goRegExp(e) };
    return { names: new Set(valid.test(e) ? [e] : []) };
  }
  return { names: new Set(entries.filter((e) => valid.test(e))) };
}

function matches(m: Matcher, name: string): boolean {
  return m.exp ? m.exp.test(name) : m.names.has(name);
}
