/**
 * Builds the dashboard into dist/ui/ (served by `corral scheduler` at /ui/). `npx vite --config ui/vite.config.ts`
 * serves it for development with /ws/ proxied to the scheduler at $CORRAL_URL (default http://127.0.0.1:9080).
 */
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  base: "/ui/",
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: {
    outDir: fileURLToPath(new URL("../dist/ui", import.meta.url)),
    emptyOutDir: true,
    target: "es2022",
    // one script and one stylesheet, no inline code (the Content-Security-Policy allows none)
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    reportCompressedSize: false,
  },
  server: { proxy: { "/ws": process.env.CORRAL_URL ?? "http://127.0.0.1:9080" } },
});
