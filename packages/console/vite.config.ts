// Builds the console into dist/ (index.html + hashed assets), which the daemon serves at GET / with
// a strict Content-Security-Policy: no inline script or style, nothing from another origin, so the
// build must not emit any (no module-preload polyfill script, CSS in files).
//
// Three chunks start a page: the entry (src/main.tsx: it opens the WebSocket, nothing more), the
// connection it imports then (src/app/start.ts: @reins/client, zod, the schemas, the view models)
// and the UI that imports once the session is on its way (src/ui/mount.tsx: React and the session
// page). Those two chunks and what they import get a modulepreload link in index.html, so the
// browser fetches and compiles them while the entry runs rather than after it.
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';

function preloadDynamicChunks(moduleSuffixes: string[]): Plugin {
  return {
    name: 'reins-console-preload-ui',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(html, context) {
        const chunks = Object.values(context.bundle ?? {}).filter((output) => output.type === 'chunk');
        const files = new Set<string>();
        const visit = (file: string) => {
          if (files.has(file)) return;
          files.add(file);
          for (const imported of chunks.find((chunk) => chunk.fileName === file)?.imports ?? []) visit(imported);
        };
        for (const suffix of moduleSuffixes) {
          const start = chunks.find((chunk) => chunk.facadeModuleId?.endsWith(suffix));
          if (!start) throw new Error(`vite.config.ts: no chunk for ${suffix}: the console's start moved`);
          visit(start.fileName);
        }
        return [...files]
          .filter((file) => !html.includes(`/${file}"`))
          .map((file) => ({
            tag: 'link',
            attrs: { rel: 'modulepreload', crossorigin: true, href: `/${file}` },
            injectTo: 'head' as const,
          }));
      },
    },
  };
}

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
  plugins: [preloadDynamicChunks(['/src/app/start.ts', '/src/ui/mount.tsx'])],
  logLevel: 'warn',
});
