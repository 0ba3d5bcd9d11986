import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import {
  fixtureFileName,
  fixtureRecorder,
  outputFrames,
  parseFixture,
  parseFixtureFileName,
  readFixture,
} from './fixture.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'reins-fixture-'));
  dirs.push(dir);
  return dir;
}

const meta = { harness: 'codex', package: '@openai/codex', version: '0.169.0', behaviour: 'text-turn' };

describe('fixture recorder', () => {
  it('keeps both directions with the version header, names the file by the scheme, and reads it back', async () => {
    const dir = await tempDir();
    const recorder = fixtureRecorder(meta);
    recorder.tap('in', '{"id":1,"method":"initialize","params":{}}');
    recorder.tap('out', '{"id":1,"result":{}}');
    recorder.tap('out', 'not json');
    recorder.tap('err', 'warning: something\n');
    const path = await recorder.saveIn(join(dir, 'sub'));
    expect(path).toBe(join(dir, 'sub', 'text-turn.0.169.0.jsonl'));
    expect(recorder.fileName(2)).toBe('text-turn-2.0.169.0.jsonl');
    const fixture = await readFixture(path);
    expect(fixture.header).toMatchObject({ format: 'reins/v1', ...meta, recordedAt: expect.any(String) });
    expect(fixture.frames.map((f) => f.dir)).toEqual(['in', 'out', 'out', 'err']);
    expect(outputFrames(fixture)).toEqual([{ id: 1, result: {} }, 'not json']);
  });

  it('refuses a file that is not a fixture, or a frame line without a direction', async () => {
    const path = join(await tempDir(), 'f.jsonl');
    await writeFile(path, '{"hello":1}\n');
    await expect(readFixture(path)).rejects.toThrow(/not a Reins fixture/);
    expect(() => parseFixture(`${JSON.stringify({ format: 'reins/v1', ...meta })}\n{"frame":1}\n`)).toThrow(
      /line 2 has no direction/,
    );
  });

  it('parses the naming scheme, versions with dots and dashes included', () => {
    expect(parseFixtureFileName('text-turn.0.169.0.jsonl')).toEqual({ behaviour: 'text-turn', version: '0.169.0' });
    expect(parseFixtureFileName('constructed-turns.0.0.1790142911-g7618fb.jsonl')).toEqual({
      behaviour: 'constructed-turns',
      version: '0.0.1790142911-g7618fb',
    });
    expect(parseFixtureFileName('text-turn.jsonl')).toBeUndefined();
    expect(() => fixtureFileName('a.b', '1')).toThrow(/no "\."/);
  });
});

// Every fixture in the repository is reins/v1 and named `<behaviour>.<version>.jsonl` after its header.
describe('the fixtures in packages/harnesses', () => {
  const root = fileURLToPath(new URL('../../../harnesses/src/', import.meta.url));
  const files = (readdirSync(root, { recursive: true }) as string[])
    .filter((path) => path.endsWith('.jsonl') && path.split(/[\\/]/).includes('fixtures'))
    .sort();

  it('exist', () => {
    expect(files.length).toBeGreaterThan(50);
  });

  it.each(files)('%s', (file) => {
    const fixture = parseFixture(readFileSync(join(root, file), 'utf8'), file);
    const parts = file.split(/[\\/]/);
    const named = parseFixtureFileName(parts.at(-1) as string);
    expect(named?.version).toBe(fixture.header.version);
    const behaviour = fixture.header.behaviour;
    expect([behaviour, ...[2, 3, 4].map((part) => `${behaviour}-${part}`)]).toContain(named?.behaviour);
    // The folder says whose frames they are: <harness>/fixtures/, or acp/fixtures/<harness>/.
    expect(parts[0] === 'acp' ? parts[2] : parts[0]).toBe(fixture.header.harness);
    expect(parts).toHaveLength(parts[0] === 'acp' ? 4 : 3);
  });
});
