// Load on the cluster: 200 sessions over two workers, each a fake Codex app-server process (the
// bench's emitter: recorded Codex 0.169.0 frames, N deltas per turn), two turns each, created
// through three gateways in turn; 5 wire-level clients on each of the 3 gateways subscribe to every
// session. Every client must get every event of every session exactly once, in seq order; then a
// new client on each gateway replays every log from seq 0, equal to what the clients saw live.
// Workers keep at most 24 live processes each (the rest sleep, least recently used first).
import { fileURLToPath } from 'node:url';
import type { ReinsEvent } from '@reins/core';
import { liveProcessCount } from '@reins/harnesses';
import { until } from '@reins/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { codexTranscript } from '../helpers.js';
import { problems, WireWatcher } from '../wire-watcher.js';
import { ClusterRig } from './rig.js';

const EMITTER = fileURLToPath(new URL('../../../../bench/fakes/codex-emitter.mjs', import.meta.url));
const SESSIONS = 200;
const GATEWAYS = 3;
const CLIENTS_PER_GATEWAY = 5;
const TURNS = 2;
const DELTAS = 40;

let rig: ClusterRig | undefined;
const watchers: WireWatcher[] = [];
afterEach(async () => {
  for (const watcher of watchers.splice(0)) watcher.close();
  await rig?.dispose();
  rig = undefined;
  expect(liveProcessCount()).toBe(0);
});

async function inBatches<T>(items: T[], size: number, work: (item: T, index: number) => Promise<void>) {
  for (let i = 0; i < items.length; i += size) {
    await Promise.all(items.slice(i, i + size).map((item, offset) => work(item, i + offset)));
  }
}

function total(clients: WireWatcher[], lastSeqs: Map<string, number>) {
  const sum = { lost: 0, duplicated: 0, outOfOrder: 0 };
  for (const client of clients) {
    for (const [sessionId, lastSeq] of lastSeqs) {
      const found = problems(client.seqs.get(sessionId) ?? [], lastSeq);
      sum.lost += found.lost;
      sum.duplicated += found.duplicated;
      sum.outOfOrder += found.outOfOrder;
    }
  }
  return sum;
}

describe('cluster load', () => {
  it(`${SESSIONS} sessions over 2 workers, ${GATEWAYS} gateways x ${CLIENTS_PER_GATEWAY} clients: 0 lost, 0 duplicated, 0 out of order, and every replay equal`, async () => {
    rig = await ClusterRig.start();
    const harnessOptions = {
      codex: {
        binaryPath: EMITTER,
        baseEnv: {
          PATH: process.env.PATH ?? '',
          BENCH_CODEX_FIXTURE: codexTranscript('text-turn'),
          BENCH_FRAMES: String(DELTAS),
          BENCH_RATE: '20000',
        },
        requestTimeoutMs: 60_000,
      },
    };
    const worker = {
      role: 'worker' as const,
      harnesses: ['codex' as const],
      harnessOptions,
      maxLiveSessions: 24,
      heartbeatTtlMs: 10_000,
    };
    await rig.node({ ...worker, labels: { host: 'a' } });
    await rig.node({ ...worker, labels: { host: 'b' } });
    const gateways = [];
    for (let index = 0; index < GATEWAYS; index++)
      gateways.push(await rig.node({ role: 'gateway', heartbeatTtlMs: 10_000 }));
    const clients: WireWatcher[] = [];
    for (const gateway of gateways) {
      for (let index = 0; index < CLIENTS_PER_GATEWAY; index++) {
        const client = await WireWatcher.open(gateway.daemon as { url: string; token: string }, clients.length === 0);
        clients.push(client);
        watchers.push(client);
      }
    }
    const drivers = await Promise.all(gateways.map((gateway) => rig?.client(gateway, 60_000)));
    const cwd = await rig.folder('work');

    const ids: string[] = [];
    await inBatches(
      Array.from({ length: SESSIONS }, (_, index) => index),
      10,
      async (index) => {
        const driver = drivers[index % GATEWAYS];
        if (!driver) throw new Error('no driver');
        const session = await driver.createSession('codex', { cwd }, undefined, {
          labels: { host: index % 2 ? 'b' : 'a' },
        });
        ids.push(session.id);
        await Promise.all(clients.map((client) => client.subscribe(session.id, 0)));
        const events = session.events[Symbol.asyncIterator]();
        for (let turn = 0; turn < TURNS; turn++) {
          const sent = await session.send(`turn ${turn}`);
          for (;;) {
            const next = await events.next();
            if (next.done) throw new Error(`session ${session.id} ended early`);
            if (next.value.type === 'turn.completed' && next.value.turnId === sent.turnId) break;
          }
        }
        await session.detach();
      },
    );
    // Sessions that went to sleep have written their notice: wait for the logs to stand still.
    let lastSeqs = new Map<string, number>();
    await until(
      async () => {
        const listed = await drivers[0]?.listSessions();
        const now = new Map((listed ?? []).map((entry) => [entry.sessionId, entry.lastSeq]));
        const still = now.size === SESSIONS && [...now].every(([id, seq]) => lastSeqs.get(id) === seq);
        lastSeqs = now;
        if (!still) await new Promise((resolve) => setTimeout(resolve, 500));
        return still;
      },
      'the logs to stand still',
      120_000,
    );
    const events = [...lastSeqs.values()].reduce((sum, seq) => sum + seq, 0);
    expect(events).toBeGreaterThan(SESSIONS * TURNS * DELTAS);
    await until(
      () => clients.every((client) => ids.every((id) => client.last(id) >= (lastSeqs.get(id) as number))),
      'every client to have every event',
      120_000,
    );
    expect(total(clients, lastSeqs)).toEqual({ lost: 0, duplicated: 0, outOfOrder: 0 });

    // Any gateway replays any log from seq 0, equal to what a client saw live.
    const live = clients[0]?.events as Map<string, ReinsEvent[]>;
    for (const gateway of gateways) {
      const reader = await WireWatcher.open(gateway.daemon as { url: string; token: string }, true);
      watchers.push(reader);
      await Promise.all(ids.map((id) => reader.subscribe(id, 0)));
      await until(() => ids.every((id) => reader.last(id) >= (lastSeqs.get(id) as number)), 'the replays', 120_000);
      expect(total([reader], lastSeqs)).toEqual({ lost: 0, duplicated: 0, outOfOrder: 0 });
      for (const id of ids) expect(reader.events.get(id)).toEqual(live.get(id)?.slice(0, lastSeqs.get(id)));
    }
  }, 600_000);
});
