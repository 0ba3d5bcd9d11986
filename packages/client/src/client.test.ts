// The client against an in-memory WebSocket that plays the daemon: requests and their deadlines,
// errors carried as ReinsError codes, events routed to RemoteSessions in seq order (duplicates
// dropped, a gap ends the stream), and everything pending failing when the socket drops.
import { type Assert, ReinsError, type ReinsEvent } from '@reins/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { connect, type ReinsClient } from './client.js';
import type { WebSocketConstructor, WebSocketLike } from './rpc-channel.js';

// The browser's WebSocket fits what connect() takes (ws's is checked by the daemon tests, which pass it).
type _BrowserWebSocketFits = Assert<typeof globalThis.WebSocket extends WebSocketConstructor ? true : false>;

type Listener = (event: unknown) => void;
interface Sent {
  id: number;
  method: string;
  params?: Record<string, unknown>;
}

/** Plays the daemon: `answer` decides what each request gets back (frames delivered in one batch). */
class FakeSocket implements WebSocketLike {
  static last: FakeSocket | undefined;
  static answer: (request: Sent, socket: FakeSocket) => unknown[] = () => [];
  readyState = 0;
  readonly sent: Sent[] = [];
  private readonly listeners = new Map<string, Listener[]>();

  constructor(readonly url: string) {
    FakeSocket.last = this;
    setTimeout(() => {
      this.readyState = 1;
      this.emit('open', {});
    }, 0);
  }

  addEventListener(type: string, listener: (event: unknown) => void): void {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
  }

  send(data: string): void {
    const request = JSON.parse(data) as Sent;
    this.sent.push(request);
    const frames = FakeSocket.answer(request, this);
    // Like one TCP read carrying several frames: all delivered in the same tick.
    if (frames.length > 0) setTimeout(() => this.deliver(...frames), 0);
  }

  deliver(...frames: unknown[]): void {
    for (const frame of frames)
      this.emit('message', { data: typeof frame === 'string' ? frame : JSON.stringify(frame) });
  }

  close(): void {
    if (this.readyState === 3) return;
    this.readyState = 3;
    setTimeout(() => this.emit('close', { code: 1000, reason: '' }), 0);
  }

  private emit(type: string, event: unknown): void {
    for (const listener of this.listeners.get(type) ?? []) listener(event);
  }
}

const ok = (request: Sent, result: unknown) => ({ jsonrpc: '2.0', id: request.id, result });
const fail = (request: Sent, code: string, message: string) => ({
  jsonrpc: '2.0',
  id: request.id,
  error: { code: -32000, message, data: { code, message } },
});
const event = (seq: number, extra: Partial<ReinsEvent> & { type: ReinsEvent['type'] }) => ({
  jsonrpc: '2.0',
  method: 'session/event',
  params: {
    sessionId: 's1',
    event: { seq, harness: 'codex', sessionId: 's1', turnId: null, at: 1, ...extra },
  },
});
const status = (seq: number) =>
  event(seq, { type: 'session.status', status: 'idle' } as Partial<ReinsEvent> & {
    type: 'session.status';
  });

function daemon(handlers: Record<string, (request: Sent, socket: FakeSocket) => unknown[]>) {
  FakeSocket.answer = (request, socket) => {
    if (request.method === 'initialize') {
      return [ok(request, { protocolVersion: 2, reinsVersion: '0.1.0', harnesses: ['codex'] })];
    }
    return handlers[request.method]?.(request, socket) ?? [];
  };
}

async function client(options: { requestTimeoutMs?: number } = {}): Promise<ReinsClient> {
  return connect({ url: 'ws://127.0.0.1:1', token: 'secret', WebSocket: FakeSocket, ...options });
}

async function collect(events: AsyncIterable<ReinsEvent>): Promise<ReinsEvent[]> {
  const out: ReinsEvent[] = [];
  for await (const item of events) out.push(item);
  return out;
}

