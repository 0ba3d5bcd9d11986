// fuzzyFileSearch over a real folder tree: what is found, what .gitignore and .git hide, the caps, bad
// params, and a request cancelled by a later one with the same token.
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { until } from '@reins/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from './clients.js';
import { RpcError } from './connection.js';
import { FileSearches, searchRoot } from './file-search.js';
import { ParamsError } from './requests.js';

let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'reins-file-search-'));
  const files = [
    'notes/zebra-findme.txt',
    'src/main.ts',
    'src/zebra.ts',
    'ignored/zebra-hidden.txt',
    'pkg/zebra-local.txt',
    'pkg/zebra-kept.txt',
    '.git/zebra-object',
    'debug-zebra.log',
  ];
  for (const file of files) {
    await mkdir(join(root, file, '..'), { recursive: true });
    await writeFile(join(root, file), 'x\n');
  }
  await writeFile(join(root, '.gitignore'), 'ignored/\n*.log\n');
  await writeFile(join(root, 'pkg', '.gitignore'), 'zebra-local.txt\n');
  await symlink(root, join(root, 'loop'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('searchRoot', () => {
  it('finds matching files and folders, paths relative to the root, best first', async () => {
    const found = await searchRoot(root, 'zebra');
    expect(found.map((match) => match.path).sort()).toEqual(
      ['notes/zebra-findme.txt', 'pkg/zebra-kept.txt', 'src/zebra.ts'].sort(),
    );
    expect(found[0]).toMatchObject({ root, match_type: 'file' });
    const scores = found.map((match) => match.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    const note = found.find((match) => match.path === 'notes/zebra-findme.txt');
    expect(note).toMatchObject({ file_name: 'zebra-findme.txt', indices: [6, 7, 8, 9, 10] });
    const folders = await searchRoot(root, 'notes');
    expect(folders[0]).toMatchObject({ path: 'notes', match_type: 'directory', file_name: 'notes' });
  });

  it('skips .git and what the root and nested .gitignore files ignore, and never follows a link', async () => {
    const paths = (await searchRoot(root, 'z')).map((match) => match.path);
    expect(paths).not.toContain('ignored/zebra-hidden.txt');
    expect(paths).not.toContain('debug-zebra.log');
    expect(paths).not.toContain('pkg/zebra-local.txt');
    expect(paths.some((path) => path.startsWith('.git/'))).toBe(false);
    expect(paths.some((path) => path.startsWith('loop/'))).toBe(false);
  });

  it('keeps at most the result cap, and stops walking at the entry cap', async () => {
    expect(await searchRoot(root, 'e', { results: 2, entries: 1_000 })).toHaveLength(2);
    // Two entries looked at: the root's first two names (sorted), none of which is under src/.
    const few = await searchRoot(root, 'main', { results: 50, entries: 2 });
    expect(few).toEqual([]);
  });

  it('leaves the event loop free while it walks (a timer set at the start runs before the walk ends)', async () => {
    const big = join(root, 'big');
    for (let folder = 0; folder < 20; folder++) {
      await mkdir(join(big, `folder-${folder}`), { recursive: true });
      for (let file = 0; file < 10; file++) await writeFile(join(big, `folder-${folder}`, `file-${file}.txt`), '');
    }
    try {
      let ticked = false;
      let tickedBeforeDone = false;
      setImmediate(() => {
        ticked = true;
      });
      const found = await searchRoot(big, 'file-9', { results: 50, entries: 100_000 }).then((matches) => {
        tickedBeforeDone = ticked;
        return matches;
      });
      expect(tickedBeforeDone).toBe(true);
      expect(found).toHaveLength(20);
    } finally {
      await rm(big, { recursive: true, force: true });
    }
  });

  it('answers a missing root with nothing', async () => {
    expect(await searchRoot(join(root, 'no-such-folder'), 'zebra')).toEqual([]);
  });
});

describe('FileSearches (the fuzzyFileSearch handler)', () => {
  it('takes a relative root from the cwd and answers an empty query with no files', async () => {
    const searches = new FileSearches(() => root);
    const { files } = await searches.search({ query: 'main', roots: ['src'] });
    expect(files.map((match) => match.path)).toEqual(['main.ts']);
    expect(await searches.search({ query: '  ', roots: [root] })).toEqual({ files: [] });
  });

  it('refuses bad params naming the field', async () => {
    const searches = new FileSearches(() => root);
    const fieldOf = (params: Record<string, unknown>) =>
      searches.search(params).then(
        () => undefined,
        (error: unknown) => (error instanceof ParamsError ? error.field : String(error)),
      );
    expect(await fieldOf({ roots: [root] })).toBe('query');
    expect(await fieldOf({ query: 'x' })).toBe('roots');
    expect(await fieldOf({ query: 'x', roots: [3] })).toBe('roots');
    expect(await fieldOf({ query: 'x', roots: [root], cancellationToken: 5 })).toBe('cancellationToken');
  });

  it('a later request with the same cancellationToken cancels the earlier one (no files), not others', async () => {
    const searches = new FileSearches(() => root);
    const first = searches.search({ query: 'zebra', roots: [root], cancellationToken: 'typing' });
    const other = searches.search({ query: 'zebra', roots: [root], cancellationToken: 'elsewhere' });
    const second = searches.search({ query: 'zebr', roots: [root], cancellationToken: 'typing' });
    expect((await first).files).toEqual([]);
    expect((await other).files).toHaveLength(3);
    expect((await second).files).toHaveLength(3);
  });
});

describe('fuzzyFileSearch sessions (experimental)', () => {
  /** A client that keeps what it is notified of. */
  const clientOf = (optedOut: string[] = []) => {
    const notified: { method: string; params: Record<string, unknown> }[] = [];
    const client = {
      initialized: true,
      optedOut: new Set(optedOut),
      connection: { notify: (method: string, params: Record<string, unknown>) => notified.push({ method, params }) },
    } as unknown as Client;
    return { client, notified };
  };

  it('answers each update with sessionUpdated (the files) then sessionCompleted; a newer update cancels an older one', async () => {
    const handlers = new FileSearches(() => root).handlers();
    const { client, notified } = clientOf();
    expect(await handlers['fuzzyFileSearch/sessionStart']?.({ sessionId: 's1', roots: [root] }, client)).toEqual({});
    await handlers['fuzzyFileSearch/sessionUpdate']?.({ sessionId: 's1', query: 'zeb' }, client);
    await handlers['fuzzyFileSearch/sessionUpdate']?.({ sessionId: 's1', query: 'zebra-find' }, client);
    await until(() => notified.some((note) => note.method === 'fuzzyFileSearch/sessionCompleted'), 'sessionCompleted');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(notified.map((note) => note.method)).toEqual([
      'fuzzyFileSearch/sessionUpdated',
      'fuzzyFileSearch/sessionCompleted',
    ]);
    expect(notified[0]?.params).toMatchObject({ sessionId: 's1', query: 'zebra-find' });
    expect(((notified[0]?.params.files ?? []) as { path: string }[]).map((file) => file.path)).toEqual([
      'notes/zebra-findme.txt',
    ]);
  });

  it('an unknown or stopped session is refused with a sentence; another client cannot use it; opt-outs hold', async () => {
    const handlers = new FileSearches(() => root).handlers();
    const owner = clientOf(['fuzzyFileSearch/sessionUpdated']);
    const other = clientOf();
    const update = (client: Client) =>
      handlers['fuzzyFileSearch/sessionUpdate']?.({ sessionId: 's2', query: 'z' }, client);
    await handlers['fuzzyFileSearch/sessionStart']?.({ sessionId: 's2', roots: [root] }, owner.client);
    await expect(update(other.client)).rejects.toThrow(RpcError);
    await update(owner.client);
    await until(() => owner.notified.length > 0, 'a notification to the owner');
    expect(owner.notified.map((note) => note.method)).toEqual(['fuzzyFileSearch/sessionCompleted']);
    expect(await handlers['fuzzyFileSearch/sessionStop']?.({ sessionId: 's2' }, owner.client)).toEqual({});
    await expect(update(owner.client)).rejects.toThrow('fuzzy file search session not found: s2');
    await expect(handlers['fuzzyFileSearch/sessionStart']?.({ sessionId: 's3' }, owner.client)).rejects.toThrow(
      ParamsError,
    );
  });
});
