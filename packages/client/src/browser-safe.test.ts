// @reins/client runs in browsers: its sources may import only each other, @reins/core and zod, and
// may not touch Node globals. This test fails as soon as one of them reaches for Node.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ALLOWED_PACKAGES = new Set(['@reins/core', 'zod']);
const root = new URL('.', import.meta.url).pathname;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') && !path.endsWith('.test.ts') ? [path] : [];
  });
}

/** Every module specifier: static imports and re-exports, dynamic import(), require(). */
function specifiers(text: string): string[] {
  const found: string[] = [];
  for (const pattern of [
    /\b(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]/g,
    /\bimport\s*['"]([^'"]+)['"]/g,
    /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
    /\brequire\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  ]) {
    for (const match of text.matchAll(pattern)) found.push(match[1] as string);
  }
  return found;
}

describe('@reins/client stays browser-safe', () => {
  const files = sources(root);

  it('has sources to check', () => {
    expect(files.map((path) => path.slice(root.length)).sort()).toEqual(
      expect.arrayContaining(['client.ts', 'index.ts', 'protocol.ts', 'remote-session.ts', 'rpc-channel.ts']),
    );
  });

  it('imports only relative modules, @reins/core and zod (no node: module, no Node-only package)', () => {
    const offenders: string[] = [];
    for (const path of files) {
      for (const specifier of specifiers(readFileSync(path, 'utf8'))) {
        if (specifier.startsWith('./') || specifier.startsWith('../')) continue;
        if (!ALLOWED_PACKAGES.has(specifier)) offenders.push(`${path.slice(root.length)}: ${specifier}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('uses no Node globals (process, Buffer, __dirname, require)', () => {
    const offenders: string[] = [];
    for (const path of files) {
      const code = readFileSync(path, 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/\/\/.*$/gm, '');
      for (const global of [/\bprocess\./, /\bBuffer\b/, /\b__dirname\b/, /\brequire\s*\(/]) {
        if (global.test(code)) offenders.push(`${path.slice(root.length)}: ${global.source}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('depends on @reins/core and zod only', () => {
    const manifest = JSON.parse(readFileSync(join(root, '..', 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
    };
    expect(Object.keys(manifest.dependencies ?? {}).sort()).toEqual(['@reins/core', 'zod']);
  });

  it('the checks catch an offender', () => {
    expect(specifiers("import { readFile } from 'node:fs';\nexport * from 'ws';\nawait import('path');")).toEqual([
      'node:fs',
      'ws',
      'path',
    ]);
  });
});
