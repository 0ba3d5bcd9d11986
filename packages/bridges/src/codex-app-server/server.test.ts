// The bridge's server side in memory: a CodexAppServerBridge whose lines go to a test client, in
// front of a scripted fake Harness. Checks what the process tests cannot see: what the harness was
// asked to do (setModel, setEffort, respondToPermission, interrupt, close), message order, and what
// the bridge remembers. Every message of every connection is validated against the pinned Codex's
// JSON Schema when the test ends.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  computeCapabilities,
  type Effort,
  type Harness,
  type Item,
  type McpServerStatus,
  type PermissionDecision,
  type ReinsEvent,
  type RevertResult,
  type Session,
  SessionEventStream,
  type SessionSpec,
  type SessionSummary,
  type TurnInput,
} from '@reins/core';
import { afterEach, describe, expect, it } from 'vitest';
import { transcriptViolations } from '../../test/support/codex-schema.js';
import { memoryRecords, type RecordStore } from '../records.js';
import { CodexAppServerBridge, type CodexAppServerBridgeOptions } from './server.js';
import { CODEX_PROTOCOL_VERSION } from './wire.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

class FakeSession implements Session {
  readonly id = 'rs_fake';
  readonly harness = 'claude-code' as const;
  readonly stream = new SessionEventStream({ harness: 'claude-code', sessionId: this.id });
  readonly calls: string[] = [];
  readonly decisions: [string, PermissionDecision][] = [];
  readonly inputs: TurnInput[] = [];
  /** The Reins turns send() started, in order. */
  readonly turnIds: string[] = [];
  closed = false;
  mcpStatus?: () => Promise<McpServerStatus[]>;
  revert?: (turnId: string) => Promise<RevertResult>;
  /** After breakStream(), the event stream throws at its next read (a harness whose stream breaks). */
  private failure: Error | undefined;

  constructor(
    readonly spec: SessionSpec,
    public nativeSessionId: string | undefined,
  ) {
    this.stream.emit({ type: 'session.started', cwd: spec.cwd, ...(spec.model ? { model: spec.model } : {}) });
  }

  get events(): AsyncIterable<ReinsEvent> {
    const inner = this.stream.events[Symbol.asyncIterator]();
    return {
      [Symbol.asyncIterator]: () => ({
        next: () => (this.failure ? Promise.reject(this.failure) : inner.next()),
      }),
    };
  }

  breakStream(error: Error): void {
    this.failure = error;
  }

