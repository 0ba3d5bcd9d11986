// Process level, the stall watchdog watches the turn and interrupt does not wait on a deaf harness
// (docs/architecture/contract.md, "Turn rules"): the Codex adapter against the fake app-server, which
// accepts a turn and then only chatters about the account (FAKE_CODEX_CHATTER_MS) or ignores everything
// from turn/interrupt on (FAKE_CODEX_HANG).
import { fileURLToPath } from 'node:url';
import type { SessionSpec } from '@reins/core';
import { fakeHarnessPath, SessionRecorder } from '@reins/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { liveProcessCount } from '../runtime/child-process.js';
import { createCodexHarness } from './adapter.js';

const fake = fakeHarnessPath('codex');
const transcript = fileURLToPath(new URL('./fixtures/interrupt.0.169.0.jsonl', import.meta.url));

const recorders: SessionRecorder[] = [];
afterEach(async () => {
  await SessionRecorder.closeAll(recorders.splice(0));
  expect(liveProcessCount()).toBe(0);
});

async function open(knobs: Record<string, string>, spec: Partial<SessionSpec> = {}) {
  const sent: string[] = [];
  const harness = createCodexHarness({
    binaryPath: fake,
    baseEnv: { PATH: process.env.PATH, FAKE_CODEX_TRANSCRIPT: transcript, ...knobs },
    requestTimeoutMs: 20_000,
    interruptGraceMs: 3_000,
    tap: (direction, text) => {
      const method = (JSON.parse(text) as { method?: string }).method;
      if (direction === 'in' && method) sent.push(method);
    },
  });
  const session = await harness.createSession({ cwd: process.cwd(), ...spec });
  const recorder = new SessionRecorder(session, 20_000);
  recorders.push(recorder);
  return { session, recorder, sent };
}

const isChatter = (frame: unknown) => (frame as { method?: string }).method === 'account/rateLimits/updated';

describe('codex: the watchdog watches the turn (fake app-server)', () => {
  it('a turn Codex accepts and then only chatters about the account on fails with timeout at the stall limit', async () => {
    const { session, recorder, sent } = await open(
      { FAKE_CODEX_SILENT_AFTER: 'turn/started', FAKE_CODEX_CHATTER_MS: '100' },
      { stallTimeoutMs: 1_500 },
    );
    const turn = await session.send('Start a long answer.');
    expect((await recorder.terminalOf(turn)).outcome).toMatchObject({
      status: 'failed',
      error: { code: 'timeout', message: expect.stringContaining('stallTimeoutMs') },
    });
    // The chatter reached the session during the turn, more often than the stall limit: it did not count.
    const chatterInTurn = recorder.ofType('passthrough').filter((e) => e.turnId === turn.turnId && isChatter(e.frame));
    expect(chatterInTurn.length).toBeGreaterThan(1);
    expect(sent).toContain('turn/interrupt');
    await recorder.close();
  });

  it('interrupt on a harness that never answers it returns while the turn is still running; the grace ends the turn', async () => {
    const { session, recorder, sent } = await open({
      FAKE_CODEX_SILENT_AFTER: 'turn/started',
      FAKE_CODEX_HANG: 'turn/interrupt',
    });
    const turn = await session.send('Start a long answer.');
    // thread/status/changed (active) follows Codex's answer to turn/start: the turn is Codex's now.
    await recorder.waitFor(
      (event) => event.type === 'session.status' && event.status === 'running',
      'Codex running the turn',
    );
    // The old interrupt waited for Codex's answer (here: never, until the 20 s request deadline), so it
    // returned after the grace period had ended the turn; now it returns first.
    await session.interrupt();
    expect(sent).toContain('turn/interrupt');
    expect(recorder.ofType('turn.completed')).toEqual([]);
    expect((await recorder.terminalOf(turn)).outcome).toEqual({ status: 'cancelled' });
    await recorder.close();
  });
});
