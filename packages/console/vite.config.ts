// Builds the console into dist/ (index.html + hashed assets), which the daemon serves at GET / with
// a strict Content-Security-Policy: no inline script or style, nothing from another origin, so the
// build must not emit any (no module-preload polyfill script, CSS in files).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  // Vite's own JSX transform (oxc), React's automatic runtime: no plugin needed.
  oxc: { jsx: { runtime: 'automatic', importSource: 'react' } },
  build: {
    outDir: 'dist/app',
    emptyOutDir: true,
    target: 'es2022',
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: false,
    reportCompressedSize: false,
  },
  logLevel: 'warn',
});
