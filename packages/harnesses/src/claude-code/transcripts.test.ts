// History from a Claude Code transcript goes through core's system-text registry: the texts below
// are the ones Claude Code 2.1.197 recorded (fixtures interrupt-stream, model-switch), plus a prompt
// that only looks like machinery and stays the user's. The title skips machinery.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { listTranscripts, projectSlug, readHistory } from './transcripts.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reins-transcripts-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const user = (uuid: string, content: unknown) => ({ type: 'user', uuid, message: { role: 'user', content } });

it('classifies machinery in a transcript and titles it by the first prompt the user typed', async () => {
  const cwd = '/work/project';
  const folder = join(dir, 'projects', projectSlug(cwd));
  await mkdir(folder, { recursive: true });
  const entries = [
    user('u0', '<local-command-stdout>Set model to claude-sonnet-4-5-20250929</local-command-stdout>'),
    user('u1', 'Talk for a while'),
    {
      type: 'assistant',
      uuid: 'a1',
      message: { role: 'assistant', id: 'm1', content: [{ type: 'text', text: 'Sure.' }] },
    },
    user('u2', [{ type: 'text', text: '[Request interrupted by user]' }]),
    user('u3', 'What does [Request interrupted by user] mean?'),
  ];
  await writeFile(join(folder, 'abc.jsonl'), entries.map((entry) => JSON.stringify(entry)).join('\n'));
  const env = { CLAUDE_CONFIG_DIR: dir };
  const [summary] = await listTranscripts(env, cwd);
  expect(summary).toMatchObject({ nativeSessionId: 'abc', title: 'Talk for a while' });
  const items = (await readHistory(env, cwd, 'abc')) ?? [];
  const users = items.filter((item) => item.kind === 'user_message');
  expect(users.map((item) => [item.origin ?? 'user', item.text])).toEqual([
    ['synthetic', '<local-command-stdout>Set model to claude-sonnet-4-5-20250929</local-command-stdout>'],
    ['user', 'Talk for a while'],
    ['notification', 'You interrupted the turn.'],
    ['user', 'What does [Request interrupted by user] mean?'],
  ]);
  expect(items.some((item) => item.kind === 'agent_message' && item.text === 'Sure.')).toBe(true);
});
