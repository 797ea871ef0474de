/**
 * Which core application a pod joins (design 002: the identity charged is the identity that submitted the pod).
 *
 * A pod names an application id (label, annotation, `spark-app-selector` or the namespace's generated id), but the
 * core application is keyed by (namespace, user, application id): a pod never joins an application of another
 * namespace or another user, so it is always charged to the user of its own `user.info` and placed by that user's
 * placement rules and ACLs. The first (namespace, user) seen for an id keeps the plain id as the core application id;
 * another (namespace, user) with the same id gets its own core application with a derived id
 * `<id>~<namespace>~<user>` (`~` cannot appear in a label value, so a derived id never equals an id taken from a
 * label). Start-up recovery sees pods oldest first, so the owner of a plain id is the same after a restart.
 *
 * Pure bookkeeping: no I/O, no clock.
 */
import { createHash } from "node:crypto";

/** What a pod says about its application: namespace, the user of its `user.info`, the application id it names. */
export interface ApplicationKey {
  namespace: string;
  user: string;
  applicationId: string;
}

/** The core application id of a key, and why it is not the plain id (the owner of the plain id differs in …). */
export interface ResolvedApplication {
  /** Core application id (the plain id, or a derived one). */
  id: string;
  /** Set when the pod was not joined to the application of the plain id: what differs from its owner. */
  notJoined?: "namespace" | "user";
}

/** Longest derived id spelled out; longer ones keep a prefix of the id and a hash of the key. */
export const MAX_DERIVED_ID_LENGTH = 253;

/**
 * The derived core application id of a key: `<id>~<namespace>~<user>`, `~<n>` appended for the n-th (n ≥ 2)
 * candidate. When that exceeds {@link MAX_DERIVED_ID_LENGTH} characters: the first 200 characters of the id, `~`,
 * and 16 hex digits of SHA-256 over the key (stable, so the same pod gets the same id after a restart).
 * @param attempt 1 for the first derived candidate, 2, 3… when that one belongs to another key
 */
export function derivedApplicationId(key: ApplicationKey, attempt = 1): string {
  const suffix = attempt > 1 ? `~${attempt}` : "";
  const readable = `${key.applicationId}~${key.namespace}~${key.user}${suffix}`;
  if (readable.length <= MAX_DERIVED_ID_LENGTH) return readable;
  const hash = createHash("sha256")
    .update(JSON.stringify([key.namespace, key.user, key.applicationId]))
    .digest("hex")
    .slice(0, 16);
  return `${key.applicationId.slice(0, 200)}~${hash}${suffix}`;
}

const sameKey = (a: ApplicationKey, b: ApplicationKey) =>
  a.namespace === b.namespace && a.user === b.user && a.applicationId === b.applicationId;

/**
 * The keying rule: the core application id for `key`, given which key (if any) holds each core id now.
 * The plain id when it is free or already this key's; else the first derived candidate free or this key's.
 * @param holderOf the key holding a core application id, undefined when none does
 */
export function resolveApplicationId(key: ApplicationKey, holderOf: (coreId: string) => ApplicationKey | undefined): ResolvedApplication {
  const plainHolder = holderOf(key.applicationId);
  if (!plainHolder || sameKey(plainHolder, key)) return { id: key.applicationId };
  const notJoined = plainHolder.namespace !== key.namespace ? "namespace" : "user";
  for (let attempt = 1; ; attempt++) {
    const id = derivedApplicationId(key, attempt);
    const h = holderOf(id);
    if (!h || sameKey(h, key)) return { id, notJoined };
  }
}

/**
 * The live mapping between keys and core application ids. A mapping is held while `acquire`d (one per task) or
 * while the caller still holds the core application (`release(id, stillHeld)`), so an id is never handed to another
 * key while the core may still hold the application under its first user.
 */
export class ApplicationKeys {
  private readonly byCoreId = new Map<string, { key: ApplicationKey; refs: number }>();
  private readonly byKey = new Map<string, string>();

  private static keyString(k: ApplicationKey): string {
    return JSON.stringify([k.namespace, k.user, k.applicationId]);
  }

  /** Resolves `key` (see {@link resolveApplicationId}) and counts one more holder of the result. */
  acquire(key: ApplicationKey): ResolvedApplication {
    const holderOf = (id: string) => this.byCoreId.get(id)?.key;
    // A key keeps the core id it already has, even when the plain id became free meanwhile (one application).
    const known = this.byKey.get(ApplicationKeys.keyString(key));
    const r: ResolvedApplication = known === undefined ? resolveApplicationId(key, holderOf) : { id: known };
    if (known !== undefined && known !== key.applicationId) {
      const plain = holderOf(key.applicationId);
      if (plain) r.notJoined = plain.namespace !== key.namespace ? "namespace" : "user";
    }
    const entry = this.byCoreId.get(r.id);
    if (entry) entry.refs++;
    else {
      this.byCoreId.set(r.id, { key, refs: 1 });
      this.byKey.set(ApplicationKeys.keyString(key), r.id);
    }
    return r;
  }

  /**
   * One holder of `coreId` is gone; the mapping is forgotten once none is left and `stillHeld` is false.
   * @param stillHeld true while the core holds the application (e.g. completing), so the id stays reserved
   */
  release(coreId: string, stillHeld = false): void {
    const e = this.byCoreId.get(coreId);
    if (!e) return;
    if (e.refs > 0) e.refs--;
    this.forgetIfUnused(coreId, stillHeld);
  }

  /** Forgets `coreId` when no holder is left and the core no longer holds the application. */
  forgetIfUnused(coreId: string, stillHeld: boolean): void {
    const e = this.byCoreId.get(coreId);
    if (!e || e.refs > 0 || stillHeld) return;
    this.byCoreId.delete(coreId);
    this.byKey.delete(ApplicationKeys.keyString(e.key));
  }

  /** The key holding a core application id. */
  keyOf(coreId: string): ApplicationKey | undefined {
    return this.byCoreId.get(coreId)?.key;
  }

  get size(): number {
    return this.byCoreId.size;
  }
}
