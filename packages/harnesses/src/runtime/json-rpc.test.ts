import { ReinsError } from '@reins/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { JsonRpcHandlerError, JsonRpcPeer, type JsonRpcPeerOptions } from './json-rpc.js';

function peer(options: Partial<JsonRpcPeerOptions> = {}) {
  const sent: Record<string, unknown>[] = [];
  const rpc = new JsonRpcPeer({
    label: 'test peer',
    send: (line) => {
      sent.push(JSON.parse(line));
      return true;
    },
    ...options,
  });
  return { rpc, sent };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('JsonRpcPeer', () => {
  it('matches responses that arrive out of order', async () => {
    const { rpc, sent } = peer();
    const first = rpc.request('a', {});
    const second = rpc.request('b', { x: 1 });
    expect(sent).toEqual([
      { id: 1, method: 'a', params: {} },
      { id: 2, method: 'b', params: { x: 1 } },
    ]);
    rpc.receive({ id: 2, result: 'B' });
    rpc.receive({ id: 1, result: 'A' });
    await expect(first).resolves.toBe('A');
    await expect(second).resolves.toBe('B');
    expect(rpc.pendingCount).toBe(0);
  });

  it('reads the answer to a request written elsewhere (a first line) without writing anything', async () => {
    const { rpc, sent } = peer({ defaultTimeoutMs: 50 });
    const answer = rpc.expectAnswer(0, 'initialize');
    const own = rpc.request('thread/start', {}, { timeoutMs: 5_000 });
    expect(sent).toEqual([{ id: 1, method: 'thread/start', params: {} }]);
    rpc.receive({ id: 0, result: { userAgent: 'x' } });
    await expect(answer).resolves.toEqual({ userAgent: 'x' });
    // Unanswered, it times out naming the method, as a request does.
    await expect(rpc.expectAnswer(0, 'initialize')).rejects.toMatchObject({
      code: 'timeout',
      message: expect.stringMatching(/initialize within 50 ms/),
    });
    rpc.close(new Error('gone'));
    await expect(own).rejects.toThrow('gone');
    await expect(rpc.expectAnswer(0, 'initialize')).rejects.toThrow('gone');
  });

  it('adds the jsonrpc member only when asked', () => {
    const { rpc, sent } = peer({ includeVersion: true });
    rpc.notify('initialized', {});
    expect(sent[0]).toEqual({ jsonrpc: '2.0', method: 'initialized', params: {} });
  });

  it('turns an error response into a protocol_error carrying the rpc code', async () => {
    const { rpc } = peer();
    const pending = rpc.request('thread/resume', {});
    rpc.receive({ id: 1, error: { code: -32600, message: 'no rollout found' } });
    const error = await pending.catch((e: unknown) => e);
    expect(ReinsError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'protocol_error', data: { rpcCode: -32600, rpcMessage: 'no rollout found' } });
  });

  it('puts a deadline on every request', async () => {
    vi.useFakeTimers();
    const { rpc } = peer({ defaultTimeoutMs: 50 });
    const pending = rpc.request('slow', {}).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(60);
    expect(await pending).toMatchObject({ code: 'timeout', message: expect.stringMatching(/slow within 50 ms/) });
    expect(rpc.pendingCount).toBe(0);
  });

  it('rejects every pending request when the connection closes, and refuses new ones', async () => {
    const { rpc } = peer();
    const a = rpc.request('a', {}).catch((e: unknown) => e);
    const b = rpc.request('b', {}).catch((e: unknown) => e);
    const gone = new ReinsError('process_exited', 'child died');
    rpc.close(gone);
    expect(await a).toBe(gone);
    expect(await b).toBe(gone);
    await expect(rpc.request('c', {})).rejects.toBe(gone);
  });

  it('rejects at once when the message cannot be written', async () => {
    const rpc = new JsonRpcPeer({ label: 'dead', send: () => false });
    await expect(rpc.request('x', {})).rejects.toMatchObject({ code: 'process_exited' });
  });

  it('serves requests from the other side, with errors and method-not-found', async () => {
    const { rpc, sent } = peer({
      onRequest: async (method, params) => {
        if (method === 'approve') return { decision: 'accept', params };
        throw new JsonRpcHandlerError(-32001, 'denied');
      },
    });
    rpc.receive({ id: 'srv-1', method: 'approve', params: { cmd: 'ls' } });
    rpc.receive({ id: 'srv-2', method: 'other', params: {} });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(sent).toEqual([
      { id: 'srv-1', result: { decision: 'accept', params: { cmd: 'ls' } } },
      { id: 'srv-2', error: { code: -32001, message: 'denied' } },
    ]);

    const bare = peer();
    bare.rpc.receive({ id: 7, method: 'craft/drainMidTurnQueue', params: {} });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(bare.sent).toEqual([
      { id: 7, error: { code: -32601, message: 'Method not found: craft/drainMidTurnQueue' } },
    ]);
  });

  it('routes notifications and strays', () => {
    const notifications: string[] = [];
    const strays: unknown[] = [];
    const { rpc } = peer({
      onNotification: (method) => notifications.push(method),
      onStray: (frame) => strays.push(frame),
    });
    rpc.receive({ method: 'turn/started', params: {} });
    rpc.receive({ id: 99, result: 'nobody asked' });
    rpc.receive('garbage');
    expect(notifications).toEqual(['turn/started']);
    expect(strays).toEqual([{ id: 99, result: 'nobody asked' }, 'garbage']);
  });

  it('numbers requests from the ids it is given and hands out the id (the bridge asks its clients so)', async () => {
    let next = 40;
    const { rpc, sent } = peer({ nextId: () => next++ });
    const asked = rpc.start('item/commandExecution/requestApproval', { n: 1 });
    expect(asked.id).toBe(40);
    expect(sent).toEqual([{ id: 40, method: 'item/commandExecution/requestApproval', params: { n: 1 } }]);
    rpc.receive({ id: 40, result: { decision: 'accept' } });
    await expect(asked.answer).resolves.toEqual({ decision: 'accept' });
  });

  it('forgets a request on demand: it rejects, and its late answer is a stray', async () => {
    const strays: unknown[] = [];
    const { rpc } = peer({ onStray: (frame) => strays.push(frame) });
    const asked = rpc.start('approve', {});
    rpc.forget(asked.id, new Error('withdrawn'));
    await expect(asked.answer).rejects.toThrow('withdrawn');
    rpc.receive({ id: asked.id, result: 'late' });
    expect(strays).toEqual([{ id: asked.id, result: 'late' }]);
  });

  it('answers errors for requests read elsewhere, puts extra members on a notification, and writes nothing once closed', async () => {
    const { rpc, sent } = peer({ onRequest: async () => ({ slow: true }) });
    rpc.answerError(null, { code: -32700, message: 'Parse error' });
    rpc.notify('turn/started', { n: 1 }, { emittedAtMs: 5 });
    expect(sent).toEqual([
      { id: null, error: { code: -32700, message: 'Parse error' } },
      { method: 'turn/started', params: { n: 1 }, emittedAtMs: 5 },
    ]);
    rpc.receive({ id: 3, method: 'work', params: {} });
    rpc.close(new Error('the client disconnected'));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(rpc.answerError(4, { code: -32600, message: 'too long' })).toBe(false);
    const late = rpc.start('approve', {});
    await expect(late.answer).rejects.toThrow('the client disconnected');
    expect(sent).toHaveLength(2);
  });
});
