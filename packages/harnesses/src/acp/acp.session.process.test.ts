// The ACP session on the session chassis, against the fake ACP agent: the stall watchdog, interrupt
// cancelling the running AND the queued turns, user_message with clientMessageId, the one
// closed-session error, every spec field honoured or refused, a bad cwd, and frames from a newer or
// broken agent (an unknown stop reason, a frame whose translation throws, a permission request the
// translation cannot place) that must leave the session usable with a passthrough and a warning.
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PermissionRequestedEvent, ReinsEvent, SessionSpec } from '@reins/core';
import { fakeHarnessPath, SessionRecorder } from '@reins/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { liveProcessCount } from '../runtime/index.js';
import { AcpHarness, type AcpPreset, type AcpQuirks, createAcpHarness } from './index.js';
import { claudeAgentAcpPreset } from './presets/claude-agent-acp/preset.js';
import type { AcpSession } from './session.js';

const FAKE = fakeHarnessPath('acp');

let dir: string;
let cwd: string;
const opened: SessionRecorder[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reins-acp-session-'));
  cwd = join(dir, 'work');
  await mkdir(cwd);
});
afterEach(async () => {
  try {
    // Closing checks each session's stream invariants (one terminal per turn, items settled, seq).
    await SessionRecorder.closeAll(opened.splice(0));
    expect(liveProcessCount()).toBe(0);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

function env(scenario: unknown, extra: Record<string, string> = {}) {
  return {
    PATH: process.env.PATH,
    FAKE_ACP_SCENARIO: JSON.stringify(scenario),
    FAKE_ACP_STORE: join(dir, 'store'),
    FAKE_ACP_LOG: join(dir, 'log.jsonl'),
    ...extra,
  };
}

function harness(scenario: unknown = {}, extra: Record<string, string> = {}) {
  return createAcpHarness({ command: FAKE, baseEnv: env(scenario, extra), requestTimeoutMs: 5000 });
}

async function open(h: { createSession(spec: SessionSpec): Promise<unknown> }, spec: Partial<SessionSpec> = {}) {
  const session = (await h.createSession({ cwd, ...spec })) as AcpSession;
  const recorder = new SessionRecorder(session, 30_000);
  opened.push(recorder);
  return { session, recorder };
}

/** What the fake agent received, by method. */
function received(method: string): { params: Record<string, unknown> }[] {
  return readFileSync(join(dir, 'log.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line))
    .filter((message) => message.method === method);
}

const promptText = (message: { params: Record<string, unknown> }) =>
  (message.params.prompt as { text?: string }[]).map((block) => block.text ?? '').join('');

const of = <T extends ReinsEvent['type']>(events: readonly ReinsEvent[], type: T) =>
  events.filter((event): event is Extract<ReinsEvent, { type: T }> => event.type === type);

const agentText = (events: readonly ReinsEvent[]) =>
  of(events, 'item.completed')
    .map((event) => (event.item.kind === 'agent_message' ? event.item.text : ''))
    .join('');

const warnings = (events: readonly ReinsEvent[]) => of(events, 'notice').filter((event) => event.kind === 'warning');

describe('acp session on the chassis', () => {
  it('every turn carries one user_message item with the caller clientMessageId', async () => {
    const schema = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] };
    const { session, recorder } = await open(harness({ replies: [{ steps: [{ text: '{"n": 1}' }] }] }));
    const sent = await session.send('Count.', { clientMessageId: 'bubble-1', outputSchema: schema });
    expect((await recorder.terminalOf(sent)).structuredOutput).toEqual({ n: 1 });
    const users = of(recorder.turnEvents(sent.turnId), 'item.completed').filter(
      (event) => event.item.kind === 'user_message',
    );
    // The caller's words, not the structured-output instruction the agent was sent with them.
    expect(users.map((event) => event.item)).toEqual([
      expect.objectContaining({ kind: 'user_message', text: 'Count.', clientMessageId: 'bubble-1' }),
    ]);
    expect(promptText(received('session/prompt')[0] as { params: Record<string, unknown> })).toContain(
      'Answer with a single JSON value',
    );
  });

  it('an agent echoing the prompt inside the turn does not make a second user_message', async () => {
    const echo = { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'Hello.' } };
    const { session, recorder } = await open(harness({ replies: [{ steps: [{ update: echo }, { text: 'Hi.' }] }] }));
    const sent = await session.send('Hello.');
    await recorder.terminalOf(sent);
    const events = recorder.turnEvents(sent.turnId);
    expect(of(events, 'item.completed').filter((event) => event.item.kind === 'user_message')).toHaveLength(1);
    const echoed = of(events, 'passthrough').filter(
      (event) => (event.frame as { params?: { update?: unknown } }).params?.update !== undefined,
    );
    expect(echoed.map((event) => (event.frame as { params: { update: unknown } }).params.update)).toContainEqual(echo);
  });

  it('a turn the agent accepts and then goes silent ends failed with timeout; the agent is cancelled and the queued turn gets its own answer', async () => {
    const { session, recorder } = await open(
      harness({ replies: [{ match: 'silent', steps: [{ text: 'started' }, { sleep: 600_000 }] }] }),
      { stallTimeoutMs: 500 },
    );
    const silent = await session.send('silent please');
    const next = await session.send('next');
    expect(next.delivery).toBe('queued');
    const stalled = await recorder.terminalOf(silent);
    expect(stalled.outcome).toMatchObject({
      status: 'failed',
      error: { code: 'timeout', retryable: true, message: expect.stringContaining('stallTimeoutMs') },
    });
    const after = await recorder.terminalOf(next);
    expect(after.outcome).toEqual({ status: 'completed' });
    expect(agentText(recorder.turnEvents(next.turnId))).toBe('echo: next');
    expect(received('session/cancel')).toHaveLength(1);
    // The agent's late answer to the abandoned prompt is shown, and ends nothing.
    expect(
      recorder
        .ofType('passthrough')
        .some((event) => (event.frame as { stopReason?: string } | null)?.stopReason === 'cancelled'),
    ).toBe(true);
    await recorder.close();
    expect(recorder.ofType('turn.completed')).toHaveLength(2);
  });

  it('an agent that ignores cancel too: the stall still ends the turn and close still works', async () => {
    const { session, recorder } = await open(harness({}, { FAKE_ACP_HANG: '1' }), { stallTimeoutMs: 500 });
    const sent = await session.send('anything');
    expect((await recorder.terminalOf(sent)).outcome).toMatchObject({ status: 'failed', error: { code: 'timeout' } });
    await recorder.close();
    expect(recorder.events.at(-1)?.type).toBe('session.closed');
  });

  it('a pending approval holds the stall watchdog: the user may take longer than stallTimeoutMs', async () => {
    const { session, recorder } = await open(
      harness({
        replies: [{ steps: [{ permission: { toolCall: { toolCallId: 'p1', title: 'ls', kind: 'execute' } } }] }],
      }),
      { posture: 'ask', stallTimeoutMs: 300 },
    );
    const sent = await session.send('ask me');
    const request = await recorder.waitFor(
      (event): event is PermissionRequestedEvent => event.type === 'permission.requested',
      'permission.requested',
    );
    // Three stall periods with the request unanswered.
    await new Promise((resolve) => setTimeout(resolve, 900));
    expect(recorder.turnEvents(sent.turnId).some((event) => event.type === 'turn.completed')).toBe(false);
    await session.respondToPermission(request.requestId, { behavior: 'allow' });
    const completed = await recorder.terminalOf(sent);
    expect(completed.outcome).toEqual({ status: 'completed' });
    expect(agentText(recorder.turnEvents(sent.turnId))).toBe('[permission selected:allow]');
  });

  it('interrupt cancels the running turn and every queued one, each with one terminal; the agent never gets the queued prompts', async () => {
    const { session, recorder } = await open(
      harness({ replies: [{ match: 'slow', steps: [{ text: 'working' }, { waitForCancel: true }] }] }),
    );
    const running = await session.send('slow one');
    const queued = [await session.send('queued one'), await session.send('queued two')];
    expect(queued.map((sent) => sent.delivery)).toEqual(['queued', 'queued']);
    await recorder.waitFor((event) => event.type === 'item.delta', 'a delta');
    await session.interrupt();
    expect(await recorder.terminalOf(running)).toMatchObject({
      outcome: { status: 'cancelled' },
      stopReason: 'cancelled',
    });
    for (const sent of queued) {
      expect((await recorder.terminalOf(sent)).outcome).toEqual({ status: 'cancelled' });
      // A caller holding the queued turn's id sees it start and end, with its input.
      expect(of(recorder.turnEvents(sent.turnId), 'turn.started')).toHaveLength(1);
    }
    expect(received('session/prompt')).toHaveLength(1);
    const again = await session.send('after');
    expect((await recorder.terminalOf(again)).outcome).toEqual({ status: 'completed' });
    expect(agentText(recorder.turnEvents(again.turnId))).toBe('echo: after');
    expect(received('session/prompt').map(promptText)).toEqual(['slow one', 'after']);
    await recorder.close();
    expect(recorder.ofType('turn.completed')).toHaveLength(4);
  });

  it('images to an agent that takes none are refused at send, before any turn starts', async () => {
    const { session, recorder } = await open(harness({ agentCapabilities: { promptCapabilities: { image: false } } }));
    await expect(
      session.send({ text: 'Look.', images: [{ source: 'data', data: 'aGk=', mediaType: 'image/png' }] }),
    ).rejects.toMatchObject({ code: 'unsupported_capability', data: { capability: 'images' } });
    expect(recorder.ofType('turn.started')).toEqual([]);
    expect((await recorder.turn('Words only.')).outcome).toEqual({ status: 'completed' });
  });

  it('a closed session answers every call with the one closed-session error', async () => {
    const { session, recorder } = await open(harness());
    await recorder.close();
    const closed = { code: 'invalid_input', data: { reason: 'session_closed' } };
    await expect(session.send('hi')).rejects.toMatchObject(closed);
    await expect(session.setModel('fake-model-2')).rejects.toMatchObject(closed);
    await expect(session.setEffort('high')).rejects.toMatchObject(closed);
    await expect(session.setMode('plan')).rejects.toMatchObject(closed);
    await expect(session.respondToPermission('perm_1', { behavior: 'allow' })).rejects.toMatchObject(closed);
    await expect(session.interrupt()).resolves.toBeUndefined();
  });

  it('an unknown stop reason from a newer agent: passthrough and one warning, the turn completes, the session goes on', async () => {
    const { session, recorder } = await open(
      harness({ replies: [{ match: 'first', steps: [{ text: 'done' }, { stop: 'future_reason' }] }] }),
    );
    const first = await session.send('first');
    const completed = await recorder.terminalOf(first);
    expect(completed).toMatchObject({ outcome: { status: 'completed' }, stopReason: 'future_reason' });
    const events = recorder.turnEvents(first.turnId);
    expect(of(events, 'passthrough').filter((event) => event.reason === 'unknown')).toEqual([
      expect.objectContaining({ frame: { stopReason: 'future_reason' } }),
    ]);
    expect(warnings(events)).toEqual([
      expect.objectContaining({ data: expect.objectContaining({ reason: 'unknown' }) }),
    ]);
    const second = await session.send('second');
    expect((await recorder.terminalOf(second)).outcome).toEqual({ status: 'completed' });
    expect(agentText(recorder.turnEvents(second.turnId))).toBe('echo: second');
  });

  it('a frame whose translation throws mid-turn becomes a passthrough with one warning; the session goes on', async () => {
    // A preset's quirk rule runs inside the translation of every message chunk: here it fails on one.
    const h = quirkyHarness(
      {
        statusChunk: (text) => {
          if (text.includes('BOOM')) throw new TypeError('quirk rule broke');
          return undefined;
        },
      },
      { replies: [{ match: 'first', steps: [{ text: 'before ' }, { text: 'BOOM' }, { text: 'after' }] }] },
    );
    const { session, recorder } = await open(h);
    const first = await session.send('first');
    expect((await recorder.terminalOf(first)).outcome).toEqual({ status: 'completed' });
    const events = recorder.turnEvents(first.turnId);
    const broken = of(events, 'passthrough').filter((event) => event.reason === 'untranslatable');
    expect(broken.map((event) => JSON.stringify(event.frame))).toEqual([expect.stringContaining('BOOM')]);
    expect(warnings(events)).toEqual([
      expect.objectContaining({
        data: expect.objectContaining({ reason: 'untranslatable', method: 'session/update' }),
      }),
    ]);
    expect(agentText(events)).toBe('before after');
    expect((await recorder.turn('second')).outcome).toEqual({ status: 'completed' });
  });

  it('a permission request whose translation throws is still shown and answerable under posture ask', async () => {
    // The tool-name quirk runs when a permission names a tool call the agent never announced.
    const h = quirkyHarness(
      {
        toolNameFromId: () => {
          throw new TypeError('quirk rule broke');
        },
      },
      { replies: [{ steps: [{ permission: { toolCall: { toolCallId: 'p9', title: 'warp', kind: 'execute' } } }] }] },
    );
    const { session, recorder } = await open(h, { posture: 'ask' });
    const sent = await session.send('go');
    const request = await recorder.waitFor(
      (event): event is PermissionRequestedEvent => event.type === 'permission.requested',
      'permission.requested',
    );
    expect(request).toMatchObject({ tool: { kind: 'other', name: 'tool' } });
    expect(request.options.map((option) => option.id)).toEqual(['allow', 'reject']);
    await session.respondToPermission(request.requestId, { behavior: 'allow' });
    expect((await recorder.terminalOf(sent)).outcome).toEqual({ status: 'completed' });
    const events = recorder.turnEvents(sent.turnId);
    expect(agentText(events)).toBe('[permission selected:allow]');
    expect(of(events, 'passthrough').some((event) => event.reason === 'untranslatable')).toBe(true);
  });
});

/** A generic ACP harness on the fake whose preset carries the given translation quirks. */
function quirkyHarness(translate: AcpQuirks['translate'], scenario: unknown) {
  const preset: AcpPreset = {
    id: 'acp',
    displayName: 'Quirky agent',
    binary: { id: 'acp', names: ['acp-agent.mjs'] },
    args: () => [],
    multiSession: false,
    quirks: { ...(translate ? { translate } : {}) },
    testedVersions: [],
  };
  return new AcpHarness(preset, { binaryPath: FAKE, baseEnv: env(scenario), requestTimeoutMs: 5000 });
}

describe('acp session spec: every field honoured or refused', () => {
  it('refuses what the agent cannot honour, naming the field, and a cwd that is missing or not a directory', async () => {
    await expect(harness().createSession({ cwd, allowedTools: ['Bash'] })).rejects.toMatchObject({
      code: 'unsupported_capability',
      data: { field: 'allowedTools' },
    });
    // The fake advertises no session/delete: an ephemeral session would be kept, so it is refused.
    await expect(harness().createSession({ cwd, ephemeral: true })).rejects.toMatchObject({
      code: 'unsupported_capability',
      data: { field: 'ephemeral' },
      message: expect.stringContaining('session/delete'),
    });
    expect(liveProcessCount()).toBe(0);
    const missing = join(dir, 'nope');
    await expect(harness().createSession({ cwd: missing })).rejects.toMatchObject({
      code: 'invalid_input',
      data: { field: 'cwd' },
      message: expect.stringContaining(`${missing} does not exist`),
    });
    const file = join(dir, 'a-file');
    await writeFile(file, 'x');
    await expect(harness().createSession({ cwd: file })).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringContaining('is not a directory'),
    });
  });

  it('honours model, effort, system prompt additions and MCP servers', async () => {
    const { session, recorder } = await open(harness(), {
      model: 'fake-model-2',
      effort: 'high',
      systemPrompt: { append: 'Always be brief.' },
      mcpServers: [{ name: 'files', transport: 'stdio', command: 'mcp-files', args: ['--ro'], env: { A: '1' } }],
    });
    await recorder.turn('one');
    await recorder.turn('two');
    const newSession = received('session/new')[0]?.params;
    expect(newSession?.mcpServers).toEqual([
      { name: 'files', command: 'mcp-files', args: ['--ro'], env: [{ name: 'A', value: '1' }] },
    ]);
    expect(received('session/set_config_option').map((message) => message.params.value)).toEqual([
      'fake-model-2',
      'high',
    ]);
    // The additions go ahead of the first prompt only.
    expect(received('session/prompt').map(promptText)).toEqual(['Always be brief.\n\none', 'two']);
    expect(recorder.ofType('session.updated')).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ model: 'fake-model-2' }),
        expect.objectContaining({ effort: 'high' }),
      ]),
    );
    void session;
  });

  it('ephemeral is honoured where the agent offers session/delete: the conversation is gone after close', async () => {
    const scenario = {
      agentCapabilities: { loadSession: true, sessionCapabilities: { resume: {}, close: {}, delete: {} } },
    };
    const { session, recorder } = await open(harness(scenario), { ephemeral: true });
    await recorder.turn('forget me');
    const nativeSessionId = session.nativeSessionId as string;
    await recorder.close();
    expect(received('session/delete').map((message) => message.params.sessionId)).toEqual([nativeSessionId]);
    await expect(harness(scenario).createSession({ cwd, resume: { nativeSessionId } })).rejects.toMatchObject({
      code: 'resume_failed',
    });
  });

  it('allowedTools reaches claude-agent-acp in its _meta, on session/new and on the reopen after a cancel', async () => {
    const h = new AcpHarness(claudeAgentAcpPreset, {
      binaryPath: FAKE,
      baseEnv: env({ replies: [{ match: 'slow', steps: [{ text: 'working' }, { waitForCancel: true }] }] }),
      requestTimeoutMs: 5000,
    });
    const { session, recorder } = await open(h, { allowedTools: ['Bash', 'Read'] });
    const meta = { claudeCode: { options: { allowedTools: ['Bash', 'Read'] } } };
    expect(received('session/new')[0]?.params._meta).toEqual(meta);
    const slow = await session.send('slow one');
    await recorder.waitFor((event) => event.type === 'item.delta', 'a delta');
    await session.interrupt();
    await recorder.terminalOf(slow);
    expect((await recorder.turn('next')).outcome).toEqual({ status: 'completed' });
    // The preset's off-by-one fix reopens the native session; the reopened one keeps the tools.
    expect(received('session/resume').map((message) => message.params._meta)).toEqual([meta]);
  });
});
