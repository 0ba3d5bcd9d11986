// The Codex session's own logic against an in-memory app-server (no process): the JSON-RPC side is
// the real one (connection.ts codexPeer), the other end is a script. What only exact ordering can
// show lives here: a late terminal of an abandoned turn, the echo of the user's message, the strict
// schema plan, an unknown turn status.
import type { ReinsEvent, SessionSpec } from '@reins/core';
import { afterEach, describe, expect, it } from 'vitest';
import { streamViolations } from '../../../testkit/src/conformance/invariants.js';
import { until } from '../../../testkit/src/polling/until.js';
import { type CodexConnection, type Connect, type ConnectionHooks, codexPeer } from './connection.js';
import { CodexSession } from './session.js';

const THREAD = 'thr_1';

/** The other end of the wire: answers requests by script and sends notifications on demand. */
class MemoryCodex {
  readonly requests: Array<{ method: string; params: Record<string, unknown> }> = [];
  /** Requests held back (no answer yet), by method. */
  readonly held = new Map<string, Array<(result: unknown) => void>>();
  private receive: ((line: string) => void) | undefined;
  private turnCounter = 0;
  private exit: () => void = () => {};
  hold = new Set<string>();

  readonly connect: Connect = async (_cwd, _env, hooks: ConnectionHooks) => {
    const exited = new Promise<void>((resolve) => {
      this.exit = resolve;
    });
    const { peer, receiveLine } = codexPeer((line) => this.fromClient(line), hooks, 5_000);
    this.receive = receiveLine;
    const connection: CodexConnection = {
      peer,
      initialize: { userAgent: 'reins/0.171.0 (memory)' } as CodexConnection['initialize'],
      binaryPath: '/memory/codex',
      exited,
      exitError: () => new Error('gone') as never,
      bindThread: () => {},
      close: async () => this.exit(),
    };
    return connection;
  };

  /** The adapter's answers to our requests, by request id. */
  readonly answers = new Map<number | string, unknown>();

  private fromClient(line: string): boolean {
    const message = JSON.parse(line) as {
      id?: number;
      method?: string;
      params?: Record<string, unknown>;
      result?: unknown;
      error?: unknown;
    };
    if (message.method === undefined && message.id !== undefined) {
      this.answers.set(message.id, message.error !== undefined ? { error: message.error } : message.result);
      return true;
    }
    if (message.method === undefined || message.id === undefined) return true;
    const { id, method } = message;
    this.requests.push({ method, params: message.params ?? {} });
    const answer = (result: unknown) => queueMicrotask(() => this.send({ id, result }));
    if (this.hold.has(method)) {
      this.held.set(method, [...(this.held.get(method) ?? []), answer]);
      return true;
    }
    if (method === 'thread/start') answer({ thread: { id: THREAD, name: null }, model: 'fake-model' });
    else if (method === 'turn/start') answer({ turn: { id: `native_${++this.turnCounter}` } });
    else answer({});
    return true;
  }

  send(frame: unknown): void {
    this.receive?.(typeof frame === 'string' ? frame : JSON.stringify(frame));
  }

  notify(method: string, params: Record<string, unknown>): void {
    this.send({ method, params: { threadId: THREAD, ...params } });
  }

  turnStarted(turnId: string): void {
    this.notify('turn/started', { turn: { id: turnId, status: 'inProgress', items: [], error: null } });
  }

  turnCompleted(turnId: string, status = 'completed'): void {
    this.notify('turn/completed', { turn: { id: turnId, status, items: [], error: null } });
  }

  agentMessage(turnId: string, id: string, text: string): void {
    const item = { type: 'agentMessage', id, text, phase: null, memoryCitation: null };
    this.notify('item/started', { turnId, item: { ...item, text: '' } });
    this.notify('item/completed', { turnId, item });
  }

  userEcho(turnId: string, text: string, clientId: string | null): void {
    const item = { type: 'userMessage', id: `u_${turnId}`, clientId, content: [{ type: 'text', text }] };
    this.notify('item/started', { turnId, item });
    this.notify('item/completed', { turnId, item });
  }

  sent(method: string) {
    return this.requests.filter((request) => request.method === method).map((request) => request.params);
  }
}

const sessions: CodexSession[] = [];
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((session) => session.close()));
});

async function open(spec: Partial<SessionSpec> = {}, options: { interruptGraceMs?: number } = {}) {
  const codex = new MemoryCodex();
  const session = new CodexSession({ cwd: '/work', ...spec }, { connect: codex.connect, ...options });
  sessions.push(session);
  const events: ReinsEvent[] = [];
  void (async () => {
    for await (const event of session.events) {
      events.push(event);
    }
  })();
  await session.start();
  /** The first event the predicate matches (a predicate may also poll what the fake received). */
  const untilEvent = (predicate: (event: ReinsEvent) => boolean) =>
    until(() => events.find(predicate), 'a matching event');
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  return { codex, session, events, untilEvent, settle };
}

