// The dev harness built like the app and previewed under the app's CSP, so a screenshot also proves the built
// output runs under it:  npx vite build -c dev/vite.config.ts && npx vite preview -c dev/vite.config.ts
import { mergeConfig } from "vite";
import base from "../vite.config";

const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; media-src 'self' data:; font-src 'self'; " +
  "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-src http://127.0.0.1:*";

export default mergeConfig(base, {
  build: {
    outDir: "dev/dist",
    emptyOutDir: true,
    rollupOptions: { input: "dev/index.html" },
  },
  preview: { port: 4180, strictPort: true, headers: { "Content-Security-Policy": CSP } },
});
