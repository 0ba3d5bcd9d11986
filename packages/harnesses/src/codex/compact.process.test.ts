// Process level, Session.compact on Codex: the adapter against the fake app-server replaying the real
// Codex 0.171.0 compaction (fixtures/compact.0.171.0.jsonl, recorded by compact.real.test.ts).
import { fileURLToPath } from 'node:url';
import type { ReinsEvent } from '@reins/core';
import { fakeHarnessPath, SessionRecorder } from '@reins/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { liveProcessCount } from '../runtime/child-process.js';
import { createCodexHarness } from './adapter.js';

const fake = fakeHarnessPath('codex');
const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}.jsonl`, import.meta.url));

const recorders: SessionRecorder[] = [];
afterEach(async () => {
  await SessionRecorder.closeAll(recorders.splice(0));
  expect(liveProcessCount()).toBe(0);
});

async function open(name: string) {
  const methods: string[] = [];
  const harness = createCodexHarness({
    binaryPath: fake,
    baseEnv: { PATH: process.env.PATH, FAKE_CODEX_TRANSCRIPT: fixture(name) },
    requestTimeoutMs: 5_000,
    tap: (direction, text) => {
      const message = JSON.parse(text) as { method?: string };
      if (direction === 'in' && message.method) methods.push(message.method);
    },
  });
  const session = await harness.createSession({ cwd: process.cwd() });
  const recorder = new SessionRecorder(session, 10_000);
  recorders.push(recorder);
  return { session, recorder, methods };
}

const kinds = (events: readonly ReinsEvent[]) =>
  events.flatMap((event) => (event.type === 'item.completed' ? [event.item.kind] : []));

describe('codex compact (fake app-server)', () => {
  it('sends thread/compact/start and shows the compaction turn in the one shape; the next turn runs', async () => {
    const { session, recorder, methods } = await open('compact.0.171.0');
    const first = await session.send('Remember the word tangerine.');
    // Refused while a turn runs, and nothing reaches Codex for it.
    await expect(session.compact?.()).rejects.toMatchObject({
      code: 'invalid_input',
      data: { reason: 'turn_running' },
    });
    expect((await recorder.terminalOf(first)).outcome).toEqual({ status: 'completed' });
    expect(methods).not.toContain('thread/compact/start');

    const compact = await session.compact?.();
    if (!compact) throw new Error('the Codex session has no compact()');
    expect((await recorder.terminalOf(compact)).outcome).toEqual({ status: 'completed' });
    expect(methods).toContain('thread/compact/start');
    const events = recorder.turnEvents(compact.turnId);
    expect(events[0]).toMatchObject({ type: 'turn.started', input: { text: '/compact' } });
    expect(kinds(events)).toEqual(['user_message', 'compaction']);
    expect(events.find((event) => event.type === 'item.completed')).toMatchObject({
      item: { kind: 'user_message', text: '/compact', origin: 'synthetic' },
    });
    expect(events.find((event) => event.type === 'item.started' && event.item.kind === 'compaction')).toBeDefined();

    const next = await session.send('Go on.');
    expect((await recorder.terminalOf(next)).outcome).toEqual({ status: 'completed' });
    expect(kinds(recorder.turnEvents(next.turnId))).toEqual(['user_message', 'agent_message']);
  });

  it('a Codex that refuses thread/compact/start fails that turn with its error, and the session stays usable', async () => {
    const { session, recorder } = await open('text-turn.0.169.0');
    const compact = await session.compact?.();
    if (!compact) throw new Error('the Codex session has no compact()');
    const done = await recorder.terminalOf(compact);
    expect(done.outcome.status).toBe('failed');
    expect(done.outcome.status === 'failed' && done.outcome.error.message).toMatch(/thread\/compact\/start/);
    const next = await session.send('Say hello.');
    expect((await recorder.terminalOf(next)).outcome).toEqual({ status: 'completed' });
  });
});
