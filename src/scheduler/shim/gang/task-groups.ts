/**
 * The `yunikorn.apache.org/task-groups` annotation (apache/yunikorn-k8shim pkg/cache/utils.go
 * GetTaskGroupsFromAnnotation and validateTaskGroupResources, pkg/cache/amprotocol.go TaskGroup; yunikorn-shim
 * reference §2.3; yunikorn-site docs/user_guide/gang_scheduling.md). Pure.
 *
 * The value is a JSON list of task groups. Field names match case-insensitively, the last spelling winning, and
 * unknown fields are ignored, as Go's encoding/json decodes them upstream. A task group is refused when:
 *  - the value is not JSON, not a list (`null` = no task groups), or an entry is not an object;
 *  - a field has the wrong JSON type (`name` a string, `minMember` an integer, the maps objects of strings,
 *    `tolerations` / `topologySpreadConstraints` lists of objects, `affinity` an object);
 *  - `name` is empty, `minResource` is missing, `minMember` is missing, 0 or negative (upstream's checks, in its order);
 *  - a `minResource` quantity is not a Kubernetes quantity or is negative; `cpu` and `vcore` both appear (one core key),
 *    or `pods` appears (the placeholder count owns it) — YUNIKORN-3329;
 *  - `minMember × quantity`, or its sum over the groups, is not an exact integer in corral's range (below 2^53;
 *    upstream's bound is int64, corral's core counts in JavaScript numbers);
 *  - corral only: two groups share a name (the user guide requires unique names, upstream does not check and then
 *    counts the groups wrongly), or a resource name is not a Kubernetes qualified name (upstream passes it on and
 *    the API server refuses the placeholder; an empty one upstream leaves off the placeholder but counts).
 * The nested Kubernetes objects (tolerations, affinity, spread constraints) are passed to placeholders as written;
 * the API server validates them when the placeholder is created.
 */
import { isObject } from "../../../util/objects.js";
import { parseK8sQuantity } from "../pod-resources.js";
import { ANNOTATION_TASK_GROUPS } from "./constants.js";

type KubeObject = Record<string, unknown>;

/** One task group: a gang of `minMember` pods of the same shape (amprotocol.go TaskGroup). */
export interface TaskGroup {
  /** Unique within the application; real pods name it in `yunikorn.apache.org/task-group-name`. */
  name: string;
  /** Placeholders to create and bind before the application runs (≥ 1). */
  minMember: number;
  /** Requests (= limits) of each placeholder: resource name → Kubernetes quantity as written (numbers as decimal text). */
  minResource: Record<string, string>;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  nodeSelector?: Record<string, string>;
  tolerations?: KubeObject[];
  affinity?: KubeObject;
  topologySpreadConstraints?: KubeObject[];
}

/** What was wrong with the annotation: enough to name it in a Warning event. */
export interface TaskGroupsProblem {
  annotation: typeof ANNOTATION_TASK_GROUPS;
  /** Position of the offending group in the list (0-based), when one group is at fault. */
  index?: number;
  /** Its name, when it has one. */
  group?: string;
  /** The offending field (`minMember`, `minResource.cpu`, …). */
  field?: string;
  /** What was wrong, e.g. `must be a positive integer, got -100`. */
  problem: string;
}

/** The parsed `yunikorn.apache.org/task-groups` annotation, or the first problem found (the application then runs without a gang). */
export type TaskGroupsResult = { ok: true; taskGroups: TaskGroup[] } | { ok: false; problem: TaskGroupsProblem };

/** The fields of a task group, by their lower-cased JSON name. */
const FIELDS = {
  name: "name",
  minmember: "minMember",
  minresource: "minResource",
  labels: "labels",
  annotations: "annotations",
  nodeselector: "nodeSelector",
  tolerations: "tolerations",
  affinity: "affinity",
  topologyspreadconstraints: "topologySpreadConstraints",
} as const satisfies Record<string, keyof TaskGroup>;

const INT32_MAX = 2 ** 31 - 1;

/**
 * A `minMember` written as a JSON number that is not an integer literal (`10.0`, `1e1`): Go's encoding/json refuses it
 * for an int32 field, though JavaScript reads it as an integer. Kept as its text so the check can refuse it.
 */
class NonIntegerLiteral {
  constructor(readonly text: string) {}
}

/** JSON.parse's reviver marking such a `minMember` (any spelling of the key, as the fields fold case). */
function markNonIntegerMinMember(key: string, value: unknown, context?: { source?: string }): unknown {
  const source = context?.source;
  if (typeof value === "number" && source !== undefined && key.toLowerCase() === "minmember" && !/^-?\d+$/.test(source))
    return new NonIntegerLiteral(source);
  return value;
}

