// The daemon's warm processes (DaemonOptions.warm, `reins daemon --warm`), driving Codex against the
// fake app-server: ready before the first session, taken by it and replaced, stopped with the daemon
// (nothing left alive); a harness without warm starts is refused, naming the ones that have them.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ReinsError } from '@reins/core';
import { type AnyHarnessOptions, liveProcessCount } from '@reins/harnesses';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Daemon, startDaemon } from '../src/index.js';
import { client, EventReader, fakeCodexOptions, silent } from './helpers.js';

let home: string;
let daemon: Daemon | undefined;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'reins-daemon-warm-'));
});

afterEach(async () => {
  await daemon?.close();
  daemon = undefined;
  expect(liveProcessCount()).toBe(0);
  await rm(home, { recursive: true, force: true });
});

describe('daemon warm processes', () => {
  it('starts the warm Codex app-server before any session, hands it to the first one, and stops all on close', async () => {
    daemon = await startDaemon({
      home,
      harnesses: ['codex'],
      logger: silent,
      harnessOptions: { codex: fakeCodexOptions('text-turn') as AnyHarnessOptions },
      warm: { codex: 1 },
    });
    expect(liveProcessCount()).toBe(1);
    const reins = await client(daemon.url, daemon.token);
    try {
      const session = await reins.createSession('codex', { cwd: home });
      // The session runs on the warm process; its replacement starts beside it.
      await expect.poll(() => liveProcessCount(), { timeout: 5_000 }).toBe(2);
      const reader = new EventReader(session.events);
      const sent = await session.send('Say hello.');
      const terminal = await reader.waitFor(
        (event) => event.type === 'turn.completed' && event.turnId === sent.turnId,
        'the terminal',
      );
      expect(terminal).toMatchObject({ outcome: { status: 'completed' } });
    } finally {
      await reins.close();
    }
    await daemon.close();
    expect(liveProcessCount()).toBe(0);
  });

  it('refuses a harness without warm starts, naming those that have them', async () => {
    const attempt = startDaemon({ home, harnesses: ['codex', 'amp'], logger: silent, warm: { amp: 1 } });
    const error = await attempt.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(ReinsError.isInstance(error) && error.code).toBe('unsupported_capability');
    expect((error as ReinsError).message).toMatch(/amp has no warm starts yet; warm processes work for: codex/);
  });
});
