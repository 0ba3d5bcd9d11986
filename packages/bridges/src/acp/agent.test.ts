// The bridge's agent side in memory: an AcpBridge joined to an SDK ACP client by two in-memory
// streams, in front of a scripted fake Harness. Checks what the process tests cannot see: what the
// harness was asked to do (setModel, respondToPermission, interrupt, close), and message order.
import { type AnyMessage, client, RequestError } from '@agentclientprotocol/sdk/unstable';
import {
  computeCapabilities,
  type Effort,
  type Harness,
  type ImplementedCapabilities,
  type Item,
  type PermissionDecision,
  ReinsError,
  type Session,
  SessionEventStream,
  type SessionSpec,
  type TurnInput,
} from '@reins/core';
import { until } from '@reins/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { acpViolations } from '../../test/support/acp-schema.js';
import { memoryRecords, type RecordStore } from '../records.js';
import { AcpBridge } from './agent.js';

/** Every message each bridge wrote, checked against the ACP SDK's schema when the test ends. */
const wires: { sent: Record<string, unknown>[]; received: Record<string, unknown>[] }[] = [];
afterEach(() => {
  const violations = wires.splice(0).flatMap((wire) => acpViolations(wire.sent, wire.received));
  expect(violations).toEqual([]);
});

function tap(into: Record<string, unknown>[]): TransformStream<AnyMessage, AnyMessage> {
  return new TransformStream<AnyMessage, AnyMessage>({
    transform(message, controller) {
      into.push(structuredClone(message) as Record<string, unknown>);
      controller.enqueue(message);
    },
  });
}

class FakeSession implements Session {
  readonly id = 'reins-session-1';
  readonly harness = 'codex' as const;
  readonly stream = new SessionEventStream({ harness: 'codex', sessionId: this.id });
  readonly calls: string[] = [];
  readonly decisions: [string, PermissionDecision][] = [];
  readonly inputs: TurnInput[] = [];
  closed = false;

  constructor(
    readonly spec: SessionSpec,
    readonly nativeSessionId: string | undefined,
    /** The harness names its model at once (Claude Code 2.1.197 does only at the first turn). */
    reportsModel = true,
  ) {
    const model = spec.model ?? 'fake-model';
    this.stream.emit({ type: 'session.started', cwd: spec.cwd, ...(reportsModel ? { model } : {}) });
    this.stream.emit({
      type: 'session.updated',
      ...(reportsModel ? { model } : {}),
      ...(nativeSessionId ? { nativeSessionId } : {}),
    });
  }

  get events() {
    return this.stream.events;
  }

  async send(input: TurnInput | string) {
    const turnInput = typeof input === 'string' ? { text: input } : input;
    this.inputs.push(turnInput);
    const turnId = this.stream.startTurn(turnInput) as string;
    return { turnId, delivery: 'started' as const };
  }

  async interrupt() {
    this.calls.push('interrupt');
    if (this.stream.activeTurnId) this.stream.completeTurn({ outcome: { status: 'cancelled' } });
  }

  async setModel(model: string) {
    this.calls.push(`setModel:${model}`);
    this.stream.emit({ type: 'session.updated', model });
    return { applied: 'next_turn' as const };
  }

  async setEffort(effort: Effort): Promise<{ applied: 'live' }> {
    this.calls.push(`setEffort:${effort}`);
    if (effort === 'max') {
      throw new ReinsError('unsupported_capability', 'This fake cannot think that hard.', { harness: 'codex' });
    }
    return { applied: 'live' };
  }

  async respondToPermission(requestId: string, decision: PermissionDecision) {
    this.decisions.push([requestId, decision]);
  }

  async close() {
    this.closed = true;
    this.stream.close('requested');
  }
}

class FakeHarness implements Harness {
  readonly id = 'codex' as const;
  readonly displayName = 'Fake Codex';
  readonly sessions: FakeSession[] = [];
  history?: (id: string) => Promise<Item[]>;
  /** A broken fork: the "forked" session comes back on the source's id. */
  forkReopens = false;

