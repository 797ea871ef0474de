/** npm run demo: compile corral, then run the local demo (src/testbed/demo.ts). */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { PROJECT_ROOT } from "../src/testbed/testbed.js";
import { runDemo } from "../src/testbed/demo.js";

execFileSync(process.execPath, [join(PROJECT_ROOT, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"], { cwd: PROJECT_ROOT, stdio: "inherit" });
runDemo().catch((err) => {
  process.stderr.write(`demo failed: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
  process.exit(1);
});