const codeOf = (error: unknown) => (ReinsError.isInstance(error) ? error.code : `not a ReinsError: ${String(error)}`);

afterEach(() => {
  FakeSocket.last?.close();
});

describe('connect', () => {
  it('initializes with the token and keeps what the daemon said', async () => {
    daemon({});
    const reins = await client();
    expect(FakeSocket.last?.sent[0]).toMatchObject({
      method: 'initialize',
      params: { token: 'secret', protocolVersion: 2 },
    });
    expect(reins.info).toEqual({ protocolVersion: 2, reinsVersion: '0.1.0', harnesses: ['codex'] });
  });

  it('turns a refused token into ReinsError auth_required', async () => {
    FakeSocket.answer = (request) => [fail(request, 'auth_required', 'The token is wrong.')];
    const error = await client().catch((reason: unknown) => reason);
    expect(codeOf(error)).toBe('auth_required');
  });

  it('refuses a daemon that speaks another protocol version', async () => {
    for (const version of [1, 3]) {
      FakeSocket.answer = (request) => [
        ok(request, { protocolVersion: version, reinsVersion: '9.0.0', harnesses: [] }),
      ];
      const error = await client().catch((reason: unknown) => reason);
      expect(codeOf(error)).toBe('protocol_error');
      expect((error as Error).message).toMatch(new RegExp(`protocol version ${version}; this client speaks 2`));
    }
  });

  it('says where the url comes from when nothing answers at it (a local daemon or a remote one)', async () => {
    /** A socket whose connection is refused: it never opens, it reports an error. */
    class RefusedSocket implements WebSocketLike {
      readyState = 0;
      send(): void {}
      close(): void {}
      addEventListener(type: string, listener: (event: unknown) => void): void {
        if (type === 'error') setTimeout(() => listener({ message: 'connect ECONNREFUSED 127.0.0.1:1' }), 0);
      }
    }
    const error = await connect({ url: 'ws://127.0.0.1:1', token: 't', WebSocket: RefusedSocket }).catch(
      (reason: unknown) => reason,
    );
    expect(codeOf(error)).toBe('process_exited');
    const message = (error as Error).message;
    expect(message).toContain('(connect ECONNREFUSED 127.0.0.1:1)');
    expect(message).toContain("daemon.json's `url` on the daemon's machine");
    expect(message).toContain('--listen or --public-origin');
  });

  /** A WebSocket class whose `new` gives a socket opened before (`new` on a plain function gives what it returns). */
  const handingOver = (socket: FakeSocket) =>
    function handOver() {
      return socket;
    } as unknown as typeof FakeSocket;

  it('takes a socket that opened before connect() was called, and refuses one that already failed', async () => {
    daemon({});
    // The console opens its socket before this code is loaded, so the open event is past.
    const early = new FakeSocket('ws://127.0.0.1:1');
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(early.readyState).toBe(1);
    const reins = await connect({
      url: 'ws://127.0.0.1:1',
      token: 'secret',
      WebSocket: handingOver(early),
      connectTimeoutMs: 1_000,
    });
    expect(early.sent[0]).toMatchObject({ method: 'initialize' });
    expect(reins.info.protocolVersion).toBe(2);

    const failed = new FakeSocket('ws://127.0.0.1:1');
    failed.close();
    const error = await connect({
      url: 'ws://127.0.0.1:1',
      token: 'secret',
      WebSocket: handingOver(failed),
      connectTimeoutMs: 1_000,
    }).catch((reason: unknown) => reason);
    expect(codeOf(error)).toBe('process_exited');
  });

  it('needs a WebSocket class where the runtime has none', async () => {
    vi.stubGlobal('WebSocket', undefined); // as in Node 20
    try {
      const error = await connect({ url: 'ws://127.0.0.1:1', token: 't' }).catch((reason: unknown) => reason);
      expect(codeOf(error)).toBe('invalid_input');
      expect((error as Error).message).toMatch(/pass one/);
    } finally {
      vi.unstubAllGlobals();
    }
  });
});