  constructor(
    private readonly implemented: ImplementedCapabilities = { resume: true, liveEffortSwitch: true },
    private readonly nativeIds = true,
    private readonly catalog: { id: string; isDefault?: boolean; efforts?: Effort[] }[] = [
      { id: 'fake-model' },
      { id: 'fake-model-2', efforts: ['low', 'high'] },
    ],
    private readonly reportsModel = true,
    /** Like Amp: a session spec naming a model is refused. */
    private readonly takesModel = true,
  ) {}

  async discover() {
    return { found: false as const, searched: [], hint: 'fake' };
  }
  async health() {
    return { status: 'ready' as const };
  }
  async capabilities() {
    return computeCapabilities({ implemented: this.implemented });
  }
  async models() {
    return this.catalog;
  }
  async createSession(spec: SessionSpec) {
    if (!this.takesModel && spec.model !== undefined) {
      throw new ReinsError('unsupported_capability', 'Reins cannot honour choosing a model (spec.model) on Fake.', {
        harness: this.id,
        operation: 'createSession',
        data: { field: 'model' },
      });
    }
    const fresh = this.nativeIds ? `thread-${this.sessions.length + 1}` : undefined;
    const forked = spec.resume?.fork === true && !this.forkReopens;
    const native = forked ? `fork-${this.sessions.length + 1}` : (spec.resume?.nativeSessionId ?? fresh);
    const session = new FakeSession(spec, native, this.reportsModel);
    this.sessions.push(session);
    return session;
  }
}

type Received = { kind: 'update'; sessionId: string; update: Record<string, unknown> } | { kind: 'answer'; id: string };

/** An ACP client joined to a fresh bridge; records updates and lets a test answer permission requests. */
function connect(
  harness: FakeHarness,
  onPermission?: (params: Record<string, unknown>, signal: AbortSignal) => unknown,
  records: RecordStore = memoryRecords(),
) {
  const wire = { sent: [] as Record<string, unknown>[], received: [] as Record<string, unknown>[] };
  wires.push(wire);
  const toAgent = tap(wire.sent);
  const toClient = tap(wire.received);
  const bridge = new AcpBridge({ harness, requestTimeoutMs: 2_000, permissionTimeoutMs: 2_000, records });
  bridge.connect({ readable: toAgent.readable, writable: toClient.writable });
  const received: Received[] = [];
  const connection = client()
    .onNotification('*', ({ params }) => {
      const { sessionId, update } = params as { sessionId: string; update: Record<string, unknown> };
      received.push({ kind: 'update', sessionId, update });
    })
    .onRequest('*', ({ method, params, signal }) => {
      if (method !== 'session/request_permission' || !onPermission) throw RequestError.methodNotFound(method);
      return onPermission(params as Record<string, unknown>, signal);
    })
    .connect({ readable: toClient.readable, writable: toAgent.writable });
  const request = async <T = Record<string, unknown>>(method: string, params: unknown) => {
    const answer = await connection.agent.request<T>(method, params);
    received.push({ kind: 'answer', id: method });
    return answer;
  };
  return { bridge, connection, received, request };
}

async function started(
  harness = new FakeHarness(),
  onPermission?: Parameters<typeof connect>[1],
  options: { clientCapabilities?: Record<string, unknown>; records?: RecordStore } = {},
) {
  const joined = connect(harness, onPermission, options.records);
  const init = await joined.request('initialize', {
    protocolVersion: 1,
    clientCapabilities: options.clientCapabilities ?? {},
  });
  const created = await joined.request<{
    sessionId: string;
    configOptions: Record<string, unknown>[];
    modes?: { currentModeId: string; availableModes: { id: string }[] };
  }>('session/new', {
    cwd: '/work',
    mcpServers: [],
  });
  const session = harness.sessions.at(-1) as FakeSession;
  return { ...joined, init, created, session, harness };
}

