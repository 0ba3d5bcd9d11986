// Gemini CLI 0.61.0 smoke: one ACP text turn (initialize, session/new, session/prompt) against the scripted model server.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { reply } from '../src/model-server/index.js';
import { runAcpTextTurn } from './support/acp.js';
import { testTimeout } from './support/deadlines.js';
import { type RealHarness, scriptedRequests, setUpRealHarness } from './support/real-harness.js';

let harness: RealHarness;
beforeEach(async () => {
  harness = await setUpRealHarness('gemini');
});
afterEach(async () => {
  await harness?.cleanup();
});

it(
  'gemini completes one scripted ACP text turn',
  async () => {
    harness.server.enqueue(reply().text('hello from the scripted model'));
    const agent = harness.start();
    const turn = await runAcpTextTurn(agent, { cwd: harness.workspace, prompt: 'say hello' });

    expect(turn.stopReason).toBe('end_turn');
    expect(turn.text).toBe('hello from the scripted model');
    const seen = scriptedRequests(harness.server);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ dialect: 'gemini-api' });
    expect(seen[0]?.userText).toContain('say hello');
  },
  testTimeout(),
);
