/**
 * Informers: list + watch into a local cache, restarted with back-off after an error (the client's informer stops on
 * error). Decisions read the caches; no API call per admission.
 */
import type { Logger } from "pino";
import { k8s } from "./client.js";

/** An informer whose first list is loaded (`startInformer` resolves only then). */
export interface CachedInformer<T extends k8s.KubernetesObject> {
  get(name: string, namespace?: string): T | undefined;
  list(): T[];
  on(verb: "add" | "update" | "delete", cb: (obj: T) => void): void;
  stop(): Promise<void>;
}

/** What {@link startInformer} watches and how. */
export interface InformerOptions<T extends k8s.KubernetesObject> {
  /** API path, e.g. `/api/v1/namespaces`. */
  path: string;
  /** The matching list call. */
  list: () => Promise<k8s.KubernetesListObject<T>>;
  /** Name for logs, e.g. `namespaces`. */
  what: string;
  log: Logger;
  /** Delay before restarting after a watch error, milliseconds (default 2000). */
  retryMs?: number;
  /** Restricts list and watch (the list call must use the same selector). */
  labelSelector?: string;
}

/** Starts an informer and resolves after its first list (a failed list is retried every `retryMs`). */
export async function startInformer<T extends k8s.KubernetesObject>(
  kc: k8s.KubeConfig,
  { path, list, what, log, retryMs = 2000, labelSelector }: InformerOptions<T>,
): Promise<CachedInformer<T>> {
  const informer = k8s.makeInformer<T>(kc, path, list, labelSelector);
  let stopped = false;
  informer.on("error", (err: unknown) => {
    if (stopped) return;
    log.warn({ informer: what, err: (err as Error)?.message ?? String(err) }, "informer error; restarting");
    setTimeout(() => {
      if (!stopped) informer.start().catch((e: Error) => log.warn({ informer: what, err: e.message }, "informer restart failed"));
    }, retryMs).unref();
  });
  informer.on("connect", () => log.debug({ informer: what }, "informer watching"));
  for (;;) {
    try {
      await informer.start();
      break;
    } catch (err) {
      log.warn({ informer: what, err: (err as Error).message }, "informer list failed; retrying");
      await new Promise((r) => setTimeout(r, retryMs));
    }
  }
  log.info({ informer: what, objects: informer.list().length }, "informer synced");
  return {
    get: (name, namespace) => informer.get(name, namespace),
    list: () => [...informer.list()],
    on: (verb, cb) => informer.on(verb, cb),
    stop: async () => {
      stopped = true;
      await informer.stop();
    },
  };
}
