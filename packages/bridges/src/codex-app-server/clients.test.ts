// Several clients on one bridge: notifications to every initialized client less its own opt-outs,
// approvals to the newest client still there, request ids unique across connections.
import { describe, expect, it } from 'vitest';
import { Clients, initializeClient } from './clients.js';

function setup() {
  const clients = new Clients();
  const lines: Record<string, unknown[]> = { a: [], b: [] };
  const add = (name: 'a' | 'b') =>
    clients.add({
      send: (line) => lines[name]?.push(JSON.parse(line)),
      onRequest: async () => ({}),
      onNotification: () => {},
      log: () => {},
    });
  return { clients, lines, add };
}

const identity = { harness: 'pi' };

describe('Clients', () => {
  it('tells every initialized client, each less what it opted out of', () => {
    const { clients, lines, add } = setup();
    const a = add('a');
    const b = add('b');
    clients.notify('turn/started', { n: 0 });
    expect(lines.a).toEqual([]);
    initializeClient(a, { capabilities: { optOutNotificationMethods: ['item/agentMessage/delta'] } }, identity);
    initializeClient(b, {}, identity);
    clients.notify('item/agentMessage/delta', { n: 1 });
    clients.notify('turn/completed', { n: 2 });
    expect(lines.a).toMatchObject([{ method: 'turn/completed' }]);
    expect(lines.b).toMatchObject([{ method: 'item/agentMessage/delta' }, { method: 'turn/completed' }]);
    expect(() => initializeClient(a, {}, identity)).toThrow('Already initialized');
  });

  it('asks the newest client still there, with ids unique across connections; a client gone fails its question', async () => {
    const { clients, lines, add } = setup();
    const a = add('a');
    const b = add('b');
    initializeClient(a, {}, identity);
    initializeClient(b, {}, identity);
    const first = clients.request('item/commandExecution/requestApproval', {}, 5_000);
    expect(lines.b).toMatchObject([{ id: first.id, method: 'item/commandExecution/requestApproval' }]);
    clients.remove(b, new Error('The client disconnected.'));
    await expect(first.answer).rejects.toThrow('The client disconnected.');
    const second = clients.request('item/fileChange/requestApproval', {}, 5_000);
    expect(second.id).not.toBe(first.id);
    expect(lines.a).toMatchObject([{ id: second.id, method: 'item/fileChange/requestApproval' }]);
    a.connection.receive(JSON.stringify({ id: second.id, result: { decision: 'accept' } }));
    await expect(second.answer).resolves.toEqual({ decision: 'accept' });
    clients.remove(a, new Error('gone'));
    await expect(clients.request('x', {}, 5_000).answer).rejects.toThrow('No client is connected');
  });
});
