// Checks that a package's sources can run in a browser (the client and the console): which modules
// they import, and whether they reach for Node globals. Read as text, so a test on it needs no bundler.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Every source file below `dir` that `keep` accepts (a path predicate). */
export function sourceFiles(dir: string, keep: (path: string) => boolean): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path, keep);
    return keep(path) ? [path] : [];
  });
}

/** Every module specifier: static imports and re-exports, dynamic import(), require(). */
export function moduleSpecifiers(text: string): string[] {
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

/** `file: specifier` for each import that is neither relative nor one of the allowed packages. */
export function importOffenders(files: readonly string[], root: string, allowed: ReadonlySet<string>): string[] {
  const offenders: string[] = [];
  for (const path of files) {
    for (const specifier of moduleSpecifiers(readFileSync(path, 'utf8'))) {
      if (specifier.startsWith('./') || specifier.startsWith('../')) continue;
      if (!allowed.has(specifier)) offenders.push(`${path.slice(root.length)}: ${specifier}`);
    }
  }
  return offenders;
}

/** `file: pattern` for each use of a Node global (process, Buffer, __dirname, require), comments aside. */
export function nodeGlobalOffenders(files: readonly string[], root: string): string[] {
  const offenders: string[] = [];
  for (const path of files) {
    const code = readFileSync(path, 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/\/\/.*$/gm, '');
    for (const global of [/\bprocess\./, /\bBuffer\b/, /\b__dirname\b/, /\brequire\s*\(/]) {
      if (global.test(code)) offenders.push(`${path.slice(root.length)}: ${global.source}`);
    }
  }
  return offenders;
}
