/**
 * npm run bench:pki — cost of issuing certificates and how long it blocks the event loop (ECDSA P-256 through
 * WebCrypto; the issue asks that generation never block the loop for seconds). Prints median/max time for a CA plus
 * a server certificate and the event-loop delay observed meanwhile.
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import { generateCa, generateServerCert } from "../src/pki/certificates.js";

const n = Number(process.env.BENCH_ROUNDS ?? 50);
const h = monitorEventLoopDelay({ resolution: 1 });
h.enable();
const times: number[] = [];
for (let i = 0; i < n; i++) {
  const t = performance.now();
  const ca = await generateCa({ notBefore: new Date(), notAfter: new Date(Date.now() + 365 * 864e5) });
  await generateServerCert(ca, {
    commonName: "svc.ns.svc",
    sans: ["svc", "svc.ns", "svc.ns.svc"],
    notBefore: new Date(),
    notAfter: new Date(Date.now() + 365 * 864e5),
  });
  times.push(performance.now() - t);
}
h.disable();
times.sort((a, b) => a - b);
console.log(
  `${n} × (CA + server certificate), ECDSA P-256: median ${times[Math.floor(n / 2)]!.toFixed(1)} ms, max ${times[n - 1]!.toFixed(1)} ms`,
);
console.log(
  `event-loop delay meanwhile: p99 ${(h.percentile(99) / 1e6).toFixed(1)} ms, max ${(h.max / 1e6).toFixed(1)} ms (target: never seconds)`,
);
