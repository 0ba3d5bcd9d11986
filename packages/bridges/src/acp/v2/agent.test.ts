// The bridge's ACP v2 side in memory: the SDK's own experimental/v2 client joined to an AcpBridge in
// front of a scripted fake Harness. Every message either side wrote is checked against the SDK's
// schema/v2/schema.json when the test ends; a v1 client on the same bridge class still gets v1.

import * as v2 from '@agentclientprotocol/sdk/experimental/v2';
import * as v1 from '@agentclientprotocol/sdk/unstable';
import {
  computeCapabilities,
  type Harness,
  type Item,
  type PermissionDecision,
  type Session,
  SessionEventStream,
  type SessionSpec,
  type TurnInput,
} from '@reins/core';
import { until } from '@reins/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { acpV2Violations, acpViolations } from '../../../test/support/acp-schema.js';
import { memoryRecords, type RecordStore } from '../../records.js';
import { AcpBridge } from '../agent.js';

const wires: { version: 1 | 2; fromClient: Record<string, unknown>[]; fromAgent: Record<string, unknown>[] }[] = [];
afterEach(() => {
  const violations = wires
    .splice(0)
    .flatMap((wire) =>
      wire.version === 2
        ? acpV2Violations(wire.fromClient, wire.fromAgent)
        : acpViolations(wire.fromClient, wire.fromAgent),
    );
  expect(violations).toEqual([]);
});

function tap(into: Record<string, unknown>[]) {
  return new TransformStream<v2.AnyMessage, v2.AnyMessage>({
    transform(message, controller) {
      into.push(structuredClone(message) as Record<string, unknown>);
      controller.enqueue(message);
    },
  });
}

/** A session whose turns say "Hello", run one command (its tool item updated twice), then end. */
class FakeSession implements Session {
  readonly id = 'reins-session-1';
  readonly harness = 'codex' as const;
  readonly stream = new SessionEventStream({ harness: 'codex', sessionId: this.id });
  readonly interrupts: string[] = [];
  /** Hold each turn open until interrupted (to test cancel). */
  holdTurns = false;
  private turns = 0;

  constructor(
    readonly spec: SessionSpec,
    readonly nativeSessionId: string,
  ) {
    this.stream.emit({ type: 'session.started', cwd: spec.cwd, model: 'fake-model' });
    this.stream.emit({ type: 'session.updated', model: 'fake-model', nativeSessionId });
  }

  get events() {
    return this.stream.events;
  }

  async send(input: TurnInput | string) {
    const turnInput = typeof input === 'string' ? { text: input } : input;
    const turnId = this.stream.startTurn(turnInput) as string;
    const n = ++this.turns;
    setImmediate(() => {
      this.stream.emit({ type: 'item.delta', itemId: `msg-${n}`, kind: 'text', text: 'Hel' });
      this.stream.emit({ type: 'item.delta', itemId: `msg-${n}`, kind: 'text', text: 'lo' });
      if (this.holdTurns) return;
      const tool: Item = {
        kind: 'tool_call',
        id: `tool-${n}`,
        status: 'running',
        tool: { kind: 'command', name: 'exec_command', title: 'echo hi' },
        input: { command: 'echo hi' },
      };
      this.stream.emit({ type: 'item.started', item: tool });
      this.stream.emit({ type: 'item.delta', itemId: `tool-${n}`, kind: 'tool_output', text: 'hi\n' });
      this.stream.emit({
        type: 'item.completed',
        item: { ...tool, status: 'completed', output: { text: 'hi\n' }, exitCode: 0 },
      });
      this.stream.emit({
        type: 'item.completed',
        item: { kind: 'agent_message', id: `msg-${n}`, status: 'completed', text: 'Hello' },
      });
      this.stream.completeTurn({ outcome: { status: 'completed' }, stopReason: 'end_turn' });
    });
    return { turnId, delivery: 'started' as const };
  }

  async interrupt() {
    this.interrupts.push('interrupt');
    if (this.stream.activeTurnId) this.stream.completeTurn({ outcome: { status: 'cancelled' } });
  }
  async setModel() {
    return { applied: 'next_turn' as const };
  }
  async setEffort() {
    return { applied: 'live' as const };
  }
  async respondToPermission(_requestId: string, _decision: PermissionDecision) {}
  async close() {
    this.stream.close('requested');
  }
}

