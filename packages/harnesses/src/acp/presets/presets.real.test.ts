// What every pinned ACP agent does alike through the Reins ACP adapter, against the scripted model server
// inside the loopback-only namespace: one row per agent (its pin and its quirks), the same scenarios for
// each (test/support/acp-scenarios.ts). Then, for each agent whose preset shares its process: is that safe
// (docs/architecture/contract.md, "Warm starts and shared processes")? Two sessions of two Harness objects
// land on one pid, a model switch in one leaves the other on its own model, and each turn gets its own
// answer with nothing of the other's prompt in its model request. What only one agent does is tested in its
// own folder (presets/<id>/<id>.real.test.ts).
import { assertHermetic, type ModelServer, pinnedVersion, reply, startModelServer } from '@reins/testkit';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type AcpRig, acpRig, agentTextWithoutGatewayNotice, type RealAcpId } from '../../../test/support/acp-real.js';
import {
  cancelTurn,
  modelSwitch,
  providerError,
  resumeInNewProcess,
  shellTurn,
  TABLE_PINS,
  textTurn,
  writeTurn,
} from '../../../test/support/acp-scenarios.js';
import { liveProcessCount } from '../../runtime/index.js';
import { acpPreset } from '../manifest.js';

/** One pinned agent and how it differs where the scenarios allow it. */
interface AgentRow {
  id: RealAcpId;
  /** The extra model of the home: the one to switch to. */
  extra: string;
  /** The model the session switches to, and the model the server then sees. */
  alternate: string;
  serverModel: string | RegExp;
  /** For the sharing check, when the scenarios' pin names its models otherwise. */
  shareAlternate?: { alternate: string; serverModel: string };
  shell?: { options?: Parameters<typeof shellTurn>[1]; name?: string; input?: unknown; output?: string };
  write?: Parameters<typeof writeTurn>[1];
  modelSwitch?: Parameters<typeof modelSwitch>[3];
  /** False where the agent cannot resume in a new process (its folder's test shows how that fails). */
  resumes: boolean;
  /** The stop reason of a turn the provider failed, where the agent reports it as text (end_turn). */
  providerStopReason?: string;
}

