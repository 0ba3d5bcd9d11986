// Events without their native frames through the daemon (capability omitNative,
// docs/architecture/daemon.md "Protocol"): on the testkit's fake Codex, a raw version 2 client that
// asked for it gets every event of a turn live without `native`, another that did not gets them
// whole, and both have the same events otherwise; after a restart (the replay now read from the
// SQLite store, in batches and one by one) the same holds, and the store still has every frame.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type ReinsClient } from '@reins/client';
import type { ReinsEvent } from '@reins/core';
import { liveProcessCount } from '@reins/harnesses';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { type Daemon, startDaemon } from '../src/index.js';
import { client, EventReader, fakeCodexOptions, RawSocket, silent } from './helpers.js';

let home: string;
let daemon: Daemon | undefined;
let reins: ReinsClient | undefined;
const raws: RawSocket[] = [];

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'reins-omit-native-'));
});

afterEach(async () => {
  for (const raw of raws.splice(0)) raw.close();
  await reins?.close();
  reins = undefined;
  await daemon?.close();
  daemon = undefined;
  expect(liveProcessCount()).toBe(0);
  await rm(home, { recursive: true, force: true });
});

type Frame = { method?: string; params?: { event?: ReinsEvent; events?: ReinsEvent[] }; result?: unknown };

const eventsIn = (frames: unknown[]): ReinsEvent[] =>
  (frames as Frame[]).flatMap((frame) =>
    frame.method === 'session/event' && frame.params?.event
      ? [frame.params.event]
      : frame.method === 'session/events'
        ? (frame.params?.events ?? [])
        : [],
  );

/** A raw version 2 client subscribed to `sessionId` from seq 0, with these capabilities. */
async function subscriber(url: string, token: string, sessionId: string, capabilities: Record<string, boolean>) {
  const raw = await RawSocket.open(url);
  raws.push(raw);
  const answer = await raw.request('initialize', { token, protocolVersion: 2, capabilities });
  expect(answer.result).toMatchObject({ capabilities });
  await raw.request('session/subscribe', { sessionId, afterSeq: 0 });
  return {
    raw,
    events: () => eventsIn(raw.frames),
    upTo: (seq: number) =>
      raw.waitFor(() => eventsIn(raw.frames).some((event) => event.seq === seq), `seq ${seq}`, 20_000),
  };
}

const stripped = (events: ReinsEvent[]) =>
  events.map((event) => {
    const { native: _native, ...rest } = event;
    return rest;
  });

describe('omitNative through the daemon', () => {
  it('sends a client that asked every event without its native frame, live and replayed from the store', async () => {
    const reinsHome = join(home, 'reins');
    daemon = await startDaemon({ home: reinsHome, harnesses: ['codex'], logger: silent });
    reins = await client(daemon.url, daemon.token);
    const session = await reins.createSession('codex', { cwd: home }, fakeCodexOptions('text-turn'));
    const bare = await subscriber(daemon.url, daemon.token, session.id, { omitNative: true });
    const whole = await subscriber(daemon.url, daemon.token, session.id, { eventBatches: true });
    const reader = new EventReader(session.events);
    const sent = await session.send('Say hello.');
    const terminal = await reader.waitFor(
      (e) => e.type === 'turn.completed' && e.turnId === sent.turnId,
      'the terminal',
    );
    await bare.upTo(terminal.seq);
    await whole.upTo(terminal.seq);

    const upToTerminal = (events: ReinsEvent[]) => events.filter((event) => event.seq <= terminal.seq);
    const live = upToTerminal(whole.events());
    expect(live.filter((event) => event.native !== undefined).length).toBeGreaterThan(3);
    expect(upToTerminal(bare.events())).toEqual(stripped(live));
    expect(JSON.stringify(bare.raw.frames)).not.toContain('"native":');

    // A new daemon on the same home: the replay is read from the store.
    await reins.close();
    reins = undefined;
    await daemon.close();
    daemon = await startDaemon({ home: reinsHome, harnesses: ['codex'], logger: silent });
    const replayedBare = await subscriber(daemon.url, daemon.token, session.id, {
      omitNative: true,
      eventBatches: true,
    });
    const replayedOne = await subscriber(daemon.url, daemon.token, session.id, { omitNative: true });
    const replayedWhole = await subscriber(daemon.url, daemon.token, session.id, { eventBatches: true });
    for (const replay of [replayedBare, replayedOne, replayedWhole]) await replay.upTo(terminal.seq);
    const stored = replayedWhole.events().filter((event) => event.seq <= terminal.seq);
    expect(stored).toEqual(live.filter((event) => event.seq <= terminal.seq));
    expect(replayedBare.events().filter((event) => event.seq <= terminal.seq)).toEqual(stripped(stored));
    expect(replayedOne.events().filter((event) => event.seq <= terminal.seq)).toEqual(stripped(stored));
    expect((replayedBare.raw.frames as Frame[]).some((frame) => frame.method === 'session/events')).toBe(true);
  }, 60_000);

  it('@reins/client asks for it with nativeFrames: false: its sessions get the same events without native frames, and can fetch them', async () => {
    daemon = await startDaemon({ home: join(home, 'reins'), harnesses: ['codex'], logger: silent });
    reins = await client(daemon.url, daemon.token);
    const bareClient = await connect({ url: daemon.url, token: daemon.token, WebSocket, nativeFrames: false });
    try {
      expect(bareClient.info.capabilities).toMatchObject({ omitNative: true });
      const session = await reins.createSession('codex', { cwd: home }, fakeCodexOptions('text-turn'));
      const remote = await bareClient.attach(session.id);
      const bare = new EventReader(remote.events);
      const whole = new EventReader(session.events);
      const sent = await session.send('Say hello.');
      const ended = (e: ReinsEvent) => e.type === 'turn.completed' && e.turnId === sent.turnId;
      const terminal = (reader: EventReader) => reader.events.find(ended) as ReinsEvent;
      await whole.waitFor(ended, 'the terminal, whole');
      await bare.waitFor(ended, 'the terminal, bare');
      expect(whole.events.some((event) => event.native !== undefined)).toBe(true);
      const upTo = (events: ReinsEvent[]) => events.filter((event) => event.seq <= terminal(whole).seq);
      expect(upTo(bare.events)).toEqual(stripped(upTo(whole.events)));
      // ...and asks for the frames back, a page at a time.
      const natives = whole.events.flatMap((event) => (event.native ? [{ seq: event.seq, native: event.native }] : []));
      const pages = [...(await remote.nativeFrames(0, 3)), ...(await remote.nativeFrames(3))];
      expect(pages).toEqual(natives.filter((frame) => frame.seq <= terminal(whole).seq));
      await expect(remote.nativeFrames(0, 513)).rejects.toMatchObject({ code: 'invalid_input' });
      await expect(remote.nativeFrames(terminal(whole).seq + 100)).rejects.toMatchObject({ code: 'invalid_input' });
    } finally {
      await bareClient.close();
    }
  }, 60_000);
});