const describe = (v: unknown): string =>
  v === null
    ? "null"
    : v instanceof NonIntegerLiteral
      ? v.text
      : Array.isArray(v)
        ? "a list"
        : typeof v === "string"
          ? JSON.stringify(v)
          : typeof v === "object"
            ? "an object"
            : String(v);

/** A Kubernetes qualified name, as resource names are (`memory`, `hugepages-1Gi`, `nvidia.com/gpu`). */
function isResourceName(n: string): boolean {
  const slash = n.indexOf("/");
  const [prefix, name] = slash < 0 ? [undefined, n] : [n.slice(0, slash), n.slice(slash + 1)];
  if (prefix !== undefined && (prefix.length > 253 || !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(prefix)))
    return false;
  return name.length <= 63 && /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/.test(name);
}

class Refused extends Error {
  constructor(
    readonly field: string | undefined,
    readonly problem: string,
  ) {
    super(problem);
  }
}

/** A map of strings (`labels`, `annotations`, `nodeSelector`); null = absent. */
function stringMap(field: string, v: unknown): Record<string, string> | undefined {
  if (v === null) return undefined;
  if (!isObject(v)) throw new Refused(field, `must be an object of strings, got ${describe(v)}`);
  for (const [k, s] of Object.entries(v))
    if (typeof s !== "string") throw new Refused(`${field}.${k}`, `must be a string, got ${describe(s)}`);
  return { ...(v as Record<string, string>) };
}

/** A list of Kubernetes objects (`tolerations`, `topologySpreadConstraints`); null = absent. */
function objectList(field: string, v: unknown): KubeObject[] | undefined {
  if (v === null) return undefined;
  if (!Array.isArray(v)) throw new Refused(field, `must be a list of objects, got ${describe(v)}`);
  v.forEach((e, i) => {
    if (!isObject(e)) throw new Refused(`${field}[${i}]`, `must be an object, got ${describe(e)}`);
  });
  return v as KubeObject[];
}

/** One entry of the list, fields folded case-insensitively (last spelling wins), unknown fields ignored. */
function decodeGroup(entry: unknown): { group: Partial<TaskGroup>; present: Set<keyof TaskGroup> } {
  if (!isObject(entry)) throw new Refused(undefined, `must be an object, got ${describe(entry)}`);
  const raw: Partial<Record<keyof TaskGroup, unknown>> = {};
  for (const [k, v] of Object.entries(entry)) {
    const f = FIELDS[k.toLowerCase() as keyof typeof FIELDS];
    if (f) raw[f] = v;
  }
  const group: Partial<TaskGroup> = {};
  const present = new Set<keyof TaskGroup>();
  for (const [f, v] of Object.entries(raw) as [keyof TaskGroup, unknown][]) {
    if (v === null && f !== "minResource") continue; // Go leaves a null field at its zero value
    present.add(f);
    switch (f) {
      case "name":
        if (typeof v !== "string") throw new Refused(f, `must be a string, got ${describe(v)}`);
        group.name = v;
        break;
      case "minMember":
        if (typeof v !== "number" || !Number.isInteger(v) || v < -INT32_MAX - 1 || v > INT32_MAX)
          throw new Refused(f, `must be an integer (int32), got ${describe(v)}`);
        group.minMember = v;
        break;
      case "minResource":
        if (v === null) {
          present.delete(f);
          break;
        }
        if (!isObject(v)) throw new Refused(f, `must be an object of quantities, got ${describe(v)}`);
        group.minResource = Object.fromEntries(
          Object.entries(v).map(([r, q]) => {
            if (q === null) return [r, "0"];
            if (typeof q === "string") return [r, q.trim()];
            if (typeof q === "number") return [r, String(q)];
            throw new Refused(`${f}.${r}`, `must be a quantity (string or number), got ${describe(q)}`);
          }),
        );
        break;
      case "labels":
      case "annotations":
      case "nodeSelector":
        group[f] = stringMap(f, v);
        break;
      case "tolerations":
      case "topologySpreadConstraints":
        group[f] = objectList(f, v);
        break;
      case "affinity":
        if (!isObject(v)) throw new Refused(f, `must be an object, got ${describe(v)}`);
        group.affinity = v;
        break;
    }
  }
  return { group, present };
}

/**
 * Folds one group's placeholder ask (`pods: minMember`, `vcore: minMember × cpu millis`, `<r>: minMember × value`)
 * into `totals`, refusing what the core could not count exactly (upstream validateTaskGroupResources).
 */