const AGENTS: AgentRow[] = [
  {
    id: 'copilot',
    extra: 'fake-model-2',
    alternate: 'fake-model-2',
    serverModel: 'fake-model-2',
    resumes: true, // session/load only (session/resume answers -32601 in 1.0.102).
    // 1.0.102 in BYOK mode lists no models (no model config option, no `models`) and takes any id
    // through the unadvertised session/set_model, so an unknown id cannot be refused up front.
    modelSwitch: { listsModels: false },
    // 1.0.102 reports the 400 as message text "Error: 400 ..." with stopReason end_turn.
    providerStopReason: 'end_turn',
  },
  {
    // 0.23.1, the previous pin (TABLE_PINS).
    id: 'claude-agent-acp',
    extra: 'fake-model-2',
    // 0.23.1 lists Claude Code's aliases plus ANTHROPIC_MODEL; `haiku` resolves to a dated haiku id.
    alternate: 'haiku',
    serverModel: /haiku/,
    shareAlternate: { alternate: 'fake-model-2', serverModel: 'fake-model-2' },
    // 0.23.1 sends rawInput {} on tool_call; the input arrives in the next update and is kept.
    shell: { name: 'Bash' },
    resumes: true,
  },
  {
    id: 'gemini',
    extra: 'gemini-2.5-pro',
    alternate: 'gemini-2.5-pro',
    serverModel: 'gemini-2.5-pro',
    // 0.61.0 announces its shell tool only through the permission request and tool_call_update.
    // It sends no rawInput (the command is the title) and no output at all.
    shell: {
      options: { reportsOutput: false },
      name: 'run_shell_command',
      input: { command: 'echo hello-from-tool > tool-out.txt && cat tool-out.txt' },
    },
    // 0.61.0 writes through fs/read_text_file + fs/write_text_file (the read of the new file must not fail),
    // and answers a provider error with JSON-RPC error code 400 and the provider's body. It cannot load in a
    // new process a session it wrote itself: gemini/gemini.real.test.ts shows the resume_failed.
    resumes: false,
  },
  {
    id: 'qwen-code',
    extra: 'fake-model-2',
    // Model values carry the auth type: "fake-model-2(openai)"; the server sees the bare id.
    alternate: 'fake-model-2(openai)',
    serverModel: 'fake-model-2',
    // 0.24.4 sends craft/drainMidTurnQueue mid-turn; Reins answers -32601 and the turn goes on. After the
    // tool, 0.24.4 makes a side call the model server does not recognize as auxiliary and it takes the
    // scripted follow-up text; the tool item is what the scenario is about.
    shell: { options: { checkFinalText: false }, name: 'run_shell_command' },
    // 0.24.4's write_file refuses a relative path ("File path must be absolute"), and the model
    // server's write recipe sends the path relative, so the call is scripted by hand.
    write: { toolCall: (path, content) => ['write_file', { file_path: path, content }] },
    resumes: true,
  },
  {
    id: 'opencode',
    extra: 'fake-model-2',
    alternate: 'fake/fake-model-2',
    serverModel: 'fake-model-2',
    resumes: true,
  },
  {
    // The catalog's ids are the model option's values as they are.
    id: 'codex-acp',
    extra: 'fake-model-2',
    alternate: 'fake-model-2',
    serverModel: 'fake-model-2',
    resumes: true,
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

const scenarioOf = (name: string) => name.replace(/[^a-z0-9]+/gi, '-').toLowerCase();

const rows = AGENTS.map((agent) => {
  const pin = TABLE_PINS[agent.id];
  return { ...agent, pin, version: pinnedVersion(agent.id, pin) };
});

it('has one row for every agent whose scenarios the ACP conformance lanes leave to this table', () => {
  expect(AGENTS.map((agent) => agent.id).sort()).toEqual(Object.keys(TABLE_PINS).sort());
});

describe.each(rows)('$id $version', (agent) => {
  let current: AcpRig;
  beforeEach(async (context) => {
    server.reset();
    current = await acpRig(agent.id, server, {
      scenario: scenarioOf(context.task.name),
      extraModels: [agent.extra],
      pin: agent.pin,
    });
    rig = current;
  });

  it('text turn', () => textTurn(current));
  it('shell tool turn', async () => {
    const tool = await shellTurn(current, agent.shell?.options);
    if (agent.shell?.name) expect(tool.tool.name).toBe(agent.shell.name);
    if (agent.shell?.input) expect(tool.input).toEqual(agent.shell.input);
  });
  it('file write turn', () => writeTurn(current, agent.write));
  it('cancel mid-turn, and the next turn gets its own answer', () => cancelTurn(current));
  it.runIf(agent.resumes)('resume in a new process', () => resumeInNewProcess(current));
  it('model switch', () => modelSwitch(current, agent.alternate, agent.serverModel, agent.modelSwitch));
  it('provider error', async () => {
    const completed = await providerError(current);
    if (agent.providerStopReason) expect(completed.stopReason).toBe(agent.providerStopReason);
  });
});

const requestWith = (text: string) =>
  server.requests.filter((request) => request.scripted).find((request) => JSON.stringify(request.body).includes(text));

describe.each(AGENTS.filter((agent) => acpPreset(agent.id).multiSession))('$id sharing one process', (agent) => {
  const { alternate, serverModel } = agent.shareAlternate ?? agent;
  it('two sessions on one pid: a model switch in one leaves the other on its own model; own answers, own requests', async () => {
    server.reset();
    rig = await acpRig(agent.id, server, { scenario: 'shared-process', extraModels: [agent.extra] });
    server.when('Which model are you, A?', reply().text('A answers.'));
    server.when('Which model are you, B?', reply().text('B answers.'));
    const a = await rig.open();
    const b = await rig.open();
    expect(liveProcessCount()).toBe(1);
    expect(b.session.processId).toBe(a.session.processId);
    expect(await a.session.setModel(alternate)).toEqual({ applied: 'live' });
    const sentA = await a.session.send('Which model are you, A?');
    const sentB = await b.session.send('Which model are you, B?');
    expect((await a.recorder.terminalOf(sentA)).outcome).toEqual({ status: 'completed' });
    expect((await b.recorder.terminalOf(sentB)).outcome).toEqual({ status: 'completed' });
    expect(agentTextWithoutGatewayNotice(a.recorder.turnEvents(sentA.turnId))).toBe('A answers.');
    expect(agentTextWithoutGatewayNotice(b.recorder.turnEvents(sentB.turnId))).toBe('B answers.');
    const requestA = requestWith('Which model are you, A?');
    const requestB = requestWith('Which model are you, B?');
    expect(requestA?.model).toBe(serverModel);
    expect(requestB?.model).toBeDefined();
    expect(requestB?.model).not.toBe(serverModel);
    expect(JSON.stringify(requestB?.body)).not.toContain('Which model are you, A?');
    expect(JSON.stringify(requestA?.body)).not.toContain('Which model are you, B?');
  });
});
