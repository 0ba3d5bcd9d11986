// The ACP session over an in-memory agent (an injected AcpTransport, no process): the SDK
// connection, the session on the chassis and its translation, driven frame by frame.
import { tmpdir } from 'node:os';
import type { ReinsEvent } from '@reins/core';
import { SessionRecorder } from '@reins/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import type { ExitInfo, ProcessFault } from '../runtime/child-process.js';
import { AcpConnection, type AcpTransport } from './connection.js';
import type { AcpQuirks } from './preset.js';
import { AcpSession } from './session.js';

type Message = { id?: number | string; method?: string; params?: Record<string, unknown>; result?: unknown };

/** How the in-memory agent answers one prompt: updates to send, then the PromptResponse (or a throw). */
type PromptScript = (agent: MemoryAgent, text: string) => Promise<unknown>;

const promptText = (message: Message) => ((message.params?.prompt ?? []) as { text?: string }[])[0]?.text ?? '';

/** An ACP agent in memory: it answers initialize, session/new and session/prompt by script. */
class MemoryAgent implements AcpTransport {
  readonly received: Message[] = [];
  readonly exited: Promise<ExitInfo>;
  private status: ExitInfo | undefined;
  private lineHandler: (line: string) => void = () => {};
  private settle!: (info: ExitInfo) => void;
  private cancelWaiters: (() => void)[] = [];

  constructor(private readonly script: PromptScript) {
    this.exited = new Promise((resolve) => {
      this.settle = resolve;
    });
  }

  get exitStatus(): ExitInfo | undefined {
    return this.status;
  }

  onLine(handler: (line: string) => void): void {
    this.lineHandler = handler;
  }

  onFault(_handler: (fault: ProcessFault) => void): void {}

  writeLine(line: string): boolean {
    if (this.status) return false;
    const message = JSON.parse(line) as Message;
    this.received.push(message);
    setImmediate(() => void this.handle(message));
    return true;
  }

  describeExit(): string {
    return 'the memory agent ended';
  }

  async close(): Promise<ExitInfo> {
    this.end(0);
    return this.status as ExitInfo;
  }

  /** The agent goes away (a crash when code is not 0). */
  end(code: number): void {
    if (this.status) return;
    this.status = { code, signal: null };
    this.settle(this.status);
  }

  /** Writes one raw line to Reins, as the agent's stdout would. */
  line(text: string): void {
    this.lineHandler(text);
  }

  update(update: Record<string, unknown>): void {
    this.send({ method: 'session/update', params: { sessionId: 'mem-1', update } });
  }

  text(text: string): void {
    this.update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } });
  }

  untilCancel(): Promise<void> {
    return new Promise((resolve) => this.cancelWaiters.push(resolve));
  }

  prompts(): string[] {
    return this.received.filter((message) => message.method === 'session/prompt').map(promptText);
  }

  private send(message: Record<string, unknown>): void {
    this.line(JSON.stringify({ jsonrpc: '2.0', ...message }));
  }

  private async handle(message: Message): Promise<void> {
    if (message.method === undefined) return;
    if (message.id === undefined) {
      if (message.method === 'session/cancel') for (const resolve of this.cancelWaiters.splice(0)) resolve();
      return;
    }
    try {
      this.send({ id: message.id, result: await this.answer(message) });
    } catch (error) {
      this.send({ id: message.id, error: { code: -32603, message: String(error) } });
    }
  }

  private answer(message: Message): Promise<unknown> | unknown {
    switch (message.method) {
      case 'initialize':
        return { protocolVersion: 1, agentCapabilities: { promptCapabilities: {} }, authMethods: [] };
      case 'session/new':
        return { sessionId: 'mem-1' };
      case 'session/prompt': {
        return this.script(this, promptText(message));
      }
      default:
        throw new Error(`method not found: ${message.method}`);
    }
  }
}

const opened: SessionRecorder[] = [];
afterEach(async () => {
  await SessionRecorder.closeAll(opened.splice(0));
});

async function openSession(script: PromptScript, quirks: AcpQuirks = {}) {
  const agent = new MemoryAgent(script);
  const connection = await AcpConnection.over(
    agent,
    { harness: 'acp', label: 'memory agent' },
    { requestTimeoutMs: 2000 },
  );
  const session = new AcpSession({
    harness: 'acp',
    displayName: 'Memory agent',
    label: 'memory agent',
    connection,
    spec: { cwd: tmpdir() },
    quirks,
    requestTimeoutMs: 2000,
    env: {},
    release: () => connection.close(),
  });
  await session.open();
  const recorder = new SessionRecorder(session, 10_000);
  opened.push(recorder);
  return { agent, session, recorder };
}

const of = <T extends ReinsEvent['type']>(events: readonly ReinsEvent[], type: T) =>
  events.filter((event): event is Extract<ReinsEvent, { type: T }> => event.type === type);

