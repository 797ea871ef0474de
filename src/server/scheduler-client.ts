/**
 * Client of the scheduler's `POST /ws/v1/validate-conf` (apache/yunikorn-core pkg/webservice/handlers.go):
 * body = raw YAML, answer `{"allowed": bool, "reason": string}` (always HTTP 200 upstream).
 */
import type { QueueValidator, QueueVerdict } from "../admission/config-validation.js";

/**
 * @param address host:port of the scheduler REST API (http)
 * @param timeoutMs request timeout in milliseconds
 */
export function schedulerQueueValidator(address: string, timeoutMs: number): QueueValidator {
  const url = `http://${address}/ws/v1/validate-conf`;
  return async (yaml: string): Promise<QueueVerdict> => {
    let res: Response;
    try {
      res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/yaml" },
        body: yaml,
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      const e = err as Error & { cause?: { code?: string } };
      return { kind: "unavailable", error: e.cause?.code ?? e.message };
    }
    if (!res.ok) return { kind: "unavailable", error: `HTTP ${res.status}` };
    let body: unknown;
    try {
      body = await res.json();
    } catch {
      return { kind: "unavailable", error: "response is not JSON" };
    }
    if (typeof body !== "object" || body === null || typeof (body as { allowed?: unknown }).allowed !== "boolean") {
      return { kind: "unavailable", error: "response has no boolean 'allowed'" };
    }
    const b = body as { allowed: boolean; reason?: unknown };
    return { kind: "verdict", allowed: b.allowed, reason: typeof b.reason === "string" ? b.reason : undefined };
  };
}
