// What a bridge remembers across processes: a file per conversation, read back whole, and a store
// that cannot be used never stops the bridge.
import * as fs from 'node:fs/promises';
import { chmod, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fileRecords, MAX_TURN_RECORDS, memoryRecords, type SessionRecord } from './records.js';

// readFile counted: a record this process wrote is not read back while its file is unchanged.
vi.mock('node:fs/promises', async (real) => {
  const actual = await real<typeof import('node:fs/promises')>();
  return { ...actual, readFile: vi.fn(actual.readFile) };
});
const readFileCalls = () => vi.mocked(fs.readFile).mock.calls.length;

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'reins-records-'));
  dirs.push(dir);
  return dir;
}

const record = (id: string, extra: Partial<SessionRecord> = {}): SessionRecord => ({
  id,
  cwd: '/work',
  model: 'sonnet',
  createdAtMs: 1,
  updatedAtMs: 2,
  turns: [],
  ...extra,
});

describe('fileRecords', () => {
  it('keeps a record per conversation, across store instances (processes), under a hashed file name', async () => {
    const dir = await tempDir();
    await fileRecords(dir).put(record('../../etc/passwd'));
    await fileRecords(dir).put(record('b', { model: 'haiku' }));
    const again = fileRecords(dir);
    expect((await again.get('../../etc/passwd'))?.model).toBe('sonnet');
    expect((await again.get('b'))?.model).toBe('haiku');
    expect(await again.get('missing')).toBeUndefined();
    expect((await again.list()).map((entry) => entry.id).sort()).toEqual(['../../etc/passwd', 'b']);
    expect((await readdir(dir)).every((name) => /^[0-9a-f]{32}\.json$/.test(name))).toBe(true);
  });

  it('applies overlapping changes of one record one after another, so none is lost', async () => {
    for (const store of [fileRecords(await tempDir()), memoryRecords()]) {
      await store.put(record('a'));
      const turn = (id: string) => ({ id, status: 'completed' as const, inputs: 1, startedAtMs: 1 });
      await Promise.all([
        store.update('a', (known) => known && { ...known, turns: [...known.turns, turn('t1')] }),
        store.update('a', (known) => known && { ...known, name: 'named' }),
        store.update('a', (known) => known && { ...known, turns: [...known.turns, turn('t2')] }),
      ]);
      const kept = await store.get('a');
      expect(kept?.turns.map((entry) => entry.id)).toEqual(['t1', 't2']);
      expect(kept?.name).toBe('named');
      await store.update('missing', () => undefined);
      expect(await store.get('missing')).toBeUndefined();
    }
  });

  it('keeps the newest turns only', async () => {
    const store = fileRecords(await tempDir());
    const turns = Array.from({ length: MAX_TURN_RECORDS + 5 }, (_, index) => ({
      id: `t${index}`,
      status: 'completed' as const,
      inputs: 1,
      startedAtMs: index,
    }));
    await store.put(record('a', { turns }));
    const kept = (await store.get('a'))?.turns ?? [];
    expect(kept).toHaveLength(MAX_TURN_RECORDS);
    expect(kept[0]?.id).toBe('t5');
  });

  it('skips what it cannot read and says why; a folder it cannot write to is told, not thrown', async () => {
    const dir = await tempDir();
    const log: string[] = [];
    const store = fileRecords(dir, (message) => log.push(message));
    await store.put(record('a'));
    const [name] = await readdir(dir);
    await writeFile(join(dir, name as string), '{"not":"a record"}');
    await writeFile(join(dir, 'other.json'), 'garbage');
    expect(await store.get('a')).toBeUndefined();
    expect(await store.list()).toEqual([]);
    expect(log.join('\n')).toMatch(/not a session record[\s\S]*not JSON/);
    if (process.getuid?.() !== 0) {
      await chmod(dir, 0o500);
      await expect(store.put(record('b'))).resolves.toBeUndefined();
      expect(log.at(-1)).toMatch(/cannot write/);
      await chmod(dir, 0o700);
    }
  });

  const turn = (id: string) => ({ id, status: 'completed' as const, inputs: 1, startedAtMs: 1 });

  it('changes a record it wrote itself without reading the file back, while the file is still the one it wrote', async () => {
    const dir = await tempDir();
    const store = fileRecords(dir);
    await store.put(record('a'));
    const reads = readFileCalls();
    for (const id of ['t1', 't2', 't3'])
      await store.update('a', (known) => known && { ...known, turns: [...known.turns, turn(id)] });
    expect(readFileCalls()).toBe(reads);
    // What it kept is what the file holds, for this process and any other.
    expect((await store.get('a'))?.turns.map((entry) => entry.id)).toEqual(['t1', 't2', 't3']);
    expect((await fileRecords(dir).get('a'))?.turns.map((entry) => entry.id)).toEqual(['t1', 't2', 't3']);
    // A copy each time: changing what get returned changes nothing kept.
    const got = await store.get('a');
    got?.turns.splice(0);
    expect((await store.get('a'))?.turns).toHaveLength(3);
  });

  it('starts a change from what another process wrote in between, never from its own stale copy', async () => {
    const dir = await tempDir();
    const mine = fileRecords(dir);
    const other = fileRecords(dir); // another bridge on the same home
    await mine.put(record('a'));
    await mine.update('a', (known) => known && { ...known, turns: [...known.turns, turn('t1')] });
    // The other renames a whole new file into place (a name given from another bridge).
    await other.update('a', (known) => known && { ...known, name: 'named elsewhere' });
    await mine.update('a', (known) => known && { ...known, turns: [...known.turns, turn('t2')] });
    let kept = await fileRecords(dir).get('a');
    expect(kept?.name).toBe('named elsewhere');
    expect(kept?.turns.map((entry) => entry.id)).toEqual(['t1', 't2']);
    // A file changed in place (by hand, or a tool that does not rename) is read again too.
    const [name] = await readdir(dir);
    const edited = { ...(kept as SessionRecord), model: 'edited in place' };
    await writeFile(join(dir, name as string), JSON.stringify(edited));
    await mine.update('a', (known) => known && { ...known, turns: [...known.turns, turn('t3')] });
    kept = await fileRecords(dir).get('a');
    expect(kept?.model).toBe('edited in place');
    expect(kept?.turns.map((entry) => entry.id)).toEqual(['t1', 't2', 't3']);
    // And a file removed is gone for it as well.
    await rm(join(dir, name as string));
    expect(await mine.get('a')).toBeUndefined();
  });

  it('keeps the text of the records it changed last only; an older one is read from disk again, whole', async () => {
    const store = fileRecords(await tempDir());
    for (let index = 0; index <= 64; index++) await store.put(record(`r${index}`, { turns: [turn(`t${index}`)] }));
    let reads = readFileCalls();
    expect((await store.get('r64'))?.turns[0]?.id).toBe('t64');
    expect(readFileCalls()).toBe(reads);
    reads = readFileCalls();
    expect((await store.get('r0'))?.turns[0]?.id).toBe('t0');
    expect(readFileCalls()).toBe(reads + 1);
  });

  it('writes again into a folder removed after its first write', async () => {
    const dir = await tempDir();
    const log: string[] = [];
    const store = fileRecords(dir, (message) => log.push(message));
    await store.put(record('a'));
    await rm(dir, { recursive: true });
    await store.put(record('b'));
    expect((await fileRecords(dir).get('b'))?.id).toBe('b');
    expect(log).toEqual([]);
  });
});
