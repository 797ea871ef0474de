/**
 * The REST API and the event stream of `corral scheduler` on the real control plane: the shim's allocationTags for
 * real pods, YuniKorn's event records for pods created through the API server (in order), a slow stream consumer
 * dropped without holding the scheduler back, and two replicas behind a round-robin front answering with the
 * leader's state across a failover. Fake Node objects, pods created directly with `schedulerName: yunikorn`.
 */
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { k8s } from "../../src/kube/client.js";
import { type Testbed, createFakeNodes, kubeConfigFor, prepareNamespace, waitFor } from "../../src/testbed/testbed.js";
import { clearPods, deleteAllPods, freePort, podsByPrefix, resetCluster, roundRobin, startScheduler, testbed } from "./harness.js";

const CONF_NS = "corral-rest";
const NS = "rest-batch";
const NODES = "e2e-rest";

let tb: Testbed;
let admin: k8s.KubeConfig;
const core = () => admin.makeApiClient(k8s.CoreV1Api);

/** The file's scheduler, logging at info. */
const startRestScheduler = () => startScheduler(tb, { namespace: CONF_NS, name: "rest", logLevel: "info" });

const pod = (name: string, app: string, cpu = "100m"): k8s.V1Pod => ({
  metadata: { name, labels: { "yunikorn.apache.org/app-id": app, team: "ml" } },
  spec: {
    schedulerName: "yunikorn",
    containers: [{ name: "c", image: "registry.example.com/batch:1", resources: { requests: { cpu, memory: "64Mi" } } }],
  },
});

/** Creates pods `concurrency` at a time. */
async function createPods(list: k8s.V1Pod[], concurrency = 16): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < list.length) await core().createNamespacedPod({ namespace: NS, body: list[next++]! });
    }),
  );
}

const boundCount = async (prefix: string) => (await podsByPrefix(tb, NS, prefix)).filter((p) => p.spec?.nodeName).length;

const clear = () => clearPods(tb, NS);

/** An NDJSON stream reader collecting every object it receives. */
async function openStream(port: number, query = ""): Promise<{ records: Record<string, unknown>[]; close(): void }> {
  const ac = new AbortController();
  const res = await fetch(`http://127.0.0.1:${port}/ws/v1/events/stream${query}`, { signal: ac.signal });
  expect(res.status).toBe(200);
  const records: Record<string, unknown>[] = [];
  void (async () => {
    const reader = res.body!.getReader();
    const dec = new TextDecoder();
    let rest = "";
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        rest += dec.decode(value, { stream: true });
        const lines = rest.split("\n");
        rest = lines.pop()!;
        for (const l of lines) if (l) records.push(JSON.parse(l) as Record<string, unknown>);
      }
    } catch {
      // aborted
    }
  })();
  return { records, close: () => ac.abort() };
}

beforeAll(async () => {
  tb = await testbed();
  admin = kubeConfigFor(tb, "admin");
  await deleteAllPods(tb);
  await prepareNamespace(admin, CONF_NS, []);
  await prepareNamespace(admin, NS, []);
  await createFakeNodes(admin, NODES, 6, { cpu: "64", memory: "256Gi", pods: "110" });
}, 300_000);

afterAll(async () => {
  await resetCluster(tb);
});

