/**
 * Validation of `queues.yaml`, in YuniKorn's order and with its error texts (apache/yunikorn-core
 * pkg/common/configs/configvalidator.go; yunikorn-core reference §2.8). The first error wins, as upstream.
 * Also normalises the config as upstream does: partition names, the inserted `root` queue, partition limits copied to
 * root.
 */
import {
  type LimitConfig,
  type PartitionConfig,
  type PlacementRuleConfig,
  type QueueConfig,
  type SchedulerConfig,
  decodeQueuesYaml,
} from "./config.js";
import { parseResource } from "./quantity.js";
import { type Res as Resource, add, fitsInMaxUndef, format as formatResource, isZero, minMaxUndef, strictlyPositive } from "./resources.js";
import { goRegExp } from "../../util/go-regexp.js";

/** A valid queue name (upstream configvalidator.go QueueNameRegExp). */
export const QUEUE_NAME = /^[a-zA-Z0-9_:#/@-]{1,64}$/;
/** Upstream's text for a name `QUEUE_NAME` refuses (pkg/common/errors.go ErrorInvalidQueueName). */
export const INVALID_QUEUE_NAME =
  "invalid queue name, max 64 characters consisting of alphanumeric characters and '-', '_', '#', '@', '/', ':' allowed";
/** A valid user name in `limits` and placement filters (upstream configvalidator.go UserRegExp). */
export const USER_NAME = /^[_a-zA-Z][a-zA-Z0-9:#/_.@-]*[$]?$/;
/** A valid group name in `limits` and placement filters (upstream configvalidator.go GroupRegExp). */
export const GROUP_NAME = /^[_a-zA-Z][a-zA-Z0-9:_.-]*$/;
const RULE_NAME = /^[_a-zA-Z][a-zA-Z0-9_]*$/;

/** Thrown by the validation with upstream's error text; the configuration update fails with it. */
export class ConfigValidationError extends Error {}
const fail = (msg: string): never => {
  throw new ConfigValidationError(msg);
};

/** Go `%v` of a Limit struct, as upstream prints it in messages. */
function limitText(l: LimitConfig): string {
  const m = l.maxresources
    ? `map[${Object.keys(l.maxresources)
        .sort()
        .map((k) => `${k}:${l.maxresources![k]}`)
        .join(" ")}]`
    : "map[]";
  return `{${l.limit ?? ""} [${(l.users ?? []).join(" ")}] [${(l.groups ?? []).join(" ")}] ${m} ${l.maxapplications ?? 0}}`;
}

/**
 * Two limit lists equal as Go's reflect.DeepEqual sees the decoded `[]Limit` (upstream checkLimitsStructure): entry by
 * entry, in order; the key order in the YAML does not matter, and an absent `limit` or `maxapplications` equals its
 * zero value.
 */
function sameLimits(a: readonly LimitConfig[], b: readonly LimitConfig[]): boolean {
  const asGo = (l: LimitConfig) => ({
    limit: l.limit ?? "",
    users: l.users,
    groups: l.groups,
    maxresources: l.maxresources,
    maxapplications: l.maxapplications ?? 0,
  });
  // JSON with each object's keys sorted: the same text exactly when the values are equal
  const text = (v: unknown) =>
    JSON.stringify(v, (_k, x: unknown) =>
      x !== null && typeof x === "object" && !Array.isArray(x)
        ? Object.fromEntries(Object.entries(x).sort(([p], [q]) => (p < q ? -1 : 1)))
        : x,
    );
  return text(a.map(asGo)) === text(b.map(asGo));
}

/** Parses a resource map; values the core cannot hold exactly (above 2^53) are refused here already. */
function parseOrFail(map: Record<string, string> | undefined): Resource {
  try {
    return parseResource(map);
  } catch (err) {
    return fail((err as Error).message);
  }
}

/** Step 1: root queue insertion. */
function checkQueuesStructure(p: PartitionConfig): void {
  if (!p.queues) fail("queue config is not set");
  const qs = p.queues!;
  if (!(qs.length === 1 && qs[0]!.name.toLowerCase() === "root")) {
    p.queues = [{ name: "root", parent: true, queues: qs }];
  } else {
    qs[0]!.parent = true;
  }
  const root = p.queues![0]!;
  if (root.resources && (root.resources.guaranteed !== undefined || root.resources.max !== undefined))
    fail("root queue must not have resource limits set");
}

/** Step 2: partition limits ⇔ root limits. */
function checkLimitsStructure(p: PartitionConfig): void {
  const root = p.queues![0]!;
  if (root.name.toLowerCase() !== "root") fail(`top queue name is ${root.name} not root`);
  if (p.limits && p.limits.length > 0) {
    if (root.limits && root.limits.length > 0 && !sameLimits(root.limits, p.limits))
      fail("partition limits and root queue limits are not equivalent");
    root.limits = p.limits;
  }
}

function checkAcl(acl: string | undefined): void {
  if (acl === undefined) return;
  if (acl.trim().split(/\s+/).filter(Boolean).length > 2) fail(`multiple spaces found in ACL: '${acl}'`);
}

function checkLimits(q: QueueConfig, isRoot: boolean): void {
  const users = new Set<string>();
  const groups = new Set<string>();
  let wildUser = false;
  let wildGroup = false;
  for (const l of q.limits ?? []) {
    const lu = l.users ?? [],
      lg = l.groups ?? [];
    if (lu.length === 0 && lg.length === 0) fail(`empty user and group lists defined in limit '${limitText(l)}'`);
    for (const u of lu) {
      if (u !== "*" && !USER_NAME.test(u)) fail(`invalid limit user name '${u}' in limit definition`);
      if (users.has(u)) fail(`duplicated user name '${u}', already exists`);
      if (wildUser && u !== "*") fail(`should not set no wildcard user ${u} after wildcard user limit`);
      if (u === "*") wildUser = true;
      users.add(u);
    }
    for (const g of lg) {
      if (g !== "*" && !GROUP_NAME.test(g)) fail(`invalid limit group name '${g}' in limit definition`);
      if (groups.has(g)) fail(`duplicated group name '${g}'`);
      if (wildGroup && g !== "*") fail(`should not set no wildcard group ${g} after wildcard group limit`);
      if (g === "*") wildGroup = true;
      groups.add(g);
    }
    if (groups.size === 1 && groups.has("*"))
      fail(
        "should not specify only one group limit that is using the wildcard. There must be at least one limit with a group name defined ",
      );
    const hasRes = l.maxresources !== undefined && Object.keys(l.maxresources).length > 0;
    let limitRes: Resource | undefined;
    if (hasRes) {
      limitRes = parseOrFail(l.maxresources);
      if (!strictlyPositive(limitRes)) fail(`MaxResources should be greater than zero in '${l.limit ?? ""}' limit`);
    }
    if ((l.maxapplications ?? 0) === 0 && !hasRes)
      fail(`invalid resource combination for limit ${l.limit ?? ""} all resource limits are null`);
    if ((q.maxapplications ?? 0) !== 0 && q.maxapplications! < (l.maxapplications ?? 0)) {
      fail(`invalid MaxApplications settings for limit ${l.limit ?? ""} exceed current the queue MaxApplications`);
    }
    if (!isRoot && limitRes) {
      let qmax: Resource;
      try {
        qmax = parseResource(q.resources?.max);
      } catch (err) {
        return fail(`parse queue ${q.name} max resource failed: ${(err as Error).message}`);
      }
      if (!fitsInMaxUndef(qmax, limitRes))
        fail(`invalid MaxResources settings for limit ${l.limit ?? ""} exeecd current the queue MaxResources`);
    }
  }
}

/** Step 3: ACLs, limits, child names, recursively. */
function checkQueues(q: QueueConfig, level: number, isRoot: boolean): void {
  checkAcl(q.adminacl);
  checkAcl(q.submitacl);
  checkLimits(q, isRoot);
  const seen = new Set<string>();
  for (const c of q.queues ?? []) {
    if (!QUEUE_NAME.test(c.name)) fail(INVALID_QUEUE_NAME);
    const lower = c.name.toLowerCase();
    if (seen.has(lower)) fail(`duplicate child name found with name '${c.name}', level ${level}`);
    seen.add(lower);
    checkQueues(c, level + 1, false);
  }
}

/** Step 4: guaranteed ≤ max, child max ≤ parent effective max, children's guaranteed sum ≤ own guaranteed and max. */
function checkQueueResource(q: QueueConfig, parentMax: Resource | undefined): Resource {
  const g = parseOrFail(q.resources?.guaranteed);
  const m = parseOrFail(q.resources?.max);
  const hasMax = Object.keys(m).length > 0;
  if (hasMax && !fitsInMaxUndef(m, g))
    fail(`guaranteed resource ${formatResource(g)} is larger than maximum resource ${formatResource(m)} for queue ${q.name}`);
  if (hasMax && parentMax && !fitsInMaxUndef(parentMax, m))
    fail(`max resource of parent ${formatResource(parentMax)} is smaller than maximum resource ${formatResource(m)} for queue ${q.name}`);
  const effMax = minMaxUndef(hasMax ? m : undefined, parentMax);
  let sum: Resource = {};
  for (const c of q.queues ?? []) sum = add(sum, checkQueueResource(c, effMax));
  if ((q.queues ?? []).length > 0) {
    // a guarantee of 0 is a guarantee (upstream FitInMaxUndef): children may not sum above it
    if (!fitsInMaxUndef(g, sum))
      fail(
        `guaranteed resource of parent ${formatResource(g)} is smaller than sum of guaranteed resources ` +
          `${formatResource(sum)} of the children for queue ${q.name}`,
      );
    if (effMax && !fitsInMaxUndef(effMax, sum))
      fail(
        `max resource ${formatResource(effMax)} is smaller than sum of guaranteed resources ${formatResource(sum)} of ` +
          `the children for queue ${q.name}`,
      );
  }
  return isZero(g) ? sum : g;
}

function isRegexpOrName(v: string, name: RegExp): boolean {
  if (name.test(v)) return true;
  return /[\^$*+?()[{}|]/.test(v) && goRegExp(v) !== undefined;
}

function checkRule(r: PlacementRuleConfig): void {
  if (!RULE_NAME.test(r.name ?? "")) fail(`invalid rule name ${r.name ?? ""}, a name must be a valid identifier`);
  const f = r.filter;
  if (f) {
    const t = (f.type ?? "").toLowerCase();
    if (t !== "" && t !== "allow" && t !== "deny")
      fail(`invalid rule filter type ${f.type}, filter type  must be either '', allow or deny`);
    if (f.users?.length === 1 && !isRegexpOrName(f.users[0]!, USER_NAME))
      fail(`invalid rule filter user list is not a proper list or regexp: [${f.users[0]}]`);
    if (f.groups?.length === 1 && !isRegexpOrName(f.groups[0]!, GROUP_NAME))
      fail(`invalid rule filter group list is not a proper list or regexp: [${f.groups[0]}]`);
  }
  if (r.parent) checkRule(r.parent);
}

/** Step 5: rule names and filters, then the static part of `fixed` chains against the configured tree. */
function checkPlacementRules(p: PartitionConfig): void {
  const rules = p.placementrules ?? [];
  for (const r of rules) checkRule(r);
  rules.forEach((top, i) => {
    const chain: PlacementRuleConfig[] = [];
    for (let r: PlacementRuleConfig | undefined = top; r; r = r.parent) chain.unshift(r);
    const chainText = chain.map((r) => r.name).join("->");
    if (chain[0]!.name.toLowerCase() !== "fixed") return;
    const parts: string[] = [];
    let k = 0;
    for (; k < chain.length && chain[k]!.name.toLowerCase() === "fixed"; k++) {
      const v = (chain[k]!.value ?? "").toLowerCase();
      if (v.startsWith("root")) {
        if (parts.length > 0) fail(`illegal fully qualified 'fixed' rule with value ${chain[k]!.value}`);
        parts.push(v);
      } else {
        parts.push(parts.length === 0 ? `root.${v}` : v);
      }
    }
    const dynamic = k < chain.length;
    const path = parts.join(".");
    const names = path.split(".");
    let node: QueueConfig | undefined = p.queues![0];
    for (let j = 1; j < names.length; j++) {
      const isLeaf = !node!.parent && (node!.queues ?? []).length === 0;
      if (isLeaf)
        fail(
          `placement rule no. #${i} (${chainText}) references non-existing queues (${path}) which cannot be created ` +
            `because the last queue (${node!.name}) in the hierarchy is a leaf`,
        );
      const next: QueueConfig | undefined = (node!.queues ?? []).find((c) => c.name === names[j]);
      if (!next) {
        if (!top.create) fail(`placement rule no. #${i} (${chainText}) references non-existing queues (${path}) and create is 'false'`);
        return;
      }
      node = next;
    }
    const isParent = !!node!.parent || (node!.queues ?? []).length > 0;
    if (isParent !== dynamic) fail(`placement rule no. #${i} (${chainText}) references a queue (${path}) which is not a leaf`);
  });
}

function checkNodeSortingPolicy(p: PartitionConfig): void {
  const t = p.nodesortpolicy?.type ?? "";
  if (t !== "" && t !== "fair" && t !== "binpacking") fail(`undefined policy: ${t}`);
  for (const [k, w] of Object.entries(p.nodesortpolicy?.resourceweights ?? {}))
    if (w < 0) fail(`negative resource weight for ${k} is not allowed`);
}

function checkQueueMaxApplications(q: QueueConfig): void {
  const pm = q.maxapplications ?? 0;
  for (const c of q.queues ?? []) {
    const cm = c.maxapplications ?? 0;
    if (pm !== 0 && cm > pm) fail("parent maxApplications must be larger than child maxApplications");
    if (pm !== 0 && cm === 0)
      fail("maxApplications is either undefined or zero, which is not allowed when parent queue's maxApplications is defined");
    checkQueueMaxApplications(c);
  }
}

interface Carried {
  res?: Resource;
  apps?: number;
}

/** Steps 8 and 9: user/group limits never exceed the nearest ancestor's (or the ancestor's wildcard). */
function checkLimitHierarchy(q: QueueConfig, path: string, users: Map<string, Carried>, groups: Map<string, Carried>): void {
  const nextUsers = new Map(users),
    nextGroups = new Map(groups);
  for (const l of q.limits ?? []) {
    const res = l.maxresources && Object.keys(l.maxresources).length > 0 ? parseOrFail(l.maxresources) : undefined;
    const apps = l.maxapplications ?? 0;
    for (const [kind, names, carried, next] of [
      ["user", l.users ?? [], users, nextUsers],
      ["group", l.groups ?? [], groups, nextGroups],
    ] as const) {
      for (const name of names) {
        const own = carried.get(name);
        const wild = carried.get("*");
        const ref = own ?? (name !== "*" ? wild : undefined);
        const wildText = own ? "" : "wildcard ";
        if (ref?.res && res && !fitsInMaxUndef(ref.res, res)) {
          fail(
            own
              ? `${kind} ${name} max resource ${formatResource(res)} of queue ${q.name} is greater than immediate or ` +
                  `ancestor parent maximum resource ${formatResource(ref.res)}`
              : `${kind} ${name} max resource ${formatResource(res)} of queue ${q.name} is greater than ` +
                  `${wildText}maximum resource ${formatResource(ref.res)} of immediate or ancestor parent queue`,
          );
        }
        if (ref?.apps && (apps > ref.apps || apps === 0)) {
          fail(
            own
              ? `${kind} ${name} max applications ${apps} of queue ${q.name} is greater than immediate or ancestor ` +
                  `parent max applications ${ref.apps}`
              : `${kind} ${name} max applications ${apps} of queue ${q.name} is greater than ${wildText}max ` +
                  `applications ${ref.apps} of immediate or ancestor parent queue`,
          );
        }
        // carried down (upstream checkLimitResource, checkLimitMaxApplications): the resources as the smaller of its own
        // and its own ancestor limit, not of the wildcard it was checked against; the applications as set here
        next.set(name, { res: own ? minMaxUndef(res, own.res) : res, apps });
      }
    }
  }
  for (const c of q.queues ?? []) checkLimitHierarchy(c, `${path}.${c.name}`, nextUsers, nextGroups);
}

/**
 * Validates and normalises a decoded config (mutates it: names, root insertion, limits copied to root).
 * @throws ConfigValidationError with YuniKorn's text for the first problem
 */
export function validateSchedulerConfig(cfg: SchedulerConfig): SchedulerConfig {
  const names = new Set<string>();
  for (const p of cfg.partitions) {
    if (p.name === "" || p.name.toLowerCase() === "default") p.name = "default";
    const lower = p.name.toLowerCase();
    if (names.has(lower)) fail(`duplicate partition name found with name ${p.name}`);
    names.add(lower);
    checkQueuesStructure(p);
    checkLimitsStructure(p);
    const root = p.queues![0]!;
    checkQueues(root, 1, true);
    checkQueueResource(root, undefined);
    checkPlacementRules(p);
    checkNodeSortingPolicy(p);
    checkQueueMaxApplications(root);
    checkLimitHierarchy(root, "root", new Map(), new Map());
  }
  return cfg;
}

/** Result of `POST /ws/v1/validate-conf` (`{"allowed": bool, "reason": string}`, reason omitted when empty). */
export interface ValidateConfResult {
  allowed: boolean;
  reason?: string;
}

/** Parse + validate a `queues.yaml` text, as the scheduler's validate-conf endpoint does. Never throws. */
export function validateQueuesYaml(text: string): ValidateConfResult {
  try {
    validateSchedulerConfig(decodeQueuesYaml(text));
    return { allowed: true };
  } catch (err) {
    return { allowed: false, reason: (err as Error).message };
  }
}
