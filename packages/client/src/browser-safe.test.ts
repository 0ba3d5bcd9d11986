// @reins/client runs in browsers: its sources may import only each other, @reins/core, @reins/protocol and zod, and
// may not touch Node globals. This test fails as soon as one of them reaches for Node.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { importOffenders, moduleSpecifiers, nodeGlobalOffenders, sourceFiles } from '@reins/testkit';
import { describe, expect, it } from 'vitest';

const ALLOWED_PACKAGES = new Set(['@reins/core', '@reins/protocol', 'zod']);
const root = new URL('.', import.meta.url).pathname;
const sources = (dir: string) => sourceFiles(dir, (path) => path.endsWith('.ts') && !path.endsWith('.test.ts'));

describe('@reins/client stays browser-safe', () => {
  const files = sources(root);

  it('has sources to check', () => {
    expect(files.map((path) => path.slice(root.length)).sort()).toEqual(
      expect.arrayContaining(['client.ts', 'index.ts', 'remote-session.ts', 'rpc-channel.ts']),
    );
  });

  it('imports only relative modules, @reins/core, @reins/protocol and zod (no node: module, no Node-only package)', () => {
    expect(importOffenders(files, root, ALLOWED_PACKAGES)).toEqual([]);
  });

  it('uses no Node globals (process, Buffer, __dirname, require)', () => {
    expect(nodeGlobalOffenders(files, root)).toEqual([]);
  });

  it('depends on @reins/core, @reins/protocol and zod only', () => {
    const manifest = JSON.parse(readFileSync(join(root, '..', 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
    };
    expect(Object.keys(manifest.dependencies ?? {}).sort()).toEqual(['@reins/core', '@reins/protocol', 'zod']);
  });

  it('the checks catch an offender', () => {
    expect(moduleSpecifiers("import { readFile } from 'node:fs';\nexport * from 'ws';\nawait import('path');")).toEqual(
      ['node:fs', 'ws', 'path'],
    );
  });
});
