/**
 * Starts the real control plane once for the e2e project (building it the first time), compiles corral, which the
 * tests run as real processes (`node bin/corral.js`), builds the dashboard they open, and installs Debian's chromium
 * for the browser tests when it is missing.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import type { TestProject } from "vitest/node";
import { PROJECT_ROOT, testbedDown, testbedUp } from "../../src/testbed/testbed.js";
import { ensureChromium } from "./browser.js";

declare module "vitest" {
  export interface ProvidedContext {
    testbedEnv: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  execFileSync(process.execPath, [`${PROJECT_ROOT}/node_modules/typescript/bin/tsc`, "-p", "tsconfig.json"], {
    cwd: PROJECT_ROOT,
    stdio: "inherit",
  });
  // corral runs as `process.execPath bin/corral.js` (startCorral): record the Node.js it reports for the test summary
  const corral = execFileSync(process.execPath, [`${PROJECT_ROOT}/bin/corral.js`, "--version"], { encoding: "utf8" }).trim();
  mkdirSync(`${PROJECT_ROOT}/.corral/reports/runtime`, { recursive: true });
  writeFileSync(
    `${PROJECT_ROOT}/.corral/reports/runtime/corral-bin.json`,
    JSON.stringify({
      what: "corral bin (e2e processes)",
      node: /Node\.js (v[\d.]+)/.exec(corral)?.[1] ?? corral,
      execPath: process.execPath,
    }),
  );
  execFileSync(
    process.execPath,
    [`${PROJECT_ROOT}/node_modules/vite/bin/vite.js`, "build", "--config", "ui/vite.config.ts", "--logLevel", "warn"],
    { cwd: PROJECT_ROOT, stdio: "inherit" },
  );
  ensureChromium();
  const tb = await testbedUp((l) => process.stderr.write(`${l}\n`));
  project.provide("testbedEnv", `${tb.dir}/env`);
  return async () => {
    await testbedDown((l) => process.stderr.write(`${l}\n`));
  };
}