  async send(input: TurnInput | string, options: { mode?: 'queue' | 'steer' } = {}) {
    const turnInput = typeof input === 'string' ? { text: input } : input;
    this.inputs.push(turnInput);
    this.calls.push(`send:${options.mode ?? 'queue'}`);
    if (options.mode === 'steer' && this.stream.activeTurnId)
      return { turnId: this.stream.activeTurnId, delivery: 'steered' as const };
    const turnId = this.stream.startTurn(turnInput) as string;
    this.turnIds.push(turnId);
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
  /** Stored conversations by native id; a function is called on every read (a transcript being written). */
  readonly stored = new Map<string, Item[] | (() => Item[])>();
  readonly summaries: SessionSummary[] = [];
  /**
   * What Session.revert does: absent (no checkpoints), the files only, the conversation too (Codex), or
   * a fork from before the turn under a new native id (Claude Code).
   */
  revert: 'none' | 'files' | 'conversation' | 'fork' = 'none';
  /**
   * `fork`: the harness implements fork (`reopens`: a broken one that gives back the source's id).
   * `mcp`: what each session's mcpStatus() answers, asked anew each time (absent: no mcpStatus).
   */
  constructor(
    private readonly nativeIds = true,
    private readonly fork: 'no' | 'yes' | 'reopens' = 'no',
    private readonly mcp?: (session: FakeSession) => McpServerStatus[],
  ) {}
  async discover() {
    return { found: false as const, searched: [], hint: 'fake' };
  }
  async health() {
    return { status: 'ready' as const };
  }
  async capabilities() {
    return computeCapabilities({
      implemented: {
        resume: true,
        images: 'inline',
        fork: this.fork !== 'no',
        mcpStatus: this.mcp !== undefined,
        revert: this.revert === 'conversation' || this.revert === 'fork',
      },
    });
  }
  async models() {
    return [
      { id: 'default', displayName: 'Default', isDefault: true, efforts: ['low', 'high'] as Effort[] },
      { id: 'fake-model', displayName: 'Fake' },
    ];
  }
  async listSessions(options: { cwd?: string }) {
    return this.summaries.filter((summary) => !options.cwd || summary.cwd === options.cwd);
  }
  async history(nativeSessionId: string) {
    const stored = this.stored.get(nativeSessionId);
    if (stored === undefined) throw new Error(`no conversation ${nativeSessionId}`);
    return typeof stored === 'function' ? stored() : stored;
  }
  async createSession(spec: SessionSpec) {
    const fresh = this.nativeIds ? `native-${this.sessions.length + 1}` : undefined;
    const forked = spec.resume?.fork === true && this.fork !== 'reopens';
    const native = forked ? fresh : (spec.resume?.nativeSessionId ?? fresh);
    const session = new FakeSession(spec, native);
    const mcp = this.mcp;
    if (mcp) session.mcpStatus = async () => mcp(session);
    const revert = this.revert;
    if (revert !== 'none')
      session.revert = async (turnId) => {
        session.calls.push(`revert:${turnId}`);
        if (revert === 'fork') session.nativeSessionId = `${session.nativeSessionId}-fork`;
        const conversation = revert === 'conversation' ? 'reverted' : revert === 'fork' ? 'forked' : 'unchanged';
        return { turnId, files: ['a.txt'], conversation };
      };
    this.sessions.push(session);
    return session;
  }
}

type Message = Record<string, unknown> & { id?: number | string; method?: string; params?: Record<string, unknown> };

const transcripts: { sent: unknown[]; received: unknown[] }[] = [];
afterEach(() => {
  const violations = transcripts
    .splice(0)
    .flatMap((transcript) => transcriptViolations(transcript.sent, transcript.received));
  expect(violations).toEqual([]);
});

/** A client on the bridge: requests by id, everything received in order. */
function connect(harness: FakeHarness, options: Partial<CodexAppServerBridgeOptions> = {}) {
  const received: Message[] = [];
  const sent: Message[] = [];
  transcripts.push({ sent, received });
  const bridge = new CodexAppServerBridge({
    harness,
    cwd: '/srv/work',
    requestTimeoutMs: 2_000,
    permissionTimeoutMs: 2_000,
    historySettleMs: 500,
    ...options,
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
  const send = (message: Message) => {
    sent.push(message);
    receive(JSON.stringify(message));
  };
  const request = async (method: string, params: unknown = {}) => {
    const id = nextId++;
    send({ id, method, params: params as Record<string, unknown> });
    return waitFor((message) => message.id === id && message.method === undefined, `the answer to ${method}`);
  };
  const index = (match: (message: Message) => boolean) => received.findIndex(match);
  return { bridge, received, send, request, waitFor, index };
}

async function initialized(harness: FakeHarness, options: Partial<CodexAppServerBridgeOptions> = {}) {
  const client = connect(harness, options);
  await client.request('initialize', { clientInfo: { name: 't', title: null, version: '1' }, capabilities: null });
  client.send({ method: 'initialized' });
  return client;
}

const text = (value: string) => [{ type: 'text', text: value, text_elements: [] }];
const turnIdOf = (answer: Message) => (answer.result as { turn: { id: string } }).turn.id;

describe('threads', () => {
  it('answers thread/start before any notification names the thread, with the native id as thread id', async () => {
    const harness = new FakeHarness();
    const client = await initialized(harness);
    const answer = await client.request('thread/start', { cwd: '/tmp/ws', model: 'fake-model' });
    expect(answer.result).toMatchObject({
      thread: {
        id: 'native-1',
        cwd: '/tmp/ws',
        modelProvider: 'claude-code',
        status: { type: 'idle' },
        source: 'vscode',
      },
      model: 'fake-model',
      approvalPolicy: 'never',
      sandbox: { type: 'dangerFullAccess' },
    });
    const started = await client.waitFor((message) => message.method === 'thread/started', 'thread/started');
    expect(client.received.indexOf(started)).toBeGreaterThan(client.received.indexOf(answer));
    expect(harness.sessions[0]?.spec).toMatchObject({ cwd: '/tmp/ws', model: 'fake-model', posture: 'bypass' });
  });

  it('names the model even when the harness has not said it: its default entry (a client can switch back to it)', async () => {
    const client = await initialized(new FakeHarness());
    const answer = await client.request('thread/start', {});
    expect(answer.result).toMatchObject({ model: 'default', thread: { model: 'default' } });
  });

  it('makes a reins- thread id when the harness has no id yet', async () => {
    const client = await initialized(new FakeHarness(false));
    const answer = await client.request('thread/start', {});
    expect((answer.result as { thread: { id: string } }).thread.id).toMatch(/^reins-[0-9a-f-]{36}$/);
  });
});

describe('turns', () => {
  it('answers turn/start with a UUID before turn/started, and applies model and effort only when they change', async () => {
    const harness = new FakeHarness();
    const client = await initialized(harness);
    await client.request('thread/start', { model: 'fake-model' });
    const answer = await client.request('turn/start', {
      threadId: 'native-1',
      input: text('hi'),
      model: 'fake-model',
      effort: 'high',
    });
    const turnId = turnIdOf(answer);
    expect(turnId).toMatch(UUID);
    expect(answer.result).toMatchObject({ turn: { status: 'inProgress', startedAt: null } });
    const started = await client.waitFor((message) => message.method === 'turn/started', 'turn/started');
    expect(started.params).toMatchObject({ turn: { id: turnId } });
    expect(client.received.indexOf(started)).toBeGreaterThan(client.received.indexOf(answer));
    const session = harness.sessions[0] as FakeSession;
    expect(session.calls).toEqual(['setEffort:high', 'send:queue']);
    session.stream.completeTurn({ outcome: { status: 'completed' } });
    await client.waitFor((message) => message.method === 'turn/completed', 'turn/completed');
    const second = await client.request('turn/start', {
      threadId: 'native-1',
      input: text('hi'),
      model: 'other-model',
      effort: 'default',
    });
    expect(turnIdOf(second)).not.toBe(turnId);
    // `default` (model/list's name for the harness's own effort) changes nothing.
    expect(session.calls).toEqual(['setEffort:high', 'send:queue', 'setModel:other-model', 'send:queue']);
  });

  it('steers into the running turn; refuses a steer naming another turn, as Codex words it', async () => {
    const harness = new FakeHarness();
    const client = await initialized(harness);
    await client.request('thread/start', {});
    const turnId = turnIdOf(await client.request('turn/start', { threadId: 'native-1', input: text('go') }));
    await client.waitFor((message) => message.method === 'turn/started', 'turn/started');
    const wrong = await client.request('turn/steer', {
      threadId: 'native-1',
      expectedTurnId: 'turn_9',
      input: text('more'),
    });
    expect(wrong.error).toMatchObject({
      code: -32600,
      message: `expected active turn id \`turn_9\` but found \`${turnId}\``,
    });
    const steered = await client.request('turn/steer', {
      threadId: 'native-1',
      expectedTurnId: turnId,
      input: text('more'),
    });
    expect(steered.result).toEqual({ turnId });
    expect(harness.sessions[0]?.calls).toContain('send:steer');
    // The steered input is a userMessage of the same turn, told with what the turn does next.
    harness.sessions[0]?.stream.emit({ type: 'item.delta', itemId: 'm', kind: 'text', text: 'ok' });
    await client.waitFor(
      (message) =>
        message.method === 'item/completed' &&
        (message.params?.item as { content?: { text?: string }[] } | undefined)?.content?.[0]?.text === 'more',
      'the steer userMessage',
    );
  });

  it('interrupts the named turn only', async () => {
    const harness = new FakeHarness();
    const client = await initialized(harness);
    await client.request('thread/start', {});
    const turnId = turnIdOf(await client.request('turn/start', { threadId: 'native-1', input: text('go') }));
    await client.waitFor((message) => message.method === 'turn/started', 'turn/started');
    const wrong = await client.request('turn/interrupt', { threadId: 'native-1', turnId: 'turn_7' });
    expect(wrong.error).toMatchObject({ code: -32600, message: expect.stringMatching(/no active turn turn_7/) });
    expect((await client.request('turn/interrupt', { threadId: 'native-1', turnId })).result).toEqual({});
    expect(harness.sessions[0]?.calls).toContain('interrupt');
    const completed = await client.waitFor((message) => message.method === 'turn/completed', 'turn/completed');
    expect(completed.params).toMatchObject({ turn: { id: turnId, status: 'interrupted' } });
  });

  it('one thread whose harness stream breaks ends its own turn and thread; another thread goes on', async () => {
    const harness = new FakeHarness();
    const client = await initialized(harness);
    await client.request('thread/start', {});
    await client.request('thread/start', {});
    const [broken, healthy] = harness.sessions as [FakeSession, FakeSession];
    const turnId = turnIdOf(await client.request('turn/start', { threadId: 'native-1', input: text('go') }));
    await client.waitFor((message) => message.method === 'turn/started', 'turn/started');
    // The harness's event stream fails under the bridge (after one more event).
    broken.breakStream(new Error('the stream broke'));
    broken.stream.emit({ type: 'notice', kind: 'warning', message: 'about to break' });
    const closed = await client.waitFor(
      (message) => message.method === 'thread/closed' && message.params?.threadId === 'native-1',
      'thread/closed',
    );
    expect(client.received.find((message) => message.method === 'turn/completed')?.params).toMatchObject({
      turn: { id: turnId, status: 'failed' },
    });
    expect(closed).toBeDefined();
    const other = turnIdOf(await client.request('turn/start', { threadId: 'native-2', input: text('still here') }));
    healthy.stream.completeTurn({ outcome: { status: 'completed' } });
    await client.waitFor(
      (message) =>
        message.method === 'turn/completed' && (message.params?.turn as { id?: string } | undefined)?.id === other,
      'the other turn',
    );
  });
});

describe('approvals', () => {
  it('asks the client (posture ask) and carries the decision back; then says it is resolved', async () => {
    const harness = new FakeHarness();
    const client = await initialized(harness, { defaults: { posture: 'ask' } });
    const thread = await client.request('thread/start', {});
    expect(thread.result).toMatchObject({ approvalPolicy: 'untrusted' });
    const turnId = turnIdOf(await client.request('turn/start', { threadId: 'native-1', input: text('touch') }));
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
      turnId,
      itemId: 'tool-1',
      command: 'touch a',
      cwd: '/srv/work',
    });
    client.send({ id: ask.id, result: { decision: 'accept' } });
    const resolved = await client.waitFor((message) => message.method === 'serverRequest/resolved', 'resolved');
    expect(resolved.params).toEqual({ threadId: 'native-1', requestId: ask.id });
    expect(session.decisions).toEqual([['perm-1', { behavior: 'allow', scope: 'once', optionId: 'allow' }]]);
    // The item was announced before the request that names it.
    expect(
      client.index(
        (message) =>
          message.method === 'item/started' && (message.params?.item as { id?: string } | undefined)?.id === 'tool-1',
      ),
    ).toBeLessThan(client.received.indexOf(ask));
  });

  it('a cancel answer declines and stops the turn', async () => {
    const harness = new FakeHarness();
    const client = await initialized(harness, { defaults: { posture: 'ask' } });
    await client.request('thread/start', {});
    await client.request('turn/start', { threadId: 'native-1', input: text('edit') });
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
    client.send({ id: ask.id, result: { decision: 'cancel' } });
    const completed = await client.waitFor((message) => message.method === 'turn/completed', 'turn/completed');
    expect(completed.params).toMatchObject({ turn: { status: 'interrupted' } });
    expect(session.decisions[0]?.[1].behavior).toBe('deny');
    expect(session.calls).toContain('interrupt');
  });
});

describe('the connection', () => {
  it('names the Codex protocol version first in the userAgent', async () => {
    const client = connect(new FakeHarness(), { harnessVersion: '2.1.197', version: '0.1.0' });
    const answer = await client.request('initialize', { clientInfo: { name: 't', title: null, version: '1' } });
    const userAgent = (answer.result as { userAgent: string }).userAgent;
    // What Codex clients read: the first version after the first slash.
    expect(/^[^/\s]+\/(\d+\.\d+\.\d+)/.exec(userAgent)?.[1]).toBe(CODEX_PROTOCOL_VERSION);
    expect(userAgent).toBe(`reins-bridge/${CODEX_PROTOCOL_VERSION} (reins 0.1.0; claude-code 2.1.197)`);
  });

  it('refuses before initialize and twice initialize; unserved methods get Codex’s own answer', async () => {
    const client = connect(new FakeHarness());
    expect((await client.request('thread/start', {})).error).toEqual({ code: -32600, message: 'Not initialized' });
    await client.request('initialize', { clientInfo: { name: 't', title: null, version: '1' } });
    expect((await client.request('initialize', {})).error).toMatchObject({
      code: -32600,
      message: 'Already initialized',
    });
    // Names an object literal inherits are not methods either (the handler table is looked up by name).
    for (const method of ['thread/delete', 'thread/fork', 'toString', 'constructor', '__proto__']) {
      const unknown = await client.request(method, { threadId: 'native-1' });
      // Methods that only ever refuse are not offered as served.
      expect((unknown.error as { message: string }).message).not.toMatch(/review\/start|config\/batchWrite/);
      expect(unknown.error).toMatchObject({
        code: -32600,
        message: expect.stringMatching(
          new RegExp(
            `^Invalid request: unknown variant \`${method}\`, expected one of \`initialize\`, \`thread/start\``,
          ),
        ),
      });
    }
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
    expect(await client.waitFor((message) => message.method === 'thread/closed', 'thread/closed')).toBeDefined();
    expect(client.received.some((message) => message.method === 'thread/started')).toBe(false);
  });

  it('lists the harness models, unsubscribes (closing the session) and closes everything on close()', async () => {
    const harness = new FakeHarness();
    const client = await initialized(harness);
    const models = await client.request('model/list', {});
    expect(models.result).toMatchObject({
      data: [
        {
          id: 'default',
          isDefault: true,
          supportedReasoningEfforts: [
            { reasoningEffort: 'low', description: '' },
            { reasoningEffort: 'high', description: '' },
          ],
          // The harness did not say which effort is its default: it picks.
          defaultReasoningEffort: 'default',
          inputModalities: ['text', 'image'],
        },
        { id: 'fake-model' },
      ],
      nextCursor: null,
    });
    expect((await client.request('model/list', { modelProvider: 'openai' })).result).toEqual({
      data: [],
      nextCursor: null,
    });
    await client.request('thread/start', {});
    await client.request('thread/start', {});
    expect((await client.request('thread/loaded/list', {})).result).toEqual({
      data: ['native-1', 'native-2'],
      nextCursor: null,
    });
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

describe('stored threads', () => {
  /** One bridge runs a thread (an interrupted turn, then a completed one) and forgets it; the records stay. */
  async function ranEarlier(records: RecordStore, harness: FakeHarness) {
    const client = await initialized(harness, { records });
    await client.request('thread/start', { model: 'fake-model' });
    const session = harness.sessions[0] as FakeSession;
    const first = turnIdOf(
      await client.request('turn/start', { threadId: 'native-1', input: text('Count to a million') }),
    );
    await client.request('turn/interrupt', { threadId: 'native-1', turnId: first });
    await client.waitFor((message) => message.method === 'turn/completed', 'the first turn/completed');
    await client.request('turn/start', { threadId: 'native-1', input: text('Say hi'), effort: 'high' });
    session.stream.completeTurn({ outcome: { status: 'completed' } });
    await client.waitFor(
      (message) =>
        message.method === 'turn/completed' && message !== client.received.find((m) => m.method === 'turn/completed'),
      'the second turn/completed',
    );
    await client.request('thread/unsubscribe', { threadId: 'native-1' });
    await client.bridge.close();
    return first;
  }

  const stored: Item[] = [
    { kind: 'user_message', id: 'u1', status: 'completed', text: 'Count to a million', replay: true },
    { kind: 'agent_message', id: 'a1', status: 'completed', text: 'One, two' },
    { kind: 'user_message', id: 'u2', status: 'completed', text: 'Say hi', replay: true },
    { kind: 'agent_message', id: 'a2', status: 'completed', text: 'Hi.' },
  ];

  it('resumes in a new bridge on the model it ran, with its turns as they ended, once the transcript is written', async () => {
    const records = memoryRecords();
    const harness = new FakeHarness();
    const interrupted = await ranEarlier(records, harness);
    // The harness writes its transcript late: the first reads find nothing yet.
    let reads = 0;
    harness.stored.set('native-1', () => (++reads < 3 ? [] : stored));
    const client = await initialized(harness, { records });
    const resumed = await client.request('thread/resume', { threadId: 'native-1' });
    expect(harness.sessions[1]?.spec).toMatchObject({ resume: { nativeSessionId: 'native-1' }, model: 'fake-model' });
    const result = resumed.result as {
      model: string;
      reasoningEffort: string;
      thread: { turns: { id: string; status: string; items: { id: string }[] }[] };
    };
    expect(result.model).toBe('fake-model');
    expect(result.reasoningEffort).toBe('high');
    expect(result.thread.turns.map((turn) => [turn.id, turn.status, turn.items.map((item) => item.id)])).toEqual([
      [interrupted, 'interrupted', ['u1', 'a1']],
      [expect.stringMatching(UUID), 'completed', ['u2', 'a2']],
    ]);
    expect(reads).toBe(3);
  });

  it('reads, lists and pages the threads the harness keeps, and refuses one nobody knows as Codex does', async () => {
    const records = memoryRecords();
    const harness = new FakeHarness();
    await ranEarlier(records, harness);
    harness.stored.set('native-1', stored);
    harness.stored.set('cli-made', [
      { kind: 'user_message', id: 'x', status: 'completed', text: 'elsewhere', replay: true },
    ]);
    harness.summaries.push(
      { nativeSessionId: 'native-1', cwd: '/srv/work', title: 'Count to a million', updatedAt: 5_000 },
      { nativeSessionId: 'cli-made', cwd: '/srv/work', title: 'elsewhere', updatedAt: 9_000 },
    );
    const client = await initialized(harness, { records });
    const list = (await client.request('thread/list', {})).result as {
      data: { id: string; model: string | null; source: string }[];
    };
    expect(list.data.map((thread) => [thread.id, thread.model, thread.source])).toEqual([
      // Newest first: the bridge's thread was made just now, the other one long ago.
      ['native-1', 'fake-model', 'vscode'],
      ['cli-made', null, 'unknown'],
    ]);
    expect(
      ((await client.request('thread/list', { searchTerm: 'million' })).result as { data: unknown[] }).data,
    ).toHaveLength(1);
    const read = (await client.request('thread/read', { threadId: 'native-1', includeTurns: true })).result as {
      thread: { status: { type: string }; turns: { status: string }[] };
    };
    expect(read.thread.status).toEqual({ type: 'notLoaded' });
    expect(read.thread.turns.map((turn) => turn.status)).toEqual(['interrupted', 'completed']);
    const turns = (await client.request('thread/turns/list', { threadId: 'native-1', limit: 1 })).result as {
      data: { status: string; itemsView: string; items: { id: string }[] }[];
      nextCursor: string | null;
    };
    // Newest first, the summary view by default.
    expect(turns.data.map((turn) => [turn.status, turn.itemsView, turn.items.map((item) => item.id)])).toEqual([
      ['completed', 'summary', ['u2', 'a2']],
    ]);
    const older = (await client.request('thread/turns/list', { threadId: 'native-1', cursor: turns.nextCursor }))
      .result as {
      data: { status: string }[];
    };
    expect(older.data.map((turn) => turn.status)).toEqual(['interrupted']);
    const items = (await client.request('thread/items/list', { threadId: 'native-1', limit: 3 })).result as {
      data: { item: { id: string } }[];
    };
    expect(items.data.map((entry) => entry.item.id)).toEqual(['u1', 'a1', 'u2']);
    expect((await client.request('thread/read', { threadId: 'cli-made' })).result).toMatchObject({
      thread: { id: 'cli-made', turns: [] },
    });
    expect((await client.request('thread/read', { threadId: 'nobody' })).error).toMatchObject({
      code: -32600,
      message: 'thread not loaded: nobody',
    });
  });

  it('names a thread (thread/name/set) and remembers the name', async () => {
    const records = memoryRecords();
    const client = await initialized(new FakeHarness(), { records });
    await client.request('thread/start', {});
    expect((await client.request('thread/name/set', { threadId: 'native-1', name: 'Login bug' })).result).toEqual({});
    expect(
      await client.waitFor((message) => message.method === 'thread/name/updated', 'thread/name/updated'),
    ).toMatchObject({
      params: { threadId: 'native-1', threadName: 'Login bug' },
    });
    expect((await records.get('native-1'))?.name).toBe('Login bug');
  });
});

describe('thread/fork', () => {
  const stored: Item[] = [
    { kind: 'user_message', id: 'u1', status: 'completed', text: 'Remember the word teal', replay: true },
    { kind: 'agent_message', id: 'a1', status: 'completed', text: 'Noted.' },
  ];

  /** A source thread with one completed turn, its transcript stored under its native id. */
  async function source(harness: FakeHarness, records: RecordStore) {
    const client = await initialized(harness, { records });
    await client.request('thread/start', { model: 'fake-model' });
    const turnId = turnIdOf(
      await client.request('turn/start', { threadId: 'native-1', input: text('Remember the word teal') }),
    );
    harness.sessions[0]?.stream.completeTurn({ outcome: { status: 'completed' } });
    await client.waitFor((message) => message.method === 'turn/completed', 'turn/completed');
    harness.stored.set('native-1', stored);
    return { client, turnId };
  }

  it('forks into a new thread on the harness’s own fork: new id, forkedFromId, the source’s turns, its own session', async () => {
    const records = memoryRecords();
    const harness = new FakeHarness(true, 'yes');
    const { client, turnId } = await source(harness, records);
    const answer = await client.request('thread/fork', { threadId: 'native-1' });
    expect(harness.sessions[1]?.spec).toMatchObject({
      resume: { nativeSessionId: 'native-1', fork: true },
      model: 'fake-model',
      cwd: '/srv/work',
    });
    const result = answer.result as {
      model: string;
      thread: { id: string; forkedFromId: string | null; turns: { id: string; items: { id: string }[] }[] };
    };
    expect(result.thread.id).toBe('native-2');
    expect(result.thread.forkedFromId).toBe('native-1');
    expect(result.model).toBe('fake-model');
    // Before the fork has a transcript of its own, its turns are the source's it holds a copy of.
    expect(result.thread.turns.map((turn) => [turn.id, turn.items.map((item) => item.id)])).toEqual([
      [turnId, ['u1', 'a1']],
    ]);
    const started = await client.waitFor(
      (message) =>
        message.method === 'thread/started' &&
        message.params?.thread !== undefined &&
        client.received.indexOf(message) > client.received.indexOf(answer),
      'the fork’s thread/started',
    );
    expect(started.params).toMatchObject({ thread: { id: 'native-2', forkedFromId: 'native-1', turns: [] } });
    expect(await records.get('native-2')).toMatchObject({
      nativeSessionId: 'native-2',
      forkedFromId: 'native-1',
      turns: [{ id: turnId, status: 'completed' }],
    });
    // A turn on the fork goes to the fork's session; the source's is untouched.
    await client.request('turn/start', { threadId: 'native-2', input: text('Which word?') });
    expect(harness.sessions[1]?.inputs).toEqual([{ text: 'Which word?' }]);
    expect(harness.sessions[0]?.inputs).toEqual([{ text: 'Remember the word teal' }]);
    const read = await client.request('thread/read', { threadId: 'native-2' });
    expect(read.result).toMatchObject({ thread: { id: 'native-2', forkedFromId: 'native-1' } });
    const listed = (await client.request('thread/loaded/list', {})).result as { data: string[] };
    expect(listed.data).toEqual(['native-1', 'native-2']);
  });

  it('forks a thread it only remembers, in a new bridge, on its recorded model; excludeTurns leaves turns out', async () => {
    const records = memoryRecords();
    const harness = new FakeHarness(true, 'yes');
    const { client } = await source(harness, records);
    await client.bridge.close();
    const next = await initialized(harness, { records });
    const answer = await next.request('thread/fork', { threadId: 'native-1', excludeTurns: true });
    expect(harness.sessions[1]?.spec).toMatchObject({
      resume: { nativeSessionId: 'native-1', fork: true },
      model: 'fake-model',
    });
    expect(answer.result).toMatchObject({ thread: { id: 'native-2', forkedFromId: 'native-1', turns: [] } });
    // Stored, the fork still says where it came from.
    await next.request('thread/unsubscribe', { threadId: 'native-2' });
    const read = await next.request('thread/read', { threadId: 'native-2', includeTurns: true });
    expect(read.result).toMatchObject({ thread: { forkedFromId: 'native-1', status: { type: 'notLoaded' } } });
    expect((read.result as { thread: { turns: unknown[] } }).thread.turns).toHaveLength(1);
  });

  it('refuses what a Reins fork cannot do, naming the field: an earlier fork point, a path, an unknown turn', async () => {
    const harness = new FakeHarness(true, 'yes');
    const records = memoryRecords();
    const { client, turnId } = await source(harness, records);
    await client.request('turn/start', { threadId: 'native-1', input: text('And another') });
    harness.sessions[0]?.stream.completeTurn({ outcome: { status: 'completed' } });
    await client.waitFor(
      (message) =>
        message.method === 'turn/completed' &&
        client.received.filter((m) => m.method === 'turn/completed').length === 2,
      'the second turn/completed',
    );
    harness.stored.set('native-1', [
      ...stored,
      { kind: 'user_message', id: 'u2', status: 'completed', text: 'And another', replay: true },
    ]);
    const early = await client.request('thread/fork', { threadId: 'native-1', lastTurnId: turnId });
    expect(early.error).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/^lastTurnId: a Reins harness forks the whole conversation/),
      data: { field: 'lastTurnId' },
    });
    expect((await client.request('thread/fork', { threadId: 'native-1', lastTurnId: 'nope' })).error).toMatchObject({
      code: -32602,
      message: 'lastTurnId: names no turn of thread native-1.',
    });
    expect((await client.request('thread/fork', { threadId: 'native-1', path: '/x.jsonl' })).error).toMatchObject({
      code: -32602,
      data: { field: 'path' },
    });
    // Nothing was opened for any of them.
    expect(harness.sessions).toHaveLength(1);
  });

  it('refuses a harness that reopens the source instead of forking; the source thread goes on', async () => {
    const harness = new FakeHarness(true, 'reopens');
    const { client } = await source(harness, memoryRecords());
    const fork = await client.request('thread/fork', { threadId: 'native-1' });
    expect(fork.error).toMatchObject({
      code: -32600,
      message: expect.stringMatching(/reopened conversation native-1 instead of forking it/),
      data: { code: 'resume_failed' },
    });
    expect(harness.sessions[1]?.closed).toBe(true);
    expect(harness.sessions[0]?.closed).toBe(false);
    expect((await client.request('thread/loaded/list', {})).result).toEqual({ data: ['native-1'], nextCursor: null });
  });

  it('is served only where the harness forks: elsewhere Codex’s unknown-variant answer, not listed as served', async () => {
    const plain = await initialized(new FakeHarness());
    await plain.request('thread/start', {});
    const refused = await plain.request('thread/fork', { threadId: 'native-1' });
    expect(refused.error).toMatchObject({ code: -32600, data: { reins: { code: 'unsupported_capability' } } });
    expect((refused.error as { message: string }).message).not.toMatch(/expected one of .*`thread\/fork`/);
    const forking = await initialized(new FakeHarness(true, 'yes'));
    const unknown = await forking.request('thread/delete', {});
    expect((unknown.error as { message: string }).message).toMatch(/expected one of .*`thread\/fork`/);
  });
});

describe('mcpServerStatus/list', () => {
  const echo: McpServerStatus = { name: 'echo', status: 'connected', tools: ['echo', 'shout'] };
  const remote: McpServerStatus = { name: 'remote', status: 'failed', error: 'connection refused' };
  const fast = { mcpStartup: { settleMs: 2_000, pollMs: 10 } };

  it('answers a thread’s servers from its harness, in Codex’s shape, sorted and paged as Codex pages them', async () => {
    const harness = new FakeHarness(true, 'no', () => [remote, echo]);
    const client = await initialized(harness, fast);
    await client.request('thread/start', {
      config: { mcp_servers: { remote: { url: 'https://user:pw@mcp.example.com:8443/v1?key=1' } } },
    });
    const all = await client.request('mcpServerStatus/list', { threadId: 'native-1', detail: 'toolsAndAuthOnly' });
    expect(all.result).toEqual({
      data: [
        {
          name: 'echo',
          runtimeStatus: 'connected',
          pluginId: null,
          httpOrigin: null,
          serverInfo: null,
          serverCapabilities: null,
          toolListMeta: null,
          tools: {
            echo: { name: 'echo', inputSchema: { type: 'object' } },
            shout: { name: 'shout', inputSchema: { type: 'object' } },
          },
          toolsError: null,
          resources: [],
          resourceTemplates: [],
          authStatus: 'unknown',
        },
        expect.objectContaining({
          name: 'remote',
          runtimeStatus: 'failed',
          // The spec passed it by URL: its origin, without the credentials, path and query.
          httpOrigin: 'https://mcp.example.com:8443',
          toolsError: 'connection refused',
          tools: {},
        }),
      ],
      nextCursor: null,
    });
    const first = await client.request('mcpServerStatus/list', { threadId: 'native-1', limit: 1 });
    expect(first.result).toMatchObject({ data: [{ name: 'echo' }], nextCursor: '1' });
    const second = await client.request('mcpServerStatus/list', { threadId: 'native-1', limit: 1, cursor: '1' });
    expect(second.result).toMatchObject({ data: [{ name: 'remote' }], nextCursor: null });
    const named = await client.request('mcpServerStatus/list', { threadId: 'native-1', serverName: 'remote' });
    expect((named.result as { data: { name: string }[] }).data.map((entry) => entry.name)).toEqual(['remote']);
    // Codex 0.171.0's own refusals of a cursor.
    expect((await client.request('mcpServerStatus/list', { cursor: 'x' })).error).toMatchObject({
      code: -32600,
      message: 'invalid cursor: x',
    });
    expect((await client.request('mcpServerStatus/list', { threadId: 'native-1', cursor: '3' })).error).toMatchObject({
      code: -32600,
      message: 'cursor 3 exceeds total MCP servers 2',
    });
    expect((await client.request('mcpServerStatus/list', { threadId: 'gone' })).error).toMatchObject({
      code: -32600,
      message: 'thread not found: gone',
    });
    expect((await client.request('mcpServerStatus/list', { limit: -1 })).error).toMatchObject({ code: -32602 });
  });

  it('without a thread: every open thread’s servers, each name once; none open, none listed', async () => {
    const harness = new FakeHarness(true, 'no', (session) =>
      session.spec.cwd === '/a' ? [echo] : [{ ...echo, status: 'pending' }, remote],
    );
    const client = await initialized(harness, fast);
    expect((await client.request('mcpServerStatus/list', {})).result).toEqual({ data: [], nextCursor: null });
    await client.request('thread/start', { cwd: '/a' });
    await client.request('thread/start', { cwd: '/b' });
    const listed = await client.request('mcpServerStatus/list', {});
    expect(listed.result).toMatchObject({
      data: [
        { name: 'echo', runtimeStatus: 'connected' },
        { name: 'remote', runtimeStatus: 'failed' },
      ],
    });
  });

  it('tells a new thread’s servers starting, then ready or failed, once each, as the harness reports them', async () => {
    let asked = 0;
    const harness = new FakeHarness(true, 'no', () => {
      asked++;
      if (asked < 3)
        return [
          { name: 'echo', status: 'pending' },
          { ...remote, status: 'pending' },
        ];
      return [echo, remote];
    });
    const client = await initialized(harness, fast);
    const answer = await client.request('thread/start', {});
    await client.waitFor(
      (message) =>
        message.method === 'mcpServer/startupStatus/updated' &&
        (message.params as { name?: string; status?: string }).name === 'remote' &&
        (message.params as { status?: string }).status === 'failed',
      'remote failed',
    );
    const updates = client.received.filter((message) => message.method === 'mcpServer/startupStatus/updated');
    expect(updates.map((message) => message.params)).toEqual([
      { threadId: 'native-1', name: 'echo', environmentId: null, status: 'starting', error: null, failureReason: null },
      {
        threadId: 'native-1',
        name: 'remote',
        environmentId: null,
        status: 'starting',
        error: null,
        failureReason: null,
      },
      { threadId: 'native-1', name: 'echo', environmentId: null, status: 'ready', error: null, failureReason: null },
      {
        threadId: 'native-1',
        name: 'remote',
        environmentId: null,
        status: 'failed',
        error: 'connection refused',
        failureReason: null,
      },
    ]);
    // Never before the thread/start answer; and the watch stops once every server settled.
    expect(client.received.indexOf(updates[0] as Message)).toBeGreaterThan(client.received.indexOf(answer));
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(asked).toBe(3);
  });

  it('is served only where the harness reports MCP status: elsewhere Codex’s unknown-variant answer, not listed', async () => {
    const plain = await initialized(new FakeHarness());
    await plain.request('thread/start', {});
    const refused = await plain.request('mcpServerStatus/list', { threadId: 'native-1' });
    expect(refused.error).toMatchObject({ code: -32600, data: { reins: { code: 'unsupported_capability' } } });
    expect((refused.error as { message: string }).message).toMatch(
      /^Invalid request: unknown variant `mcpServerStatus\/list`/,
    );
    expect((refused.error as { message: string }).message).not.toMatch(/expected one of .*`mcpServerStatus\/list`/);
    expect(plain.received.some((message) => message.method === 'mcpServer/startupStatus/updated')).toBe(false);
    const reporting = await initialized(new FakeHarness(true, 'no', () => []));
    const unknown = await reporting.request('thread/delete', {});
    expect((unknown.error as { message: string }).message).toMatch(/expected one of .*`mcpServerStatus\/list`/);
  });
});

describe("thread/shellCommand (the Codex TUI's `!command`)", () => {
  it("runs the command in the thread's cwd as a turn of its own, output streamed, exit code kept", async () => {
    const client = await initialized(new FakeHarness());
    const cwd = tmpdir();
    await client.request('thread/start', { cwd });
    const answer = await client.request('thread/shellCommand', {
      threadId: 'native-1',
      command: 'echo shell-$((1+1)); pwd; exit 3',
      timeoutMs: null,
    });
    expect(answer.result).toEqual({});
    const ended = await client.waitFor((message) => message.method === 'turn/completed', 'turn/completed');
    const completed = client.received.find(
      (message) =>
        message.method === 'item/completed' &&
        (message.params?.item as { source?: string } | undefined)?.source === 'userShell',
    );
    expect(completed?.params?.item).toMatchObject({
      type: 'commandExecution',
      cwd,
      aggregatedOutput: `shell-2\n${cwd}\n`,
      exitCode: 3,
      status: 'failed',
    });
    const deltas = client.received.filter((message) => message.method === 'item/commandExecution/outputDelta');
    expect(deltas.map((message) => message.params?.delta).join('')).toBe(`shell-2\n${cwd}\n`);
    expect(ended.params).toMatchObject({ turn: { status: 'completed' } });
  });

  it('refuses a thread that is not open', async () => {
    const client = await initialized(new FakeHarness());
    const answer = await client.request('thread/shellCommand', { threadId: 'nope', command: 'true' });
    expect(answer.error).toMatchObject({ code: -32600, message: 'thread not found: nope' });
  });
});

describe('thread/revert, thread/archive, and what no harness can do', () => {
  async function twoTurns(harness: FakeHarness, records?: RecordStore) {
    const client = await initialized(harness, records ? { records } : {});
    await client.request('thread/start', {});
    const session = harness.sessions[0] as FakeSession;
    const ids: string[] = [];
    for (const prompt of ['one', 'two']) {
      ids.push(turnIdOf(await client.request('turn/start', { threadId: 'native-1', input: text(prompt) })));
      session.stream.completeTurn({ outcome: { status: 'completed' } });
      await client.waitFor(
        (message) =>
          message.method === 'turn/completed' &&
          (message.params?.turn as { id?: string } | undefined)?.id === ids.at(-1),
        `turn/completed of ${prompt}`,
      );
    }
    return { client, session, ids };
  }

  it('reverts to before a turn through Session.revert where the harness takes the conversation back', async () => {
    const harness = new FakeHarness();
    harness.revert = 'conversation';
    const { client, session, ids } = await twoTurns(harness);
    const answer = await client.request('thread/revert', { threadId: 'native-1', beforeTurnId: ids[1] });
    expect(answer.result).toMatchObject({ thread: { id: 'native-1', turns: [] }, turnsBackwardsCursor: null });
    // The Reins turn that the second Codex turn started.
    expect(session.calls.filter((call) => call.startsWith('revert:'))).toEqual([`revert:${session.turnIds[1]}`]);
    await client.waitFor((message) => message.method === 'thread/reverted', 'thread/reverted');
    // The turn is gone from the mapping: a second revert to it is refused, and nothing reaches the harness.
    const again = await client.request('thread/revert', { threadId: 'native-1', beforeTurnId: ids[1] });
    expect(again.error).toMatchObject({ code: -32600, message: expect.stringContaining(`turn ${ids[1]} is not one`) });
    expect(session.calls.filter((call) => call.startsWith('revert:'))).toHaveLength(1);
  });

  it('serves thread/revert where the harness forks from before the turn (Claude Code): the thread follows the new native id', async () => {
    const harness = new FakeHarness();
    harness.revert = 'fork';
    const records = memoryRecords();
    const { client, session, ids } = await twoTurns(harness, records);
    const answer = await client.request('thread/revert', { threadId: 'native-1', beforeTurnId: ids[1] });
    expect(answer.error).toBeUndefined();
    expect(session.calls.filter((call) => call.startsWith('revert:'))).toEqual([`revert:${session.turnIds[1]}`]);
    await client.waitFor((message) => message.method === 'thread/reverted', 'thread/reverted');
    // A later thread/resume reopens the fork, not the conversation that still holds the turn.
    const record = await records.get('native-1');
    expect(record?.nativeSessionId).toBe('native-1-fork');
    expect(record?.turns.map((turn) => turn.id)).toEqual([ids[0]]);
  });

  it('refuses thread/revert, changing nothing, where only the files would go back or nothing keeps checkpoints', async () => {
    for (const revert of ['files', 'none'] as const) {
      const harness = new FakeHarness();
      harness.revert = revert;
      const { client, session, ids } = await twoTurns(harness);
      const refused = await client.request('thread/revert', { threadId: 'native-1', beforeTurnId: ids[0] });
      expect(refused.error).toMatchObject({
        code: -32600,
        message: expect.stringContaining(revert === 'files' ? 'cannot drop turns' : 'keeps no checkpoints'),
        data: { code: 'unsupported_capability' },
      });
      expect(session.calls.some((call) => call.startsWith('revert:'))).toBe(false);
    }
  });

  it('archives a thread out of thread/list and back, telling every client', async () => {
    const client = await initialized(new FakeHarness());
    await client.request('thread/start', {});
    const listed = async (archived: boolean) =>
      ((await client.request('thread/list', { archived })).result as { data: { id: string }[] }).data.map(
        (thread) => thread.id,
      );
    expect(await listed(false)).toEqual(['native-1']);
    expect((await client.request('thread/archive', { threadId: 'native-1' })).result).toEqual({});
    await client.waitFor((message) => message.method === 'thread/archived', 'thread/archived');
    expect(await listed(false)).toEqual([]);
    expect(await listed(true)).toEqual(['native-1']);
    const back = await client.request('thread/unarchive', { threadId: 'native-1' });
    expect(back.result).toMatchObject({ thread: { id: 'native-1' } });
    await client.waitFor((message) => message.method === 'thread/unarchived', 'thread/unarchived');
    expect(await listed(false)).toEqual(['native-1']);
    const unknown = await client.request('thread/archive', { threadId: 'nobody' });
    expect(unknown.error).toMatchObject({ code: -32600, message: expect.stringContaining('thread not found: nobody') });
  });

  it('answers /compact and /review with a sentence and the stable code unsupported_capability', async () => {
    const client = await initialized(new FakeHarness());
    await client.request('thread/start', {});
    for (const [method, words] of [
      ['thread/compact/start', 'compacts its context by itself'],
      ['review/start', 'Review mode (/review) is not available'],
    ] as const) {
      const refused = await client.request(method, {
        threadId: 'native-1',
        target: { type: 'uncommittedChanges' },
      });
      expect(refused.error).toMatchObject({
        code: -32600,
        message: expect.stringContaining(words),
        data: { code: 'unsupported_capability' },
      });
      const unknown = await client.request(method, { threadId: 'nobody', target: { type: 'uncommittedChanges' } });
      expect(unknown.error).toMatchObject({ code: -32600, message: 'thread not found: nobody' });
    }
    // The TUI saves a /model pick as its default: no Codex config file here, said so.
    const save = await client.request('config/batchWrite', {
      edits: [{ keyPath: 'model', value: 'fake-model', mergeStrategy: 'replace' }],
    });
    expect(save.error).toMatchObject({
      code: -32600,
      message: expect.stringContaining('keeps no Codex config file, so nothing was saved'),
      data: { code: 'unsupported_capability' },
    });
  });
});

describe("thread/settings/update (the Codex TUI's /model picker)", () => {
  it('switches model and effort for the next turns, each only when it changes; refuses start-only settings', async () => {
    const harness = new FakeHarness();
    const client = await initialized(harness);
    await client.request('thread/start', { model: 'default' });
    const session = harness.sessions[0] as FakeSession;
    // What the TUI 0.171.0 sends after a pick (recorded): the model, the effort, its own mode preset.
    const picked = await client.request('thread/settings/update', {
      threadId: 'native-1',
      cwd: null,
      approvalPolicy: null,
      model: 'fake-model',
      effort: 'low',
      collaborationMode: { mode: 'default', settings: { model: 'fake-model', reasoning_effort: 'low' } },
    });
    expect(picked.result).toEqual({});
    expect(session.calls).toEqual(['setModel:fake-model', 'setEffort:low']);
    const again = await client.request('thread/settings/update', {
      threadId: 'native-1',
      model: 'fake-model',
      effort: 'low',
    });
    expect(session.calls).toEqual(['setModel:fake-model', 'setEffort:low']);
    const refused = await client.request('thread/settings/update', { threadId: 'native-1', cwd: '/elsewhere' });
    expect(refused.error).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/^cwd: a harness takes it only at start/),
    });
    const unknown = await client.request('thread/settings/update', { threadId: 'nobody', effort: 'low' });
    expect(unknown.error).toMatchObject({ code: -32600, message: 'thread not found: nobody' });
    // An experimental method has no answer type in the pinned (stable) schema: its answers are not checked.
    for (const answer of [picked, again, refused, unknown]) client.received.splice(client.received.indexOf(answer), 1);
  });
});

