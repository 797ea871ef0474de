// ESLint flat config: typescript-eslint's recommended rules, a few type-aware rules that catch real bugs (promises
// left floating, awaiting non-promises), and the module boundaries of docs/architecture.md as import rules, so a
// wrong import (admission ↔ bootstrapper ↔ scheduler, policy → server/processes) fails `npm run lint`. Import cycles
// are oxlint's `import/no-cycle` (.oxlintrc.json), which `npm run lint` runs beside ESLint.
import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";

/** Folders under src/ and the folders each must not import (by the path segment in the import specifier). */
const POLICY = ["admission", "bootstrapper", "scheduler"];
const EDGES_AND_WIRING = ["server", "processes", "cli", "testbed"];
const forbidden = {
  admission: ["bootstrapper", "scheduler", ...EDGES_AND_WIRING],
  bootstrapper: ["admission", "scheduler", ...EDGES_AND_WIRING],
  scheduler: ["admission", "bootstrapper", ...EDGES_AND_WIRING],
  pki: [...POLICY, ...EDGES_AND_WIRING],
  webhook: [...POLICY, "yunikorn", "pki", ...EDGES_AND_WIRING],
  yunikorn: [...POLICY, "webhook", "pki", ...EDGES_AND_WIRING],
  kube: [...POLICY, "webhook", "yunikorn", "pki", ...EDGES_AND_WIRING],
  util: [...POLICY, "webhook", "yunikorn", "kube", "pki", ...EDGES_AND_WIRING],
  server: ["processes", "cli", "testbed"],
  processes: ["cli", "testbed"],
};

/** TypeScript files outside every tsconfig (build configuration): linted without type information. */
export const UNTYPED_TS = ["ui/vite.config.ts"];

const boundaries = Object.entries(forbidden).map(([folder, banned]) => ({
  files: [`src/${folder}/**/*.ts`],
  rules: {
    "no-restricted-imports": [
      "error",
      {
        patterns: banned.map((b) => ({
          // A relative specifier that climbs out of the folder into src/<b>/ (e.g. "../server/x.js", "../../admission/x.js").
          regex: `^(\\.\\./)+${b}/`,
          message: `src/${folder}/ must not import src/${b}/ (docs/architecture.md: imports run one way)`,
        })),
      },
    ],
  },
}));

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", "coverage/**", ".corral/**", "src/scheduler/ui/**", "deploy/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // Prettier lays code out at 140 columns but leaves strings and comments alone: they are wrapped by hand. Test titles
    // (`it(`, `describe(` … lines) stay on one line so that `vitest -t` and grep find them whole; regular expressions
    // and URLs cannot be wrapped.
    rules: {
      "max-len": [
        "error",
        {
          code: 140,
          ignoreUrls: true,
          ignoreRegExpLiterals: true,
          ignorePattern: "^\\s*(it|test|describe)(\\.\\w+)*(\\(.*\\))?\\(",
        },
      ],
    },
  },
  {
    files: ["**/*.ts", "**/*.tsx"],
    languageOptions: {
      parserOptions: { project: "./tsconfig.check.json", tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // Type-aware rules worth their cost: a promise nobody awaits or catches is a lost error.
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/await-thenable": "error",
      "@typescript-eslint/no-misused-promises": ["error", { checksVoidReturn: { arguments: false, attributes: false } }],
      // Unused bindings are errors, except the `_name` convention for deliberately ignored parameters.
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
    },
  },
  ...boundaries,
  {
    // Six or more positional parameters are hard to read at the call site: take an options object (house style).
    // Tests, benches and scripts are exempt (row-like test-data builders read as tables).
    files: ["src/**/*.ts", "ui/src/**/*.ts", "ui/src/**/*.tsx"],
    rules: { "max-params": ["error", 5] },
  },
  {
    // Tests, benches and scripts may reach into any module; tests read untyped JSON answers through `any`.
    files: ["test/**/*.ts", "bench/**/*.ts", "scripts/**/*.ts"],
    rules: { "no-restricted-imports": "off", "@typescript-eslint/no-explicit-any": "off" },
  },
  {
    // The dashboard is a browser program with its own tsconfig (Preact JSX, bundler resolution).
    files: ["ui/src/**/*.ts", "ui/src/**/*.tsx"],
    languageOptions: {
      globals: globals.browser,
      parserOptions: { project: "./ui/tsconfig.json", tsconfigRootDir: import.meta.dirname },
    },
  },
  {
    // Build configuration outside any tsconfig: linted without type information.
    files: UNTYPED_TS,
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { parserOptions: { project: false } },
  },
  {
    // The scheduler core walks up its queue tree with a cursor that starts at `this` (`let q = this; q = q.parent`).
    files: ["src/scheduler/core/**/*.ts"],
    rules: { "@typescript-eslint/no-this-alias": "off" },
  },
  {
    // Plain JavaScript (the bin wrapper, scripts, bench helpers) runs on Node.js and is not type-checked.
    files: ["**/*.js", "**/*.mjs"],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { globals: globals.node },
  },
);
