/**
 * Plugin mode's kube-scheduler extender verbs on the REST port (yunikorn-shim reference §5.1): `POST
 * /scheduler/filter` (the candidate nodes the core's allocation allows) and `POST /scheduler/bind` (bind through the
 * scheduler's bind controller). Bodies are decoded by shim/extender.ts; errors are answered in the extender's own
 * form (`Error` in the JSON body; a filter request that cannot be read is a 400, a bind failure a 200 with `Error`).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { BindResult } from "../controllers/calls.js";
import type { PodRef, ShimAction, ShimContext } from "../shim/context.js";
import { filterReply, parseBindArgs, parseFilterArgs } from "../shim/extender.js";
import type { PodObject } from "../shim/translate.js";
import { json, readBody } from "./server.js";

/** Largest `filter` body accepted (a pod and every node), and largest `bind` body, in bytes. */
const FILTER_BODY_LIMIT = 16 * 1024 * 1024;
const BIND_BODY_LIMIT = 1024 * 1024;

/** Options of {@link extenderRoutes}. */
export interface ExtenderRoutesOptions {
  ctx: Pick<ShimContext, "filterRequest" | "bindAllowed">;
  /** False until recovery is done (a filter request is then answered 503). */
  ready: () => boolean;
  /** The pod in the informer cache, if any. */
  livePod: (name: string, namespace: string) => PodObject | undefined;
  /** Carries out the actions a filter request produced. */
  run: (actions: ShimAction[]) => void;
  /** Binds the pod and reports the result to the shim. */
  bind: (pod: PodRef, node: string) => Promise<BindResult>;
}

/** The two verbs as REST routes keyed `METHOD /path`. */
export function extenderRoutes(o: ExtenderRoutesOptions): Record<string, (req: IncomingMessage, res: ServerResponse) => void> {
  return {
    "POST /scheduler/filter": (req, res) => {
      readBody(req, FILTER_BODY_LIMIT).then(
        (text) => {
          if (!o.ready()) return json(res, 503, { Error: "scheduler not ready" });
          const parsed = parseFilterArgs(text);
          if (!parsed.ok) return json(res, 400, { Error: parsed.error });
          const claimed = parsed.args.Pod;
          const live = o.livePod(claimed.metadata.name ?? "", claimed.metadata.namespace ?? "");
          const { result, actions } = o.ctx.filterRequest(claimed, parsed.candidates, live);
          o.run(actions);
          json(res, 200, filterReply(parsed.args, result));
        },
        (err: Error) => json(res, 400, { Error: err.message }),
      );
    },
    "POST /scheduler/bind": (req, res) => {
      readBody(req, BIND_BODY_LIMIT).then(
        async (text) => {
          const parsed = parseBindArgs(text);
          if (!parsed.ok) return json(res, 200, { Error: parsed.error });
          const { PodName: name, PodNamespace: namespace, PodUID: uid, Node: node } = parsed.args;
          const refused = o.ctx.bindAllowed(uid, node, o.livePod(name, namespace));
          if (refused) return json(res, 200, { Error: refused });
          const r = await o.bind({ name, namespace, uid }, node);
          json(res, 200, { Error: r.error ?? "" });
        },
        (err: Error) => json(res, 200, { Error: err.message }),
      );
    },
  };
}
