/**
 * What happened to a partition's queues, as data (apache/yunikorn-core pkg/scheduler/objects/queue.go and
 * events/queue_events.go: SendNewQueueEvent, SendRemoveQueueEvent, SendMaxResourceChangedEvent,
 * SendGuaranteedResourceChangedEvent, SendTypeChangedEvent). The partition records them as it applies a
 * configuration, creates a queue for placement, removes an empty queue or sees the cluster size change; the core turns
 * them into QUEUE event records. Resources in core units.
 */
import type { Res } from "./resources.js";

/** One change to a partition's queues (module comment); resources in core units. */
export type QueueChange =
  /** A configured (`managed`) or dynamic queue was created. */
  | { readonly kind: "added"; readonly path: string; readonly managed: boolean }
  /** A dynamic queue without applications, or a queue removed from the configuration and drained, is gone. */
  | { readonly kind: "removed"; readonly path: string; readonly managed: boolean }
  /** The max (root: the cluster size) changed; undefined: no max any more. */
  | { readonly kind: "max"; readonly path: string; readonly max: Readonly<Res> | undefined }
  /** The guaranteed resources changed; undefined: none any more. */
  | { readonly kind: "guaranteed"; readonly path: string; readonly guaranteed: Readonly<Res> | undefined }
  /** A configured queue turned from parent into leaf or back. */
  | { readonly kind: "type"; readonly path: string; readonly isLeaf: boolean };
