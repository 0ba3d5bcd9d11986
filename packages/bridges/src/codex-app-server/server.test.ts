// The bridge's server side in memory: a CodexAppServerBridge whose lines go to a test client, in
// front of a scripted fake Harness. Checks what the process tests cannot see: what the harness was
// asked to do (setModel, setEffort, respondToPermission, interrupt, close) and message order.
import {
  computeCapabilities,
  type Effort,
  type Harness,
  type PermissionDecision,
  type Session,
  SessionEventStream,
  type SessionSpec,
  type TurnInput,
} from '@reins/core';
import { describe, expect, it } from 'vitest';
import { CodexAppServerBridge } from './server.js';

class FakeSession implements Session {
  readonly id = 'rs_fake';
  readonly harness = 'claude-code' as const;
  readonly stream = new SessionEventStream({ harness: 'claude-code', sessionId: this.id });
  readonly calls: string[] = [];
  readonly decisions: [string, PermissionDecision][] = [];
  readonly inputs: TurnInput[] = [];
  closed = false;

  constructor(
    readonly spec: SessionSpec,
    readonly nativeSessionId: string | undefined,
  ) {
    this.stream.emit({ type: 'session.started', cwd: spec.cwd, ...(spec.model ? { model: spec.model } : {}) });
  }

  get events() {
    return this.stream.events;
  }

  async send(input: TurnInput | string, options: { mode?: 'queue' | 'steer' } = {}) {
    const turnInput = typeof input === 'string' ? { text: input } : input;
    this.inputs.push(turnInput);
    this.calls.push(`send:${options.mode ?? 'queue'}`);
    const turnId = this.stream.startTurn(turnInput) as string;
    return { turnId, delivery: 'started' as const };
  }

  async interrupt() {
    this.calls.push('interrupt');
    if (this.stream.activeTurnId) this.stream.completeTurn({ outcome: { status: 'cancelled' } });
  }

  async setModel(model: string) {
    this.calls.push(`setModel:${model}`);
    return { applied: 'live' as const };
  }

  async setEffort(effort: Effort) {
    this.calls.push(`setEffort:${effort}`);
    return { applied: 'restart' as const };
  }

  async respondToPermission(requestId: string, decision: PermissionDecision) {
    this.decisions.push([requestId, decision]);
    this.stream.emit({ type: 'permission.resolved', requestId, decision, by: 'client' });
  }

  async close() {
    this.closed = true;
    this.stream.close('requested');
  }
}

class FakeHarness implements Harness {
  readonly id = 'claude-code' as const;
  readonly displayName = 'Fake Claude Code';
  readonly sessions: FakeSession[] = [];
  constructor(private readonly nativeIds = true) {}
  async discover() {
    return { found: false as const, searched: [], hint: 'fake' };
  }
  async health() {
    return { status: 'ready' as const };
  }
  async capabilities() {
    return computeCapabilities({ implemented: { resume: true, images: 'inline' } });
  }
  async models() {
    return [{ id: 'fake-model', displayName: 'Fake', isDefault: true, efforts: ['low', 'high'] as Effort[] }];
  }
  async createSession(spec: SessionSpec) {
    const native = spec.resume?.nativeSessionId ?? (this.nativeIds ? `native-${this.sessions.length + 1}` : undefined);
    const session = new FakeSession(spec, native);
    this.sessions.push(session);
    return session;
  }
}

type Message = Record<string, unknown> & { id?: number | string; method?: string; params?: Record<string, unknown> };

