// Codex smoke (the pinned CLI): one text turn through `codex app-server` (JSON-RPC over stdio, no "jsonrpc"
// field, as in 0.169.0 and 0.171.0) against the scripted Responses API.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { reply } from '../src/model-server/index.js';
import { testTimeout } from './support/deadlines.js';
import { JsonRpcPeer } from './support/json-rpc.js';
import { type RealHarness, setUpRealHarness } from './support/real-harness.js';

let harness: RealHarness;
beforeEach(async () => {
  harness = await setUpRealHarness('codex');
});
afterEach(async () => {
  await harness?.cleanup();
});

it(
  'codex app-server completes one scripted text turn',
  async () => {
    harness.server.enqueue(reply().text('hello from the scripted model'));
    const codex = harness.start();
    const rpc = new JsonRpcPeer(codex, { jsonrpcField: false });

    await rpc.request('initialize', { clientInfo: { name: 'reins-smoke', title: null, version: '0.0.0' } }, 10_000);
    rpc.notify('initialized', {});
    const thread = (await rpc.request(
      'thread/start',
      { cwd: harness.workspace, model: 'fake-model', approvalPolicy: 'never', sandbox: 'danger-full-access' },
      10_000,
    )) as { thread: { id: string } };
    await rpc.request(
      'turn/start',
      { threadId: thread.thread.id, input: [{ type: 'text', text: 'say hello' }] },
      10_000,
    );

    const completed = await rpc.waitForNotification('turn/completed', (m) => m.method === 'turn/completed', 20_000);
    expect(completed.params).toMatchObject({ turn: { status: 'completed' } });
    const agentMessage = rpc.notifications.find(
      (m) => m.method === 'item/completed' && (m.params as { item?: { type?: string } }).item?.type === 'agentMessage',
    );
    expect(agentMessage?.params).toMatchObject({ item: { text: 'hello from the scripted model' } });

    const seen = harness.server.requests.filter((request) => request.scripted);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ dialect: 'responses', path: '/v1/responses', model: 'fake-model' });
    expect(seen[0]?.userText).toContain('say hello');
  },
  testTimeout(),
);
