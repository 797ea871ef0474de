/**
 * Starts the real control plane once for the e2e project (building it the first time), compiles corral, which the
 * tests run as real processes (`node bin/corral.js`), builds the dashboard they open, and installs Debian's chromium
 * for the browser tests when it is missing.
 */
import { execFileSync } from "node:child_process";
import type { TestProject } from "vitest/node";
import { PROJECT_ROOT, testbedDown, testbedUp } from "../../src/testbed/testbed.js";
import { ensureChromium } from "./browser.js";

declare module "vitest" {
  export interface ProvidedContext {
    testbedEnv: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  execFileSync(process.execPath, [`${PROJECT_ROOT}/node_modules/typescript/bin/tsc`, "-p", "tsconfig.json"], { cwd: PROJECT_ROOT, stdio: "inherit" });
  execFileSync(process.execPath, [`${PROJECT_ROOT}/node_modules/vite/bin/vite.js`, "build", "--config", "ui/vite.config.ts", "--logLevel", "warn"], { cwd: PROJECT_ROOT, stdio: "inherit" });
  ensureChromium();
  const tb = await testbedUp((l) => process.stderr.write(`${l}\n`));
  project.provide("testbedEnv", `${tb.dir}/env`);
  return async () => {
    await testbedDown((l) => process.stderr.write(`${l}\n`));
  };
}