const echo: PromptScript = async (agent, text) => {
  agent.text(`echo: ${text}`);
  return { stopReason: 'end_turn' };
};

describe('AcpSession over an in-memory agent', () => {
  it('runs a turn: the user_message, the streamed answer, one terminal', async () => {
    const { session, recorder } = await openSession(echo);
    const sent = await session.send('hi', { clientMessageId: 'c1' });
    expect(await recorder.terminalOf(sent)).toMatchObject({ outcome: { status: 'completed' }, stopReason: 'end_turn' });
    expect(of(recorder.turnEvents(sent.turnId), 'item.completed').map((event) => event.item)).toEqual([
      expect.objectContaining({ kind: 'user_message', text: 'hi', clientMessageId: 'c1' }),
      expect.objectContaining({ kind: 'agent_message', text: 'echo: hi' }),
    ]);
  });

  it('an unknown stop reason, a line that is no JSON or nests too deep, an answer to no request: passthroughs with warnings, and the session goes on', async () => {
    const { agent, session, recorder } = await openSession(async (memory, text) => {
      if (text !== 'first') return echo(memory, text);
      memory.line('progress 50%');
      memory.line(`${'['.repeat(20_000)}${']'.repeat(20_000)}`);
      memory.line(JSON.stringify({ jsonrpc: '2.0', id: 999, result: {} }));
      memory.text('done');
      return { stopReason: 'future_reason' };
    });
    const first = await session.send('first');
    expect(await recorder.terminalOf(first)).toMatchObject({
      outcome: { status: 'completed' },
      stopReason: 'future_reason',
    });
    const events = recorder.turnEvents(first.turnId);
    expect(of(events, 'passthrough').map((event) => [event.reason, event.frame])).toEqual(
      expect.arrayContaining([
        ['unparsable', { stdout: 'progress 50%' }],
        // Too deep to parse on the shared event loop: a marker stands for it.
        [
          'unparsable',
          { stdout: { reinsTruncated: true, reason: expect.stringContaining('deeper than 1000 levels') } },
        ],
        ['unknown', { jsonrpc: '2.0', id: 999, result: {} }],
        ['unknown', { stopReason: 'future_reason' }],
      ]),
    );
    // One warning per kind of frame (reason and method).
    expect(of(events, 'notice').map((event) => event.kind)).toEqual(['warning', 'warning', 'warning']);
    expect((await recorder.turn('second')).outcome).toEqual({ status: 'completed' });
    expect(agent.prompts()).toEqual(['first', 'second']);
  });

  it('interrupt cancels the running turn and the queued ones; the queued prompts never reach the agent', async () => {
    const { agent, session, recorder } = await openSession(async (memory, text) => {
      if (text !== 'slow') return echo(memory, text);
      memory.text('working');
      await memory.untilCancel();
      return { stopReason: 'cancelled' };
    });
    const slow = await session.send('slow');
    const queued = await session.send('queued');
    await recorder.waitFor((event) => event.type === 'item.delta', 'a delta');
    await session.interrupt();
    expect((await recorder.terminalOf(slow)).outcome).toEqual({ status: 'cancelled' });
    expect((await recorder.terminalOf(queued)).outcome).toEqual({ status: 'cancelled' });
    expect((await recorder.turn('after')).outcome).toEqual({ status: 'completed' });
    expect(agent.prompts()).toEqual(['slow', 'after']);
  });

  it('a translation quirk that throws: the frame is an untranslatable passthrough, the turn goes on', async () => {
    const quirks: AcpQuirks = {
      translate: {
        thoughtChunk: () => {
          throw new RangeError('quirk broke');
        },
      },
    };
    const { session, recorder } = await openSession(async (memory) => {
      memory.update({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'hmm' } });
      memory.text('answer');
      return { stopReason: 'end_turn' };
    }, quirks);
    const sent = await session.send('think');
    expect((await recorder.terminalOf(sent)).outcome).toEqual({ status: 'completed' });
    const events = recorder.turnEvents(sent.turnId);
    expect(of(events, 'passthrough').map((event) => event.reason)).toEqual(['untranslatable']);
    expect(of(events, 'item.completed').map((event) => event.item.kind)).toEqual(['user_message', 'agent_message']);
  });

  it('the agent going away fails the running turn with process_exited; then every call gets the closed-session error', async () => {
    const { session, recorder } = await openSession(async (memory) => {
      memory.text('partial');
      memory.end(3);
      return new Promise(() => {});
    });
    const sent = await session.send('go');
    expect((await recorder.terminalOf(sent)).outcome).toMatchObject({
      status: 'failed',
      error: { code: 'process_exited' },
    });
    await recorder.waitFor((event) => event.type === 'session.closed', 'session.closed');
    await expect(session.send('again')).rejects.toMatchObject({
      code: 'invalid_input',
      data: { reason: 'session_closed' },
    });
  });
});