describe('AcpBridge', () => {
  it('advertises what the adapter implements: load and resume with resume, images only with images', async () => {
    const { init } = await started();
    expect(init).toMatchObject({
      protocolVersion: 1,
      agentCapabilities: {
        loadSession: true,
        promptCapabilities: { image: false },
        sessionCapabilities: { close: {}, resume: {} },
      },
      authMethods: [],
    });
    const bare = await started(new FakeHarness({ images: 'path' }));
    expect(bare.init).toMatchObject({
      agentCapabilities: {
        loadSession: false,
        promptCapabilities: { image: true },
        sessionCapabilities: { close: {} },
      },
    });
  });

  it('names the session by its native id, offers the catalog, and sends nothing about it before the answer', async () => {
    const { created, received } = await started();
    expect(created.sessionId).toBe('thread-1');
    expect(created.configOptions).toEqual([
      expect.objectContaining({ id: 'model', currentValue: 'fake-model' }),
      expect.objectContaining({ id: 'effort', currentValue: 'default' }),
    ]);
    const answerAt = received.findIndex((entry) => entry.kind === 'answer' && entry.id === 'session/new');
    await until(() => received.some((entry) => entry.kind === 'update'), 'the held session_info_update');
    const firstUpdate = received.findIndex((entry) => entry.kind === 'update');
    expect(firstUpdate).toBeGreaterThan(answerAt);
    // The config options went with the answer; they are not sent a second time.
    expect(
      received.filter((entry) => entry.kind === 'update' && entry.update.sessionUpdate === 'config_option_update'),
    ).toEqual([]);
  });

  it('hands out a bridge id when the harness has no native id yet', async () => {
    const { created } = await started(new FakeHarness({}, false));
    expect(created.sessionId).toMatch(/^reins-[0-9a-f-]{36}$/);
  });

  it('streams a turn before its answer and answers end_turn', async () => {
    const { request, received, session, created } = await started();
    const answer = request('session/prompt', { sessionId: created.sessionId, prompt: [{ type: 'text', text: 'Hi' }] });
    await until(() => session.inputs.length === 1, 'the turn');
    expect(session.inputs[0]).toEqual({ text: 'Hi' });
    session.stream.emit({
      type: 'item.started',
      item: { kind: 'agent_message', id: 'msg_1', status: 'running', text: '' },
    });
    session.stream.emit({ type: 'item.delta', itemId: 'msg_1', kind: 'text', text: 'Hello.' });
    session.stream.completeTurn({ outcome: { status: 'completed' } });
    expect(await answer).toEqual({ stopReason: 'end_turn' });
    const chunk = received.findIndex(
      (entry) => entry.kind === 'update' && entry.update.sessionUpdate === 'agent_message_chunk',
    );
    const answered = received.findIndex((entry) => entry.kind === 'answer' && entry.id === 'session/prompt');
    expect(chunk).toBeGreaterThanOrEqual(0);
    expect(chunk).toBeLessThan(answered);
  });

  it('answers a failed turn with a JSON-RPC error carrying the Reins error', async () => {
    const { request, session, created } = await started();
    const answer = request('session/prompt', { sessionId: created.sessionId, prompt: [{ type: 'text', text: 'Hi' }] });
    await until(() => session.inputs.length === 1, 'the turn');
    const error = {
      code: 'provider_error' as const,
      message: 'The model provider failed.',
      data: { kind: 'server_error' },
    };
    session.stream.completeTurn({ outcome: { status: 'failed', error } });
    await expect(answer).rejects.toMatchObject({ code: -32603, message: 'The model provider failed.', data: error });
  });

  it('interrupts on session/cancel and answers cancelled', async () => {
    const { request, connection, session, created } = await started();
    const answer = request('session/prompt', { sessionId: created.sessionId, prompt: [{ type: 'text', text: 'Hi' }] });
    await until(() => session.inputs.length === 1, 'the turn');
    await connection.agent.notify('session/cancel', { sessionId: created.sessionId });
    expect(await answer).toEqual({ stopReason: 'cancelled' });
    expect(session.calls).toContain('interrupt');
  });

  it('switches model and effort through config options, and refuses what the harness cannot do as not available', async () => {
    const { request, session, created } = await started();
    const model = await request<{ configOptions: { id: string; currentValue: string }[] }>(
      'session/set_config_option',
      {
        sessionId: created.sessionId,
        configId: 'model',
        value: 'fake-model-2',
      },
    );
    expect(session.calls).toEqual(['setModel:fake-model-2']);
    expect(model.configOptions.map((option) => [option.id, option.currentValue])).toEqual([
      ['model', 'fake-model-2'],
      ['effort', 'default'],
    ]);
    await request('session/set_config_option', { sessionId: created.sessionId, configId: 'effort', value: 'high' });
    expect(session.calls).toContain('setEffort:high');
    await expect(
      request('session/set_config_option', { sessionId: created.sessionId, configId: 'effort', value: 'max' }),
    ).rejects.toMatchObject({ code: -32601, data: { code: 'unsupported_capability' } });
    await expect(
      request('session/set_config_option', { sessionId: created.sessionId, configId: 'effort', value: 'ultra' }),
    ).rejects.toMatchObject({ code: -32602, data: { code: 'invalid_input' } });
    await request('session/set_model', { sessionId: created.sessionId, modelId: 'legacy-model' });
    expect(session.calls).toContain('setModel:legacy-model');
  });

  it('asks the client for permission and passes its choice to the harness', async () => {
    let asked: Record<string, unknown> | undefined;
    const { request, session, created } = await started(new FakeHarness(), (params) => {
      asked = params;
      return { outcome: { outcome: 'selected', optionId: 'always' } };
    });
    void request('session/prompt', { sessionId: created.sessionId, prompt: [{ type: 'text', text: 'Go' }] });
    await until(() => session.inputs.length === 1, 'the turn');
    session.stream.emit({
      type: 'permission.requested',
      requestId: 'req_1',
      tool: { kind: 'command', name: 'exec_command', title: 'make' },
      options: [
        { id: 'once', kind: 'allow_once', label: 'Allow' },
        { id: 'always', kind: 'allow_always', label: 'Always' },
      ],
    });
    await until(() => session.decisions.length === 1, 'the decision');
    expect(asked).toMatchObject({ sessionId: created.sessionId, toolCall: { title: 'make', status: 'pending' } });
    expect(session.decisions).toEqual([['req_1', { behavior: 'allow', scope: 'session', optionId: 'always' }]]);
    session.stream.completeTurn({ outcome: { status: 'completed' } });
  });

  it('withdraws the client request when the harness settles the permission itself', async () => {
    let withdrawn = false;
    const { request, session, created } = await started(
      new FakeHarness(),
      (_params, signal) =>
        new Promise((resolve) =>
          signal.addEventListener('abort', () => {
            withdrawn = true;
            resolve({ outcome: { outcome: 'cancelled' } });
          }),
        ),
    );
    void request('session/prompt', { sessionId: created.sessionId, prompt: [{ type: 'text', text: 'Go' }] });
    await until(() => session.inputs.length === 1, 'the turn');
    session.stream.emit({
      type: 'permission.requested',
      requestId: 'req_2',
      tool: { kind: 'command', name: 'x' },
      options: [],
    });
    session.stream.emit({
      type: 'permission.resolved',
      requestId: 'req_2',
      decision: { behavior: 'deny' },
      by: 'timeout',
    });
    await until(() => withdrawn, 'the $/cancel_request');
    session.stream.completeTurn({ outcome: { status: 'completed' } });
  });

  it('loads a session by its native id and replays stored history before the answer', async () => {
    const harness = new FakeHarness();
    harness.history = async () => [
      { kind: 'user_message', id: 'u1', status: 'completed', text: 'Remember ZEBRA.', replay: true },
      { kind: 'agent_message', id: 'm1', status: 'completed', text: 'Noted.' },
    ];
    const { request, received } = connect(harness);
    await request('initialize', { protocolVersion: 1 });
    await request('session/load', { sessionId: 'thread-old', cwd: '/work', mcpServers: [] });
    expect(harness.sessions[0]?.spec.resume).toEqual({ nativeSessionId: 'thread-old' });
    const kinds = received.map((entry) => (entry.kind === 'answer' ? entry.id : String(entry.update.sessionUpdate)));
    expect(kinds.slice(kinds.indexOf('initialize') + 1)).toEqual(
      expect.arrayContaining(['user_message_chunk', 'agent_message_chunk', 'session/load']),
    );
    expect(kinds.indexOf('agent_message_chunk')).toBeLessThan(kinds.indexOf('session/load'));
  });

  it('closes the harness session on session/close and every session when the connection ends', async () => {
    const { request, session, created, harness, bridge, connection } = await started();
    await request('session/close', { sessionId: created.sessionId });
    expect(session.closed).toBe(true);
    await request('session/new', { cwd: '/work', mcpServers: [] });
    await request('session/new', { cwd: '/work', mcpServers: [] });
    expect(bridge.sessionCount).toBe(2);
    connection.close();
    await until(() => harness.sessions.every((open) => open.closed), 'every session closed');
    await expect(request('session/new', { cwd: '/work', mcpServers: [] })).rejects.toBeDefined();
  });

  it('refuses a relative cwd with invalid params', async () => {
    const { request } = connect(new FakeHarness());
    await request('initialize', { protocolVersion: 1 });
    await expect(request('session/new', { cwd: 'relative/dir', mcpServers: [] })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringMatching(/absolute path/),
    });
  });

  it('sends notices only to a client that advertised session.notices', async () => {
    for (const [capabilities, expected] of [
      [{}, 0],
      [{ session: { notices: {} } }, 2],
    ] as const) {
      const { request, received, session, created } = await started(new FakeHarness(), undefined, {
        clientCapabilities: capabilities,
      });
      const answer = request('session/prompt', {
        sessionId: created.sessionId,
        prompt: [{ type: 'text', text: 'Hi' }],
      });
      await until(() => session.inputs.length === 1, 'the turn');
      session.stream.emit({ type: 'notice', kind: 'retry', message: 'Retrying in 2 s.' });
      session.stream.emit({ type: 'error', code: 'provider_error', message: 'Upstream hiccup.', fatal: false });
      session.stream.completeTurn({ outcome: { status: 'completed' } });
      await answer;
      const notices = received.filter((entry) => entry.kind === 'update' && entry.update.sessionUpdate === 'notice');
      expect(notices).toHaveLength(expected);
    }
  });

  it('offers the model option at session/new even before the harness names its model (Claude Code)', async () => {
    const harness = new FakeHarness(
      { resume: true },
      true,
      [{ id: 'default', isDefault: true }, { id: 'haiku' }],
      false,
    );
    const { request, created, session } = await started(harness);
    expect(created.configOptions).toEqual([
      expect.objectContaining({
        id: 'model',
        currentValue: 'default',
        options: [
          { value: 'default', name: 'default' },
          { value: 'haiku', name: 'haiku' },
        ],
      }),
    ]);
    await request('session/set_config_option', { sessionId: created.sessionId, configId: 'model', value: 'haiku' });
    expect(session.calls).toEqual(['setModel:haiku']);
  });

  it('resumes a session in a new bridge on the model it ran', async () => {
    const records = memoryRecords();
    const first = await started(new FakeHarness(), undefined, { records });
    await first.request('session/set_config_option', {
      sessionId: first.created.sessionId,
      configId: 'model',
      value: 'fake-model-2',
    });
    first.connection.close();
    const harness = new FakeHarness();
    const second = connect(harness, undefined, records);
    await second.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    const resumed = await second.request<{ configOptions: { id: string; currentValue: string }[] }>('session/resume', {
      sessionId: 'thread-1',
      cwd: '/work',
    });
    expect(harness.sessions[0]?.spec).toMatchObject({ model: 'fake-model-2', resume: { nativeSessionId: 'thread-1' } });
    expect(resumed.configOptions[0]).toMatchObject({ id: 'model', currentValue: 'fake-model-2' });
  });

  it('resumes a harness that takes no model choice (Amp) without the model it reported', async () => {
    const records = memoryRecords();
    const noChoice = () => new FakeHarness(undefined, true, undefined, true, false);
    const first = await started(noChoice(), undefined, { records });
    first.connection.close();
    const harness = noChoice();
    const second = connect(harness, undefined, records);
    await second.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    await second.request('session/resume', { sessionId: first.created.sessionId, cwd: '/work' });
    expect(harness.sessions).toHaveLength(1);
    expect(harness.sessions[0]?.spec.model).toBeUndefined();
    expect(harness.sessions[0]?.spec.resume).toEqual({ nativeSessionId: 'thread-1' });
  });

  it('switches modes (the postures) by restarting the harness on the same conversation, between prompts', async () => {
    const harness = new FakeHarness({ resume: true, approvals: true });
    const { request, created, received } = await started(harness);
    expect(created.modes).toEqual({
      currentModeId: 'bypass',
      availableModes: [expect.objectContaining({ id: 'ask' }), expect.objectContaining({ id: 'bypass' })],
    });
    expect(await request('session/set_mode', { sessionId: created.sessionId, modeId: 'ask' })).toEqual({});
    expect(
      harness.sessions.map((session) => [session.spec.posture, session.spec.resume?.nativeSessionId, session.closed]),
    ).toEqual([
      ['bypass', undefined, true],
      ['ask', 'thread-1', false],
    ]);
    await until(
      () => received.some((entry) => entry.kind === 'update' && entry.update.sessionUpdate === 'current_mode_update'),
      'current_mode_update',
    );
    await expect(request('session/set_mode', { sessionId: created.sessionId, modeId: 'plan' })).rejects.toMatchObject({
      code: -32602,
    });
    const prompt = request('session/prompt', { sessionId: created.sessionId, prompt: [{ type: 'text', text: 'Hi' }] });
    await until(() => harness.sessions[1]?.inputs.length === 1, 'the turn');
    await expect(request('session/set_mode', { sessionId: created.sessionId, modeId: 'bypass' })).rejects.toMatchObject(
      {
        message: expect.stringMatching(/prompt is running/),
      },
    );
    harness.sessions[1]?.stream.completeTurn({ outcome: { status: 'completed' } });
    await prompt;
    // A harness without approvals has no modes.
    const plain = await started(new FakeHarness());
    expect(plain.created.modes).toBeUndefined();
    await expect(
      plain.request('session/set_mode', { sessionId: plain.created.sessionId, modeId: 'ask' }),
    ).rejects.toMatchObject({
      code: -32601,
    });
  });

  it('a session whose harness stream breaks fails its own prompt; another session goes on', async () => {
    const harness = new FakeHarness();
    const { request, created } = await started(harness);
    const other = await request<{ sessionId: string }>('session/new', { cwd: '/work', mcpServers: [] });
    const [broken, healthy] = harness.sessions as [FakeSession, FakeSession];
    const failing = request('session/prompt', { sessionId: created.sessionId, prompt: [{ type: 'text', text: 'Hi' }] });
    await until(() => broken.inputs.length === 1, 'the turn');
    broken.stream.close('error', { code: 'protocol_error', message: 'the harness went silent' });
    await expect(failing).rejects.toMatchObject({ code: -32603, data: { code: 'protocol_error' } });
    const fine = request('session/prompt', {
      sessionId: other.sessionId,
      prompt: [{ type: 'text', text: 'Still there?' }],
    });
    await until(() => healthy.inputs.length === 1, 'the other turn');
    healthy.stream.completeTurn({ outcome: { status: 'completed' } });
    expect(await fine).toEqual({ stopReason: 'end_turn' });
  });
});

