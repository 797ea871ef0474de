#!/usr/bin/env node
// Entry point of the `corral` command: runs the compiled CLI (npm run build).
import { main } from "../dist/cli/main.js";

main(process.argv).catch((err) => {
  process.stderr.write(`corral: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
