// claude-agent-acp (the current pin, 0.101.0 when written) driven in ACP v2 by the Reins ACP adapter
// (harness option protocolVersion: 2), against the scripted model server inside the loopback-only
// namespace. The agent runs with CLAUDE_AGENT_ACP_PROTOCOL=v2, under which it refuses a v1 initialize
// (-32022): a session that opens at all was negotiated in v2. The v1 side of the same pin is the
// conformance suite's (packages/testkit/test/conformance-*.real.test.ts).
import { assertHermetic, type ModelServer, startModelServer } from '@reins/testkit';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type AcpRig, acpRig } from '../../../../test/support/acp-real.js';
import { resumeInNewProcess, shellTurn, textTurn } from '../../../../test/support/acp-scenarios.js';
import { liveProcessCount } from '../../../runtime/index.js';

let server: ModelServer;
let rig: AcpRig;

beforeAll(async () => {
  await assertHermetic();
  server = await startModelServer();
});
afterAll(async () => {
  await server?.close();
});
beforeEach(async (context) => {
  server.reset();
  const scenario = `v2-${context.task.name.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}`;
  rig = await acpRig('claude-agent-acp', server, {
    scenario,
    harnessOptions: { protocolVersion: 2 },
    env: { CLAUDE_AGENT_ACP_PROTOCOL: 'v2' },
  });
});
afterEach(async () => {
  await rig.cleanup();
  expect(liveProcessCount()).toBe(0);
});

describe('claude-agent-acp in ACP v2', () => {
  // One terminal per turn, the text once (textTurn checks both): the ack + state_update idle lifecycle.
  it('text turn', () => textTurn(rig), 240_000);
  // The command's output arrives through the agent's display terminal (terminal_update, base64).
  it('shell tool turn', async () => {
    const tool = await shellTurn(rig);
    expect(tool.output?.text ?? '').toContain('hello-from-tool');
  }, 240_000);
  // session/load is v2's session/resume with replay from the start.
  it('resume in a new process', () => resumeInNewProcess(rig), 240_000);
});
