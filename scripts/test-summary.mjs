// Prints one closing line for the whole test run ("N passed, N failed") from vitest's JSON reports.
import { readFileSync } from "node:fs";

let passed = 0, failed = 0, skipped = 0;
for (const name of ["unit", "e2e"]) {
  const r = JSON.parse(readFileSync(new URL(`../.corral/reports/${name}.json`, import.meta.url), "utf8"));
  passed += r.numPassedTests;
  failed += r.numFailedTests;
  skipped += r.numPendingTests + r.numTodoTests;
}
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 ? 1 : 0);
