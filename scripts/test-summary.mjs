// Prints one closing line for the whole test run ("N passed, N failed") from vitest's JSON reports, and before it
// the Node.js versions the run really used: this script (npm's scripts), the vitest workers and the corral processes
// of the e2e tests (recorded in .corral/reports/runtime/ during this run). Fails when one is older than `engines`.
import { readdirSync, readFileSync, statSync } from "node:fs";

const reports = new URL("../.corral/reports/", import.meta.url);
let passed = 0,
  failed = 0,
  skipped = 0,
  startTime = Infinity;
for (const name of ["unit", "e2e"]) {
  const r = JSON.parse(readFileSync(new URL(`${name}.json`, reports), "utf8"));
  passed += r.numPassedTests;
  failed += r.numFailedTests;
  skipped += r.numPendingTests + r.numTodoTests;
  startTime = Math.min(startTime, r.startTime);
}

const runtimes = new Map([["npm scripts (this summary)", new Set([process.version])]]);
const dir = new URL("runtime/", reports);
let files = [];
try {
  files = readdirSync(dir);
} catch {
  /* no runtime records */
}
for (const f of files) {
  const url = new URL(f, dir);
  if (statSync(url).mtimeMs < startTime - 60_000) continue; // left by an earlier run
  const r = JSON.parse(readFileSync(url, "utf8"));
  runtimes.set(r.what, (runtimes.get(r.what) ?? new Set()).add(r.node));
}
const engines = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).engines.node;
const wantMajor = Number(/(\d+)/.exec(engines)?.[1] ?? 0);
const old = [...runtimes].flatMap(([what, vs]) =>
  [...vs].filter((v) => Number(/^v(\d+)/.exec(v)?.[1] ?? 0) < wantMajor).map((v) => `${what} ${v}`),
);
console.log(`Node.js: ${[...runtimes].map(([what, vs]) => `${what} ${[...vs].join("/")}`).join(", ")} (engines ${engines})`);
if (old.length) console.log(`runtime older than engines ${engines}: ${old.join(", ")}`);
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 || old.length > 0 ? 1 : 0);
