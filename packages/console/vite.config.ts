// Builds the console into dist/ (index.html + hashed assets), which the daemon serves at GET / with
// a strict Content-Security-Policy: no inline script or style, nothing from another origin, so the
// build must not emit any (no module-preload polyfill script, CSS in files).
//
// Two chunks start a page: the entry (src/main.tsx: the connection, @reins/client, zod) and the UI
// it imports once the socket is on its way (src/ui/mount.tsx: React and the session page). The UI
// chunk and what it imports get a modulepreload link in index.html, so the browser fetches and
// compiles them while the entry runs rather than after it.
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';

function preloadDynamicChunk(moduleSuffix: string): Plugin {
  return {
    name: 'reins-console-preload-ui',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(html, context) {
        const chunks = Object.values(context.bundle ?? {}).filter((output) => output.type === 'chunk');
        const start = chunks.find((chunk) => chunk.facadeModuleId?.endsWith(moduleSuffix));
        if (!start) throw new Error(`vite.config.ts: no chunk for ${moduleSuffix}: the console's UI entry moved`);
        const files = new Set<string>();
        const visit = (file: string) => {
          if (files.has(file)) return;
          files.add(file);
          for (const imported of chunks.find((chunk) => chunk.fileName === file)?.imports ?? []) visit(imported);
        };
        visit(start.fileName);
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
  plugins: [preloadDynamicChunk('/src/ui/mount.tsx')],
  logLevel: 'warn',
});
