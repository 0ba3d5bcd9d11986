// Process level: the Amp adapter against the fake `amp` (packages/testkit/fakes/amp-stream-json.mjs) that
// replays constructed stream-json turns with stdin kept open. No live Amp was observed.
import { fileURLToPath } from 'node:url';
import type { ReinsEvent, Session } from '@reins/core';
import { afterEach, describe, expect, it } from 'vitest';
import { assertEventInvariants, collectUntil } from '../../test/support/event-invariants.js';
import { liveProcessCount } from '../runtime/child-process.js';
import { createAmpHarness } from './adapter.js';

const fake = fileURLToPath(new URL('../../../testkit/fakes/amp-stream-json.mjs', import.meta.url));
const script = fileURLToPath(new URL('./fixtures/constructed-turns.jsonl', import.meta.url));
const sessions: Session[] = [];

async function open(extra: Record<string, string> = {}) {
  const harness = createAmpHarness({
    binaryPath: fake,
    baseEnv: { PATH: process.env.PATH, FAKE_AMP_SCRIPT: script, ...extra },
  });
  const session = await harness.createSession({ cwd: process.cwd() });
  sessions.push(session);
  return { harness, session, events: [] as ReinsEvent[], iterator: session.events[Symbol.asyncIterator]() };
}

const isTerminal = (event: ReinsEvent) => event.type === 'turn.completed';

afterEach(async () => {
  for (const session of sessions.splice(0)) await session.close();
  expect(liveProcessCount()).toBe(0);
});

describe('amp adapter against the fake amp', () => {
  it('runs turns with stdin open: each ends at its assistant stop, a queued one follows', async () => {
    const { harness, session, events, iterator } = await open();
    const discovery = await harness.discover();
    expect(discovery).toMatchObject({ found: true, binary: { version: '0.0.1790142911-g7618fb' } });
    const first = await session.send('Say hello.');
    const second = await session.send('Run a command.');
    expect(second.delivery).toBe('queued');
    await collectUntil(iterator, events, (event) => isTerminal(event) && event.turnId === second.turnId);
    const terminals = assertEventInvariants(events);
    expect([...terminals.keys()]).toEqual([first.turnId, second.turnId]);
    expect(session.nativeSessionId).toBe('T-3f1c2a');
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'item.completed',
        item: expect.objectContaining({ kind: 'tool_call', status: 'completed' }),
      }),
    );
  });

  it('a crash mid-turn fails the turn with process_exited', async () => {
    const { session, events, iterator } = await open({ FAKE_AMP_EXIT_AFTER: '1' });
    await session.send('Say hello.');
    const done = await collectUntil(iterator, events, isTerminal);
    expect(done).toMatchObject({
      outcome: { status: 'failed', error: { code: 'process_exited', message: expect.stringContaining('crashing') } },
    });
    assertEventInvariants(events);
  });

  it('a line that is not JSON is passed through', async () => {
    const { session, events, iterator } = await open({ FAKE_AMP_GARBAGE: 'amp: not json' });
    await session.send('Say hello.');
    await collectUntil(iterator, events, isTerminal);
    assertEventInvariants(events);
    expect(events).toContainEqual(expect.objectContaining({ type: 'passthrough', frame: 'amp: not json' }));
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
