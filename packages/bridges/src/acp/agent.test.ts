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
import { describe, expect, it } from 'vitest';
import { AcpBridge } from './agent.js';

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
  ) {
    this.stream.emit({ type: 'session.started', cwd: spec.cwd, model: 'fake-model' });
    this.stream.emit({ type: 'session.updated', model: 'fake-model', ...(nativeSessionId ? { nativeSessionId } : {}) });
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

  constructor(
    private readonly implemented: ImplementedCapabilities = { resume: true, liveEffortSwitch: true },
    private readonly nativeIds = true,
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
    return [{ id: 'fake-model' }, { id: 'fake-model-2', efforts: ['low', 'high'] as Effort[] }];
  }
  async createSession(spec: SessionSpec) {
    const native = spec.resume?.nativeSessionId ?? (this.nativeIds ? `thread-${this.sessions.length + 1}` : undefined);
    const session = new FakeSession(spec, native);
    this.sessions.push(session);
    return session;
  }
}

type Received = { kind: 'update'; sessionId: string; update: Record<string, unknown> } | { kind: 'answer'; id: string };

/** An ACP client joined to a fresh bridge; records updates and lets a test answer permission requests. */
function connect(
  harness: FakeHarness,
  onPermission?: (params: Record<string, unknown>, signal: AbortSignal) => unknown,
) {
  const toAgent = new TransformStream<AnyMessage, AnyMessage>();
  const toClient = new TransformStream<AnyMessage, AnyMessage>();
  const bridge = new AcpBridge({ harness, requestTimeoutMs: 2_000, permissionTimeoutMs: 2_000 });
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

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`never saw ${what}`);
}

async function started(harness = new FakeHarness(), onPermission?: Parameters<typeof connect>[1]) {
  const joined = connect(harness, onPermission);
  const init = await joined.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
  const created = await joined.request<{ sessionId: string; configOptions: Record<string, unknown>[] }>('session/new', {
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
});