function checkResources(g: TaskGroup, totals: Map<string, number>): void {
  const add = (key: string, v: number, field: string) => {
    const sum = (totals.get(key) ?? 0) + v;
    if (!Number.isSafeInteger(sum))
      throw new Refused(field, `the sum over all task groups of ${JSON.stringify(key)} is too large (must stay below 2^53)`);
    totals.set(key, sum);
  };
  add("pods", g.minMember, "minMember");
  const seen = new Map<string, string>([["pods", "the placeholder count"]]);
  for (const [name, q] of Object.entries(g.minResource)) {
    const field = `minResource.${name}`;
    if (!isResourceName(name))
      throw new Refused(
        field,
        `${JSON.stringify(name)} is not a resource name (\`name\` or \`prefix/name\`, as \`memory\` or \`nvidia.com/gpu\`)`,
      );
    const key = name === "cpu" ? "vcore" : name;
    const other = seen.get(key);
    if (other !== undefined)
      throw new Refused(
        field,
        `collides with ${other === "the placeholder count" ? other : JSON.stringify(other)} (both count as ${JSON.stringify(key)})`,
      );
    seen.set(key, name);
    let value: number;
    try {
      value = parseK8sQuantity(q, name === "cpu" ? 3 : 0);
    } catch {
      throw new Refused(field, `${JSON.stringify(q)} is not a Kubernetes quantity`);
    }
    if (value < 0) throw new Refused(field, `cannot be negative, got ${JSON.stringify(q)}`);
    const scaled = value * g.minMember;
    if (!Number.isSafeInteger(scaled))
      throw new Refused(field, `${JSON.stringify(q)} × minMember ${g.minMember} is too large (must stay below 2^53)`);
    add(key, scaled, field);
  }
}

/**
 * Parses the task-groups annotation value.
 * @param raw the annotation value; undefined or "" = no task groups
 * @returns the groups in the order written, or the first problem found
 */
export function parseTaskGroups(raw: string | undefined): TaskGroupsResult {
  const fail = (problem: string, at?: { index: number; group?: string; field?: string }): TaskGroupsResult => ({
    ok: false,
    problem: { annotation: ANNOTATION_TASK_GROUPS, ...at, problem },
  });
  if (raw === undefined || raw === "") return { ok: true, taskGroups: [] };
  let list: unknown;
  try {
    list = JSON.parse(raw, markNonIntegerMinMember);
  } catch (err) {
    return fail(`is not valid JSON: ${(err as Error).message}`);
  }
  if (list === null) return { ok: true, taskGroups: [] };
  if (!Array.isArray(list)) return fail(`must be a JSON list of task groups, got ${describe(list)}`);
  // Decode every entry first (upstream unmarshals the whole list before checking any group), then check them in order.
  const decoded: ReturnType<typeof decodeGroup>[] = [];
  const taskGroups: TaskGroup[] = [];
  const names = new Map<string, number>();
  const totals = new Map<string, number>();
  for (let pass = 0; pass < 2; pass++) {
    for (let index = 0; index < list.length; index++) {
      let name: string | undefined;
      try {
        if (pass === 0) {
          decoded.push(decodeGroup(list[index]));
          continue;
        }
        const { group, present } = decoded[index]!;
        name = group.name || undefined;
        if (!group.name) throw new Refused("name", "is missing or empty");
        if (!present.has("minResource")) throw new Refused("minResource", "is missing");
        if (!group.minMember) throw new Refused("minMember", "is missing or 0 (must be at least 1)");
        if (group.minMember < 0) throw new Refused("minMember", `cannot be negative, got ${group.minMember}`);
        const first = names.get(group.name);
        if (first !== undefined)
          throw new Refused(
            "name",
            `${JSON.stringify(group.name)} is already the name of task group ${first}; names must be unique within the application`,
          );
        names.set(group.name, index);
        const tg = group as TaskGroup;
        checkResources(tg, totals);
        taskGroups.push(tg);
      } catch (err) {
        if (!(err instanceof Refused)) throw err;
        const entry = list[index] as unknown;
        if (pass === 0 && isObject(entry) && typeof entry.name === "string" && entry.name) name = entry.name;
        return fail(err.problem, {
          index,
          ...(name !== undefined ? { group: name } : {}),
          ...(err.field !== undefined ? { field: err.field } : {}),
        });
      }
    }
  }
  return { ok: true, taskGroups };
}

/** The problem as one line for the Warning event and logs: `task group 1 ("executor") minMember: cannot be negative, got -1`. */
export function describeTaskGroupsProblem(p: TaskGroupsProblem): string {
  const where = p.index === undefined ? "" : `task group ${p.index}${p.group !== undefined ? ` (${JSON.stringify(p.group)})` : ""} `;
  return `${p.annotation}: ${where}${p.field !== undefined ? `${p.field}: ` : ""}${p.problem}`;
}
