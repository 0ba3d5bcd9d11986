// session/compact (docs/architecture/daemon.md, contract.md "Compaction") on the fake Claude Code replaying
// the real 2.1.197 `/compact`: the daemon's client starts the compaction turn on the live process, its
// events (the synthetic `/compact`, one compaction item, the terminal) reach the subscriber, and a
// compaction asked for while a turn runs is refused with turn_running.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReinsClient } from '@reins/client';
import { liveProcessCount } from '@reins/harnesses';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Daemon, startDaemon } from '../src/index.js';
import { client, EventReader, FAKE_CLAUDE, fakeClaudeEnv, silent } from './helpers.js';

let home: string;
let daemon: Daemon | undefined;
const clients: ReinsClient[] = [];

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'reins-daemon-compact-'));
  await mkdir(join(home, 'claude-home'));
});
afterEach(async () => {
  for (const reins of clients.splice(0)) reins.close();
  await daemon?.close();
  daemon = undefined;
  expect(liveProcessCount()).toBe(0);
  await rm(home, { recursive: true, force: true });
});

describe('session/compact', () => {
  it('starts the compaction turn on the live process; refused while a turn runs', async () => {
    daemon = await startDaemon({
      home: join(home, 'reins'),
      harnesses: ['claude-code'],
      logger: silent,
      harnessOptions: {
        'claude-code': {
          binaryPath: FAKE_CLAUDE,
          // The first message gets a turn that runs until interrupted (no fixture turn used): the refusal
          // is checked while a turn surely runs, however loaded the machine.
          baseEnv: fakeClaudeEnv({
            home: join(home, 'claude-home'),
            fixture: 'compact',
            extra: { FAKE_CLAUDE_SILENT_TURN: '1' },
          }),
          requestTimeoutMs: 10_000,
        },
      },
    });
    const reins = await client(daemon.url, daemon.token);
    clients.push(reins);
    const session = await reins.createSession('claude-code', { cwd: home });
    const reader = new EventReader(session.events);
    const ended = (turnId: string) =>
      reader.waitFor((event) => event.type === 'turn.completed' && event.turnId === turnId, `the end of ${turnId}`);
    const held = await session.send('Hold on');
    await reader.waitFor((event) => event.type === 'turn.started' && event.turnId === held.turnId, 'the held turn');
    await expect(session.compact()).rejects.toMatchObject({
      code: 'invalid_input',
      data: { reason: 'turn_running' },
    });
    await session.interrupt();
    await ended(held.turnId);
    for (const text of ['Hello there', 'Tell me more', 'And more']) {
      const { turnId } = await session.send(text);
      await ended(turnId);
    }
    const compact = await session.compact();
    expect(compact.delivery).toBe('started');
    const done = await ended(compact.turnId);
    expect(done.type === 'turn.completed' && done.outcome).toEqual({ status: 'completed' });
    const items = reader.events.flatMap((event) =>
      event.turnId === compact.turnId && event.type === 'item.completed' ? [event.item] : [],
    );
    expect(items.filter((item) => item.kind === 'compaction')).toEqual([
      expect.objectContaining({ trigger: 'manual', preTokens: 3040, postTokens: 587 }),
    ]);
    expect(items.filter((item) => item.kind === 'user_message' && !item.replay)).toEqual([
      expect.objectContaining({ text: '/compact', origin: 'synthetic' }),
    ]);
  });
});