const terminalOf = (turnId: string) => (event: ReinsEvent) =>
  event.type === 'turn.completed' && event.turnId === turnId;

describe('codex session (in-memory app-server)', () => {
  it('a stalled turn ends failed; the next queued turn waits for Codex to end it, and its late terminal ends nothing', async () => {
    const { codex, session, events, untilEvent, settle } = await open({ stallTimeoutMs: 50 });
    const first = await session.send('one');
    await settle();
    codex.turnStarted('native_1');
    const second = await session.send('two');
    expect(second.delivery).toBe('queued');
    const stalled = await untilEvent(terminalOf(first.turnId));
    expect(stalled).toMatchObject({ outcome: { status: 'failed', error: { code: 'timeout' } } });
    // Codex was told to stop the abandoned turn, and the next turn/start waits for its end
    // (a turn/start during an active Codex turn is taken as a steer).
    await untilEvent(() => codex.sent('turn/interrupt').length === 1);
    expect(codex.sent('turn/interrupt')).toEqual([{ threadId: THREAD, turnId: 'native_1' }]);
    await settle();
    expect(codex.sent('turn/start')).toHaveLength(1);
    codex.agentMessage('native_1', 'late_item', 'late text of the abandoned turn');
    codex.turnCompleted('native_1', 'interrupted');
    await untilEvent(() => codex.sent('turn/start').length === 2);
    await settle();
    codex.turnStarted('native_2');
    // Another late terminal for the abandoned turn while the second one runs: it ends nothing.
    codex.turnCompleted('native_1', 'interrupted');
    codex.agentMessage('native_2', 'a2', 'second answer');
    await settle();
    expect(events.some(terminalOf(second.turnId))).toBe(false);
    codex.turnCompleted('native_2');
    expect(await untilEvent(terminalOf(second.turnId))).toMatchObject({ outcome: { status: 'completed' } });
    const late = events.filter(
      (event) => event.type === 'passthrough' && (event.frame as { method?: string }).method === 'turn/completed',
    );
    expect(late).toHaveLength(2);
    expect(late.every((event) => event.type === 'passthrough' && event.reason === undefined)).toBe(true);
    // The abandoned turn's late item became no item of the second turn.
    expect(events.some((event) => event.type === 'item.completed' && event.item.id === 'late_item')).toBe(false);
    expect(streamViolations(events)).toEqual([]);
  });

  it('one user_message per message, with the clientMessageId; Codex echo stays native', async () => {
    const { codex, session, events, untilEvent, settle } = await open();
    const sent = await session.send('Say hello.', { clientMessageId: 'bubble-1' });
    await settle();
    expect(codex.sent('turn/start')[0]).toMatchObject({ clientUserMessageId: 'bubble-1' });
    codex.turnStarted('native_1');
    codex.userEcho('native_1', 'Say hello.', 'bubble-1');
    expect(await session.send('and more', { mode: 'steer', clientMessageId: 'bubble-2' })).toEqual({
      turnId: sent.turnId,
      delivery: 'steered',
    });
    codex.userEcho('native_1', 'and more', null);
    codex.agentMessage('native_1', 'a1', 'Hello.');
    codex.turnCompleted('native_1');
    await untilEvent(terminalOf(sent.turnId));
    const users = events.flatMap((event) =>
      event.type === 'item.completed' && event.item.kind === 'user_message' ? [event.item] : [],
    );
    expect(users.map((item) => [item.text, item.clientMessageId])).toEqual([
      ['Say hello.', 'bubble-1'],
      ['and more', 'bubble-2'],
    ]);
    expect(codex.sent('turn/steer')).toEqual([
      { threadId: THREAD, expectedTurnId: 'native_1', input: [{ type: 'text', text: 'and more', text_elements: [] }] },
    ]);
    const echoes = events.filter(
      (event) => event.type === 'passthrough' && JSON.stringify(event.frame).includes('"userMessage"'),
    );
    expect(echoes).toHaveLength(4);
    expect(streamViolations(events, { settled: true })).toEqual([]);
  });

  it('native structured output: the strict schema goes on turn/start and the reply is restored and validated', async () => {
    const { codex, session, untilEvent, settle } = await open();
    const schema = {
      type: 'object',
      properties: { answer: { type: 'string' }, n: { type: 'number' } },
      required: ['answer'],
    };
    const sent = await session.send('json please', { outputSchema: schema });
    await settle();
    expect(codex.sent('turn/start')[0]?.outputSchema).toMatchObject({
      additionalProperties: false,
      required: ['answer', 'n'],
    });
    codex.turnStarted('native_1');
    codex.agentMessage('native_1', 'a1', '{"answer": "yes", "n": null}');
    codex.turnCompleted('native_1');
    expect(await untilEvent(terminalOf(sent.turnId))).toMatchObject({
      outcome: { status: 'completed' },
      structuredOutput: { answer: 'yes' },
    });
    // A schema outside Codex's strict subset is refused at send, before anything is queued.
    await expect(
      session.send('bad', { outputSchema: { type: 'object', patternProperties: {} } }),
    ).rejects.toMatchObject({
      code: 'invalid_input',
    });
    expect(codex.sent('turn/start')).toHaveLength(1);
  });

  it('a turn/completed with a status Reins does not know still ends the turn, failed with protocol_error', async () => {
    const { codex, session, untilEvent, settle } = await open();
    const sent = await session.send('one');
    await settle();
    codex.turnStarted('native_1');
    codex.turnCompleted('native_1', 'futureStatus');
    expect(await untilEvent(terminalOf(sent.turnId))).toMatchObject({
      outcome: {
        status: 'failed',
        error: { code: 'protocol_error', message: expect.stringContaining('futureStatus') },
      },
    });
    const next = await session.send('two');
    await settle();
    codex.turnStarted('native_2');
    codex.turnCompleted('native_2');
    expect(await untilEvent(terminalOf(next.turnId))).toMatchObject({ outcome: { status: 'completed' } });
  });

  it('a pending approval holds the stall watchdog; the decision goes back as Codex decision string', async () => {
    const { codex, session, events, untilEvent, settle } = await open({ stallTimeoutMs: 300, posture: 'ask' });
    const sent = await session.send('touch a file');
    await settle();
    codex.turnStarted('native_1');
    codex.send({
      id: 'req_1',
      method: 'item/commandExecution/requestApproval',
      params: { threadId: THREAD, turnId: 'native_1', itemId: 'cmd_1', command: 'touch f' },
    });
    const asked = await untilEvent((event) => event.type === 'permission.requested');
    expect(asked).toMatchObject({ requestId: 'req_1', itemId: 'cmd_1', tool: { kind: 'command', title: 'touch f' } });
    // Far longer than stallTimeoutMs: a turn waiting for a person is not stalled.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(events.some(terminalOf(sent.turnId))).toBe(false);
    await session.respondToPermission('req_1', { behavior: 'allow', scope: 'session' });
    codex.turnCompleted('native_1');
    expect(await untilEvent(terminalOf(sent.turnId))).toMatchObject({ outcome: { status: 'completed' } });
    await untilEvent(() => codex.answers.has('req_1'));
    expect(codex.answers.get('req_1')).toEqual({ decision: 'acceptForSession' });
    await expect(session.respondToPermission('req_1', { behavior: 'deny' })).rejects.toMatchObject({
      code: 'invalid_input',
    });
  });

  it('a server request Reins has no event for is refused with an error answer and stays visible', async () => {
    const { codex, events, untilEvent } = await open();
    codex.send({ id: 7, method: 'item/tool/requestUserInput', params: { threadId: THREAD, questions: [] } });
    await untilEvent(() => codex.answers.has(7));
    expect(codex.answers.get(7)).toMatchObject({
      error: { message: expect.stringContaining('item/tool/requestUserInput') },
    });
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'passthrough',
        reason: 'unknown',
        native: expect.objectContaining({ method: 'item/tool/requestUserInput' }),
      }),
    );
    expect(events).toContainEqual(expect.objectContaining({ type: 'notice', kind: 'warning' }));
  });

  it('model and effort changes go on the next turn/start, and only that one', async () => {
    const { codex, session, untilEvent, settle } = await open({ effort: 'low' });
    const one = await session.send('one');
    await settle();
    codex.turnCompleted('native_1');
    await untilEvent(terminalOf(one.turnId));
    expect(await session.setModel('fake-model-2')).toEqual({ applied: 'next_turn' });
    expect(await session.setEffort('high')).toEqual({ applied: 'next_turn' });
    await expect(session.setEffort('enormous' as never)).rejects.toMatchObject({ code: 'invalid_input' });
    const two = await session.send('two');
    await settle();
    codex.turnCompleted('native_2');
    await untilEvent(terminalOf(two.turnId));
    const three = await session.send('three');
    await settle();
    codex.turnCompleted('native_3');
    await untilEvent(terminalOf(three.turnId));
    const starts = codex.sent('turn/start');
    expect(starts.map((params) => [params.model, params.effort])).toEqual([
      [undefined, 'low'],
      ['fake-model-2', 'high'],
      [undefined, undefined],
    ]);
  });
});
