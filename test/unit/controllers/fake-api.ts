import type { PodCalls } from "../../../src/kube/pod-calls.js";

/** An API failure as client-node raises it: `code` and the Status body. */
export const apiError = (code: number, body = `status ${code}`) => Object.assign(new Error(`HTTP ${code}`), { code, body });

/**
 * A fake CoreV1Api: every call is logged as `<method> <namespace>/<name>`; `answers[method]` lists what successive
 * calls do (an error to throw, or "hang" to never answer); beyond the list calls succeed.
 */
export function fakeApi(answers: Partial<Record<keyof PodCalls, (Error | "hang")[]>> = {}) {
  const calls: string[] = [];
  const bodies: unknown[] = [];
  const hung: { call: string; answer: () => void }[] = [];
  /** Answers the first hung call named `call` (e.g. `createNamespacedEvent ns/p1.`). */
  const release = (call: string) => {
    const i = hung.findIndex((h) => h.call === call);
    if (i < 0) throw new Error(`no hung call ${call}`);
    hung.splice(i, 1)[0]!.answer();
  };
  const make =
    (method: keyof PodCalls) =>
    async (req: { name?: string; namespace?: string; body?: unknown }): Promise<unknown> => {
      const b = req.body as { metadata?: { name?: string; generateName?: string; namespace?: string } } | undefined;
      const call = `${method} ${req.namespace ?? b?.metadata?.namespace}/${req.name ?? b?.metadata?.name ?? b?.metadata?.generateName}`;
      calls.push(call);
      bodies.push(req.body);
      const next = answers[method]?.shift();
      if (next === "hang") return new Promise((r) => hung.push({ call, answer: () => r({}) }));
      if (next) throw next;
      return {};
    };
  const api = Object.fromEntries(
    (
      [
        "createNamespacedPodBinding",
        "deleteNamespacedPod",
        "createNamespacedPod",
        "createNamespacedPodEviction",
        "patchNamespacedPodStatus",
        "patchNamespacedPod",
        "createNamespacedEvent",
      ] as const
    ).map((m) => [m, make(m)]),
  ) as unknown as PodCalls;
  return { api, calls, bodies, release };
}