describe("REST API and events of corral scheduler on kube-apiserver v1.20.2", () => {
  it("allocationTags of real pods; the stream delivers the application's and asks' events in order", async () => {
    const s = await startRestScheduler();
    const stream = await openStream(s.port);
    try {
      await createPods([0, 1, 2].map((i) => pod(`tags-${i}`, "tags-app")));
      await waitFor("tags pods bound", async () => (await boundCount("tags-")) === 3);
      const uids = new Map((await core().listNamespacedPod({ namespace: NS })).items.map((p) => [p.metadata!.uid!, p.metadata!.name!]));
      const app = (await (
        await fetch(`http://127.0.0.1:${s.port}/ws/v1/partition/default/queue/root.${NS}/application/tags-app`)
      ).json()) as Record<string, any>;
      expect(app.allocations).toHaveLength(3);
      for (const a of app.allocations) {
        expect(a.allocationTags).toMatchObject({
          "kubernetes.io/meta/namespace": NS,
          "kubernetes.io/meta/podName": uids.get(a.allocationKey),
          "kubernetes.io/label/yunikorn.apache.org/app-id": "tags-app",
          "kubernetes.io/label/team": "ml",
        });
      }
      expect(app.stateLog.map((e: { applicationState: string }) => e.applicationState).slice(0, 2)).toEqual(["Accepted", "Starting"]);

      await waitFor(
        "allocation events streamed",
        async () => stream.records.filter((r) => r.objectID === "tags-app" && r.eventChangeDetail === 200).length === 3,
      );
      expect(stream.records[0]).toHaveProperty("InstanceUUID");
      const mine = stream.records.filter((r) => r.objectID === "tags-app" && r.type === 2);
      const seq = mine.map(
        (r) => `${r.eventChangeType}/${r.eventChangeDetail}${r.referenceID ? `:${uids.get(r.referenceID as string)}` : ""}`,
      );
      expect(seq[0]).toBe("2/203"); // APP_NEW first
      expect(seq[1]).toBe("1/204"); // then Accepted
      for (const name of ["tags-0", "tags-1", "tags-2"]) {
        const req = seq.indexOf(`2/201:${name}`);
        const alloc = seq.indexOf(`2/200:${name}`);
        expect(req, `${name} ask event`).toBeGreaterThan(1);
        expect(alloc, `${name} allocation after its ask`).toBeGreaterThan(req);
      }
      const times = stream.records.slice(1).map((r) => r.timestampNano as number);
      expect(times).toEqual([...times].sort((a, b) => a - b));
      // the same records through the batch API, with ids
      const batch = (await (await fetch(`http://127.0.0.1:${s.port}/ws/v1/events/batch`)).json()) as Record<string, any>;
      expect(batch.EventRecords.filter((r: Record<string, unknown>) => r.objectID === "tags-app").length).toBe(mine.length);
    } finally {
      stream.close();
      await s.corral.stop();
      await clear();
    }
  }, 120_000);

  it("a consumer that stops reading is dropped; the others get every event and the scheduler keeps binding", async () => {
    const s = await startRestScheduler();
    const fast = await openStream(s.port);
    // A consumer that sends its request and never reads a byte.
    const slow = connect(s.port, "127.0.0.1");
    await new Promise<void>((r) => slow.once("connect", () => r()));
    slow.write("GET /ws/v1/events/stream HTTP/1.1\r\nHost: corral\r\n\r\n");
    slow.pause();
    const streams = async () =>
      ((await (await fetch(`http://127.0.0.1:${s.port}/debug/fullstatedump`)).json()) as { eventStreams: unknown[] }).eventStreams.length;
    try {
      await waitFor("both streams open", async () => (await streams()) === 2);
      // Rounds of 500 pods bound then deleted, until the stalled consumer has fallen more than 1,000 records behind
      // what its connection holds (the kernel's socket buffers take a few MB first).
      const N = 500;
      const rounds: number[] = [];
      let total = 0;
      while ((await streams()) === 2 && rounds.length < 12) {
        const prefix = `slow${rounds.length}-`;
        const t0 = Date.now();
        await createPods(Array.from({ length: N }, (_, i) => pod(`${prefix}${i}`, `slow-${i % 20}`, "50m")));
        await waitFor(`${N} pods bound`, async () => (await boundCount(prefix)) === N, 120_000, 250);
        // the REST API (same event loop as the scheduler) answers at once while a reader is stalled
        const h0 = Date.now();
        expect((await fetch(`http://127.0.0.1:${s.port}/ws/v1/scheduler/healthcheck`)).status).toBe(200);
        expect(Date.now() - h0).toBeLessThan(1000);
        rounds.push((Date.now() - t0) / 1000);
        total += N;
        await clear();
      }
      await waitFor("the slow consumer dropped", async () => (await streams()) === 1, 20_000);
      await waitFor(
        "every allocation streamed to the fast consumer",
        async () => fast.records.filter((r) => r.type === 2 && r.eventChangeDetail === 200).length === total,
        20_000,
      );
      console.log(
        `slow-consumer case: ${rounds.length} rounds of ${N} pods (create + bind, seconds: ` +
          `${rounds.map((x) => x.toFixed(1)).join(", ")}); ${fast.records.length} records streamed to the live ` +
          `consumer; the stalled one dropped`,
      );
      // The dropped consumer's connection is closed by the server: once it reads again it gets what the kernel held,
      // then the end (the closing message cannot reach a reader that takes nothing; upstream's is lost the same way).
      slow.resume();
      const closed = await new Promise<boolean>((resolve) => {
        slow.on("data", () => undefined);
        slow.on("close", () => resolve(true));
        slow.on("error", () => resolve(true));
        setTimeout(() => resolve(false), 15_000).unref();
      });
      expect(closed).toBe(true);
    } finally {
      fast.close();
      slow.destroy();
      await s.corral.stop();
      await clear();
    }
  }, 480_000);

  it("two replicas behind a round-robin front: every read answers with the leader's state, across a failover", async () => {
    const portA = freePort();
    const portB = freePort();
    const start = (id: string, port: number) =>
      startScheduler(tb, {
        namespace: CONF_NS,
        name: id,
        port,
        args: ["--leader-elect", "--identity", id, "--advertise-address", `http://127.0.0.1:${port}`],
        readyMsg: "scheduler REST API serving",
        logLevel: "info",
      }).then((s) => s.corral);
    const a = await start("replica-a", portA);
    await a.waitForLog((l) => l.msg === "scheduling", 40_000);
    const b = await start("replica-b", portB);
    const frontPort = freePort();
    const front = await roundRobin(frontPort, [portA, portB]);
    const lease = async () =>
      (await admin.makeApiClient(k8s.CoordinationV1Api).readNamespacedLease({ name: "corral-scheduler", namespace: CONF_NS })).spec
        ?.holderIdentity;
    /** One read through the front: who answered, and what it says. */
    const read = async () => {
      const r = await fetch(`http://127.0.0.1:${frontPort}/ws/v1/partition/default/applications/active`);
      const body = (await r.json()) as Record<string, any>[] | { message: string };
      return {
        status: r.status,
        servedBy: r.headers.get("x-corral-served-by"),
        apps: Array.isArray(body) ? body.map((x) => x.applicationID as string) : [],
      };
    };
    try {
      await createPods([0, 1].map((i) => pod(`ha-${i}`, "ha-app")));
      await waitFor("ha pods bound", async () => (await boundCount("ha-")) === 2);
      expect(await lease()).toBe("replica-a");
      for (let i = 0; i < 10; i++) {
        const r = await read();
        expect(r).toEqual({ status: 200, servedBy: "replica-a", apps: ["ha-app"] });
      }
      // The nodes through the follower directly: forwarded to the leader as well.
      const direct = await fetch(`http://127.0.0.1:${portB}/ws/v1/partition/default/nodes`);
      expect(direct.headers.get("x-corral-served-by")).toBe("replica-a");
      expect(((await direct.json()) as unknown[]).length).toBeGreaterThanOrEqual(6);

      // Failover: the leader stops (its Lease is released); reads keep coming through the front.
      const stopping = a.stop();
      const seen: { status: number; servedBy: string | null; apps: string[] }[] = [];
      await waitFor(
        "replica-b answers with its recovered state",
        async () => {
          const r = await read().catch(() => undefined);
          if (r) seen.push(r);
          return r?.status === 200 && r.servedBy === "replica-b" && r.apps.includes("ha-app");
        },
        60_000,
        250,
      );
      await stopping;
      expect(await lease()).toBe("replica-b");
      // Never an empty follower's answer: a 200 comes from the leader of the moment, anything else is a 503 error.
      for (const r of seen) {
        if (r.status === 200) expect(["replica-a", "replica-b"]).toContain(r.servedBy);
        else expect(r.status).toBe(503);
      }
      for (let i = 0; i < 10; i++) expect(await read()).toEqual({ status: 200, servedBy: "replica-b", apps: ["ha-app"] });
      console.log(`failover: ${seen.length} reads during the hand-over, ${seen.filter((r) => r.status === 503).length} answered 503`);
    } finally {
      front.close();
      await a.stop();
      await b.stop();
      await clear();
    }
  }, 180_000);
});
