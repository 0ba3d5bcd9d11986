// Size is not a failure mode (docs/architecture/daemon.md, "Protocol"): an event too big for one
// frame reaches @reins/client whole in session/eventPart frames, a client that did not declare
// eventParts gets it shrunk and marked, and neither cut touches another session on the connection.
// On the Codex fake: a turn with a 10 MB inline image, and a harness line of over 8 MB.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReinsClient } from '@reins/client';
import type { ReinsEvent } from '@reins/core';
import { liveProcessCount } from '@reins/harnesses';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Daemon, startDaemon } from '../src/index.js';
import { client, codexTranscript, EventReader, fakeCodexOptions, RawSocket, silent } from './helpers.js';

let home: string;
let daemon: Daemon | undefined;
const clients: ReinsClient[] = [];

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'reins-big-'));
});

afterEach(async () => {
  for (const open of clients.splice(0)) open.close();
  await daemon?.close();
  daemon = undefined;
  expect(liveProcessCount()).toBe(0);
  await rm(home, { recursive: true, force: true });
});

async function connected(target: Daemon): Promise<ReinsClient> {
  const reins = await client(target.url, target.token);
  clients.push(reins);
  return reins;
}

const terminalOf = (turnId: string) => (e: ReinsEvent) => e.type === 'turn.completed' && e.turnId === turnId;

/** A new connection attaches to `sessionId` from seq 0 and reads it to `lastSeq`; meanwhile `other` runs a turn. */
async function replayWhileAnotherStreams(target: Daemon, sessionId: string, lastSeq: number) {
  const reins = await connected(target);
  const other = await reins.createSession('codex', { cwd: home }, fakeCodexOptions('text-turn'));
  const otherReader = new EventReader(other.events);
  const replayed = await reins.attach(sessionId, { afterSeq: 0 });
  const replayReader = new EventReader(replayed.events);
  const otherTurn = await other.send('Say hello.');
  await replayReader.waitFor((e) => e.seq === lastSeq, `the replay up to seq ${lastSeq}`, 30_000);
  await otherReader.waitFor(terminalOf(otherTurn.turnId), 'the other session’s turn', 30_000);
  const upTo = replayReader.events.filter((e) => e.seq <= lastSeq);
  expect(upTo.map((e) => e.seq)).toEqual(Array.from({ length: lastSeq }, (_, i) => i + 1));
  // The connection is still there: the other session takes another turn.
  const again = await other.send('Say hello.');
  await otherReader.waitFor(terminalOf(again.turnId), 'the other session’s second turn', 30_000);
  return replayReader.events;
}

