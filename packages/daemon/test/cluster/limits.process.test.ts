// The cluster at NATS's limits (docs/architecture/cluster.md, "Limits and durability"), with a
// nats-server of the test's own: a send carrying a 10 MB image (bigger than NATS's 1 MiB message
// limit) goes from the gateway to the worker in parts, reaches the harness byte-equal and replays
// whole to a new client; and
// what the worker had acknowledged is still in the stream after the nats-server is killed with
// SIGKILL and started again on the same store.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ReinsEvent } from '@reins/core';
import { liveProcessCount } from '@reins/harnesses';
import { until } from '@reins/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { EVENTS_STREAM, SESSIONS_BUCKET } from '../../src/cluster/layout.js';
import { openNats } from '../../src/cluster/nats.js';
import { EventReader, FAKE_CODEX, fakeCodexOptions } from '../helpers.js';
import { ClusterRig, silent, storedSeqs } from './rig.js';

const STDIN_LOG_FAKE = fileURLToPath(new URL('./fixtures/stdin-log-fake.mjs', import.meta.url));

let rig: ClusterRig | undefined;
afterEach(async () => {
  await rig?.dispose();
  rig = undefined;
  expect(liveProcessCount()).toBe(0);
});

const turnEnd = (turnId: string) => (event: ReinsEvent) => event.type === 'turn.completed' && event.turnId === turnId;

describe('cluster limits and durability', () => {
  it('a 10 MB image turn goes through the gateway in parts, reaches the harness byte-equal, and replays whole to a new client while its other session streams', async () => {
    rig = await ClusterRig.start();
    const stdinLog = join(await rig.folder('logs'), 'stdin.log');
    const base = fakeCodexOptions('text-turn');
    const codex = {
      codex: {
        ...base,
        binaryPath: STDIN_LOG_FAKE,
        baseEnv: { ...base.baseEnv, FAKE_TARGET: FAKE_CODEX, FAKE_STDIN_LOG: stdinLog },
        requestTimeoutMs: 30_000,
      },
    };
    await rig.node({ role: 'worker', harnesses: ['codex'], harnessOptions: codex });
    const gateway = await rig.node({ role: 'gateway' });
    const client = await rig.client(gateway);
    const session = await client.createSession('codex', { cwd: await rig.folder('work') });
    const reader = new EventReader(session.events);

    const image = randomBytes(7.5 * 1024 * 1024).toString('base64'); // 10 MB of base64
    expect(image.length).toBeGreaterThanOrEqual(10 * 1024 * 1024);
    const sent = await session.send({
      text: 'What is in this picture?',
      images: [{ source: 'data', mediaType: 'image/png', data: image }],
    });
    await reader.waitFor(turnEnd(sent.turnId), 'the image turn', 60_000);
    const started = reader.events.find((event) => event.type === 'turn.started');
    expect(started?.type === 'turn.started' && started.input.images?.[0]?.data === image).toBe(true);
    // What the harness read on its stdin holds the image, every byte.
    await until(
      async () => (await readFile(stdinLog, 'utf8').catch(() => '')).includes(image),
      'the image at the harness',
      20_000,
    );

    // Replayed whole to a new client from seq 0, while a second session on that client's connection
    // runs a turn: the big event neither cuts the connection nor holds the other session up.
    const lastSeq = (reader.events.at(-1) as ReinsEvent).seq;
    const newcomer = await rig.client(gateway);
    const other = await newcomer.createSession('codex', { cwd: await rig.folder('other') });
    const otherReader = new EventReader(other.events);
    const replayed = await newcomer.attach(session.id, { afterSeq: 0 });
    const replayReader = new EventReader(replayed.events);
    const otherTurn = await other.send('Say hello.');
    await replayReader.waitFor((event) => event.seq === lastSeq, `the replay up to seq ${lastSeq}`, 60_000);
    await otherReader.waitFor(turnEnd(otherTurn.turnId), 'the other session’s turn', 30_000);
    const upTo = replayReader.events.filter((event) => event.seq <= lastSeq);
    expect(upTo.map((event) => event.seq)).toEqual(Array.from({ length: lastSeq }, (_, i) => i + 1));
    const replayedStart = upTo.find((event) => event.type === 'turn.started');
    expect(replayedStart?.type === 'turn.started' && replayedStart.input.images?.[0]?.data === image).toBe(true);

    // The session goes on: a plain turn after it.
    const next = await session.send('Say hello.');
    await reader.waitFor(turnEnd(next.turnId), 'the next turn', 30_000);
  }, 180_000);

  it("an event the worker had acknowledged survives the nats-server's SIGKILL and restart", async () => {
    rig = await ClusterRig.start();
    const codex = { codex: fakeCodexOptions('text-turn') };
    await rig.node({ role: 'worker', harnesses: ['codex'], harnessOptions: codex });
    const gateway = await rig.node({ role: 'gateway' });
    const client = await rig.client(gateway);
    const session = await client.createSession('codex', { cwd: await rig.folder('work') });
    const reader = new EventReader(session.events);
    const sent = await session.send('Say hello.');
    await reader.waitFor(turnEnd(sent.turnId), 'the turn');
    // The gateway reads events from the stream, so everything the client saw had been acknowledged.
    const lastSeq = (reader.events.at(-1) as ReinsEvent).seq;
    const before = await storedSeqs(rig.nats.url, session.id);
    expect(before.at(-1)).toBeGreaterThanOrEqual(lastSeq);

    await rig.nats.kill();
    await rig.nats.start();

    // A fresh connection after the restart finds the same log and the session's record.
    const nats = rig.nats;
    let after: number[] = [];
    await until(
      async () => {
        after = await storedSeqs(nats.url, session.id).catch(() => []);
        return after.length >= before.length;
      },
      'the events back after the restart',
      20_000,
    );
    expect(after).toEqual(before);
    const check = await openNats([nats.url], { name: 'check', log: silent });
    try {
      expect(await check.sessions.get(session.id)).not.toBeNull();
      // The settings layout.ts chose, as the server holds them.
      const stream = await check.jsm.streams.info(EVENTS_STREAM);
      expect(stream.config).toMatchObject({ storage: 'file', num_replicas: 1 });
      expect((await check.jsm.streams.info(`KV_${SESSIONS_BUCKET}`)).config.storage).toBe('file');
    } finally {
      await check.close();
    }
  }, 120_000);
});
