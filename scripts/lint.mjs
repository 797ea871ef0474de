#!/usr/bin/env node
/**
 * npm run lint: the TypeScript check and ESLint (typed rules, module boundaries) on shared programs, beside oxlint's
 * import-cycle check and Prettier's check, in two lanes at once. Every step ends with one line naming it, its result
 * (exit code, or the signal that ended it, e.g. SIGKILL when the machine ran out of memory) and its time; the step's own
 * output is printed under that line. Exits 1 when any step failed. A lint stopped from outside (SIGINT, SIGTERM, SIGHUP:
 * a timeout, Ctrl-C) names the steps still running and how long they ran, stops them and exits 1. Run through npm, so
 * the tools are found in node_modules/.bin.
 */
import { spawn } from "node:child_process";

/** @typedef {{ name: string; cmd: string; args: string[] }} Step */

/**
 * @type {Step[][]} lanes: the steps of a lane run one after the other, the lanes side by side. The type check and ESLint
 * share one lane and one TypeScript program per tsconfig (scripts/lint-typed.mjs): run apart, each built and checked the
 * same ~1,750 files. (The dashboard's small program in the other lane made it slower: one more process loading
 * TypeScript and ESLint.) The other lane is cheap by choice, because on two cores it takes CPU from the first: import
 * cycles are found by oxlint (.oxlintrc.json) in about a second, where ESLint's import-x/no-cycle parsed every file again
 * (about 4 s of CPU), and Prettier parses TypeScript and JavaScript with its oxc plugin (.prettierrc.json).
 */
const lanes = [
  [
    {
      name: "typecheck + eslint",
      cmd: "node",
      args: ["scripts/lint-typed.mjs", "--tsconfig", "tsconfig.check.json", "--tsconfig", "ui/tsconfig.json", "--lint", "."],
    },
  ],
  [
    { name: "oxlint (import cycles)", cmd: "oxlint", args: ["--max-warnings", "0", "--quiet", "."] },
    { name: "prettier --check", cmd: "prettier", args: ["--check", "--log-level", "warn", "."] },
  ],
];

/** The steps running now, with their start times (for a lint stopped from outside). */
const running = new Map();

/**
 * Runs one step with its output collected (stdout and stderr interleaved as they came).
 * @param {Step} step
 * @returns {Promise<{ step: Step; ok: boolean; result: string; seconds: number; output: string }>}
 */
function run(step) {
  const start = performance.now();
  return new Promise((resolve) => {
    const chunks = [];
    const child = spawn(step.cmd, step.args, { stdio: ["ignore", "pipe", "pipe"] });
    running.set(child, { step, start });
    child.stdout.on("data", (c) => chunks.push(c));
    child.stderr.on("data", (c) => chunks.push(c));
    const done = (ok, result) => {
      running.delete(child);
      resolve({ step, ok, result, seconds: (performance.now() - start) / 1000, output: Buffer.concat(chunks).toString() });
    };
    child.on("error", (e) => done(false, `could not start ${step.cmd}: ${e.message}`));
    child.on("close", (code, signal) => done(code === 0, signal ? `ended by ${signal}` : `exit ${code}`));
  });
}

/** @param {Step[]} lane */
async function runLane(lane) {
  const results = [];
  for (const step of lane) {
    const r = await run(step);
    results.push(r);
    console.log(`lint: ${r.step.name}: ${r.ok ? "ok" : `FAILED (${r.result})`} in ${r.seconds.toFixed(1)} s`);
    // a step's own lines (the typed lane's part times; what failed)
    if (r.output.trim()) console.log(r.output.trimEnd().replace(/^/gm, "  "));
  }
  return results;
}

for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => {
    for (const [child, { step, start }] of running) {
      const seconds = ((performance.now() - start) / 1000).toFixed(1);
      console.log(`lint: ${step.name}: STOPPED (lint received ${signal}) after ${seconds} s, still running`);
      child.kill("SIGTERM");
    }
    console.log(`lint: failed: stopped by ${signal}`);
    process.exit(1);
  });
}

const results = (await Promise.all(lanes.map(runLane))).flat();
const failed = results.filter((r) => !r.ok).map((r) => r.step.name);
if (failed.length > 0) {
  console.log(`lint: failed: ${failed.join(", ")}`);
  process.exitCode = 1;
}
