import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "unit",
          setupFiles: ["test/helpers/record-runtime.ts"],
          include: ["test/unit/**/*.test.ts", "test/integration/**/*.test.ts"],
          testTimeout: 20_000,
        },
      },
      {
        test: {
          name: "e2e",
          setupFiles: ["test/helpers/record-runtime.ts"],
          include: ["test/e2e/**/*.test.ts"],
          globalSetup: ["test/e2e/global-setup.ts"],
          testTimeout: 120_000,
          hookTimeout: 300_000,
          fileParallelism: false,
          // The control plane is shared; run files one after another.
          pool: "forks",
        },
      },
    ],
  },
});
