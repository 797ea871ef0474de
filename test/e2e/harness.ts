/**
 * Shared steps of the e2e tests: a corral admission process on the test bed with its webhooks registered in url mode.
 */
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { inject } from "vitest";
import { mutatingWebhookConfiguration, validatingWebhookConfiguration } from "../../src/admission/webhooks.js";
import { applyObject } from "../../src/kube/apply.js";
import { k8s } from "../../src/kube/client.js";
import { type CorralProcess, type Testbed, kubeConfigFor, readTestbedEnv, startCorral } from "../../src/testbed/testbed.js";
import { readFile } from "node:fs/promises";

export const quiet = pino({ level: "silent" });

export async function testbed(): Promise<Testbed> {
  return readTestbedEnv(inject("testbedEnv"));
}

export interface RunningAdmission {
  corral: CorralProcess;
  port: number;
  caBundle: string;
}

let nextPort = 19100 + Math.floor(Math.random() * 400);

/**
 * Starts `corral admission` against the test bed (namespace `namespace` holds its ConfigMaps) and registers its
 * webhooks with url clientConfig pointing at 127.0.0.1.
 */
export async function startAdmission(tb: Testbed, namespace: string, env: Record<string, string> = {}): Promise<RunningAdmission> {
  const port = nextPort++;
  const certDir = await mkdtemp(join(tmpdir(), "corral-e2e-certs-"));
  const corral = await startCorral(
    ["admission", "--host", "127.0.0.1", "--port", String(port), "--cert-dir", certDir, "--kubeconfig", tb.kubeconfig.admin],
    { env: { NAMESPACE: namespace, LOG_LEVEL: "debug", ...env }, readyMsg: "admission controller serving" },
  );
  const caBundle = await readFile(join(certDir, "ca.crt"), "utf8");
  const admin = kubeConfigFor(tb, "admin");
  const settings = { target: { mode: "url" as const, url: `https://127.0.0.1:${port}` }, caBundle, validateFailurePolicy: "Fail" as const };
  await applyObject(admin, mutatingWebhookConfiguration(settings) as k8s.KubernetesObject, quiet);
  await applyObject(admin, validatingWebhookConfiguration(settings) as k8s.KubernetesObject, quiet);
  return { corral, port, caBundle };
}
