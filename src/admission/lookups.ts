/**
 * What an admission decision reads besides the request: the configuration and cluster state (informer caches, or a
 * config file when standalone).
 */
import type { AdmissionConfig } from "./config.js";
import type { NamespaceInfo } from "./namespaces.js";

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
