import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fixtureRecorder, outputFrames, readFixture } from './fixture.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe('fixture recorder', () => {
  it('keeps both directions with the version header and reads them back', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'reins-fixture-'));
    dirs.push(dir);
    const recorder = fixtureRecorder({ harness: 'codex', version: '0.169.0', scenario: 'text turn' });
    recorder.tap('in', '{"id":1,"method":"initialize","params":{}}');
    recorder.tap('out', '{"id":1,"result":{}}');
    recorder.tap('out', 'not json');
    recorder.tap('err', 'warning: something\n');
    const path = join(dir, 'sub', 'text.jsonl');
    await recorder.save(path);
    const fixture = await readFixture(path);
    expect(fixture.header).toMatchObject({ fixture: 'reins/v1', harness: 'codex', version: '0.169.0' });
    expect(fixture.frames.map((f) => f.dir)).toEqual(['in', 'out', 'out', 'err']);
    expect(outputFrames(fixture)).toEqual([{ id: 1, result: {} }, 'not json']);
  });

  it('refuses a file that is not a fixture', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'reins-fixture-'));
    dirs.push(dir);
    const recorder = fixtureRecorder({ harness: 'x', version: '1', scenario: 's' });
    const path = join(dir, 'f.jsonl');
    await recorder.save(path);
    await import('node:fs/promises').then((fs) => fs.writeFile(path, '{"hello":1}\n'));
    await expect(readFixture(path)).rejects.toThrow(/not a Reins fixture/);
  });
});
