// Process level: the Amp adapter against the fake `amp` (packages/testkit/fakes/amp-stream-json.mjs) that
// replays constructed stream-json turns with stdin kept open. No live Amp was observed.
import { fileURLToPath } from 'node:url';
import { SessionRecorder } from '@reins/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { liveProcessCount } from '../runtime/child-process.js';
import { createAmpHarness } from './adapter.js';

const fake = fileURLToPath(new URL('../../../testkit/fakes/amp-stream-json.mjs', import.meta.url));
const script = fileURLToPath(new URL('./fixtures/constructed-turns.jsonl', import.meta.url));
const recorders: SessionRecorder[] = [];

async function open(extra: Record<string, string> = {}) {
  const harness = createAmpHarness({
    binaryPath: fake,
    baseEnv: { PATH: process.env.PATH, FAKE_AMP_SCRIPT: script, ...extra },
  });
  const session = await harness.createSession({ cwd: process.cwd() });
  const recorder = new SessionRecorder(session, 10_000);
  recorders.push(recorder);
  return { harness, session, recorder };
}

afterEach(async () => {
  // Closing checks each session's stream invariants.
  await SessionRecorder.closeAll(recorders.splice(0));
  expect(liveProcessCount()).toBe(0);
});

describe('amp adapter against the fake amp', () => {
  it('runs turns with stdin open: each ends at its assistant stop, a queued one follows', async () => {
    const { harness, session, recorder } = await open();
    const discovery = await harness.discover();
    expect(discovery).toMatchObject({ found: true, binary: { version: '0.0.1790142911-g7618fb' } });
    const first = await session.send('Say hello.');
    const second = await session.send('Run a command.');
    expect(second.delivery).toBe('queued');
    await recorder.terminalOf(second);
    expect(recorder.ofType('turn.completed').map((event) => event.turnId)).toEqual([first.turnId, second.turnId]);
    expect(session.nativeSessionId).toBe('T-3f1c2a');
    expect(recorder.events).toContainEqual(
      expect.objectContaining({
        type: 'item.completed',
        item: expect.objectContaining({ kind: 'tool_call', status: 'completed' }),
      }),
    );
    await recorder.close();
  });

  it('a crash mid-turn fails the turn with process_exited', async () => {
    const { recorder } = await open({ FAKE_AMP_EXIT_AFTER: '1' });
    const done = await recorder.turn('Say hello.');
    expect(done).toMatchObject({
      outcome: { status: 'failed', error: { code: 'process_exited', message: expect.stringContaining('crashing') } },
    });
    await recorder.close();
  });

  it('a line that is not JSON is passed through', async () => {
    const { recorder } = await open({ FAKE_AMP_GARBAGE: 'amp: not json' });
    await recorder.turn('Say hello.');
    await recorder.close();
    expect(recorder.events).toContainEqual(expect.objectContaining({ type: 'passthrough', frame: 'amp: not json' }));
  });

  it('says plainly what it does not do', async () => {
    const { session } = await open();
    await expect(session.setModel('x')).rejects.toMatchObject({ code: 'unsupported_capability' });
    const harness = createAmpHarness({
      binaryPath: fake,
      baseEnv: { PATH: process.env.PATH, FAKE_AMP_SCRIPT: script },
    });
    await expect(
      harness.createSession({ cwd: process.cwd(), resume: { nativeSessionId: 'T-1' } }),
    ).rejects.toMatchObject({
      code: 'unsupported_capability',
    });
  });
});
