/**
 * The queue tree of a partition: built and updated from the configuration, dynamic queues created for placement,
 * looked up by path, and cleaned up when empty (apache/yunikorn-core pkg/scheduler/objects/queue.go
 * NewConfiguredQueue, ApplyConf, NewDynamicQueue; partition.go createQueue, getQueueInternal; partition_manager.go
 * cleanQueues; yunikorn-core reference §2.1-2.4, §4.3).
 */
import type { QueueConfig } from "./config.js";
import { isRecoveryQueue } from "./placement/types.js";
import { parseResource } from "./quantity.js";
import { type PropertyProblem, inheritQueueProperties, parseQueuePreemptionProperties } from "./queue-properties.js";
import { Acl, Queue, type SortPolicy } from "./queue.js";
import { type Res, hasPositive, isZero, strictlyPositive } from "./resources.js";

/** A configured resource map; one that is not strictly positive means "no limit" (§4.3), guaranteed likewise. */
const res = (m: Record<string, string> | undefined): Res | undefined => {
  if (!m || Object.keys(m).length === 0) return undefined;
  const r = parseResource(m);
  return strictlyPositive(r) ? r : undefined;
};
const sortPolicyOf = (props: Record<string, string> | undefined): SortPolicy =>
  props?.["application.sort.policy"] === "fair" ? "fair" : "fifo";
const sortPriorityOf = (props: Record<string, string> | undefined) =>
  (props?.["application.sort.priority"] ?? "enabled").toLowerCase() !== "disabled";

/**
 * Applies a validated root queue configuration to the tree (`root` undefined: a new tree): queues added or changed in
 * place, managed queues no longer configured marked draining (no new applications; removed once empty).
 * @returns the root and the queue properties that fell back to their default, with the queue path of each
 */
export function applyQueueConfig(
  root: Queue | undefined,
  rootCfg: QueueConfig,
): { root: Queue; problems: (PropertyProblem & { queue: string })[] } {
  const seen = new Set<Queue>();
  const problems: (PropertyProblem & { queue: string })[] = [];
  const top =
    root ??
    new Queue({
      name: "root",
      leaf: false,
      managed: true,
      maxApps: rootCfg.maxapplications ?? 0,
      submitAcl: new Acl(rootCfg.submitacl),
      adminAcl: new Acl(rootCfg.adminacl),
    });
  const build = (qc: QueueConfig, parent: Queue | undefined, parentProps: Record<string, string> | undefined): void => {
    const name = qc.name.toLowerCase();
    const isLeaf = parent !== undefined && !qc.parent && (qc.queues ?? []).length === 0;
    const props = qc.properties ?? {};
    const merged = inheritQueueProperties(parentProps, props);
    let q = parent ? parent.children.get(name) : top;
    if (!q) {
      q = new Queue({
        name,
        parent,
        leaf: isLeaf,
        managed: true,
        guaranteed: res(qc.resources?.guaranteed),
        max: res(qc.resources?.max),
        maxApps: qc.maxapplications ?? 0,
        sortPolicy: sortPolicyOf(props),
        sortPriority: sortPriorityOf(props),
        submitAcl: new Acl(qc.submitacl),
        adminAcl: new Acl(qc.adminacl),
      });
      parent?.children.set(name, q);
    } else {
      q.isLeaf = isLeaf && q.children.size === 0;
      q.guaranteed = res(qc.resources?.guaranteed);
      if (parent) q.max = res(qc.resources?.max);
      q.maxApps = qc.maxapplications ?? 0;
      q.sortPolicy = sortPolicyOf(props);
      q.sortPriority = sortPriorityOf(props);
      q.submitAcl = new Acl(qc.submitacl);
      q.adminAcl = new Acl(qc.adminacl);
      q.draining = false;
    }
    const t = qc.childtemplate;
    q.template = t
      ? {
          guaranteed: res(t.resources?.guaranteed),
          max: res(t.resources?.max),
          maxApps: t.maxapplications ?? 0,
          sortPolicy: sortPolicyOf(t.properties),
          sortPriority: sortPriorityOf(t.properties),
        }
      : undefined;
    const parsed = parseQueuePreemptionProperties(merged, q.isLeaf);
    q.preemption = parsed.properties;
    for (const problem of parsed.problems) problems.push({ ...problem, queue: q.path });
    seen.add(q);
    for (const c of qc.queues ?? []) build(c, q, merged);
  };
  build(rootCfg, undefined, undefined);
  const markDraining = (q: Queue) => {
    for (const c of q.children.values()) {
      if (c.managed && !seen.has(c)) c.draining = true;
      markDraining(c);
    }
  };
  markDraining(top);
  return { root: top, problems };
}

/** The queue at a dotted path (case-insensitive), or undefined. */
export function findQueue(root: Queue, path: string): Queue | undefined {
  const parts = path.toLowerCase().split(".");
  if (parts[0] !== "root") return undefined;
  let q: Queue | undefined = root;
  for (const p of parts.slice(1)) q = q?.children.get(p);
  return q;
}

/**
 * Creates the queue placement chose: missing parents and the leaf, or the recovery queue (fifo, no ACL). A dynamic
 * leaf gets its parent's child template; a dynamic parent inherits the template itself.
 */
export function createQueue(root: Queue, path: string): Queue {
  if (isRecoveryQueue(path)) {
    const rec = new Queue({ name: "@recovery@", parent: root, leaf: true, managed: false });
    root.children.set("@recovery@", rec);
    return rec;
  }
  const parts = path.split(".");
  let q = root;
  let i = 1;
  for (; i < parts.length; i++) {
    const c = q.children.get(parts[i]!);
    if (!c) break;
    q = c;
  }
  for (; i < parts.length; i++) {
    const leaf = i === parts.length - 1;
    const t = q.template;
    const c = leaf
      ? new Queue({
          name: parts[i]!,
          parent: q,
          leaf: true,
          managed: false,
          guaranteed: t?.guaranteed,
          max: t?.max,
          maxApps: t?.maxApps,
          sortPolicy: t?.sortPolicy,
          sortPriority: t?.sortPriority,
        })
      : new Queue({ name: parts[i]!, parent: q, leaf: false, managed: false, template: t });
    q.children.set(parts[i]!, c);
    q = c;
  }
  return q;
}

/**
 * Removes dynamic queues and drained (removed from the configuration) queues that hold nothing: a leaf without
 * applications, a parent without children (upstream partition manager `cleanQueues`).
 * @returns the paths removed
 */
export function removeEmptyQueues(root: Queue): string[] {
  const removed: string[] = [];
  const walk = (q: Queue) => {
    for (const c of [...q.children.values()]) {
      walk(c);
      const empty = c.isLeaf ? c.apps.size === 0 : c.children.size === 0;
      if (empty && (!c.managed || c.draining) && isZero(c.allocated) && !hasPositive(c.pending)) {
        q.children.delete(c.name);
        removed.push(c.path);
      }
    }
  };
  walk(root);
  return removed;
}
