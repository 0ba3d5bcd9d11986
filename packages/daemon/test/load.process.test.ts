// Load: 100 sessions, each a fake Codex app-server process (bench/fakes/codex-emitter.mjs, which
// answers with the recorded Codex 0.169.0 frames and streams N deltas per turn), watched by 10
// clients that subscribe to every session; two turns per session. Every client must get every
// event of every session exactly once, in seq order. Then the daemon restarts and 10 new clients
// replay every log from seq 0 out of the store: again 0 lost, 0 duplicated, 0 out of order, and
// the replayed events are the ones clients saw live. The clients are bare sockets counting what
// arrives on the wire (a RemoteSession would drop a duplicate silently).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ReinsClient } from '@reins/client';
import type { ReinsEvent } from '@reins/core';
import { liveProcessCount } from '@reins/harnesses';
import { until } from '@reins/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Daemon, type DaemonOptions, startDaemon } from '../src/index.js';
import { client, codexTranscript, silent } from './helpers.js';
import { problems, WireWatcher } from './wire-watcher.js';

const EMITTER = fileURLToPath(new URL('../../../bench/fakes/codex-emitter.mjs', import.meta.url));
const SESSIONS = 100;
const CLIENTS = 10;
const TURNS = 2;
const DELTAS = 150;

let home: string;
let daemon: Daemon | undefined;
const closers: Array<() => void> = [];

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'reins-load-'));
});
afterEach(async () => {
  for (const close of closers.splice(0)) close();
  await daemon?.close();
  daemon = undefined;
  expect(liveProcessCount()).toBe(0);
  await rm(home, { recursive: true, force: true });
});

async function inBatches<T>(items: T[], size: number, work: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(work));
}

/** A WireWatcher on `target`, closed after the test. */
async function watch(target: Daemon, keepEvents: boolean): Promise<WireWatcher> {
  const watcher = await WireWatcher.open(target, keepEvents);
  closers.push(() => watcher.close());
  return watcher;
}

function total(watchers: WireWatcher[], lastSeqs: Map<string, number>) {
  const sum = { lost: 0, duplicated: 0, outOfOrder: 0 };
  for (const watcher of watchers) {
    for (const [sessionId, lastSeq] of lastSeqs) {
      const found = problems(watcher.seqs.get(sessionId) ?? [], lastSeq);
      sum.lost += found.lost;
      sum.duplicated += found.duplicated;
      sum.outOfOrder += found.outOfOrder;
    }
  }
  return sum;
}

describe('load', () => {
  it(`${SESSIONS} sessions x ${CLIENTS} clients, then a restart and a full replay by every client: 0 lost, 0 duplicated, 0 out of order`, async () => {
    const options: DaemonOptions = {
      home: join(home, 'reins'),
      harnesses: ['codex'],
      logger: silent,
      maxLiveSessions: SESSIONS + 10,
      idleTtlMs: 0,
      harnessOptions: {
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
      },
    };
    daemon = await startDaemon(options);
    const first = daemon;
    const watchers = await Promise.all(Array.from({ length: CLIENTS }, (_, index) => watch(first, index === 0)));
    const driver: ReinsClient = await client(first.url, first.token);
    closers.push(() => driver.close());

    const ids: string[] = [];
    await inBatches(
      Array.from({ length: SESSIONS }, (_, index) => index),
      10,
      async () => {
        const session = await driver.createSession('codex', { cwd: home });
        ids.push(session.id);
        await Promise.all(
          watchers.map((watcher) => watcher.request('session/subscribe', { sessionId: session.id, afterSeq: 0 })),
        );
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
    const lastSeqs = new Map((await driver.listSessions()).map((entry) => [entry.sessionId, entry.lastSeq]));
    expect(lastSeqs.size).toBe(SESSIONS);
    const events = [...lastSeqs.values()].reduce((sum, seq) => sum + seq, 0);
    expect(events).toBeGreaterThan(SESSIONS * TURNS * DELTAS);
    await until(
      () => watchers.every((watcher) => ids.every((id) => watcher.last(id) >= (lastSeqs.get(id) as number))),
      'every watcher to have every event',
      120_000,
    );
    expect(total(watchers, lastSeqs)).toEqual({ lost: 0, duplicated: 0, outOfOrder: 0 });
    const live = new Map(watchers[0]?.events);

    // Restart: every log comes back from the store.
    for (const close of closers.splice(0)) close();
    await first.close();
    daemon = await startDaemon(options);
    const second = daemon;
    const listed = await (async () => {
      const reader = await client(second.url, second.token);
      closers.push(() => reader.close());
      return reader.listSessions();
    })();
    expect(listed.map((entry) => entry.status)).toEqual(listed.map(() => 'dormant'));
    const replayed = new Map(listed.map((entry) => [entry.sessionId, entry.lastSeq]));
    const readers = await Promise.all(Array.from({ length: CLIENTS }, (_, index) => watch(second, index === 0)));
    await Promise.all(
      readers.map((reader) =>
        Promise.all(ids.map((id) => reader.request('session/subscribe', { sessionId: id, afterSeq: 0 }))),
      ),
    );
    await until(
      () => readers.every((reader) => ids.every((id) => reader.last(id) >= (replayed.get(id) as number))),
      'every replay to reach the end of every log',
      120_000,
    );
    expect(total(readers, replayed)).toEqual({ lost: 0, duplicated: 0, outOfOrder: 0 });
    for (const id of ids) {
      const before = live.get(id) as ReinsEvent[];
      const after = readers[0]?.events.get(id) as ReinsEvent[];
      expect(after.slice(0, before.length)).toEqual(before);
      expect(replayed.get(id)).toBe(before.length + 1); // + the daemon's own "stopped: dormant" notice
    }
  }, 300_000);
});
