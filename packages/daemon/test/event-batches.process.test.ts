// Event batches through a real `reins daemon` (the built CLI as a subprocess) on the testkit's fake
// Codex: a session whose log holds more than one batch page (deltas injected into a recorded turn),
// then the daemon is restarted on the same home so the replay comes from its SQLite store. Three
// raw clients replay it from seq 0: one granted `eventBatches`, one version 2 client that did not
// ask (exactly the frames it always got: session/event only, no `capabilities` in its initialize
// answer) and one version 1 client. All three get the same events, byte for byte, in the same
// order; the batching client gets them in bounded session/events frames. @reins/client (which asks
// for batches) hands the same events to its RemoteSession.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect, DaemonInfoSchema } from '@reins/client';
import type { ReinsEvent } from '@reins/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { BATCH_LIMITS } from '../src/event-batch.js';
import { fakeCodexOptions, RawSocket } from './helpers.js';

const REINS_BIN = fileURLToPath(new URL('../../cli/bin/reins.js', import.meta.url));
const BUILT_CLI = fileURLToPath(new URL('../../cli/dist/bin.js', import.meta.url));
// FAKE_CODEX_INJECT is one environment string (at most 128 KiB on Linux): some 115 bytes a delta.
const DELTAS = 900;

let home: string;
let child: ChildProcess | undefined;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'reins-batches-'));
});
afterEach(async () => {
  await stop();
  await rm(home, { recursive: true, force: true });
});

async function startReinsDaemon(): Promise<{ url: string; token: string }> {
  if (!existsSync(BUILT_CLI)) throw new Error(`The CLI is not built (${BUILT_CLI}): run npm run build first.`);
  const started = spawn(process.execPath, [REINS_BIN, 'daemon'], {
    env: { ...process.env, REINS_HOME: join(home, 'reins') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child = started;
  let stdout = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`reins daemon did not start: ${stdout}`)), 30_000);
    started.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (/Press Ctrl\+C to stop/.test(stdout)) {
        clearTimeout(timer);
        resolve();
      }
    });
    started.once('exit', (code) => reject(new Error(`reins daemon exited with ${code}: ${stdout}`)));
  });
  started.stderr?.resume();
  const info = DaemonInfoSchema.parse(JSON.parse(readFileSync(join(home, 'reins', 'daemon.json'), 'utf8')));
  return { url: info.url, token: info.token };
}

async function stop(): Promise<void> {
  const running = child;
  child = undefined;
  if (!running || running.exitCode !== null) return;
  const exited = new Promise((resolve) => running.once('exit', resolve));
  running.kill('SIGTERM');
  await exited;
}

interface Frame {
  method?: string;
  id?: number;
  params?: { sessionId?: string; event?: unknown; events?: unknown[] };
  result?: Record<string, unknown>;
}

/** A raw client, initialized as asked and subscribed to the session from seq 0. */
async function subscriber(url: string, initialize: Record<string, unknown>, sessionId: string) {
  const raw = await RawSocket.open(url);
  const answer = await raw.request('initialize', initialize);
  await raw.request('session/subscribe', { sessionId, afterSeq: 0 });
  return { raw, initialized: (answer as { result: Record<string, unknown> }).result };
}

const eventsOf = (frame: Frame): unknown[] =>
  frame.method === 'session/event'
    ? [frame.params?.event]
    : frame.method === 'session/events'
      ? (frame.params?.events ?? [])
      : [];

/** The event frames a subscriber got until the one that holds `lastSeq`, and their events. */
async function eventFrames(raw: RawSocket, lastSeq: number): Promise<{ frames: Frame[]; events: unknown[] }> {
  await raw.waitFor(
    (frame) => eventsOf(frame as Frame).some((event) => (event as ReinsEvent).seq === lastSeq),
    `seq ${lastSeq}`,
    30_000,
  );
  const frames = (raw.frames as Frame[]).filter(
    (frame) => frame.method === 'session/event' || frame.method === 'session/events',
  );
  return { frames, events: frames.flatMap(eventsOf) };
}

