import { describe, expect, it } from 'vitest';
import type { JsonRpcPeer } from '../runtime/json-rpc.js';
import { readHistory } from './history.js';

/** An app-server that answers the two history questions from fixed pages (the shapes of 0.171.0). */
function appServer(answers: Record<string, unknown[]>): JsonRpcPeer {
  return {
    async request(method: string, params: { cursor?: string }) {
      const pages = answers[method];
      if (!pages) throw new Error(`unknown variant \`${method}\``);
      const index = params.cursor ? Number(params.cursor) : 0;
      return pages[index];
    },
  } as unknown as JsonRpcPeer;
}

const done = { startedAtMs: 1, completedAtMs: 2 };
const user = (id: string, text: string) => ({ type: 'userMessage', id, content: [{ type: 'text', text }], ...done });
const agent = (id: string, text: string) => ({ type: 'agentMessage', id, text, ...done });
const entry = (turnId: string, item: unknown) => ({ turnId, item, startedAtMs: null, completedAtMs: null });
const turn = (id: string, status: string) => ({ id, status, items: [], itemsView: 'notLoaded', error: null });

describe('Codex history', () => {
  it('keeps an interrupted turn interrupted and a failed one failed (the items alone say completed)', async () => {
    const peer = appServer({
      'thread/items/list': [
        {
          data: [entry('t1', user('u1', 'Count to ten.')), entry('t1', agent('a1', 'One, two'))],
          nextCursor: '1',
          backwardsCursor: null,
        },
        {
          data: [
            entry('t2', user('u2', 'Again.')),
            entry('t2', agent('a2', 'Sorry')),
            entry('t3', user('u3', 'Hi')),
            entry('t3', agent('a3', 'Hello')),
          ],
          nextCursor: null,
          backwardsCursor: null,
        },
      ],
      'thread/turns/list': [
        { data: [turn('t3', 'completed'), turn('t2', 'failed')], nextCursor: '1', backwardsCursor: null },
        { data: [turn('t1', 'interrupted')], nextCursor: null, backwardsCursor: null },
      ],
    });
    const items = await readHistory(peer, 'thread-1');
    expect(items.map((item) => [item.kind, item.status])).toEqual([
      ['user_message', 'completed'],
      ['agent_message', 'cancelled'],
      ['user_message', 'completed'],
      ['agent_message', 'failed'],
      ['user_message', 'completed'],
      ['agent_message', 'completed'],
    ]);
    expect(items[0]).toMatchObject({ text: 'Count to ten.', replay: true });
  });

  it("a turn status Codex does not name (even an inherited one like 'constructor') leaves the items as stored", async () => {
    const peer = appServer({
      'thread/items/list': [{ data: [entry('t1', agent('a1', 'Hi'))], nextCursor: null, backwardsCursor: null }],
      'thread/turns/list': [{ data: [turn('t1', 'constructor')], nextCursor: null, backwardsCursor: null }],
    });
    const items = await readHistory(peer, 'thread-1');
    expect(items.map((item) => item.status)).toEqual(['completed']);
  });

  it('shows the items as stored when the app-server cannot list turns', async () => {
    const peer = appServer({
      'thread/items/list': [{ data: [entry('t1', agent('a1', 'One, two'))], nextCursor: null, backwardsCursor: null }],
    });
    expect((await readHistory(peer, 'thread-1')).map((item) => item.status)).toEqual(['completed']);
  });
});