describe('requests', () => {
  it('reject with timeout when the daemon does not answer in time', async () => {
    daemon({});
    const reins = await client({ requestTimeoutMs: 50 });
    const error = await reins.listSessions().catch((reason: unknown) => reason);
    expect(codeOf(error)).toBe('timeout');
    expect((error as Error).message).toMatch(/session\/list within 50 ms/);
  });

  it('carry the daemon error code over as a ReinsError', async () => {
    daemon({ 'session/subscribe': (request) => [fail(request, 'invalid_input', 'Unknown session "nope".')] });
    const reins = await client();
    const error = await reins.attach('nope').catch((reason: unknown) => reason);
    expect(codeOf(error)).toBe('invalid_input');
    expect((error as Error).message).toBe('Unknown session "nope".');
  });

  it('reject an answer that does not fit the protocol with protocol_error', async () => {
    daemon({ 'session/list': (request) => [ok(request, [{ sessionId: 1 }])] });
    const reins = await client();
    expect(codeOf(await reins.listSessions().catch((reason: unknown) => reason))).toBe('protocol_error');
  });

  it('all reject with process_exited when the socket drops, and the client says it closed', async () => {
    daemon({});
    const reins = await client({ requestTimeoutMs: 10_000 });
    const pending = [reins.listSessions(), reins.harnesses()].map((request) =>
      request.catch((reason: unknown) => reason),
    );
    FakeSocket.last?.close();
    for (const error of await Promise.all(pending)) {
      expect(codeOf(error)).toBe('process_exited');
      expect((error as Error).message).toBe('The daemon connection closed.');
    }
    expect((await reins.closed).code).toBe('process_exited');
    expect(codeOf(await reins.listSessions().catch((reason: unknown) => reason))).toBe('process_exited');
  });
});

