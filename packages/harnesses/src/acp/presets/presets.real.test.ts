// Is one agent process safe to share (docs/architecture/contract.md, "Warm starts and shared
// processes")? For each pinned ACP agent whose preset shares its process: two sessions of two Harness
// objects land on one pid, a model switch in one leaves the other on its own model, and each turn
// gets its own answer with nothing of the other's prompt in its model request. An agent keeping one
// model per process would fail here, and its preset would have to keep sharing off.
import { assertHermetic, type ModelServer, reply, startModelServer } from '@reins/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type AcpRig, acpRig, agentTextWithoutGatewayNotice, type RealAcpId } from '../../../test/support/acp-real.js';
import { liveProcessCount } from '../../runtime/index.js';
import { claudeAgentAcpPreset } from './claude-agent-acp/preset.js';
import { codexAcpPreset } from './codex-acp/preset.js';
import { copilotPreset } from './copilot/preset.js';
import { geminiPreset } from './gemini/preset.js';
import { opencodePreset } from './opencode/preset.js';
import { qwenCodePreset } from './qwen-code/preset.js';

/** Per agent: the model the session switches to, the model the server then sees, the extra model of the home. */
const AGENTS: { id: RealAcpId; multiSession: boolean; alternate: string; serverModel: string; extra: string }[] = [
  {
    id: 'copilot',
    multiSession: copilotPreset.multiSession,
    alternate: 'fake-model-2',
    serverModel: 'fake-model-2',
    extra: 'fake-model-2',
  },
  {
    id: 'claude-agent-acp',
    multiSession: claudeAgentAcpPreset.multiSession,
    alternate: 'fake-model-2',
    serverModel: 'fake-model-2',
    extra: 'fake-model-2',
  },
  {
    id: 'gemini',
    multiSession: geminiPreset.multiSession,
    alternate: 'gemini-2.5-pro',
    serverModel: 'gemini-2.5-pro',
    extra: 'gemini-2.5-pro',
  },
  {
    id: 'qwen-code',
    multiSession: qwenCodePreset.multiSession,
    alternate: 'fake-model-2(openai)',
    serverModel: 'fake-model-2',
    extra: 'fake-model-2',
  },
  {
    id: 'opencode',
    multiSession: opencodePreset.multiSession,
    alternate: 'fake/fake-model-2',
    serverModel: 'fake-model-2',
    extra: 'fake-model-2',
  },
  {
    id: 'codex-acp',
    multiSession: codexAcpPreset.multiSession,
    alternate: 'fake-model-2',
    serverModel: 'fake-model-2',
    extra: 'fake-model-2',
  },
];

let server: ModelServer;
let rig: AcpRig | undefined;

beforeAll(async () => {
  await assertHermetic();
  server = await startModelServer();
});
afterAll(async () => {
  await server?.close();
});
afterEach(async () => {
  await rig?.cleanup();
  rig = undefined;
  expect(liveProcessCount()).toBe(0);
});

const requestWith = (text: string) =>
  server.requests.filter((request) => request.scripted).find((request) => JSON.stringify(request.body).includes(text));

describe.each(AGENTS.filter((agent) => agent.multiSession))('$id sharing one process', (agent) => {
  it('two sessions on one pid: a model switch in one leaves the other on its own model; own answers, own requests', async () => {
    server.reset();
    rig = await acpRig(agent.id, server, { scenario: 'shared-process', extraModels: [agent.extra] });
    server.when('Which model are you, A?', reply().text('A answers.'));
    server.when('Which model are you, B?', reply().text('B answers.'));
    const a = await rig.open();
    const b = await rig.open();
    expect(liveProcessCount()).toBe(1);
    expect(b.session.processId).toBe(a.session.processId);
    expect(await a.session.setModel(agent.alternate)).toEqual({ applied: 'live' });
    const sentA = await a.session.send('Which model are you, A?');
    const sentB = await b.session.send('Which model are you, B?');
    expect((await a.recorder.terminalOf(sentA)).outcome).toEqual({ status: 'completed' });
    expect((await b.recorder.terminalOf(sentB)).outcome).toEqual({ status: 'completed' });
    expect(agentTextWithoutGatewayNotice(a.recorder.turnEvents(sentA.turnId))).toBe('A answers.');
    expect(agentTextWithoutGatewayNotice(b.recorder.turnEvents(sentB.turnId))).toBe('B answers.');
    const requestA = requestWith('Which model are you, A?');
    const requestB = requestWith('Which model are you, B?');
    expect(requestA?.model).toBe(agent.serverModel);
    expect(requestB?.model).toBeDefined();
    expect(requestB?.model).not.toBe(agent.serverModel);
    expect(JSON.stringify(requestB?.body)).not.toContain('Which model are you, A?');
    expect(JSON.stringify(requestA?.body)).not.toContain('Which model are you, B?');
  });
});