class FakeHarness implements Harness {
  readonly id = 'codex' as const;
  readonly displayName = 'Fake Codex';
  readonly sessions: FakeSession[] = [];
  /** What `history` returns for a resumed conversation. */
  stored: Item[] = [];

  async discover() {
    return { found: false as const, searched: [], hint: 'fake' };
  }
  async health() {
    return { status: 'ready' as const };
  }
  async capabilities() {
    return computeCapabilities({ implemented: { resume: true } });
  }
  async models() {
    return [{ id: 'fake-model' }];
  }
  async history() {
    return this.stored;
  }
  async createSession(spec: SessionSpec) {
    const session = new FakeSession(spec, spec.resume?.nativeSessionId ?? `thread-${this.sessions.length + 1}`);
    this.sessions.push(session);
    return session;
  }
}

type Update = Record<string, unknown> & { sessionUpdate: string };

/** The SDK's v2 client joined to a fresh bridge; records every update in order. */
async function v2Client(harness: FakeHarness, records: RecordStore = memoryRecords()) {
  const wire = {
    version: 2 as const,
    fromClient: [] as Record<string, unknown>[],
    fromAgent: [] as Record<string, unknown>[],
  };
  wires.push(wire);
  const toAgent = tap(wire.fromClient);
  const toClient = tap(wire.fromAgent);
  const bridge = new AcpBridge({ harness, requestTimeoutMs: 2_000, records });
  bridge.connect({ readable: toAgent.readable, writable: toClient.writable } as v1.Stream);
  const updates: Update[] = [];
  const connection = v2
    .client({ name: 'v2-test-client' })
    .onNotification('session/update', ({ params }) => {
      updates.push(params.update as unknown as Update);
    })
    .connect({ readable: toClient.readable, writable: toAgent.writable });
  const init = await connection.agent.request('initialize', {
    protocolVersion: 2,
    info: { name: 'v2-test-client', version: '1.0.0' },
  });
  return { bridge, connection, updates, init };
}

const states = (updates: Update[]) => updates.filter((update) => update.sessionUpdate === 'state_update');

