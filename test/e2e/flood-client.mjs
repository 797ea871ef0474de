// A hostile direct caller of a webhook port, run as its own process by attacks.test.ts: FLOOD_CONNECTIONS callers
// post label-heavy AdmissionReviews of about FLOOD_BODY_MIB MiB to FLOOD_URL for FLOOD_SECONDS seconds (autocannon),
// then print one JSON line of what they got. Certificates are not checked: an attacker does not need to trust it.
import autocannon from "autocannon";

const url = process.env.FLOOD_URL;
const connections = Number(process.env.FLOOD_CONNECTIONS ?? 48);
const seconds = Number(process.env.FLOOD_SECONDS ?? 20);
const bytes = Number(process.env.FLOOD_BODY_MIB ?? 1.9) * 1024 * 1024;

const labels = {};
const overhead = 400;
for (let i = 0, size = overhead; size < bytes; i++) {
  const k = `k${i}.example.com/label-${i}`;
  const v = `value-${i}-${"x".repeat(40)}`;
  labels[k] = v;
  size += k.length + v.length + 6;
}
const body = JSON.stringify({
  apiVersion: "admission.k8s.io/v1",
  kind: "AdmissionReview",
  request: {
    uid: "00000000-0000-0000-0000-000000000001",
    kind: { group: "", version: "v1", kind: "Pod" },
    operation: "CREATE",
    namespace: "default",
    userInfo: { username: "mallory", groups: ["system:authenticated"] },
    object: { metadata: { name: "flood", labels }, spec: { containers: [{ name: "c", image: "busybox" }] } },
  },
});
const r = await autocannon({
  url,
  method: "POST",
  headers: { "content-type": "application/json" },
  body,
  connections,
  duration: seconds,
  timeout: 10,
  tlsOptions: { rejectUnauthorized: false },
});
const line = `${JSON.stringify({
  bodyBytes: Buffer.byteLength(body),
  statusCodes: r.statusCodeStats,
  errors: r.errors,
  timeouts: r.timeouts,
  requests: r.requests.total,
  latencyMs: { p50: r.latency.p50, p99: r.latency.p99, max: r.latency.max },
})}\n`;
// Exit once the line is written: autocannon can leave a connection open after its duration (seen once in eight runs:
// the line printed, the process still alive 70 s later), which kept the test waiting until its own time limit.
process.stdout.write(line, () => process.exit(0));