describe('RemoteSession events', () => {
  it('gets the replay that arrives in the same read as the subscribe answer, drops duplicates, follows native ids', async () => {
    daemon({
      'session/subscribe': (request) => [
        ok(request, { lastSeq: 2, harness: 'codex', nativeSessionId: 'thread-1', status: 'idle' }),
        status(1),
        event(2, { type: 'session.updated', nativeSessionId: 'thread-1' } as never),
        status(2), // a duplicate
        status(3),
        event(4, { type: 'session.updated', nativeSessionId: 'thread-2' } as never),
        event(5, { type: 'session.closed', reason: 'requested' } as never),
      ],
    });
    const reins = await client();
    const session = await reins.attach('s1');
    expect(session.harness).toBe('codex');
    const events = await collect(session.events);
    expect(events.map((item) => item.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(session.nativeSessionId).toBe('thread-2');
    expect(session.isClosed).toBe(true);
    expect(session.lastSeq).toBe(5);
  });

  it('resumes after afterSeq: earlier events are not delivered again', async () => {
    daemon({
      'session/subscribe': (request) => [
        ok(request, { lastSeq: 3, harness: 'codex', status: 'idle' }),
        status(3),
        event(4, { type: 'session.closed', reason: 'requested' } as never),
      ],
    });
    const reins = await client();
    const session = await reins.attach('s1', { afterSeq: 2 });
    expect(FakeSocket.last?.sent.at(-1)).toMatchObject({ params: { sessionId: 's1', afterSeq: 2 } });
    expect((await collect(session.events)).map((item) => item.seq)).toEqual([3, 4]);
  });

  it('drops session/event params that do not fit, and fails the link on an event frame that is not JSON-RPC', async () => {
    const bad = (seq: number, change: Record<string, unknown>) => {
      const frame = status(seq);
      return { ...frame, params: { ...frame.params, event: { ...frame.params.event, ...change } } };
    };
    daemon({
      'session/subscribe': (request) => [
        ok(request, { lastSeq: 3, harness: 'codex', status: 'idle' }),
        status(1),
        bad(2, { seq: 2.5 }), // dropped: not a whole seq
        bad(2, { type: '' }), // dropped: no type
        { ...status(2), params: { ...status(2).params, sessionId: '' } }, // dropped: no session id
        status(2),
        { ...status(3), jsonrpc: '1.0' }, // not JSON-RPC 2.0: the link cannot be trusted
        status(3),
      ],
    });
    const reins = await client();
    const session = await reins.attach('s1');
    const events = await collect(session.events);
    expect(events.map((item) => item.seq)).toEqual([1, 2]);
    // Handed on as the daemon sent it (the fast path does not copy or reorder the event).
    expect(Object.keys(events[0] as object)).toEqual(Object.keys(status(1).params.event));
    expect(session.endReason?.code).toBe('protocol_error');
    expect(session.endReason?.message).toBe('The daemon sent a malformed JSON-RPC notification.');
    expect(reins.isClosed).toBe(true);
  });

  it('ends the stream with protocol_error on a gap, saying where to resume', async () => {
    daemon({
      'session/subscribe': (request) => [
        ok(request, { lastSeq: 3, harness: 'codex', status: 'idle' }),
        status(1),
        status(3),
      ],
    });
    const reins = await client();
    const session = await reins.attach('s1');
    expect((await collect(session.events)).map((item) => item.seq)).toEqual([1]);
    expect(session.endReason?.code).toBe('protocol_error');
    expect(session.endReason?.message).toMatch(/afterSeq 1/);
  });

  it('ends the events iterable when the socket drops; the session can be attached again elsewhere', async () => {
    daemon({
      'session/subscribe': (request) => [ok(request, { lastSeq: 1, harness: 'codex', status: 'idle' }), status(1)],
    });
    const reins = await client();
    const session = await reins.attach('s1');
    const events = collect(session.events);
    setTimeout(() => FakeSocket.last?.close(), 5);
    expect((await events).map((item) => item.seq)).toEqual([1]);
    expect(session.endReason?.code).toBe('process_exited');
    expect(session.isClosed).toBe(false);
  });

  it('refuses a second attach of the same session on one connection', async () => {
    daemon({ 'session/subscribe': (request) => [ok(request, { lastSeq: 0, harness: 'codex', status: 'idle' })] });
    const reins = await client();
    await reins.attach('s1');
    expect(codeOf(await reins.attach('s1').catch((reason: unknown) => reason))).toBe('invalid_input');
  });

  it('sends Session calls as their methods', async () => {
    const answers: Record<string, unknown> = {
      'session/send': { turnId: 't1', delivery: 'started' },
      'session/setModel': { applied: 'next_turn' },
      'session/setEffort': { applied: 'live' },
      'session/interrupt': {},
      'session/respondToPermission': {},
      'session/close': {},
    };
    FakeSocket.answer = (request) => {
      if (request.method === 'initialize')
        return [ok(request, { protocolVersion: 2, reinsVersion: '0', harnesses: [] })];
      if (request.method === 'session/subscribe')
        return [ok(request, { lastSeq: 0, harness: 'codex', status: 'idle' })];
      return [ok(request, answers[request.method])];
    };
    const reins = await client();
    const session = await reins.attach('s1');
    expect(await session.send('hi', { mode: 'queue' })).toEqual({ turnId: 't1', delivery: 'started' });
    expect(await session.setModel('m2')).toEqual({ applied: 'next_turn' });
    expect(await session.setEffort('low')).toEqual({ applied: 'live' });
    await session.interrupt();
    await session.respondToPermission('r1', { behavior: 'deny' });
    await session.close();
    await session.close(); // idempotent: one session/close
    const sent = FakeSocket.last?.sent.slice(2) ?? [];
    expect(sent.map((request) => [request.method, request.params])).toEqual([
      ['session/send', { sessionId: 's1', input: 'hi', options: { mode: 'queue' } }],
      ['session/setModel', { sessionId: 's1', model: 'm2' }],
      ['session/setEffort', { sessionId: 's1', effort: 'low' }],
      ['session/interrupt', { sessionId: 's1' }],
      ['session/respondToPermission', { sessionId: 's1', requestId: 'r1', decision: { behavior: 'deny' } }],
      ['session/close', { sessionId: 's1' }],
    ]);
  });
});

const batch = (...frames: Array<ReturnType<typeof event>>) => ({
  jsonrpc: '2.0',
  method: 'session/events',
  params: { sessionId: 's1', events: frames.map((frame) => frame.params.event) },
});

describe('event batches (session/events)', () => {
  it('asks for them at initialize', async () => {
    daemon({});
    await client();
    expect(FakeSocket.last?.sent[0]?.params).toMatchObject({ capabilities: { eventBatches: true } });
  });

  it('unpacks a batch into the same events, in order, mixed with single frames, duplicates dropped across both', async () => {
    daemon({
      'session/subscribe': (request) => [
        ok(request, { lastSeq: 6, harness: 'codex', status: 'idle' }),
        batch(status(1), event(2, { type: 'session.updated', nativeSessionId: 'thread-1' } as never), status(3)),
        status(3), // a duplicate of the batch's last
        batch(status(2), status(3), status(4), status(5)), // 2 and 3 again: dropped, 4 and 5 taken
        event(6, { type: 'session.closed', reason: 'requested' } as never),
      ],
    });
    const reins = await client();
    const session = await reins.attach('s1');
    const events = await collect(session.events);
    expect(events.map((item) => item.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(session.nativeSessionId).toBe('thread-1');
    // Handed on as the daemon sent them (no copy, the daemon's key order).
    expect(Object.keys(events[0] as object)).toEqual(Object.keys(status(1).params.event));
    expect(session.isClosed).toBe(true);
  });

  it('delivers the same events for a batch as for the same events one per frame', async () => {
    const frames = [
      status(1),
      event(2, { type: 'turn.started', turnId: 't1', input: { text: 'hi' } } as never),
      event(3, { type: 'item.delta', turnId: 't1', itemId: 'm1', kind: 'text', text: 'he' } as never),
      event(4, { type: 'item.delta', turnId: 't1', itemId: 'm1', kind: 'text', text: 'llo' } as never),
      event(5, { type: 'session.closed', reason: 'requested' } as never),
    ];
    const replay = async (asBatch: boolean) => {
      daemon({
        'session/subscribe': (request) => [
          ok(request, { lastSeq: 5, harness: 'codex', status: 'idle' }),
          ...(asBatch ? [batch(...frames.slice(0, 3)), batch(...frames.slice(3))] : frames),
        ],
      });
      const reins = await client();
      const events = await collect((await reins.attach('s1')).events);
      reins.close();
      return events;
    };
    expect(await replay(true)).toEqual(await replay(false));
  });

  it('hands the runs as they arrived through batches (a single frame is a run of one)', async () => {
    daemon({
      'session/subscribe': (request) => [
        ok(request, { lastSeq: 5, harness: 'codex', status: 'idle' }),
        batch(status(1), status(2), status(3)),
        batch(status(2), status(3), status(4)), // 2 and 3 again: the run holds 4 only
        event(5, { type: 'session.closed', reason: 'requested' } as never),
      ],
    });
    const reins = await client();
    const session = await reins.attach('s1');
    expect(session.backlogSeq).toBe(5);
    const runs: number[][] = [];
    for await (const run of session.batches) runs.push(run.map((item) => item.seq));
    expect(runs).toEqual([[1, 2, 3], [4], [5]]);
    // One consumer: events and batches are two views of one stream.
    expect(() => session.events[Symbol.asyncIterator]()).toThrow(/already has a consumer/);
  });

  it('ends the stream at a gap inside a batch, after the events before it', async () => {
    daemon({
      'session/subscribe': (request) => [
        ok(request, { lastSeq: 4, harness: 'codex', status: 'idle' }),
        batch(status(1), status(2), status(4)),
      ],
    });
    const reins = await client();
    const session = await reins.attach('s1');
    expect((await collect(session.events)).map((item) => item.seq)).toEqual([1, 2]);
    expect(session.endReason?.code).toBe('protocol_error');
    expect(session.endReason?.message).toMatch(/afterSeq 2/);
  });

  it('drops a batch whole when any event in it does not fit, and keeps the link', async () => {
    const broken = batch(status(2), status(3));
    (broken.params.events[1] as Record<string, unknown>).seq = 0;
    daemon({
      'session/subscribe': (request) => [
        ok(request, { lastSeq: 3, harness: 'codex', status: 'idle' }),
        status(1),
        broken,
        { ...batch(status(2)), params: { sessionId: 's1', events: [] } }, // empty: dropped
        batch(status(2), status(3)),
        event(4, { type: 'session.closed', reason: 'requested' } as never),
      ],
    });
    const reins = await client();
    const session = await reins.attach('s1');
    expect((await collect(session.events)).map((item) => item.seq)).toEqual([1, 2, 3, 4]);
    expect(session.endReason).toBeUndefined();
    expect(reins.isClosed).toBe(false);
  });
});

describe('version 2', () => {
  it('hands status/snapshot and sessions/changed to listeners, keeps the newest snapshot, survives a throwing listener', async () => {
    daemon({});
    const reins = await client();
    const snapshots: unknown[] = [];
    const changes: unknown[] = [];
    reins.onStatusSnapshot(() => {
      throw new Error('a broken listener');
    });
    const stop = reins.onStatusSnapshot((params) => snapshots.push(params));
    reins.onSessionsChanged((params) => changes.push(params));
    const snapshot = { sessions: [{ sessionId: 's1', status: 'dormant', lastSeq: 4, updatedAt: 9 }] };
    FakeSocket.last?.deliver(
      { jsonrpc: '2.0', method: 'status/snapshot', params: snapshot },
      { jsonrpc: '2.0', method: 'sessions/changed', params: { sessionId: 's1', change: 'updated' } },
      // Malformed ones are ignored, not fatal.
      { jsonrpc: '2.0', method: 'sessions/changed', params: { sessionId: 's1', change: 'exploded' } },
      { jsonrpc: '2.0', method: 'status/snapshot', params: { sessions: [{ sessionId: 's1', status: 'asleep' }] } },
    );
    expect(snapshots).toEqual([snapshot]);
    expect(reins.lastSnapshot).toEqual(snapshot);
    expect(changes).toEqual([{ sessionId: 's1', change: 'updated' }]);
    stop();
    FakeSocket.last?.deliver({ jsonrpc: '2.0', method: 'status/snapshot', params: { sessions: [] } });
    expect(snapshots).toHaveLength(1);
    expect(reins.lastSnapshot).toEqual({ sessions: [] });
    expect(reins.isClosed).toBe(false);
  });

  it('deleteSession sends session/delete; send passes clientMessageId through', async () => {
    FakeSocket.answer = (request) => {
      if (request.method === 'initialize')
        return [ok(request, { protocolVersion: 2, reinsVersion: '0', harnesses: [] })];
      if (request.method === 'session/subscribe')
        return [ok(request, { lastSeq: 0, harness: 'codex', status: 'dormant' })];
      if (request.method === 'session/send') return [ok(request, { turnId: 'r1.turn_1', delivery: 'started' })];
      return [ok(request, {})];
    };
    const reins = await client();
    const session = await reins.attach('s1');
    await session.send('hi', { clientMessageId: 'bubble-7' });
    await reins.deleteSession('s1');
    const sent = FakeSocket.last?.sent.slice(2) ?? [];
    expect(sent.map((request) => [request.method, request.params])).toEqual([
      ['session/send', { sessionId: 's1', input: 'hi', options: { clientMessageId: 'bubble-7' } }],
      ['session/delete', { sessionId: 's1' }],
    ]);
  });
});