describe('reins bridge acp, protocol v2 (in memory, the SDK v2 client)', () => {
  it('negotiates v2 at initialize and answers with the v2 shape', async () => {
    const { init, connection } = await v2Client(new FakeHarness());
    expect(init.protocolVersion).toBe(2);
    expect(init.info).toMatchObject({ name: 'reins-acp-bridge', title: 'Reins: Fake Codex' });
    connection.close();
  });

  it('acknowledges a prompt with its user message id, then running, upserts, and one idle', async () => {
    const { connection, updates } = await v2Client(new FakeHarness());
    const { sessionId } = await connection.agent.request('session/new', { cwd: '/work' });
    const ack = await connection.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'Say hello.' }],
    });
    expect(ack.messageId).toMatch(/^reins-user-/);
    await until(() => states(updates).some((update) => update.state === 'idle'), 'the idle state');
    const kinds = updates.map((update) => update.sessionUpdate);
    // running before any of the turn's output, idle after all of it, exactly once each.
    expect(states(updates).map((update) => update.state)).toEqual(['running', 'idle']);
    expect(kinds.indexOf('state_update')).toBeLessThan(kinds.indexOf('agent_message_chunk'));
    expect(kinds.lastIndexOf('state_update')).toBe(kinds.length - 1);
    expect(states(updates).at(-1)).toMatchObject({ stopReason: 'end_turn' });
    // The user message the prompt inserted carries the acknowledged id.
    expect(updates.find((update) => update.sessionUpdate === 'user_message')).toMatchObject({
      messageId: ack.messageId,
      content: [{ type: 'text', text: 'Say hello.' }],
    });
    // The text once, under one message id.
    const chunks = updates.filter((update) => update.sessionUpdate === 'agent_message_chunk');
    expect(chunks.map((update) => (update.content as { text: string }).text).join('')).toBe('Hello');
    expect(new Set(chunks.map((update) => update.messageId)).size).toBe(1);
    // The tool call: only upserts on one id, the last one completed; no v1 `tool_call`.
    expect(kinds).not.toContain('tool_call');
    const tool = updates.filter((update) => update.sessionUpdate === 'tool_call_update');
    expect(tool.length).toBeGreaterThanOrEqual(2);
    expect(new Set(tool.map((update) => update.toolCallId))).toEqual(new Set(['tool-1']));
    expect(tool[0]).toMatchObject({ title: 'echo hi', kind: 'execute' });
    expect(tool.at(-1)).toMatchObject({ status: 'completed' });
    connection.close();
  });

  it('cancels a running turn: the harness is interrupted and the session goes idle with cancelled', async () => {
    const harness = new FakeHarness();
    const { connection, updates } = await v2Client(harness);
    const { sessionId } = await connection.agent.request('session/new', { cwd: '/work' });
    (harness.sessions[0] as FakeSession).holdTurns = true;
    await connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'Count.' }] });
    await until(() => updates.some((update) => update.sessionUpdate === 'agent_message_chunk'), 'a chunk');
    await connection.agent.notify('session/cancel', { sessionId });
    await until(() => states(updates).some((update) => update.state === 'idle'), 'the idle state');
    expect(states(updates).at(-1)).toMatchObject({ state: 'idle', stopReason: 'cancelled' });
    expect((harness.sessions[0] as FakeSession).interrupts).toEqual(['interrupt']);
    connection.close();
  });

  it('resumes in a new connection with replay: the history, then idle, then the answer', async () => {
    const records = memoryRecords();
    const harness = new FakeHarness();
    const first = await v2Client(harness, records);
    const { sessionId } = await first.connection.agent.request('session/new', { cwd: '/work' });
    first.connection.close();
    harness.stored = [
      { kind: 'user_message', id: 'u1', status: 'completed', text: 'Earlier question', replay: true },
      { kind: 'agent_message', id: 'a1', status: 'completed', text: 'Earlier answer' },
    ];
    const second = await v2Client(harness, records);
    const answered: string[] = [];
    const resumed = second.connection.agent
      .request('session/resume', { sessionId, cwd: '/work', replayFrom: { type: 'start' } })
      .then((answer) => {
        answered.push(`answer after ${second.updates.length} updates`);
        return answer;
      });
    await resumed;
    const kinds = second.updates.map((update) => update.sessionUpdate);
    expect(kinds.indexOf('user_message')).toBeGreaterThanOrEqual(0);
    expect(second.updates.find((update) => update.sessionUpdate === 'user_message')).toMatchObject({
      content: [{ type: 'text', text: 'Earlier question' }],
    });
    const replayedText = second.updates
      .filter((update) => update.sessionUpdate === 'agent_message_chunk')
      .map((update) => (update.content as { text: string }).text);
    expect(replayedText).toEqual(['Earlier answer']);
    // The current state came after the replay and before the answer.
    expect(kinds.at(-1)).toBe('state_update');
    expect(answered).toEqual([`answer after ${kinds.length} updates`]);
    // The resumed session takes prompts.
    await second.connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'Again.' }] });
    await until(() => states(second.updates).some((update) => update.stopReason === 'end_turn'), 'the turn to end');
    second.connection.close();
  });

  it('still serves a v1 client v1 (no state_update, the prompt answers with the stop reason)', async () => {
    const wire = {
      version: 1 as const,
      fromClient: [] as Record<string, unknown>[],
      fromAgent: [] as Record<string, unknown>[],
    };
    wires.push(wire);
    const toAgent = tap(wire.fromClient);
    const toClient = tap(wire.fromAgent);
    const bridge = new AcpBridge({ harness: new FakeHarness(), requestTimeoutMs: 2_000 });
    bridge.connect({ readable: toAgent.readable, writable: toClient.writable } as v1.Stream);
    const kinds: string[] = [];
    const connection = v1
      .client()
      .onNotification('session/update', ({ params }) => {
        kinds.push(params.update.sessionUpdate);
      })
      .connect({ readable: toClient.readable, writable: toAgent.writable });
    const init = await connection.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    expect(init.protocolVersion).toBe(1);
    const { sessionId } = await connection.agent.request('session/new', { cwd: '/work', mcpServers: [] });
    const answer = await connection.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'Hi' }],
    });
    expect(answer.stopReason).toBe('end_turn');
    expect(kinds).toContain('tool_call');
    expect(kinds).not.toContain('state_update');
    connection.close();
  });
});
