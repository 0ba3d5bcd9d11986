// Pi 0.73.1 smoke: one prompt over its JSONL RPC (`--mode rpc`) against the scripted chat completions API.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { reply } from '../src/model-server/index.js';
import { testTimeout } from './support/deadlines.js';
import { type RealHarness, scriptedRequests, setUpRealHarness } from './support/real-harness.js';

let harness: RealHarness;
beforeEach(async () => {
  harness = await setUpRealHarness('pi');
});
afterEach(async () => {
  await harness?.cleanup();
});

interface PiMessage {
  role?: string;
  content?: { type: string; text?: string }[];
  stopReason?: string;
}

it(
  'pi --mode rpc completes one scripted prompt',
  async () => {
    harness.server.enqueue(reply().text('hello from the scripted model'));
    const pi = harness.start();
    pi.write(JSON.stringify({ id: 'prompt-1', type: 'prompt', message: 'say hello' }));

    const response = await pi.waitForJson(
      'prompt response',
      (l) => l.type === 'response' && l.id === 'prompt-1',
      30_000,
    );
    expect(response).toMatchObject({ command: 'prompt', success: true });
    const end = await pi.waitForJson<{ messages: PiMessage[] }>('agent_end', (l) => l.type === 'agent_end', 20_000);
    const assistant = end.messages.find((message) => message.role === 'assistant');
    expect(assistant?.stopReason).toBe('stop');
    expect(assistant?.content?.filter((part) => part.type === 'text').map((part) => part.text)).toEqual([
      'hello from the scripted model',
    ]);

    const seen = scriptedRequests(harness.server);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ dialect: 'chat', path: '/v1/chat/completions', model: 'fake-model' });
    expect(seen[0]?.userText).toContain('say hello');
  },
  testTimeout(),
);
