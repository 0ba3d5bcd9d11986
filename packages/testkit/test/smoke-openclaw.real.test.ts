// OpenClaw 2026.9.6 smoke: start the gateway (slow: the port opens after 15-19 s), WebSocket handshake,
// one chat.send turn against the scripted chat completions API.
// The gateway runs with a private /tmp (harness-homes/private-tmp.ts) because it writes /tmp/openclaw*.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { privateTmpDir } from '../src/harness-homes/index.js';
import { reply } from '../src/model-server/index.js';
import { testTimeout } from './support/deadlines.js';
import { GatewayConnection, waitForPort } from './support/openclaw-gateway.js';
import { type RealHarness, scriptedRequests, setUpRealHarness } from './support/real-harness.js';

let harness: RealHarness;
let gateway: GatewayConnection | undefined;
beforeEach(async () => {
  harness = await setUpRealHarness('openclaw');
});
afterEach(async () => {
  gateway?.close();
  await harness?.cleanup();
});

it(
  'openclaw gateway completes one scripted chat.send turn',
  async () => {
    const endpoint = harness.launch.home.endpoint;
    if (!endpoint) throw new Error('the OpenClaw home builder returns the gateway endpoint');
    harness.server.enqueue(reply().text('hello from the scripted model'));
    const process = harness.start();
    await waitForPort(Number(new URL(endpoint.url).port), 120_000, () => process.exit === undefined).catch((error) => {
      throw new Error(`${error.message}\n${process.describe()}`);
    });
    gateway = await GatewayConnection.open(endpoint.url, endpoint.token, 30_000);

    const sessionKey = 'agent:main:main';
    const runId = randomUUID();
    const sent = await gateway.request(
      'chat.send',
      { sessionKey, message: 'say hello', idempotencyKey: runId },
      10_000,
    );
    expect(sent.ok).toBe(true);
    const final = await gateway.waitFor(
      'chat final',
      () => gateway?.findEvent('chat', (p) => p.runId === runId && (p.state === 'final' || p.state === 'error')),
      90_000,
    );
    expect(final.payload).toMatchObject({
      state: 'final',
      message: { role: 'assistant', content: [{ type: 'text', text: 'hello from the scripted model' }] },
    });

    const seen = scriptedRequests(harness.server);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ dialect: 'chat', path: '/v1/chat/completions', model: 'fake-model' });
    expect(seen[0]?.userText).toContain('say hello');
    // Its fixed /tmp paths landed in the private /tmp of this test, not in the machine's /tmp.
    expect(existsSync(join(privateTmpDir(harness.tempHome), 'openclaw'))).toBe(true);
    // Deadlines sized for a loaded 2-core machine: the gateway's start is CPU-bound (2026.9.6: 15-19 s when
    // idle, over 60 s seen under load, the first turn another 10-30 s).
  },
  testTimeout(300_000),
);
