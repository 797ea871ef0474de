/**
 * Namespace scoping (yunikorn-admission reference §4.4; apache/yunikorn-k8shim pkg/admission/admission_controller.go).
 *
 * Two independent decisions, each overridable by a namespace annotation:
 *   - process: is the pod routed to the scheduler at all (`namespace.enableYuniKorn`);
 *   - label: does it get application id / queue labels (`namespace.generateAppId`).
 * Annotation values are tri-state: absent → use the regex lists; exactly "true" → yes; anything else → no.
 */
import { ANNOTATION_ENABLE_YUNIKORN, ANNOTATION_GENERATE_APP_ID } from "../yunikorn/constants.js";
import { type AdmissionConfig, type RegexList, matchesAny } from "./config.js";

/** What the admission decisions need to know of a Namespace object (from an informer cache). */
export interface NamespaceInfo {
  readonly annotations?: Readonly<Record<string, string>>;
  readonly labels?: Readonly<Record<string, string>>;
}

function annotationFlag(ns: NamespaceInfo | undefined, key: string): boolean | undefined {
  const v = ns?.annotations?.[key];
  if (v === undefined) return undefined;
  return v === "true";
}

function inScope(include: RegexList, exclude: RegexList, name: string): boolean {
  return (include.patterns.length === 0 || matchesAny(include, name)) && !matchesAny(exclude, name);
}

/** Should pods in `namespace` be routed to the scheduler? */
export function shouldProcessNamespace(cfg: AdmissionConfig, namespace: string, ns: NamespaceInfo | undefined): boolean {
  return annotationFlag(ns, ANNOTATION_ENABLE_YUNIKORN) ?? inScope(cfg.processNamespaces, cfg.bypassNamespaces, namespace);
}

/** Should pods in `namespace` get application id and queue labels? */
export function shouldLabelNamespace(cfg: AdmissionConfig, namespace: string, ns: NamespaceInfo | undefined): boolean {
  return annotationFlag(ns, ANNOTATION_GENERATE_APP_ID) ?? inScope(cfg.labelNamespaces, cfg.noLabelNamespaces, namespace);
}
