#!/usr/bin/env node
/**
 * The type check and ESLint on the same TypeScript programs (`npm run lint`'s typed lane, scripts/lint.mjs).
 *
 * `tsc -p tsconfig.check.json`, `tsc -p ui/tsconfig.json` and ESLint's type-aware rules each built a program of the same
 * ~1,750 files and type-checked much of them again: two thirds of the lint's CPU time. Here each tsconfig's program is
 * built once; its diagnostics are the type check (as `tsc --noEmit` reports them), and ESLint reads the same programs
 * (typescript-eslint's `parserOptions.programs`), so the types the checker worked out are not worked out again. The
 * configuration is eslint.config.js unchanged; `npx eslint .` and `npm run typecheck` still run on their own.
 *
 * Usage: `node scripts/lint-typed.mjs --tsconfig <path>… --lint <path>…`: the programs of the given tsconfigs are
 * checked, and ESLint lints the given paths with them; a linted TypeScript file must be in one of the programs, or in
 * eslint.config.js's `UNTYPED_TS`.
 * Prints the type errors, then ESLint's report (stylish), each under a line naming the part and its time. Exits 1 when
 * there is a type error, an ESLint error or any warning (as `--max-warnings 0`), 2 on bad arguments.
 */
import { ESLint } from "eslint";
import { parseArgs } from "node:util";
import ts from "typescript";
import { UNTYPED_TS } from "../eslint.config.js";

let args;
try {
  args = parseArgs({
    options: {
      tsconfig: { type: "string", multiple: true },
      lint: { type: "string", multiple: true },
    },
  }).values;
  if (!args.tsconfig?.length || !args.lint?.length) throw new Error("--tsconfig and --lint are required");
} catch (err) {
  console.error(`lint-typed: ${err.message}`);
  process.exit(2);
}
const TSCONFIGS = args.tsconfig;

const host = { getCanonicalFileName: (f) => f, getCurrentDirectory: ts.sys.getCurrentDirectory, getNewLine: () => ts.sys.newLine };
const seconds = (start) => ((performance.now() - start) / 1000).toFixed(1);

/** One tsconfig's program, as `tsc -p` builds it. */
function programOf(configPath) {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    configPath,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.formatDiagnostics([d], host));
      },
    },
  );
  // JSDoc is parsed only where it carries types (JavaScript files), as tsc does since TypeScript 5.3; in TypeScript files
  // it changes no type error and no rule here reads it (3-5 s of CPU on this repository's ~1,750 files).
  const compilerHost = ts.createCompilerHost(parsed.options);
  compilerHost.jsDocParsingMode = ts.JSDocParsingMode.ParseForTypeErrors;
  return ts.createProgram({
    host: compilerHost,
    rootNames: parsed.fileNames,
    options: parsed.options,
    projectReferences: parsed.projectReferences,
    configFileParsingDiagnostics: ts.getConfigFileParsingDiagnostics(parsed),
  });
}

let failed = false;

let start = performance.now();
const programs = TSCONFIGS.map(programOf);
const diagnostics = programs.flatMap((p) => ts.getPreEmitDiagnostics(p));
const errors = diagnostics.filter((d) => d.category === ts.DiagnosticCategory.Error).length;
console.log(`typecheck: ${errors === 0 ? "ok" : `type errors: ${errors}`} in ${seconds(start)} s (${TSCONFIGS.join(", ")})`);
if (diagnostics.length > 0) console.log(ts.formatDiagnostics(diagnostics, host).trimEnd());
failed ||= errors > 0;

start = performance.now();
const eslint = new ESLint({
  overrideConfig: [{ files: ["**/*.ts", "**/*.tsx"], ignores: UNTYPED_TS, languageOptions: { parserOptions: { programs } } }],
});
const results = await eslint.lintFiles(args.lint);
const count = (k) => results.reduce((n, r) => n + r[k], 0);
const [lintErrors, warnings] = [count("errorCount"), count("warningCount")];
console.log(`eslint: ${lintErrors + warnings === 0 ? "ok" : `errors: ${lintErrors}, warnings: ${warnings}`} in ${seconds(start)} s`);
if (lintErrors + warnings > 0) console.log((await eslint.loadFormatter("stylish")).format(results).trimEnd());
failed ||= lintErrors + warnings > 0;

process.exitCode = failed ? 1 : 0;
