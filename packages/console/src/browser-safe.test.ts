// The console runs in a browser and speaks to the daemon only through @reins/client: its sources
// may import each other, @reins/client, @reins/core, react, react-dom and zod (and its stylesheet),
// and may not touch Node globals. This test fails as soon as one of them reaches for Node.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ALLOWED = new Set(['@reins/client', '@reins/core', 'react', 'react-dom/client', 'zod']);
const root = new URL('.', import.meta.url).pathname;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    const code = path.endsWith('.ts') || path.endsWith('.tsx');
    return code && !path.endsWith('.test.ts') && !path.endsWith('test-events.ts') ? [path] : [];
  });
}

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

describe('the console stays a browser app on @reins/client', () => {
  const files = sources(root);

  it('has sources to check', () => {
    expect(files.map((path) => path.slice(root.length))).toEqual(
      expect.arrayContaining(['main.tsx', 'api/daemon-api.ts', 'model/transcript.ts', 'ui/App.tsx']),
    );
  });

  it('imports only its own modules, @reins/client, @reins/core, React and zod', () => {
    const offenders: string[] = [];
    for (const path of files) {
      for (const specifier of specifiers(readFileSync(path, 'utf8'))) {
        if (specifier.startsWith('./') || specifier.startsWith('../')) continue;
        if (!ALLOWED.has(specifier)) offenders.push(`${path.slice(root.length)}: ${specifier}`);
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

  it('the checks catch an offender', () => {
    expect(specifiers("import { readFile } from 'node:fs';\nimport 'ws';")).toEqual(['node:fs', 'ws']);
  });
});
