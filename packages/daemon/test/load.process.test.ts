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
import { WebSocket } from 'ws';
import { type Daemon, type DaemonOptions, startDaemon } from '../src/index.js';
import { client, codexTranscript, silent } from './helpers.js';

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

/** A bare JSON-RPC client that records, per session, every event seq that arrives on the wire. */
class Watcher {
  readonly seqs = new Map<string, number[]>();
  /** Full events (only when asked: one watcher keeps them to compare with the replay). */
  readonly events = new Map<string, ReinsEvent[]>();
  private nextId = 1;
  private readonly pending = new Map<number, (reply: { result?: unknown; error?: unknown }) => void>();

  private constructor(
    private readonly socket: WebSocket,
    private readonly keepEvents: boolean,
  ) {
    socket.on('message', (data) => {
      const message = JSON.parse(data.toString()) as {
        id?: number;
        method?: string;
        params?: { sessionId: string; event: ReinsEvent };
        result?: unknown;
        error?: unknown;
      };
      if (message.method === 'session/event' && message.params) {
        const { sessionId, event } = message.params;
        const list = this.seqs.get(sessionId) ?? [];
        list.push(event.seq);
        this.seqs.set(sessionId, list);
        if (this.keepEvents) this.events.set(sessionId, [...(this.events.get(sessionId) ?? []), event]);
      } else if (message.id !== undefined) {
        this.pending.get(message.id)?.(message);
        this.pending.delete(message.id);
      }
    });
  }

  static async open(target: Daemon, keepEvents = false): Promise<Watcher> {
    const socket = new WebSocket(target.url);
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    const watcher = new Watcher(socket, keepEvents);
    closers.push(() => socket.terminate());
    await watcher.request('initialize', { token: target.token, protocolVersion: 2 });
    return watcher;
  }

  request(method: string, params?: unknown): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, (reply) =>
        reply.error ? reject(new Error(JSON.stringify(reply.error))) : resolve(reply.result),
      );
      this.socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    });
  }

  /** Lost, duplicated and out-of-order events of one session whose log ends at `lastSeq`. */
  problems(sessionId: string, lastSeq: number): { lost: number; duplicated: number; outOfOrder: number } {
    const seqs = this.seqs.get(sessionId) ?? [];
    const unique = new Set(seqs);
    let outOfOrder = 0;
    for (let i = 1; i < seqs.length; i++) if ((seqs[i] as number) <= (seqs[i - 1] as number)) outOfOrder++;
    let lost = 0;
    for (let seq = 1; seq <= lastSeq; seq++) if (!unique.has(seq)) lost++;
    return { lost, duplicated: seqs.length - unique.size, outOfOrder };
  }

  has(sessionId: string, lastSeq: number): boolean {
    return (this.seqs.get(sessionId)?.at(-1) ?? 0) >= lastSeq;
  }
}

async function inBatches<T>(items: T[], size: number, work: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(work));
}

function total(watchers: Watcher[], lastSeqs: Map<string, number>) {
  const sum = { lost: 0, duplicated: 0, outOfOrder: 0 };
  for (const watcher of watchers) {
    for (const [sessionId, lastSeq] of lastSeqs) {
      const found = watcher.problems(sessionId, lastSeq);
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
    const watchers = await Promise.all(Array.from({ length: CLIENTS }, (_, index) => Watcher.open(first, index === 0)));
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
      () => watchers.every((watcher) => ids.every((id) => watcher.has(id, lastSeqs.get(id) as number))),
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
    const readers = await Promise.all(Array.from({ length: CLIENTS }, (_, index) => Watcher.open(second, index === 0)));
    await Promise.all(
      readers.map((reader) =>
        Promise.all(ids.map((id) => reader.request('session/subscribe', { sessionId: id, afterSeq: 0 }))),
      ),
    );
    await until(
      () => readers.every((reader) => ids.every((id) => reader.has(id, replayed.get(id) as number))),
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
