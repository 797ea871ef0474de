/**
 * The scheduler REST API over real HTTP, and the admission controller's client of its validate-conf endpoint.
 */
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultAdmissionConfig } from "../../src/admission/config.js";
import { validateConfigMap } from "../../src/admission/config-validation.js";
import { decodeQueuesYaml } from "../../src/scheduler/core/config.js";
import { validateSchedulerConfig } from "../../src/scheduler/core/validate.js";
import { type RestServer, startRestServer } from "../../src/scheduler/rest/server.js";
import { schedulerQueueValidator } from "../../src/server/scheduler-client.js";
import type { AdmissionRequest } from "../../src/server/admission-review.js";

let rest: RestServer;
const cfg = validateSchedulerConfig(decodeQueuesYaml("partitions:\n  - name: default\n    queues:\n      - name: root\n        submitacl: '*'\n"));

beforeAll(async () => {
  rest = await startRestServer({ host: "127.0.0.1", port: 0, log: pino({ level: "silent" }), config: () => cfg });
});
afterAll(async () => rest?.close());

const base = () => `http://127.0.0.1:${rest.port}`;

describe("scheduler REST API", () => {
  it("POST /ws/v1/validate-conf: always 200, allowed or the reason", async () => {
    const ok = await fetch(`${base()}/ws/v1/validate-conf`, { method: "POST", body: "partitions: []\n" });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("content-type")).toBe("application/json; charset=UTF-8");
    expect(ok.headers.get("access-control-allow-methods")).toBe("OPTIONS, POST");
    expect(await ok.json()).toEqual({ allowed: true });
    const bad = await fetch(`${base()}/ws/v1/validate-conf`, { method: "POST", body: "partitions:\n  - name: default\n    nodesortpolicy: {type: invalid}\n    queues: [{name: root}]\n" });
    expect(await bad.json()).toEqual({ allowed: false, reason: "undefined policy: invalid" });
  });

  it("GET /ws/v1/config as YAML or JSON; unknown paths give YuniKorn's error body", async () => {
    expect(await (await fetch(`${base()}/ws/v1/config`)).text()).toContain("partitions:");
    expect((await (await fetch(`${base()}/ws/v1/config`, { headers: { accept: "application/json" } })).json()).partitions[0].name).toBe("default");
    const nf = await fetch(`${base()}/ws/v1/nope`);
    expect(nf.status).toBe(404);
    expect(await nf.json()).toEqual({ status_code: 404, message: "Not found", description: "Not found" });
  });

  it("the admission controller validates yunikorn-configs through it", async () => {
    const admission = defaultAdmissionConfig("corral");
    const validator = schedulerQueueValidator(`127.0.0.1:${rest.port}`, 2000);
    const req = (queues: string): AdmissionRequest => ({
      uid: "u", kind: { group: "", version: "v1", kind: "ConfigMap" }, namespace: "corral", operation: "UPDATE",
      object: { metadata: { name: "yunikorn-configs", namespace: "corral" }, data: { "queues.yaml": queues } },
    });
    const lookups = { configMap: () => undefined };
    const good = await validateConfigMap(req("partitions:\n  - name: default\n    queues: [{name: root}]\n"), admission, lookups, validator);
    expect(good.allowed).toBe(true);
    const bad = await validateConfigMap(req("partitions:\n  - name: default\n    queues:\n      - name: root\n        queues: [{name: a.b}]\n"), admission, lookups, validator);
    expect(bad).toMatchObject({ allowed: false, message: expect.stringMatching(/^invalid queue name/) });
    const down = await validateConfigMap(req("partitions: []\n"), admission, lookups, schedulerQueueValidator("127.0.0.1:1", 500));
    expect(down.allowed).toBe(true);
    expect(down.warnings[0]).toMatch(/not validated/);
  });
});
