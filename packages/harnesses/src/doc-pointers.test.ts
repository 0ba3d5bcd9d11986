// Every pointer a code comment gives resolves inside the repository: a `docs/...` markdown path names a
// file that exists, a bare markdown file name is one of docs/architecture/ (the convention), a quoted
// section after either ("Turn rules", § Turn rules) is a heading or a bold lead-in of that file, and no
// comment sends the reader to notes outside the repository (docs/harnesses/ holds the harness facts).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
/** Markdown files comments name that are not ours to resolve: harness-side files and upstream docs. */
const FOREIGN = new Set(['agents.md', 'claude.md', 'notes.md', 'skill.md', 'readme.md']);
const SKIP_DIRS = new Set(['node_modules', 'dist', 'fixtures', 'generated', 'fixtures-mcp']);

function sources(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (SKIP_DIRS.has(name)) continue;
    if (statSync(path).isDirectory()) out.push(...sources(path));
    else if (/\.(ts|tsx|mjs|js)$/.test(name) && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** The comment text of a source line (after `//`, or a line inside a block comment), else undefined. */
function commentOf(line: string): string | undefined {
  const trimmed = line.trimStart();
  if (trimmed.startsWith('*') || trimmed.startsWith('/*')) return trimmed;
  const at = line.indexOf('// ');
  return at >= 0 && !line.slice(0, at).includes("'") && !line.slice(0, at).includes('`') ? line.slice(at) : undefined;
}

const headingsCache = new Map<string, string[]>();
function headings(file: string): string[] {
  let found = headingsCache.get(file);
  if (!found) {
    found = readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => /^#{1,6} /.test(line))
      .map((line) => line.replace(/^#+ /, '').trim());
    headingsCache.set(file, found);
  }
  return found;
}

/** A section is a heading, or a bold lead-in (`- **Fair doors** (doors.ts): ...`). */
const hasHeading = (file: string, section: string) =>
  headings(file).some(
    (heading) => heading === section || (heading.startsWith(section) && /^[\s:(]/.test(heading.slice(section.length))),
  ) || readFileSync(file, 'utf8').includes(`**${section}**`);

/** What is wrong with the pointers of one comment (empty when they all resolve). */
export function brokenPointers(comment: string): string[] {
  const problems: string[] = [];
  if (/\/work\/shared|\.\.\/shared\b|shared\/(reference|harnesses)|\bshared reference\b/.test(comment)) {
    problems.push('points outside the repository (copy the fact into docs/harnesses/ and cite that)');
  }
  for (const match of comment.matchAll(/(?<![\w/.-])harnesses\/([\w-]+)\.md/g)) {
    problems.push(`${match[0]}: write docs/harnesses/${match[1]}.md (the path from the repository's root)`);
  }
  const pattern =
    /(?<![\w/.-])((?:docs\/(?:architecture|harnesses|drift)\/)?([\w.-]+)\.md)(?:,? (?:"([^"]+)"|§ ?([A-Z][\w -]*\w)))?/g;
  for (const match of comment.matchAll(pattern)) {
    const [, cited, base, quoted, marked] = match as unknown as [string, string, string, string?, string?];
    if (FOREIGN.has(`${base}.md`.toLowerCase()) || /^[A-Z]/.test(base)) continue;
    const file = cited.startsWith('docs/') ? join(repo, cited) : join(repo, 'docs', 'architecture', `${base}.md`);
    if (!existsSync(file)) {
      problems.push(`${cited}: no such file (${relative(repo, file)})`);
      continue;
    }
    const section = quoted ?? marked;
    if (section && !hasHeading(file, section)) problems.push(`${cited}: no section "${section}"`);
  }
  return problems;
}

describe('pointers in comments', () => {
  const files = [
    ...readdirSync(join(repo, 'packages')).flatMap((pkg) =>
      ['src', 'test', 'bin', 'fakes', 'scripts'].flatMap((dir) => sources(join(repo, 'packages', pkg, dir))),
    ),
    ...sources(join(repo, 'scripts')),
    join(repo, 'vitest.config.ts'),
  ];

  it('resolve to files and sections of the repository', () => {
    const broken: string[] = [];
    for (const file of files) {
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, index) => {
          const comment = commentOf(line);
          if (comment === undefined) return;
          for (const problem of brokenPointers(comment))
            broken.push(`${relative(repo, file)}:${index + 1}: ${problem}`);
        });
    }
    expect(broken).toEqual([]);
  });

  it('the check catches a missing file, a missing section and a pointer outside', () => {
    expect(brokenPointers('// see contract.md, "Turn rules"')).toEqual([]);
    expect(brokenPointers('// (docs/harnesses/codex.md)')).toEqual([]);
    expect(brokenPointers('// (contract.md, "One chassis")')).toEqual(['contract.md: no section "One chassis"']);
    expect(brokenPointers('// docs/architecture/nowhere.md')).toHaveLength(1);
    expect(brokenPointers('// (pi.md)')).toEqual(['pi.md: no such file (docs/architecture/pi.md)']);
    expect(brokenPointers('// the notes in /work/shared/harnesses')).toHaveLength(1);
    expect(brokenPointers('// (harnesses/pi.md)')).toHaveLength(1);
    expect(brokenPointers('// (daemon.md, "Fair doors")')).toEqual([]);
    expect(brokenPointers('// shared references fan out')).toEqual([]);
  });
});
