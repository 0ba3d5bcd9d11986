// Pure: the part of .gitignore that fuzzyFileSearch honours, as Codex's search skips ignored files:
// blank lines and `#` comments, `!` negation, a trailing `/` (folders only), a leading or inner `/`
// (anchored to the .gitignore's folder), `*`, `?`, `[...]` and `**`. Later rules win, and rules of a
// deeper .gitignore come after those of the folders above it.

export interface IgnoreRule {
  /** The folder of the .gitignore, relative to the search root ('' at the root). */
  base: string;
  regex: RegExp;
  negated: boolean;
  foldersOnly: boolean;
}

/** The rules of one .gitignore whose folder is `base` (relative to the root, '' for the root). */
export function parseIgnoreFile(text: string, base: string): IgnoreRule[] {
  const rules: IgnoreRule[] = [];
  for (const raw of text.split(/\r?\n/)) {
    let line = raw.replace(/(?<!\\)\s+$/, '');
    if (line === '' || line.startsWith('#')) continue;
    const negated = line.startsWith('!');
    if (negated) line = line.slice(1);
    const foldersOnly = line.endsWith('/');
    if (foldersOnly) line = line.slice(0, -1);
    if (line === '') continue;
    // A slash anywhere but at the end anchors the pattern to the .gitignore's folder.
    const anchored = line.includes('/');
    if (line.startsWith('/')) line = line.slice(1);
    const body = globToRegex(line);
    const regex = new RegExp(anchored ? `^${body}$` : `^(?:.*/)?${body}$`);
    rules.push({ base, regex, negated, foldersOnly });
  }
  return rules;
}

function globToRegex(glob: string): string {
  let out = '';
  for (let at = 0; at < glob.length; at++) {
    const char = glob[at] as string;
    if (char === '*' && glob[at + 1] === '*') {
      // `**/` any folders (or none), a trailing `**` everything below.
      if (glob[at + 2] === '/') {
        out += '(?:.*/)?';
        at += 2;
      } else {
        out += '.*';
        at += 1;
      }
    } else if (char === '*') out += '[^/]*';
    else if (char === '?') out += '[^/]';
    else if (char === '[') {
      const close = glob.indexOf(']', at + 1);
      if (close < 0) out += '\\[';
      else {
        out += `[${glob
          .slice(at + 1, close)
          .replace(/^!/, '^')
          .replace(/\\/g, '\\\\')}]`;
        at = close;
      }
    } else if (char === '\\' && at + 1 < glob.length) {
      out += escapeChar(glob[at + 1] as string);
      at += 1;
    } else out += escapeChar(char);
  }
  return out;
}

function escapeChar(char: string): string {
  return /[.*+?^${}()|[\]\\/]/.test(char) ? `\\${char}` : char;
}

/** Whether `path` (relative to the root, `/`-separated) is ignored by `rules`, the last matching rule deciding. */
export function isIgnored(rules: readonly IgnoreRule[], path: string, isFolder: boolean): boolean {
  let ignored = false;
  for (const rule of rules) {
    if (rule.foldersOnly && !isFolder) continue;
    if (rule.base !== '' && !path.startsWith(`${rule.base}/`)) continue;
    const relative = rule.base === '' ? path : path.slice(rule.base.length + 1);
    if (rule.regex.test(relative)) ignored = !rule.negated;
  }
  return ignored;
}
