import type { WebSocketLike } from '@reins/client';
import { ReinsError } from '@reins/core';
import { describe, expect, it } from 'vitest';
import { SocketTap } from './socket-tap.js';

/** A socket whose peer is the test: it sees what was sent and delivers frames by hand. */
class FakeSocket implements WebSocketLike {
  static last: FakeSocket | undefined;
  readyState = 1;
  readonly sent: string[] = [];
  private readonly listeners = new Map<string, Array<(event: unknown) => void>>();
  constructor(readonly url: string) {
    FakeSocket.last = this;
  }
  send(data: string): void {
    this.sent.push(data);
  }
  close(): void {
    this.readyState = 3;
    for (const listener of this.listeners.get('close') ?? []) listener({ code: 1000 });
  }
  addEventListener(type: string, listener: (event: unknown) => void): void {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
  }
  deliver(frame: unknown): void {
    for (const listener of this.listeners.get('message') ?? []) listener({ data: JSON.stringify(frame) });
  }
}

function tapped() {
  const tap = new SocketTap();
  const Socket = tap.wrap(FakeSocket);
  const socket = new Socket('ws://127.0.0.1:1');
  const seenByClient: unknown[] = [];
  socket.addEventListener('message', (event) => seenByClient.push(JSON.parse((event as { data: string }).data)));
  const fake = FakeSocket.last as FakeSocket;
  return { tap, socket, fake, seenByClient };
}

describe('SocketTap', () => {
  it("calls a method by name and takes its answer out of the client's stream", async () => {
    const { tap, fake, seenByClient } = tapped();
    const answer = tap.call('harness/models', { harness: 'codex' });
    const request = JSON.parse(fake.sent[0] as string);
    expect(request).toMatchObject({ jsonrpc: '2.0', method: 'harness/models', params: { harness: 'codex' } });
    expect(String(request.id)).toMatch(/^console:/);
    fake.deliver({ jsonrpc: '2.0', id: request.id, result: [{ id: 'gpt' }] });
    await expect(answer).resolves.toEqual([{ id: 'gpt' }]);
    // Frames for the client go through untouched.
    fake.deliver({ jsonrpc: '2.0', id: 7, result: {} });
    fake.deliver({ jsonrpc: '2.0', method: 'session/event', params: { sessionId: 's', event: { type: 'x', seq: 1 } } });
    expect(seenByClient).toHaveLength(2);
  });

  it("rejects with the daemon's own error: code and message as it sent them", async () => {
    const { tap, fake } = tapped();
    const answer = tap.call('session/fork', { sessionId: 's1' });
    const { id } = JSON.parse(fake.sent[0] as string);
    fake.deliver({
      jsonrpc: '2.0',
      id,
      error: {
        code: -32601,
        message: 'Unknown method "session/fork".',
        data: { code: 'invalid_input', message: 'Unknown method "session/fork". Methods: initialize, ...' },
      },
    });
    const error = await answer.catch((caught: unknown) => caught);
    expect(ReinsError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      code: 'invalid_input',
      message: expect.stringContaining('Unknown method "session/fork"'),
    });
  });

  it('hands notifications to listeners and still to the client; rejects calls pending when the socket closes', async () => {
    const { tap, fake, seenByClient } = tapped();
    const changes: unknown[] = [];
    tap.onNotification('harness/authChanged', (params) => changes.push(params));
    fake.deliver({ jsonrpc: '2.0', method: 'harness/authChanged', params: { harness: 'codex', status: 'ready' } });
    expect(changes).toEqual([{ harness: 'codex', status: 'ready' }]);
    expect(seenByClient).toHaveLength(1);
    const pending = tap.call('harness/auth/status', { harness: 'codex' });
    fake.close();
    await expect(pending).rejects.toMatchObject({ code: 'process_exited' });
    await expect(tap.call('harness/auth/status', { harness: 'codex' })).rejects.toMatchObject({
      code: 'process_exited',
    });
  });
});