describe('an event too big for one frame', () => {
  it('a 10 MB inline image turn replays whole to a new client; a client without eventParts gets it shrunk; nobody is cut', async () => {
    daemon = await startDaemon({ home: join(home, 'reins'), harnesses: ['codex'], logger: silent });
    const first = await connected(daemon);
    const session = await first.createSession('codex', { cwd: home }, fakeCodexOptions('text-turn'));
    const reader = new EventReader(session.events);
    const image = randomBytes(10 * 1024 * 1024).toString('base64');
    const sent = await session.send({
      text: 'What is in this picture?',
      images: [{ source: 'data', mediaType: 'image/png', data: image }],
    });
    await reader.waitFor(terminalOf(sent.turnId), 'the image turn', 30_000);
    const lastSeq = (reader.events.at(-1) as ReinsEvent).seq;
    // Live, to the connection that sent it: the image whole.
    const live = reader.events.find((e) => e.type === 'turn.started');
    expect(live?.type === 'turn.started' && live.input.images?.[0]?.data === image).toBe(true);

    // Replayed whole to a new client, byte-equal, while a second session on its connection streams.
    const replayed = await replayWhileAnotherStreams(daemon, session.id, lastSeq);
    const started = replayed.find((e) => e.type === 'turn.started');
    expect(started?.type).toBe('turn.started');
    const replayedImage = started?.type === 'turn.started' ? started.input.images?.[0]?.data : undefined;
    expect(replayedImage?.length).toBe(image.length);
    expect(replayedImage === image).toBe(true);

    // A client that asked for batches but not parts: the event comes shrunk and marked, then the rest.
    const raw = await RawSocket.open(daemon.url);
    try {
      await raw.request('initialize', {
        token: daemon.token,
        protocolVersion: 2,
        capabilities: { eventBatches: true },
      });
      const subscribed = await raw.request('session/subscribe', { sessionId: session.id, afterSeq: 0 });
      expect(subscribed.error).toBeUndefined();
      const seen = await rawEventsUpTo(raw, lastSeq);
      const shrunk = seen.find((e) => e.type === 'turn.started') as Extract<ReinsEvent, { type: 'turn.started' }>;
      const data = shrunk.input.images?.[0]?.data ?? '';
      expect(data.startsWith(image.slice(0, 1024))).toBe(true);
      expect(data).toContain(`reinsTruncated: ${image.length} characters`);
      const upTo = seen.filter((e) => e.seq <= lastSeq);
      expect(upTo.map((e) => e.seq)).toEqual(Array.from({ length: lastSeq }, (_, i) => i + 1));
      // Still connected.
      expect((await raw.request('session/list')).result).toHaveLength(2);
    } finally {
      raw.close();
    }
  }, 120_000);

  it('a harness line over 8 MB (one agent message) reaches a client whole; its native copy is marked', async () => {
    const text = 'All work and no play makes Jack a dull boy. '.repeat(200_000); // 8.8 MB
    const transcript = await hugeMessageTranscript(text);
    daemon = await startDaemon({ home: join(home, 'reins'), harnesses: ['codex'], logger: silent });
    const first = await connected(daemon);
    const session = await first.createSession(
      'codex',
      { cwd: home },
      fakeCodexOptions('text-turn', { FAKE_CODEX_TRANSCRIPT: transcript }),
    );
    const reader = new EventReader(session.events);
    const sent = await session.send('Say hello.');
    await reader.waitFor(terminalOf(sent.turnId), 'the long turn', 30_000);
    const lastSeq = (reader.events.at(-1) as ReinsEvent).seq;
    const replayed = await replayWhileAnotherStreams(daemon, session.id, lastSeq);
    const message = replayed.find((e) => e.type === 'item.completed' && e.item.kind === 'agent_message');
    expect(message?.type === 'item.completed' && message.item.kind === 'agent_message' && message.item.text).toBe(text);
    expect(JSON.stringify(message?.native?.frame)).toContain('reinsTruncated');
  }, 120_000);
});

/** Codex's recorded text turn whose agent message is `text` (its one item/completed line is the big one). */
async function hugeMessageTranscript(text: string): Promise<string> {
  const lines = (await readFile(codexTranscript('text-turn'), 'utf8')).split('\n').filter(Boolean);
  const at = lines.findIndex((line) => line.includes('"type":"agentMessage"') && line.includes('item/completed'));
  expect(at).toBeGreaterThan(0);
  const record = JSON.parse(lines[at] as string) as { frame: { params: { item: { text: string } } } };
  record.frame.params.item.text = text;
  lines[at] = JSON.stringify(record);
  expect((lines[at] as string).length).toBeGreaterThan(8 * 1024 * 1024);
  const path = join(home, 'huge-message.jsonl');
  await writeFile(path, `${lines.join('\n')}\n`);
  return path;
}

/** The events a raw socket got (session/event and session/events frames) once it has seq `lastSeq`, with a deadline. */
async function rawEventsUpTo(raw: RawSocket, lastSeq: number): Promise<ReinsEvent[]> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const events: ReinsEvent[] = [];
    for (const frame of raw.frames as Array<{
      method?: string;
      params?: { event?: ReinsEvent; events?: ReinsEvent[] };
    }>) {
      if (frame.method === 'session/event' && frame.params?.event) events.push(frame.params.event);
      if (frame.method === 'session/events' && frame.params?.events) events.push(...frame.params.events);
    }
    if (events.some((e) => e.seq === lastSeq)) return events;
    if (Date.now() > deadline) throw new Error(`no event ${lastSeq} within 30 s; got ${events.map((e) => e.seq)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
