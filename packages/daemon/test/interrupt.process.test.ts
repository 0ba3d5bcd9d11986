// session/interrupt through the daemon answers once the interrupt is out, whatever the harness does
// (docs/architecture/contract.md, "Turn rules"): a fake Codex that accepts a turn, then ignores
// turn/interrupt and everything after it. The answer comes while the turn still runs; the grace period
// then ends the turn cancelled.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReinsClient } from '@reins/client';
import type { ReinsEvent } from '@reins/core';
import { liveProcessCount } from '@reins/harnesses';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Daemon, startDaemon } from '../src/index.js';
import { client, EventReader, fakeCodexOptions, silent } from './helpers.js';

let home: string;
let daemon: Daemon | undefined;
let reins: ReinsClient | undefined;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'reins-interrupt-'));
});

afterEach(async () => {
  reins?.close();
  await daemon?.close();
  daemon = undefined;
  expect(liveProcessCount()).toBe(0);
  await rm(home, { recursive: true, force: true });
});

describe('session/interrupt on a deaf harness', () => {
  it('answers while the turn still runs; the turn then ends cancelled by the grace period', async () => {
    const deaf = fakeCodexOptions('interrupt', {
      FAKE_CODEX_SILENT_AFTER: 'turn/started',
      FAKE_CODEX_HANG: 'turn/interrupt',
    });
    daemon = await startDaemon({
      home: join(home, 'reins'),
      harnesses: ['codex'],
      logger: silent,
      // The grace is long so that "answered before the turn ended" cannot be a race of two timers.
      harnessOptions: { codex: { ...deaf, requestTimeoutMs: 30_000, interruptGraceMs: 5_000 } },
    });
    reins = await client(daemon.url, daemon.token);
    const session = await reins.createSession('codex', { cwd: home });
    const reader = new EventReader(session.events);
    const sent = await session.send('Start a long answer.');
    await reader.waitFor((e) => e.type === 'session.status' && e.status === 'running', 'Codex running the turn');

    await session.interrupt();
    const ended = (e: ReinsEvent) => e.type === 'turn.completed' && e.turnId === sent.turnId;
    expect(reader.events.filter(ended)).toEqual([]);
    expect(await reader.waitFor(ended, 'the turn ending', 20_000)).toMatchObject({ outcome: { status: 'cancelled' } });
  });
});
