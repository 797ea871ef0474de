/**
 * The result of one admission decision, before it is encoded as an AdmissionResponse.
 */
import type { PatchOp } from "../util/json-patch.js";
import type { AdmissionConfig } from "./config.js";
import type { NamespaceInfo } from "./namespaces.js";

/** Something worth a log line (the edge logs it; decisions do no I/O). */
export interface Note {
  level: "debug" | "info" | "warn";
  msg: string;
}

export interface Decision {
  allowed: boolean;
  ops: PatchOp[];
  /** Denial message (allowed === false). */
  message?: string;
  /** HTTP-like status code of a denial: 400 malformed input, 403 not allowed. */
  code?: number;
  /** AdmissionResponse.warnings: shown to the requesting user by kubectl. */
  warnings: string[];
  notes: Note[];
}

/** Cluster state a decision may read; backed by informer caches (or a config file when standalone). */
export interface AdmissionLookups {
  namespace(name: string): NamespaceInfo | undefined;
  priorityClass(name: string): { annotations?: Readonly<Record<string, string>> } | undefined;
}

/** Lookups with nothing in them: every namespace unannotated, no PriorityClasses. */
export const EMPTY_LOOKUPS: AdmissionLookups = {
  namespace: () => undefined,
  priorityClass: () => undefined,
};

/** Everything a decision receives besides the request. */
export interface DecisionContext {
  cfg: AdmissionConfig;
  lookups: AdmissionLookups;
}

export function allow(ops: PatchOp[] = [], warnings: string[] = [], notes: Note[] = []): Decision {
  return { allowed: true, ops, warnings, notes };
}

export function refuse(message: string, code: number, notes: Note[] = []): Decision {
  return { allowed: false, ops: [], message, code, warnings: [], notes };
}