/** A raw client: initialize as asked, subscribe from seq 0, and the frames until the last seq. */
async function replay(
  url: string,
  initialize: Record<string, unknown>,
  sessionId: string,
  lastSeq: number,
): Promise<{ initialized: Record<string, unknown>; frames: Frame[]; events: unknown[] }> {
  const { raw, initialized } = await subscriber(url, initialize, sessionId);
  try {
    return { initialized, ...(await eventFrames(raw, lastSeq)) };
  } finally {
    raw.close();
  }
}

/** The recorded turn, with DELTAS more answer deltas injected after its turn/started, written at once. */
function burstTurnOptions() {
  const inject = Array.from({ length: DELTAS }, (_, index) => ({
    method: 'item/agentMessage/delta',
    params: { threadId: '{{threadId}}', turnId: '{{turnId}}', itemId: 'm', delta: `w${index} ` },
  }));
  return fakeCodexOptions('text-turn', { FAKE_CODEX_INJECT: JSON.stringify(inject), FAKE_CODEX_FRAME_DELAY_MS: '0' });
}

describe('event batches through reins daemon', () => {
  it('replays one log identically to a client with batches, a version 2 client without and a version 1 client', async () => {
    const options = burstTurnOptions();
    let daemon = await startReinsDaemon();
    const creator = await connect({ url: daemon.url, token: daemon.token, WebSocket, requestTimeoutMs: 30_000 });
    const created = await creator.createSession('codex', { cwd: home }, options);
    const seen: ReinsEvent[] = [];
    const turn = created.send('Say hello');
    for await (const event of created.events) {
      seen.push(event);
      if (event.type === 'turn.completed') break;
    }
    await turn;
    creator.close();
    expect(seen.filter((event) => event.type === 'item.delta').length).toBeGreaterThanOrEqual(DELTAS);

    // A new daemon on the same home: the session is dormant, its log comes from the store.
    await stop();
    daemon = await startReinsDaemon();
    const lister = await connect({ url: daemon.url, token: daemon.token, WebSocket });
    const lastSeq = (await lister.listSessions()).find((entry) => entry.sessionId === created.id)?.lastSeq ?? 0;
    lister.close();
    expect(lastSeq).toBeGreaterThan(BATCH_LIMITS.maxEvents);

    const batching = await replay(
      daemon.url,
      { token: daemon.token, protocolVersion: 2, capabilities: { eventBatches: true } },
      created.id,
      lastSeq,
    );
    const plain = await replay(daemon.url, { token: daemon.token, protocolVersion: 2 }, created.id, lastSeq);
    const v1 = await replay(daemon.url, { token: daemon.token }, created.id, lastSeq);

    // What each was granted: only the one that asked; the others' answers are as they always were.
    expect(batching.initialized.capabilities).toEqual({ eventBatches: true, eventParts: false, omitNative: false });
    expect(plain.initialized).not.toHaveProperty('capabilities');
    expect(v1.initialized).not.toHaveProperty('capabilities');
    expect(v1.initialized.protocolVersion).toBe(1);

    // Without the capability: one session/event per event, nothing else.
    for (const other of [plain, v1]) {
      expect(other.frames.every((frame) => frame.method === 'session/event')).toBe(true);
      expect(other.frames).toHaveLength(lastSeq);
    }
    // With it: the replay in bounded batches, far fewer frames.
    const batches = batching.frames.filter((frame) => frame.method === 'session/events');
    expect(batches.length).toBeGreaterThanOrEqual(2);
    expect(batching.frames.length).toBeLessThan(lastSeq / 100);
    for (const frame of batches) {
      expect(frame.params?.sessionId).toBe(created.id);
      expect(frame.params?.events?.length).toBeLessThanOrEqual(BATCH_LIMITS.maxEvents);
      expect(Buffer.byteLength(JSON.stringify(frame.params?.events))).toBeLessThanOrEqual(
        BATCH_LIMITS.maxBytes + (frame.params?.events?.length ?? 0) + 2,
      );
    }

    // The same events, byte for byte, in seq order from 1, no gap, no duplicate.
    const seqs = batching.events.map((event) => (event as ReinsEvent).seq);
    expect(seqs).toEqual(Array.from({ length: lastSeq }, (_, index) => index + 1));
    expect(batching.events.map((event) => JSON.stringify(event))).toEqual(
      plain.events.map((event) => JSON.stringify(event)),
    );
    expect(v1.events.map((event) => JSON.stringify(event))).toEqual(plain.events.map((event) => JSON.stringify(event)));

    // @reins/client asks for batches (and parts) and hands its RemoteSession the same events.
    const reins = await connect({ url: daemon.url, token: daemon.token, WebSocket });
    expect(reins.info.capabilities).toEqual({ eventBatches: true, eventParts: true, omitNative: false });
    const session = await reins.attach(created.id, { afterSeq: 0 });
    const received: ReinsEvent[] = [];
    for await (const event of session.events) {
      received.push(event);
      if (event.seq >= lastSeq) break;
    }
    reins.close();
    expect(received.map((event) => JSON.stringify(event))).toEqual(plain.events.map((event) => JSON.stringify(event)));
  }, 120_000);

  it('hands live runs to a client with batches as session/events: the events a client without gets one by one', async () => {
    const daemon = await startReinsDaemon();
    const creator = await connect({ url: daemon.url, token: daemon.token, WebSocket, requestTimeoutMs: 30_000 });
    const created = await creator.createSession('codex', { cwd: home }, burstTurnOptions());
    const batching = await subscriber(
      daemon.url,
      { token: daemon.token, protocolVersion: 2, capabilities: { eventBatches: true } },
      created.id,
    );
    const plain = await subscriber(daemon.url, { token: daemon.token, protocolVersion: 2 }, created.id);
    try {
      // Both have replayed what the session holds before the turn, so the turn's events reach them live.
      const before = (await creator.listSessions()).find((entry) => entry.sessionId === created.id)?.lastSeq ?? 0;
      expect(before).toBeGreaterThan(0);
      const replayed = (await eventFrames(batching.raw, before)).frames.length;
      await eventFrames(plain.raw, before);
      const turn = created.send('Say hello');
      let lastSeq = 0;
      for await (const event of created.events) {
        if (event.type === 'turn.completed') {
          lastSeq = event.seq;
          break;
        }
      }
      await turn;
      const withBatches = await eventFrames(batching.raw, lastSeq);
      const without = await eventFrames(plain.raw, lastSeq);
      // The deltas came in bursts (no delay between the fake's frames): whatever one store write made
      // durable went to the batching client as one frame, and to the other as one frame per event.
      const liveBatches = withBatches.frames.slice(replayed).filter((frame) => frame.method === 'session/events');
      expect(liveBatches.length).toBeGreaterThan(0);
      expect(
        liveBatches.some((frame) =>
          (frame.params?.events ?? []).some((event) => (event as ReinsEvent).type === 'item.delta'),
        ),
      ).toBe(true);
      expect(withBatches.frames.length).toBeLessThan(without.frames.length);
      expect(without.frames.every((frame) => frame.method === 'session/event')).toBe(true);
      expect(withBatches.events.map((event) => (event as ReinsEvent).seq)).toEqual(
        Array.from({ length: lastSeq }, (_, index) => index + 1),
      );
      expect(withBatches.events.map((event) => JSON.stringify(event))).toEqual(
        without.events.map((event) => JSON.stringify(event)),
      );
    } finally {
      batching.raw.close();
      plain.raw.close();
      creator.close();
    }
  }, 120_000);
});
