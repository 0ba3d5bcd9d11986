// Nothing one native frame does may end a Claude Code session (docs/architecture/contract.md,
// principle 8). Before the session chassis a translation TypeError ended the SDK's read loop and the
// session closed with "Claude Code ended unexpectedly ... exited with code 0". Here the translation is
// made to throw on one marked frame the fake CLI writes mid-turn, after it emitted that frame's events
// (the pure translators no longer throw on any frame a CLI sends, so the throw is staged), and a
// malformed frame is sent as it is.
import { chmod } from 'node:fs/promises';
import { join } from 'node:path';
import { makeTempHome, SessionRecorder, type TempHome } from '@reins/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { FAKE_CLAUDE, FIXTURES_DIR } from '../../test/support/claude-rig.js';
import { liveProcessCount } from '../runtime/index.js';
import { createClaudeCodeHarness } from './adapter.js';

const MARKER = 'reins-translation-throws-here';

vi.mock('./translate.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('./translate.js')>();
  return {
    ...actual,
    translateFrameInto: (...args: Parameters<typeof actual.translateFrameInto>) => {
      // The marked frame is translated in full into the session's sink, and only then throws: none of
      // what it emitted may reach the stream (runtime/chassis/held-emissions.ts).
      actual.translateFrameInto(...args);
      if (JSON.stringify(args[1]).includes(MARKER)) {
        throw new TypeError("Cannot read properties of undefined (reading 'type')");
      }
    },
  };
});

let temp: TempHome;
beforeAll(async () => {
  temp = await makeTempHome('reins-cc-guard-');
  await chmod(FAKE_CLAUDE, 0o755);
});
afterAll(async () => {
  await temp.cleanup();
});
const recorders: SessionRecorder[] = [];
afterEach(async () => {
  await SessionRecorder.closeAll(recorders.splice(0));
  expect(liveProcessCount()).toBe(0);
});

async function open(inject: string) {
  const harness = createClaudeCodeHarness({
    binaryPath: FAKE_CLAUDE,
    baseEnv: {
      PATH: process.env.PATH,
      HOME: temp.home,
      TMPDIR: temp.tmp,
      IS_SANDBOX: '1',
      FAKE_CLAUDE_FIXTURE: join(FIXTURES_DIR, 'queued-follow-up.2.1.197.jsonl'),
      FAKE_CLAUDE_INJECT: inject,
    },
    requestTimeoutMs: 10_000,
  });
  const session = await harness.createSession({ cwd: temp.dir });
  const recorder = new SessionRecorder(session, 10_000);
  recorders.push(recorder);
  return { session, recorder };
}

describe('claude-code: one frame cannot end the session', () => {
  test('a frame whose translation throws mid-turn: passthrough (untranslatable) + one warning, the turn and the session go on', async () => {
    const frame = { type: 'assistant', message: { id: 'msg_x', content: [{ type: 'text', text: MARKER }] } };
    const { session, recorder } = await open(JSON.stringify({ ...frame, parent_tool_use_id: null }));
    const first = await session.send('First question');
    expect((await recorder.terminalOf(first)).outcome).toEqual({ status: 'completed' });
    const second = await session.send('Second question');
    expect((await recorder.terminalOf(second)).outcome).toEqual({ status: 'completed' });
    const thrown = recorder.ofType('passthrough').filter((event) => JSON.stringify(event.frame).includes(MARKER));
    // Every turn got the frame; each is a passthrough, and one warning names the kind once.
    expect(thrown.map((event) => [event.reason, event.turnId])).toEqual([
      ['untranslatable', first.turnId],
      ['untranslatable', second.turnId],
    ]);
    // The agent message the marked frame's translation emitted before it threw was discarded with it.
    const items = [...recorder.ofType('item.started'), ...recorder.ofType('item.completed')];
    expect(items.filter((event) => JSON.stringify(event).includes(MARKER))).toEqual([]);
    expect(items.some((event) => event.item.kind === 'agent_message')).toBe(true);
    const warnings = recorder.ofType('notice').filter((event) => event.kind === 'warning');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.data).toMatchObject({ reason: 'untranslatable', method: 'assistant' });
    expect(recorder.ofType('session.closed')).toEqual([]);
    await recorder.close();
  });

  test('a malformed frame mid-turn (content holding null) is a passthrough; the session goes on', async () => {
    const { session, recorder } = await open(
      JSON.stringify({ type: 'assistant', message: { id: 'msg_broken', content: [null] }, parent_tool_use_id: null }),
    );
    const first = await session.send('First question');
    expect((await recorder.terminalOf(first)).outcome).toEqual({ status: 'completed' });
    const second = await session.send('Second question');
    expect((await recorder.terminalOf(second)).outcome).toEqual({ status: 'completed' });
    expect(
      recorder.ofType('passthrough').filter((event) => JSON.stringify(event.frame).includes('msg_broken')),
    ).toHaveLength(2);
    expect(recorder.ofType('session.closed')).toEqual([]);
    await recorder.close();
  });
});
