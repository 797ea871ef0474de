/**
 * npm run demo: compile corral and build the dashboard, then run the local demo (src/testbed/demo.ts).
 * `npm run demo -- --keep` leaves everything running at the end, with the dashboard's URL printed, until Ctrl-C.
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { PROJECT_ROOT } from "../src/testbed/testbed.js";
import { runDemo } from "../src/testbed/demo.js";

execFileSync(process.execPath, [join(PROJECT_ROOT, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"], {
  cwd: PROJECT_ROOT,
  stdio: "inherit",
});
execFileSync(
  process.execPath,
  [join(PROJECT_ROOT, "node_modules/vite/bin/vite.js"), "build", "--config", "ui/vite.config.ts", "--logLevel", "warn"],
  { cwd: PROJECT_ROOT, stdio: "inherit" },
);
runDemo({ keep: process.argv.includes("--keep") }).catch((err) => {
  process.stderr.write(`demo failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
