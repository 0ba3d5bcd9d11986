// Claude Code smoke (the pinned CLI): one text turn in print mode with stream-json both ways (the Agent SDK's spawn
// line) against the scripted Anthropic Messages API.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { pinnedVersion } from '../src/hermetic/binaries.js';
import { reply } from '../src/model-server/index.js';
import { testTimeout } from './support/deadlines.js';
import { type RealHarness, scriptedRequests, setUpRealHarness } from './support/real-harness.js';

let harness: RealHarness;
beforeEach(async () => {
  harness = await setUpRealHarness('claude-code');
});
afterEach(async () => {
  await harness?.cleanup();
});

it(
  'claude -p stream-json completes one scripted text turn',
  async () => {
    harness.server.enqueue(reply().text('hello from the scripted model'));
    const claude = harness.start();
    claude.write(
      JSON.stringify({
        type: 'user',
        message: { role: 'user', content: 'say hello' },
        parent_tool_use_id: null,
        session_id: '',
      }),
    );

    const init = await claude.waitForJson('system/init', (l) => l.type === 'system' && l.subtype === 'init', 15_000);
    expect(init).toMatchObject({
      claude_code_version: pinnedVersion('claude-code'),
      model: 'fake-model',
      apiKeySource: 'ANTHROPIC_API_KEY',
    });
    const result = await claude.waitForJson('result', (l) => l.type === 'result', 20_000);
    expect(result).toMatchObject({ subtype: 'success', is_error: false, result: 'hello from the scripted model' });
    claude.child.stdin.end();

    const seen = scriptedRequests(harness.server);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ dialect: 'anthropic', path: '/v1/messages', model: 'fake-model' });
    expect(seen[0]?.userText).toContain('say hello');
  },
  testTimeout(),
);
