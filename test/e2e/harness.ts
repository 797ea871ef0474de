/**
 * Shared steps of the e2e tests: corral admission processes on the test bed, registering their own webhooks in url
 * mode; a TCP round-robin in front of several replicas plays the part of a Service.
 */
import { connect, createServer, type Server, type Socket } from "node:net";
import { pino } from "pino";
import { inject } from "vitest";
import { type CorralProcess, type Testbed, readTestbedEnv, startCorral } from "../../src/testbed/testbed.js";

export const quiet = pino({ level: "silent" });

export async function testbed(): Promise<Testbed> {
  return readTestbedEnv(inject("testbedEnv"));
}

let nextPort = 19100 + Math.floor(Math.random() * 400) * 2;
export const freePort = () => nextPort++;

/**
 * Starts `corral admission` in cluster mode (CAs in the Secret of `namespace`, self-registration with
 * `clientConfig.url`).
 * @param url the URL to register (default: this process's own port)
 */
export async function startAdmission(tb: Testbed, namespace: string, opts: { env?: Record<string, string>; args?: string[]; url?: string; port?: number; kubeconfig?: string } = {}): Promise<{ corral: CorralProcess; port: number }> {
  const port = opts.port ?? freePort();
  const corral = await startCorral(
    ["admission", "--host", "127.0.0.1", "--port", String(port), "--kubeconfig", opts.kubeconfig ?? tb.kubeconfig.admin,
      "--webhook-url", opts.url ?? `https://127.0.0.1:${port}`, "--ca-propagation-seconds", "0.5", ...(opts.args ?? [])],
    { env: { NAMESPACE: namespace, LOG_LEVEL: "debug", ...opts.env }, readyMsg: "admission controller serving" },
  );
  return { corral, port };
}

/** A TCP round-robin over `backends` (TLS passes through), skipping backends that refuse connections. */
export async function roundRobin(port: number, backends: number[]): Promise<Server> {
  let i = 0;
  const server = createServer((client: Socket) => {
    const tryNext = (left: number) => {
      const target = backends[i++ % backends.length]!;
      const upstream = connect(target, "127.0.0.1");
      upstream.once("connect", () => {
        client.pipe(upstream).pipe(client);
      });
      upstream.once("error", () => {
        if (left > 1) tryNext(left - 1);
        else client.destroy();
      });
      client.once("error", () => upstream.destroy());
    };
    tryNext(backends.length);
  });
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", () => r()));
  return server;
}
