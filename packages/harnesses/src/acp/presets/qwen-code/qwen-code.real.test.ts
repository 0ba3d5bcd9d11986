// Qwen Code 0.24.4 (Node 24 from harness-clis first on its PATH) (pinned in harness-clis) through the Reins ACP adapter, against the
// scripted model server inside the loopback-only namespace.
import { assertHermetic, type ModelServer, startModelServer } from '@reins/testkit';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type AcpRig, acpRig } from '../../../../test/support/acp-real.js';
import {
  cancelTurn,
  modelSwitch,
  providerError,
  resumeInNewProcess,
  shellTurn,
  textTurn,
  writeTurn,
} from '../../../../test/support/acp-scenarios.js';
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
  const scenario = context.task.name.replace(/[^a-z0-9]+/gi, '-').toLowerCase();
  rig = await acpRig('qwen-code', server, { scenario, extraModels: ['fake-model-2'] });
});
afterEach(async () => {
  await rig.cleanup();
  expect(liveProcessCount()).toBe(0);
});

describe('qwen-code 0.24.4', () => {
  it('text turn', () => textTurn(rig));
  // 0.24.4 sends craft/drainMidTurnQueue mid-turn; Reins answers -32601 and the turn goes on.
  it('shell tool turn', async () => {
    // After the tool, 0.24.4 makes a side call the model server does not recognize as auxiliary
    // and it takes the scripted follow-up text; the tool item is what this test is about.
    const tool = await shellTurn(rig, { checkFinalText: false });
    expect(tool.tool.name).toBe('run_shell_command');
  });
  // 0.24.4's write_file refuses a relative path ("File path must be absolute"), and the model
  // server's write recipe sends the path relative, so the call is scripted by hand.
  it('file write turn', () =>
    writeTurn(rig, { toolCall: (path, content) => ['write_file', { file_path: path, content }] }));
  it('cancel mid-turn', () => cancelTurn(rig));
  it('resume in a new process', () => resumeInNewProcess(rig));
  // Model values carry the auth type: "fake-model-2(openai)"; the server sees the bare id.
  it('model switch', () => modelSwitch(rig, 'fake-model-2(openai)', 'fake-model-2'));
  it('provider error', () => providerError(rig));
});
