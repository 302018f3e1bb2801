import { defineConfig } from "vitest/config";

export default defineConfig({
  clearScreen: false,
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
  },
});
