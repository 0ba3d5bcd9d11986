// claude-agent-acp 0.23.1 (pinned in harness-clis) through the Reins ACP adapter, against the
// scripted model server inside the loopback-only namespace.
import { assertHermetic, type ModelServer, startModelServer } from '@reins/testkit';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type AcpRig, acpRig } from '../../../test/support/acp-real.js';
import {
  cancelTurn,
  modelSwitch,
  providerError,
  resumeInNewProcess,
  shellTurn,
  textTurn,
  writeTurn,
} from '../../../test/support/acp-scenarios.js';
import { liveProcessCount } from '../../runtime/index.js';

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
  const scenario = context.task.name.replace(/[^a-z0-9]+/gi, '-').toLowerCase();
  rig = await acpRig('claude-agent-acp', server, { scenario, extraModels: ['fake-model-2'] });
});
afterEach(async () => {
  await rig.cleanup();
  expect(liveProcessCount()).toBe(0);
});

describe('claude-agent-acp 0.23.1', () => {
  it('text turn', () => textTurn(rig));
  it('shell tool turn', async () => {
    const tool = await shellTurn(rig);
    // 0.23.1 sends rawInput {} on tool_call; the input arrives in the next update and is kept.
    expect(tool.tool.name).toBe('Bash');
  });
  it('file write turn', () => writeTurn(rig));
  it('cancel mid-turn, and the next turn gets its own answer', () => cancelTurn(rig));
  it('resume in a new process', () => resumeInNewProcess(rig));
  // 0.23.1 lists Claude Code's aliases plus ANTHROPIC_MODEL; `haiku` resolves to a dated haiku id.
  it('model switch', () => modelSwitch(rig, 'haiku', /haiku/));
  // The home puts its extra model on 2.1.83's list through ANTHROPIC_CUSTOM_MODEL_OPTION.
  it('model switch to the extra model of the home', () => modelSwitch(rig, 'fake-model-2', 'fake-model-2'));
  it('provider error', () => providerError(rig));
});
