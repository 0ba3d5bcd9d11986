// What a gateway serves from its workers, as a local daemon does. A worker remembers its harnesses' discovery and health (harness-probe.ts ProbeMemory), as a local
// daemon does: every harness/list a gateway answers asks each worker (cluster/harnesses), and before
// it each one started the CLI again (Codex: an app-server and its account/read). The fake app-server
// logs every request it gets (FAKE_CODEX_CLIENT_LOG), so the test counts the worker's checks.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect } from '@reins/client';
import type { ReinsEvent } from '@reins/core';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { EventReader, fakeCodexOptions } from '../helpers.js';
import { ClusterRig } from './rig.js';

let rig: ClusterRig | undefined;
afterEach(async () => {
  await rig?.dispose();
  rig = undefined;
});

async function checks(log: string): Promise<number> {
  const lines = (await readFile(log, 'utf8').catch(() => '')).split('\n').filter(Boolean);
  return lines.filter((line) => (JSON.parse(line) as { method?: string }).method === 'account/read').length;
}

describe('cluster/harnesses', () => {
  it('a worker answers a second harness/list without starting the CLI again', async () => {
    rig = await ClusterRig.start();
    const log = join(await rig.folder('logs'), 'client.jsonl');
    // A recording whose app-server answers account/read (signed out), so the health check succeeds.
    const transcript = fileURLToPath(
      new URL('../../../harnesses/src/codex/fixtures/auth-login.0.171.0.jsonl', import.meta.url),
    );
    const codex = fakeCodexOptions('text-turn', { FAKE_CODEX_CLIENT_LOG: log, FAKE_CODEX_TRANSCRIPT: transcript });
    await rig.node({ role: 'worker', harnesses: ['codex'], harnessOptions: { codex }, probeTimeoutMs: 8_000 });
    const gateway = await rig.node({ role: 'gateway' });
    const client = await rig.client(gateway);

    const first = await client.harnesses();
    expect(first.find((listing) => listing.id === 'codex')).toMatchObject({ discovery: { found: true } });
    const afterFirst = await checks(log);
    expect(afterFirst).toBeGreaterThan(0);
    expect(await client.harnesses()).toEqual(first);
    expect(await client.harnesses()).toEqual(first);
    expect(await checks(log)).toBe(afterFirst);
  }, 60_000);

  it('a gateway sends a client that asked events without native frames, and fetches them for it', async () => {
    rig = await ClusterRig.start();
    await rig.node({ role: 'worker', harnesses: ['codex'], harnessOptions: { codex: fakeCodexOptions('text-turn') } });
    const gateway = await rig.node({ role: 'gateway' });
    const whole = await rig.client(gateway);
    const daemon = gateway.daemon as { url: string; token: string };
    const bare = await connect({ url: daemon.url, token: daemon.token, WebSocket, nativeFrames: false });
    try {
      const session = await whole.createSession('codex', { cwd: await rig.folder('work') });
      const remote = await bare.attach(session.id);
      const wholeReader = new EventReader(session.events);
      const bareReader = new EventReader(remote.events);
      const sent = await session.send('Say hello.');
      const ended = (event: ReinsEvent) => event.type === 'turn.completed' && event.turnId === sent.turnId;
      const terminal = await wholeReader.waitFor(ended, 'the terminal, whole');
      await bareReader.waitFor(ended, 'the terminal, bare');
      const natives = wholeReader.events.flatMap((event) =>
        event.native ? [{ seq: event.seq, native: event.native }] : [],
      );
      expect(natives.length).toBeGreaterThan(3);
      const upToTerminal = (events: ReinsEvent[]) => events.filter((event) => event.seq <= terminal.seq);
      expect(upToTerminal(bareReader.events)).toEqual(
        upToTerminal(wholeReader.events).map(({ native: _native, ...rest }) => rest),
      );
      expect(await remote.nativeFrames(0)).toEqual(natives.filter((frame) => frame.seq <= terminal.seq));
    } finally {
      await bare.close();
    }
  }, 60_000);
});
