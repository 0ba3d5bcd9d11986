// Process level, Session.compact on Claude Code: the fake `claude` replays the real 2.1.197 `/compact`
// (fixtures/compact.2.1.197.jsonl): the slash command reaches the CLI as the turn's message, and its
// compact_boundary becomes the turn's one compaction item, in the shape every harness shares.
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ReinsEvent } from '@reins/core';
import { makeTempHome, SessionRecorder, type TempHome } from '@reins/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { FAKE_CLAUDE, FIXTURES_DIR } from '../../test/support/claude-rig.js';
import { liveProcessCount } from '../runtime/index.js';
import { createClaudeCodeHarness } from './adapter.js';

let temp: TempHome;
beforeAll(async () => {
  temp = await makeTempHome('reins-cc-compact-');
});
afterAll(async () => {
  await temp.cleanup();
});
const recorders: SessionRecorder[] = [];
afterEach(async () => {
  await SessionRecorder.closeAll(recorders.splice(0));
  expect(liveProcessCount()).toBe(0);
});

const completedKinds = (events: readonly ReinsEvent[]) =>
  events.flatMap((event) => (event.type === 'item.completed' ? [event.item.kind] : []));

describe('claude-code compact (fake claude)', () => {
  test('sends /compact as the turn message; one compaction item with the CLI numbers; refused while a turn runs', async () => {
    const conversations = join(temp.dir, 'conversations');
    await mkdir(conversations);
    const harness = createClaudeCodeHarness({
      binaryPath: FAKE_CLAUDE,
      baseEnv: {
        PATH: process.env.PATH,
        HOME: temp.home,
        TMPDIR: temp.tmp,
        IS_SANDBOX: '1',
        FAKE_CLAUDE_FIXTURE: join(FIXTURES_DIR, 'compact.2.1.197.jsonl'),
        FAKE_CLAUDE_CONVERSATIONS: conversations,
      },
      requestTimeoutMs: 10_000,
    });
    const session = await harness.createSession({ cwd: temp.dir });
    const recorder = new SessionRecorder(session, 10_000);
    recorders.push(recorder);
    for (const text of ['Hello there', 'Tell me more', 'And more']) {
      const turn = await session.send(text);
      if (text === 'Hello there')
        await expect(session.compact?.()).rejects.toMatchObject({ data: { reason: 'turn_running' } });
      expect((await recorder.terminalOf(turn)).outcome).toEqual({ status: 'completed' });
    }
    const compact = await session.compact?.();
    if (!compact) throw new Error('the Claude Code session has no compact()');
    expect((await recorder.terminalOf(compact)).outcome).toEqual({ status: 'completed' });

    const events = recorder.turnEvents(compact.turnId);
    expect(events[0]).toMatchObject({ type: 'turn.started', input: { text: '/compact' } });
    expect(completedKinds(events)).toContain('compaction');
    const items = events.flatMap((event) => (event.type === 'item.completed' ? [event.item] : []));
    expect(items.filter((item) => item.kind === 'compaction')).toEqual([
      expect.objectContaining({ status: 'completed', trigger: 'manual', preTokens: 3040, postTokens: 587 }),
    ]);
    // The CLI's own replayed "<local-command-stdout>" and summary messages are history, not this turn's input.
    expect(items.filter((item) => item.kind === 'user_message' && !item.replay)).toEqual([
      expect.objectContaining({ text: '/compact', origin: 'synthetic' }),
    ]);
    // What reached the CLI: the slash command as the fourth user message, exactly.
    const requests = (await readFile(join(conversations, 'requests.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { messages: string[] });
    expect(requests.at(-1)?.messages.at(-1)).toBe('/compact');
  });
});
