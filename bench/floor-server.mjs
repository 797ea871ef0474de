// The floor for the admission benchmark: a bare Node https server that only parses the JSON body, builds a two-op
// JSON Patch, base64-encodes it and answers. No validation, no logging, no metrics.
import { createServer } from "node:https";
import { readFileSync } from "node:fs";

const [certFile, keyFile, port] = process.argv.slice(2);
const server = createServer({ cert: readFileSync(certFile), key: readFileSync(keyFile), minVersion: "TLSv1.2" }, (req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const review = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    const labels = { ...(review.request.object.metadata.labels ?? {}), applicationId: "x" };
    const patch = [
      { op: "add", path: "/spec/schedulerName", value: "yunikorn" },
      { op: "add", path: "/metadata/labels", value: labels },
    ];
    const body = JSON.stringify({
      apiVersion: "admission.k8s.io/v1",
      kind: "AdmissionReview",
      response: {
        uid: review.request.uid,
        allowed: true,
        patchType: "JSONPatch",
        patch: Buffer.from(JSON.stringify(patch)).toString("base64"),
      },
    });
    res.writeHead(200, { "content-type": "application/json" });
    res.end(body);
  });
});
server.listen(Number(port), "127.0.0.1", () => process.stdout.write("listening\n"));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
