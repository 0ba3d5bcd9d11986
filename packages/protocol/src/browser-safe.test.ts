// @reins/protocol runs in browsers (the console and any web client use it): its sources may import
// only each other, @reins/core and zod, and may not touch Node globals.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { importOffenders, nodeGlobalOffenders, sourceFiles } from '@reins/testkit';
import { describe, expect, it } from 'vitest';

const root = new URL('.', import.meta.url).pathname;
const files = sourceFiles(root, (path) => path.endsWith('.ts') && !path.endsWith('.test.ts'));

describe('@reins/protocol stays browser-safe', () => {
  it('has its domains to check', () => {
    expect(files.map((path) => path.slice(root.length)).sort()).toEqual(
      expect.arrayContaining(['auth.ts', 'events.ts', 'harness-catalog.ts', 'index.ts', 'methods.ts', 'sessions.ts']),
    );
  });

  it('imports only relative modules, @reins/core and zod', () => {
    expect(importOffenders(files, root, new Set(['@reins/core', 'zod']))).toEqual([]);
  });

  it('uses no Node globals (process, Buffer, __dirname, require)', () => {
    expect(nodeGlobalOffenders(files, root)).toEqual([]);
  });

  it('depends on @reins/core and zod only', () => {
    const manifest = JSON.parse(readFileSync(join(root, '..', 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
    };
    expect(Object.keys(manifest.dependencies ?? {}).sort()).toEqual(['@reins/core', 'zod']);
  });
});
