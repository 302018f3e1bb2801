import { svelte } from "@sveltejs/vite-plugin-svelte";
import { defineConfig } from "vitest/config";

export default defineConfig({
  clearScreen: false,
  plugins: [svelte()],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022",
    // The CSP allows scripts and styles from 'self' only: no inlined assets, no inline preload polyfill.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
  },
  test: {
    environment: "happy-dom",
    include: ["src/**/*.test.ts"],
  },
  // Svelte's client runtime (mount) in the tests, not its server one.
  resolve: process.env["VITEST"] ? { conditions: ["browser"] } : {},
});
