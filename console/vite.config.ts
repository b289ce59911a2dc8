import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/**
 * The console is served by Cairn at /console/ (src/http/console.ts), from dist/. It calls the API
 * through the typed client, taken from its source so that a route's new types need no client build,
 * and reads wall clocks in zones with the server's own wall-clock.ts (only @date-fns/tz behind it).
 */
export default defineConfig({
  base: '/console/',
  resolve: {
    alias: {
      '@cairn/client': fileURLToPath(new URL('../clients/typescript/src/index.ts', import.meta.url)),
      '@cairn/wall-clock': fileURLToPath(new URL('../src/wire/wall-clock.ts', import.meta.url)),
    },
  },
  // Vite 8 compiles TypeScript and JSX with Oxc (its `esbuild` option is the deprecated spelling of this).
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 300 },
});