/** A client on the bridge: requests by id, everything received in order. */
function connect(harness: FakeHarness, options: { posture?: 'ask' | 'bypass' } = {}) {
  const received: Message[] = [];
  const bridge = new CodexAppServerBridge({
    harness,
    cwd: '/srv/work',
    requestTimeoutMs: 2_000,
    permissionTimeoutMs: 2_000,
    ...(options.posture ? { defaults: { posture: options.posture } } : {}),
  });
  const { receive } = bridge.connect((line) => received.push(JSON.parse(line) as Message));
  let nextId = 1;
  const waitFor = async (match: (message: Message) => boolean, what: string): Promise<Message> => {
    const deadline = Date.now() + 2_000;
    for (;;) {
      const found = received.find(match);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no ${what} within 2 s; got ${JSON.stringify(received)}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };
  const request = async (method: string, params: unknown = {}) => {
    const id = nextId++;
    receive(JSON.stringify({ id, method, params }));
    return waitFor((message) => message.id === id && message.method === undefined, `the answer to ${method}`);
  };
  const index = (match: (message: Message) => boolean) => received.findIndex(match);
  return { bridge, received, receive, request, waitFor, index };
}

async function initialized(harness: FakeHarness, options: { posture?: 'ask' | 'bypass' } = {}) {
  const client = connect(harness, options);
  await client.request('initialize', { clientInfo: { name: 't', title: null, version: '1' }, capabilities: null });
  client.receive('{"method":"initialized"}');
  return client;
}

describe('CodexAppServerBridge', () => {
  it('answers thread/start before any notification names the thread, with the native id as thread id', async () => {
    const harness = new FakeHarness();
    const client = await initialized(harness);
    const answer = await client.request('thread/start', { cwd: '/tmp/ws', model: 'fake-model' });
    expect(answer.result).toMatchObject({
      thread: { id: 'native-1', cwd: '/tmp/ws', modelProvider: 'claude-code', status: { type: 'idle' } },
      model: 'fake-model',
      approvalPolicy: 'never',
      sandbox: { type: 'dangerFullAccess' },
    });
    const started = await client.waitFor((message) => message.method === 'thread/started', 'thread/started');
    expect(client.received.indexOf(started)).toBeGreaterThan(client.received.indexOf(answer));
    expect(harness.sessions[0]?.spec).toMatchObject({ cwd: '/tmp/ws', model: 'fake-model', posture: 'bypass' });
  });

  it('makes a reins- thread id when the harness has no id yet', async () => {
    const client = await initialized(new FakeHarness(false));
    const answer = await client.request('thread/start', {});
    expect((answer.result as { thread: { id: string } }).thread.id).toMatch(/^reins-[0-9a-f-]{36}$/);
  });

  it('answers turn/start before turn/started, applies model and effort only when they change', async () => {
    const harness = new FakeHarness();
    const client = await initialized(harness);
    await client.request('thread/start', { model: 'fake-model' });
    const text = [{ type: 'text', text: 'hi', text_elements: [] }];
    const answer = await client.request('turn/start', {
      threadId: 'native-1',
      input: text,
      model: 'fake-model',
      effort: 'high',
    });
    expect(answer.result).toMatchObject({ turn: { id: 'turn_1', status: 'inProgress' } });
    const started = await client.waitFor((message) => message.method === 'turn/started', 'turn/started');
    expect(client.received.indexOf(started)).toBeGreaterThan(client.received.indexOf(answer));
    const session = harness.sessions[0] as FakeSession;
    expect(session.calls).toEqual(['setEffort:high', 'send:queue']);
    session.stream.completeTurn({ outcome: { status: 'completed' } });
    await client.waitFor((message) => message.method === 'turn/completed', 'turn/completed');
    await client.request('turn/start', { threadId: 'native-1', input: text, model: 'other-model', effort: 'high' });
    expect(session.calls).toEqual(['setEffort:high', 'send:queue', 'setModel:other-model', 'send:queue']);
  });

  it('steers into the running turn; refuses a steer naming another turn, as Codex words it', async () => {
    const harness = new FakeHarness();
    const client = await initialized(harness);
    await client.request('thread/start', {});
    const text = [{ type: 'text', text: 'more', text_elements: [] }];
    await client.request('turn/start', { threadId: 'native-1', input: [{ type: 'text', text: 'go' }] });
    await client.waitFor((message) => message.method === 'turn/started', 'turn/started');
    const wrong = await client.request('turn/steer', { threadId: 'native-1', expectedTurnId: 'turn_9', input: text });
    expect(wrong.error).toMatchObject({
      code: -32600,
      message: 'expected active turn id `turn_9` but found `turn_1`',
    });
    const steered = await client.request('turn/steer', { threadId: 'native-1', expectedTurnId: 'turn_1', input: text });
    expect(steered.result).toEqual({ turnId: 'turn_1' });
    expect(harness.sessions[0]?.calls).toContain('send:steer');
  });

  it('interrupts the named turn only', async () => {
    const harness = new FakeHarness();
    const client = await initialized(harness);
    await client.request('thread/start', {});
    await client.request('turn/start', { threadId: 'native-1', input: [{ type: 'text', text: 'go' }] });
    await client.waitFor((message) => message.method === 'turn/started', 'turn/started');
    const wrong = await client.request('turn/interrupt', { threadId: 'native-1', turnId: 'turn_7' });
    expect(wrong.error).toMatchObject({ code: -32600, message: expect.stringMatching(/no active turn turn_7/) });
    const right = await client.request('turn/interrupt', { threadId: 'native-1', turnId: 'turn_1' });
    expect(right.result).toEqual({});
    expect(harness.sessions[0]?.calls).toContain('interrupt');
    const completed = await client.waitFor((message) => message.method === 'turn/completed', 'turn/completed');
    expect(completed.params).toMatchObject({ turn: { id: 'turn_1', status: 'interrupted' } });
  });

  it('asks the client for approval (posture ask) and carries the decision back; then says it is resolved', async () => {
    const harness = new FakeHarness();
    const client = await initialized(harness, { posture: 'ask' });
    const thread = await client.request('thread/start', {});
    expect(thread.result).toMatchObject({ approvalPolicy: 'untrusted' });
    await client.request('turn/start', { threadId: 'native-1', input: [{ type: 'text', text: 'touch' }] });
    const session = harness.sessions[0] as FakeSession;
    expect(session.spec.posture).toBe('ask');
    const tool = { kind: 'command' as const, name: 'Bash', title: 'touch a' };
    session.stream.emit({
      type: 'item.started',
      item: { kind: 'tool_call', id: 'tool-1', status: 'running', tool, input: { command: 'touch a' } },
    });
    session.stream.emit({
      type: 'permission.requested',
      requestId: 'perm-1',
      tool,
      input: { command: 'touch a' },
      itemId: 'tool-1',
      options: [
        { id: 'allow', kind: 'allow_once', label: 'Allow' },
        { id: 'deny', kind: 'reject_once', label: 'Deny' },
      ],
    });
    const ask = await client.waitFor(
      (message) => message.method === 'item/commandExecution/requestApproval',
      'the approval request',
    );
    expect(ask.params).toMatchObject({
      threadId: 'native-1',
      turnId: 'turn_1',
      itemId: 'tool-1',
      command: 'touch a',
      cwd: '/srv/work',
    });
    client.receive(JSON.stringify({ id: ask.id, result: { decision: 'accept' } }));
    const resolved = await client.waitFor((message) => message.method === 'serverRequest/resolved', 'resolved');
    expect(resolved.params).toEqual({ threadId: 'native-1', requestId: ask.id });
    expect(session.decisions).toEqual([['perm-1', { behavior: 'allow', scope: 'once', optionId: 'allow' }]]);
    // The item was announced before the request that names it.
    expect(client.index((message) => message.method === 'item/started')).toBeLessThan(client.received.indexOf(ask));
  });

  it('a cancel answer declines and stops the turn', async () => {
    const harness = new FakeHarness();
    const client = await initialized(harness, { posture: 'ask' });
    await client.request('thread/start', {});
    await client.request('turn/start', { threadId: 'native-1', input: [{ type: 'text', text: 'edit' }] });
    await client.waitFor((message) => message.method === 'turn/started', 'turn/started');
    const session = harness.sessions[0] as FakeSession;
    session.stream.emit({
      type: 'permission.requested',
      requestId: 'perm-2',
      tool: { kind: 'file_change', name: 'Edit' },
      options: [],
    });
    const ask = await client.waitFor((message) => message.method === 'item/fileChange/requestApproval', 'approval');
    expect(ask.params).toMatchObject({ itemId: 'permission-perm-2', reason: null, grantRoot: null });
    client.receive(JSON.stringify({ id: ask.id, result: { decision: 'cancel' } }));
    const completed = await client.waitFor((message) => message.method === 'turn/completed', 'turn/completed');
    expect(completed.params).toMatchObject({ turn: { status: 'interrupted' } });
    expect(session.decisions[0]?.[1].behavior).toBe('deny');
    expect(session.calls).toContain('interrupt');
  });

  it('refuses before initialize and twice initialize; unknown methods get -32601 with what it serves', async () => {
    const client = connect(new FakeHarness());
    expect((await client.request('thread/start', {})).error).toEqual({ code: -32600, message: 'Not initialized' });
    await client.request('initialize', { clientInfo: { name: 't', title: null, version: '1' } });
    expect((await client.request('initialize', {})).error).toMatchObject({
      code: -32600,
      message: 'Already initialized',
    });
    const unknown = await client.request('review/start', {});
    expect(unknown.error).toMatchObject({
      code: -32601,
      message: expect.stringMatching(/does not implement review\/start; it serves initialize, thread\/start/),
    });
    const bad = await client.request('turn/start', { threadId: 7 });
    expect(bad.error).toMatchObject({ code: -32602, message: 'threadId: is required (a non-empty string).' });
  });

  it('honours optOutNotificationMethods', async () => {
    const client = connect(new FakeHarness());
    await client.request('initialize', {
      clientInfo: { name: 't', title: null, version: '1' },
      capabilities: {
        experimentalApi: false,
        requestAttestation: false,
        optOutNotificationMethods: ['thread/started'],
      },
    });
    await client.request('thread/start', {});
    await client.request('thread/unsubscribe', { threadId: 'native-1' });
    const closed = await client.waitFor((message) => message.method === 'thread/closed', 'thread/closed');
    expect(closed).toBeDefined();
    expect(client.received.some((message) => message.method === 'thread/started')).toBe(false);
  });

  it('lists the harness models, unsubscribes (closing the session) and closes everything on close()', async () => {
    const harness = new FakeHarness();
    const client = await initialized(harness);
    const models = await client.request('model/list', {});
    expect(models.result).toMatchObject({
      data: [
        {
          id: 'fake-model',
          displayName: 'Fake',
          isDefault: true,
          supportedReasoningEfforts: [
            { reasoningEffort: 'low', description: '' },
            { reasoningEffort: 'high', description: '' },
          ],
          // The harness did not say which effort is its default.
          defaultReasoningEffort: null,
          inputModalities: ['text', 'image'],
        },
      ],
      nextCursor: null,
    });
    await client.request('thread/start', {});
    await client.request('thread/start', {});
    expect((await client.request('thread/unsubscribe', { threadId: 'native-1' })).result).toEqual({
      status: 'unsubscribed',
    });
    expect((await client.request('thread/unsubscribe', { threadId: 'native-1' })).result).toEqual({
      status: 'notLoaded',
    });
    expect(harness.sessions.map((session) => session.closed)).toEqual([true, false]);
    await client.bridge.close();
    expect(harness.sessions.map((session) => session.closed)).toEqual([true, true]);
    expect(client.bridge.threadCount).toBe(0);
  });
});