describe('session/fork', () => {
  const forking = () => new FakeHarness({ resume: true, fork: true, liveEffortSwitch: true });

  it('is advertised and served where the adapter forks: a new session on the source’s settings, the source untouched', async () => {
    const { init, request, created, harness, session } = await started(forking());
    expect(init).toMatchObject({ agentCapabilities: { sessionCapabilities: { close: {}, resume: {}, fork: {} } } });
    await request('session/set_config_option', {
      sessionId: created.sessionId,
      configId: 'model',
      value: 'fake-model-2',
    });
    const fork = await request<{ sessionId: string; configOptions: { id: string; currentValue: string }[] }>(
      'session/fork',
      { sessionId: created.sessionId, cwd: '/work', mcpServers: [] },
    );
    expect(harness.sessions[1]?.spec).toMatchObject({
      cwd: '/work',
      model: 'fake-model-2',
      resume: { nativeSessionId: 'thread-1', fork: true },
    });
    expect(fork.sessionId).toBe('fork-2');
    expect(fork.configOptions[0]).toMatchObject({ id: 'model', currentValue: 'fake-model-2' });
    const forkSession = harness.sessions[1] as FakeSession;
    const answer = request('session/prompt', { sessionId: fork.sessionId, prompt: [{ type: 'text', text: 'Go on' }] });
    await until(() => forkSession.inputs.length === 1, 'the fork’s turn');
    forkSession.stream.completeTurn({ outcome: { status: 'completed' } });
    expect(await answer).toMatchObject({ stopReason: 'end_turn' });
    expect(session.inputs).toEqual([]);
    expect(session.closed).toBe(false);
  });

  it('forks a session it only remembers, in a new bridge, on the model it ran', async () => {
    const records = memoryRecords();
    const first = await started(forking(), undefined, { records });
    await first.request('session/set_config_option', {
      sessionId: first.created.sessionId,
      configId: 'model',
      value: 'fake-model-2',
    });
    first.connection.close();
    const harness = forking();
    const second = connect(harness, undefined, records);
    await second.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    const fork = await second.request<{ sessionId: string }>('session/fork', { sessionId: 'thread-1', cwd: '/work' });
    expect(harness.sessions[0]?.spec).toMatchObject({
      model: 'fake-model-2',
      resume: { nativeSessionId: 'thread-1', fork: true },
    });
    expect(fork.sessionId).toBe('fork-1');
  });

  it('stays an unknown method (-32601), not advertised, where the adapter cannot fork', async () => {
    const { init, request, created, harness } = await started();
    expect(
      (init as { agentCapabilities: { sessionCapabilities: Record<string, unknown> } }).agentCapabilities
        .sessionCapabilities,
    ).toEqual({ close: {}, resume: {} });
    await expect(request('session/fork', { sessionId: created.sessionId, cwd: '/work' })).rejects.toMatchObject({
      code: -32601,
    });
    expect(harness.sessions).toHaveLength(1);
  });

  it('refuses a fork that comes back on the source’s conversation, closing it; the source goes on', async () => {
    const harness = forking();
    harness.forkReopens = true;
    const { request, created, session } = await started(harness);
    await expect(request('session/fork', { sessionId: created.sessionId, cwd: '/work' })).rejects.toMatchObject({
      code: -32603,
      message: expect.stringMatching(/reopened thread-1 instead of forking it/),
      data: { code: 'resume_failed' },
    });
    expect(harness.sessions[1]?.closed).toBe(true);
    expect(session.closed).toBe(false);
  });
});
