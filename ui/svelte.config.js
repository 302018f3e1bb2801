// Svelte 5 compiles TypeScript in <script lang="ts"> itself (type annotations only), so no preprocessor is needed.
// Component CSS goes to the emitted .css file (never injected <style> tags): the CSP is style-src 'self'.
export default {
  compilerOptions: {
    css: "external",
  },
};
