// The console runs in a browser and speaks to the daemon only through @reins/client: its sources
// may import each other, @reins/client, @reins/core, react, react-dom and zod (and its stylesheet),
// and may not touch Node globals. This test fails as soon as one of them reaches for Node.
import { importOffenders, moduleSpecifiers, nodeGlobalOffenders, sourceFiles } from '@reins/testkit';
import { describe, expect, it } from 'vitest';

const ALLOWED = new Set(['@reins/client', '@reins/core', 'react', 'react-dom/client', 'zod']);
const root = new URL('.', import.meta.url).pathname;
const sources = (dir: string) =>
  sourceFiles(dir, (path) => (path.endsWith('.ts') || path.endsWith('.tsx')) && !path.endsWith('.test.ts'));

describe('the console stays a browser app on @reins/client', () => {
  const files = sources(root);

  it('has sources to check', () => {
    expect(files.map((path) => path.slice(root.length))).toEqual(
      expect.arrayContaining(['main.tsx', 'api/daemon-api.ts', 'model/transcript.ts', 'ui/App.tsx']),
    );
  });

  it('imports only its own modules, @reins/client, @reins/core, React and zod', () => {
    expect(importOffenders(files, root, ALLOWED)).toEqual([]);
  });

  it('uses no Node globals (process, Buffer, __dirname, require)', () => {
    expect(nodeGlobalOffenders(files, root)).toEqual([]);
  });

  it('the checks catch an offender', () => {
    expect(moduleSpecifiers("import { readFile } from 'node:fs';\nimport 'ws';")).toEqual(['node:fs', 'ws']);
  });
});