describe('fuzzyFileSearch (the `@` picker of Codex clients that ask the server)', () => {
  it('lists matching files under the roots, relative ones from the bridge cwd; bad params get -32602', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'reins-bridge-search-'));
    try {
      await mkdir(join(cwd, 'notes'));
      await writeFile(join(cwd, 'notes', 'zebra-findme.txt'), 'x\n');
      const client = await initialized(new FakeHarness(), { cwd });
      const found = await client.request('fuzzyFileSearch', { query: 'zebra', roots: ['.'], cancellationToken: null });
      expect(found.result).toEqual({
        files: [expect.objectContaining({ root: cwd, path: 'notes/zebra-findme.txt', match_type: 'file' })],
      });
      const bad = await client.request('fuzzyFileSearch', { query: 'zebra' });
      expect(bad.error).toMatchObject({ code: -32602, message: expect.stringMatching(/^roots: is required/) });

      // The experimental session form: its notifications are stable (schema-checked at the end).
      const started = await client.request('fuzzyFileSearch/sessionStart', { sessionId: 'picker', roots: [cwd] });
      const updated = await client.request('fuzzyFileSearch/sessionUpdate', { sessionId: 'picker', query: 'zebra' });
      expect([started.result, updated.result]).toEqual([{}, {}]);
      const files = await client.waitFor((message) => message.method === 'fuzzyFileSearch/sessionUpdated', 'results');
      expect(files.params).toMatchObject({
        sessionId: 'picker',
        query: 'zebra',
        files: [{ path: 'notes/zebra-findme.txt' }],
      });
      await client.waitFor((message) => message.method === 'fuzzyFileSearch/sessionCompleted', 'the completion');
      // An experimental method has no answer type in the pinned (stable) schema: its answers are not checked.
      for (const answer of [started, updated]) client.received.splice(client.received.indexOf(answer), 1);
    } finally {
      await rm(cwd, { recursive: true, force: true });
    }
  });
});
