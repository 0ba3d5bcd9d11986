// Process level, Session.compact on Pi: the adapter against the fake `pi --mode rpc` replaying the real
// Pi 0.73.1 compaction (fixtures/compact.0.73.1.jsonl, recorded by pi.real.test.ts): the RPC `compact`
// command, its compaction_start / compaction_end as the turn's one compaction item, its answer as the
// terminal; refused while a turn runs.
import { fileURLToPath } from 'node:url';
import type { ReinsEvent } from '@reins/core';
import { fakeHarnessPath, SessionRecorder } from '@reins/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { liveProcessCount } from '../runtime/child-process.js';
import { createPiHarness } from './adapter.js';

const fake = fakeHarnessPath('pi');
const fixture = fileURLToPath(new URL('./fixtures/compact.0.73.1.jsonl', import.meta.url));
const recorders: SessionRecorder[] = [];

afterEach(async () => {
  await SessionRecorder.closeAll(recorders.splice(0));
  expect(liveProcessCount()).toBe(0);
});

const completed = (events: readonly ReinsEvent[]) =>
  events.flatMap((event) => (event.type === 'item.completed' ? [event.item] : []));

describe('pi compact (fake pi --mode rpc)', () => {
  it('compacts as a turn of its own in the one shape; the next turn runs', async () => {
    const commands: string[] = [];
    const harness = createPiHarness({
      binaryPath: fake,
      baseEnv: { PATH: process.env.PATH, FAKE_PI_TRANSCRIPT: fixture },
      requestTimeoutMs: 5_000,
      tap: (direction, text) => {
        if (direction === 'in') commands.push((JSON.parse(text) as { type: string }).type);
      },
    });
    const session = await harness.createSession({ cwd: process.cwd() });
    const recorder = new SessionRecorder(session, 10_000);
    recorders.push(recorder);
    for (const text of ['Remember the word tangerine.', 'And the word plum.']) {
      const sent = await session.send(text);
      if (text.startsWith('Remember'))
        await expect(session.compact?.()).rejects.toMatchObject({ data: { reason: 'turn_running' } });
      expect((await recorder.terminalOf(sent)).outcome).toEqual({ status: 'completed' });
    }
    expect(commands).not.toContain('compact');
    const compact = await session.compact?.();
    if (!compact) throw new Error('the Pi session has no compact()');
    expect((await recorder.terminalOf(compact)).outcome).toEqual({ status: 'completed' });
    expect(commands).toContain('compact');
    const events = recorder.turnEvents(compact.turnId);
    expect(events[0]).toMatchObject({ type: 'turn.started', input: { text: '/compact' } });
    expect(completed(events)).toEqual([
      expect.objectContaining({ kind: 'user_message', text: '/compact', origin: 'synthetic' }),
      expect.objectContaining({ kind: 'compaction', status: 'completed', trigger: 'manual', preTokens: 210 }),
    ]);
    const next = await session.send('Go on.');
    expect((await recorder.terminalOf(next)).outcome).toEqual({ status: 'completed' });
  });
});
