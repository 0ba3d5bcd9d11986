// SocketOutput on a real ws server and client over loopback: the frames of one tick leave in one
// socket write as whole WebSocket frames, each still one message at the client, in order and
// byte for byte; a close never overtakes them; an event's frame is made once for every client, and
// a tick's joined write once for every client that queued the same frames.
import type { AddressInfo } from 'node:net';
import type { ReinsEvent } from '@reins/core';
import { until } from '@reins/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import type { PublishedEvent } from './session-log.js';
import { SocketOutput } from './socket-output.js';

const servers: WebSocketServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    for (const client of server.clients) client.terminate();
    await new Promise((resolve) => server.close(resolve));
  }
});

interface Peer {
  output: SocketOutput;
  server: WebSocket;
  client: WebSocket;
  messages: string[];
  closedWith: Promise<number>;
}

async function pair(count = 1): Promise<Peer[]> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  servers.push(server);
  await new Promise((resolve) => server.once('listening', resolve));
  const accepted: WebSocket[] = [];
  server.on('connection', (socket) => accepted.push(socket));
  const peers: Array<Omit<Peer, 'output' | 'server'>> = [];
  for (let index = 0; index < count; index++) {
    const client = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}`);
    const messages: string[] = [];
    client.on('message', (data) => messages.push(String(data)));
    const closedWith = new Promise<number>((resolve) => client.on('close', resolve));
    await new Promise((resolve) => client.once('open', resolve));
    peers.push({ client, messages, closedWith });
  }
  while (accepted.length < count) await new Promise((resolve) => setImmediate(resolve));
  return peers.map((peer, index) => {
    const socket = accepted[index] as WebSocket;
    return { ...peer, server: socket, output: new SocketOutput(socket, 16 * 1024 * 1024, () => {}) };
  });
}

function published(seq: number, text: string): PublishedEvent {
  const event = {
    type: 'item.delta',
    itemId: 'i1',
    kind: 'text',
    text,
    seq,
    harness: 'codex',
    sessionId: 's1',
    turnId: 't1',
    at: 1,
  } as ReinsEvent;
  return { seq, event, json: JSON.stringify(event) };
}

/** Keeps every chunk written to the TCP socket under a ws server socket, in order. */
function watchChunks(socket: WebSocket): unknown[] {
  const chunks: unknown[] = [];
  const raw = (socket as unknown as { _socket: { write: (chunk: unknown, ...rest: unknown[]) => boolean } })._socket;
  const write = raw.write.bind(raw);
  raw.write = (chunk: unknown, ...rest: unknown[]) => {
    chunks.push(chunk);
    return write(chunk, ...rest);
  };
  return chunks;
}

const eventTexts = (peer: Peer) =>
  peer.messages.map((message) => (JSON.parse(message) as { params: { event: { text: string } } }).params.event.text);

/** Counts the writes made to the TCP socket under a ws server socket, and ws.send calls. */
function countWrites(socket: WebSocket): { writes: number; sends: number } {
  const counts = { writes: 0, sends: 0 };
  const raw = (socket as unknown as { _socket: { write: (...args: unknown[]) => boolean } })._socket;
  const write = raw.write.bind(raw);
  raw.write = (...args: unknown[]) => {
    counts.writes++;
    return write(...args);
  };
  const send = socket.send.bind(socket);
  socket.send = ((...args: Parameters<WebSocket['send']>) => {
    counts.sends++;
    return send(...args);
  }) as WebSocket['send'];
  return counts;
}

describe('SocketOutput', () => {
  it('writes the frames of one tick at once, each one message at the client, in order and unchanged', async () => {
    const [peer] = await pair();
    if (!peer) throw new Error('no peer');
    const counts = countWrites(peer.server);
    const big = 'x'.repeat(70_000); // a 64-bit length header, and over the joined write's bound
    const texts = ['{"jsonrpc":"2.0","id":1,"result":{}}', 'é ✓ 🙂', '', 'y'.repeat(200), big, 'after the big one'];
    const events = texts.map((text, index) => published(index + 1, text));
    peer.output.sendFrame(texts[0] as string);
    for (const event of events.slice(1)) expect(peer.output.sendEvent('s1', event)).toBe(true);
    expect(counts.writes).toBeLessThanOrEqual(1); // the big frame went out as the tick grew
    await until(() => peer.messages.length === texts.length, 'every frame');
    expect(peer.messages[0]).toBe(texts[0]);
    expect(peer.messages.slice(1).map((message) => JSON.parse(message))).toEqual(
      events.slice(1).map((event) => ({
        jsonrpc: '2.0',
        method: 'session/event',
        params: { sessionId: 's1', event: event.event },
      })),
    );
    expect(counts.sends).toBe(0);
    expect(counts.writes).toBe(2);
    await peer.output.drained();
  });

  it('sends no close before the frames given in the same tick', async () => {
    const [peer] = await pair();
    if (!peer) throw new Error('no peer');
    peer.output.sendFrame('{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"initialize first"}}');
    peer.output.close(4001, 'initialize first');
    expect(await peer.closedWith).toBe(4001);
    expect(peer.messages).toEqual(['{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"initialize first"}}']);
  });

  it("gives every client the same event frame, made once, and counts a tick's queue as unsent", async () => {
    const peers = await pair(3);
    const event = published(1, 'shared');
    const frames = new Set<unknown>();
    for (const peer of peers) {
      const raw = (peer.server as unknown as { _socket: { write: (chunk: unknown, ...rest: unknown[]) => boolean } })
        ._socket;
      const write = raw.write.bind(raw);
      raw.write = (chunk: unknown, ...rest: unknown[]) => {
        frames.add(chunk);
        return write(chunk, ...rest);
      };
      peer.output.sendEvent('s1', event);
      // Not written yet (end of tick), but counted: a replay or the slow-consumer rule sees it.
      expect(peer.output.congested).toBe(false);
      expect((peer.output as unknown as { unsent: number }).unsent).toBeGreaterThan(event.json.length);
    }
    await until(() => peers.every((peer) => peer.messages.length === 1), 'the event at every client');
    expect(frames.size).toBe(1);
  });

  it('writes one joined buffer for every client that queued the same frames in a tick, each in order', async () => {
    const peers = await pair(3);
    const [first, second, other] = peers as [Peer, Peer, Peer];
    const chunks = peers.map((peer) => watchChunks(peer.server));
    const events = [1, 2, 3].map((seq) => published(seq, `event ${seq}`));
    // The third client also gets a reply between the events: its frames differ, so it joins its own.
    for (const event of events) {
      for (const peer of peers) peer.output.sendEvent('s1', event);
      if (event.seq === 1) other.output.sendFrame('{"jsonrpc":"2.0","id":7,"result":{}}');
    }
    await until(() => peers.every((peer) => peer.messages.length >= 3) && other.messages.length === 4, 'the frames');
    expect(chunks.map((list) => list.length)).toEqual([1, 1, 1]);
    expect(chunks[0]?.[0]).toBe(chunks[1]?.[0]); // one buffer, not a copy per client
    expect(chunks[2]?.[0]).not.toBe(chunks[0]?.[0]);
    expect(eventTexts(first)).toEqual(['event 1', 'event 2', 'event 3']);
    expect(eventTexts(second)).toEqual(['event 1', 'event 2', 'event 3']);
    const reply = other.messages.splice(1, 1);
    expect(reply).toEqual(['{"jsonrpc":"2.0","id":7,"result":{}}']);
    expect(eventTexts(other)).toEqual(['event 1', 'event 2', 'event 3']);
  });

  it('sends a client granted omitNative every event without its native frame, live and in batches; the others get it whole, each form made once', async () => {
    const peers = await pair(4);
    const [whole, bare, whole2, bare2] = peers as [Peer, Peer, Peer, Peer];
    bare.output.omitNative = true;
    bare2.output.omitNative = true;
    bare2.output.batches = true;
    const chunks = peers.map((peer) => watchChunks(peer.server));
    const withNative = (seq: number): PublishedEvent => {
      const base = published(seq, `event ${seq}`);
      const event = {
        ...base.event,
        native: { source: 'codex.app-server', method: 'item/agentMessage/delta', frame: { n: seq } },
      } as ReinsEvent;
      return { seq, event, json: JSON.stringify(event) };
    };
    const events = [withNative(1), published(2, 'no native'), withNative(3)];
    // Live, interleaved as a session log hands them on: whole, bare, whole, in one tick.
    for (const event of events) for (const peer of [whole, bare, whole2]) peer.output.sendEvent('s1', event);
    bare2.output.sendEvents('s1', events);
    await until(
      () => [whole, bare, whole2].every((peer) => peer.messages.length === 3) && bare2.messages.length === 1,
      'the frames',
    );
    const live = (peer: Peer) =>
      peer.messages.map((message) => (JSON.parse(message) as { params: { event: ReinsEvent } }).params.event);
    expect(live(whole)).toEqual(events.map((event) => event.event));
    expect(live(whole2)).toEqual(events.map((event) => event.event));
    const stripped = events.map(({ event }) => {
      const { native: _native, ...rest } = event;
      return rest;
    });
    expect(live(bare)).toEqual(stripped);
    expect((JSON.parse(bare2.messages[0] as string) as { params: { events: unknown[] } }).params.events).toEqual(
      stripped,
    );
    expect(bare.messages.join('')).not.toContain('"native":');
    // Both whole clients wrote the same joined buffer: the bare client in between did not make the
    // frames be made again.
    expect(chunks[0]?.[0]).toBe(chunks[2]?.[0]);
  });

  it('gives every batching client the same frame for a live run, made once per form', async () => {
    const peers = await pair(4);
    const [whole, whole2, bare, bare2] = peers as [Peer, Peer, Peer, Peer];
    for (const peer of peers) peer.output.batches = true;
    bare.output.omitNative = true;
    bare2.output.omitNative = true;
    const chunks = peers.map((peer) => watchChunks(peer.server));
    const run = [1, 2, 3].map((seq) => {
      const base = published(seq, `event ${seq}`);
      const event = { ...base.event, native: { source: 'codex.app-server', frame: { n: seq } } } as ReinsEvent;
      return { seq, event, json: JSON.stringify(event) };
    });
    // As a session log hands a run on: the same array to every subscriber, in one synchronous loop.
    for (const peer of peers) peer.output.sendEvents('s1', run);
    await until(() => peers.every((peer) => peer.messages.length === 1), 'one frame at every client');
    const events = (peer: Peer) => (JSON.parse(peer.messages[0] as string) as { params: { events: unknown[] } }).params;
    expect(events(whole)).toEqual({ sessionId: 's1', events: run.map((entry) => entry.event) });
    expect(events(bare).events).toEqual(
      run.map(({ event }) => {
        const { native: _native, ...rest } = event;
        return rest;
      }),
    );
    expect(whole2.messages).toEqual(whole.messages);
    expect(bare2.messages).toEqual(bare.messages);
    // One buffer per form, not a copy per client.
    expect(chunks[0]?.[0]).toBe(chunks[1]?.[0]);
    expect(chunks[2]?.[0]).toBe(chunks[3]?.[0]);
    expect(chunks[0]?.[0]).not.toBe(chunks[2]?.[0]);
  });

  it('a client whose socket closed mid-tick loses only its own frames; the others get theirs in order', async () => {
    const peers = await pair(3);
    const [first, gone, last] = peers as [Peer, Peer, Peer];
    const events = [1, 2, 3, 4].map((seq) => published(seq, `event ${seq}`));
    for (const event of events.slice(0, 2)) for (const peer of peers) peer.output.sendEvent('s1', event);
    // Its TCP socket goes before this tick's write (the shared buffer is still handed to the others).
    (gone.server as unknown as { _socket: { destroy(): void } })._socket.destroy();
    for (const event of events.slice(2)) for (const peer of peers) peer.output.sendEvent('s1', event);
    await gone.closedWith;
    await until(() => first.messages.length === 4 && last.messages.length === 4, 'the others got every frame');
    expect(eventTexts(first)).toEqual(['event 1', 'event 2', 'event 3', 'event 4']);
    expect(eventTexts(last)).toEqual(['event 1', 'event 2', 'event 3', 'event 4']);
    expect(gone.messages).toEqual([]);
    // Later ticks go on for the others; the closed one is refused.
    await until(() => gone.server.readyState !== WebSocket.OPEN, 'the server side saw the close');
    expect(gone.output.sendEvent('s1', published(5, 'event 5'))).toBe(false);
    for (const peer of [first, last]) expect(peer.output.sendEvent('s1', published(5, 'event 5'))).toBe(true);
    await until(() => first.messages.length === 5 && last.messages.length === 5, 'the next tick');
  });

  it('a client that stops reading loses nothing and gets every frame in order once it reads again', async () => {
    const peers = await pair(2);
    const [reader, stalled] = peers as [Peer, Peer];
    const paused = (stalled.client as unknown as { _socket: { pause(): void; resume(): void } })._socket;
    paused.pause();
    const text = 'z'.repeat(16_000); // 16 MB in all: more than loopback's kernel buffers hold
    let seq = 0;
    // Many ticks of shared writes while one client's kernel buffers fill (its writes then wait in Node).
    for (let tick = 0; tick < 40; tick++) {
      for (let index = 0; index < 25; index++) {
        const event = published(++seq, `${seq} ${text}`);
        for (const peer of peers) expect(peer.output.sendEvent('s1', event)).toBe(true);
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    await until(() => reader.messages.length === seq, 'the reading client got every frame');
    expect(stalled.server.bufferedAmount).toBeGreaterThan(0); // its writes wait in Node, not lost
    paused.resume();
    await until(() => stalled.messages.length === seq, 'the stalled client caught up');
    const numbers = (peer: Peer) => eventTexts(peer).map((value) => Number(value.split(' ')[0]));
    const expected = Array.from({ length: seq }, (_, index) => index + 1);
    expect(numbers(reader)).toEqual(expected);
    expect(numbers(stalled)).toEqual(expected);
  });
});
