/**
 * Vitest setup file: records the Node.js version of each test worker in .corral/reports/runtime/ so that
 * scripts/test-summary.mjs can print what the tests really ran on.
 */
import { mkdirSync, writeFileSync } from "node:fs";

const dir = new URL("../../.corral/reports/runtime/", import.meta.url);
mkdirSync(dir, { recursive: true });
writeFileSync(
  new URL(`worker-${process.pid}.json`, dir),
  JSON.stringify({ what: "vitest worker", node: process.version, execPath: process.execPath }),
);
