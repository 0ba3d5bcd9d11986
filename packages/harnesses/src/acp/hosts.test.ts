// The registry of shared ACP agent processes (hosts.ts) over in-memory agents (no process): one
// connection per launch key, reference-counted, sessions on it routed by sessionId, interrupted and
// closed alone, a crash failing every session with its own terminal, the next lease respawning.
import { tmpdir } from 'node:os';
import type { ReinsEvent } from '@reins/core';
import { SessionRecorder } from '@reins/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import type { ExitInfo, ProcessFault } from '../runtime/child-process.js';
import { AcpConnection, type AcpTransport } from './connection.js';
import { AcpHosts, acpLaunchKey } from './hosts.js';
import { AcpSession } from './session.js';

type Message = { id?: number | string; method?: string; params?: Record<string, unknown> };

/** An ACP agent in memory hosting many sessions: `wait` waits for its session's cancel, anything else is echoed. */
class MultiAgent implements AcpTransport {
  readonly received: Message[] = [];
  readonly exited: Promise<ExitInfo>;
  closed = false;
  private status: ExitInfo | undefined;
  private lineHandler: (line: string) => void = () => {};
  private settle!: (info: ExitInfo) => void;
  private sessions = 0;
  private readonly cancelWaiters = new Map<string, () => void>();

  constructor() {
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
    return `the memory agent exited with code ${this.status?.code}`;
  }

  async close(): Promise<ExitInfo> {
    this.closed = true;
    this.end(0);
    return this.status as ExitInfo;
  }

  end(code: number): void {
    if (this.status) return;
    this.status = { code, signal: null };
    this.settle(this.status);
  }

  /** Writes a raw line to Reins, as the agent's stdout would. */
  line(text: string): void {
    this.lineHandler(text);
  }

  send(message: Record<string, unknown>): void {
    this.line(JSON.stringify({ jsonrpc: '2.0', ...message }));
  }

  text(sessionId: string, text: string): void {
    this.send({
      method: 'session/update',
      params: { sessionId, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } },
    });
  }

  private async handle(message: Message): Promise<void> {
    if (message.method === undefined) return;
    const sessionId = message.params?.sessionId as string;
    if (message.id === undefined) {
      if (message.method === 'session/cancel') this.cancelWaiters.get(sessionId)?.();
      return;
    }
    const answer = async (): Promise<unknown> => {
      switch (message.method) {
        case 'initialize':
          return {
            protocolVersion: 1,
            agentCapabilities: { sessionCapabilities: { close: {} } },
            authMethods: [],
          };
        case 'session/new':
          return { sessionId: `mem-${++this.sessions}` };
        case 'session/close':
          return {};
        case 'session/prompt': {
          const text = ((message.params?.prompt ?? []) as { text?: string }[])[0]?.text ?? '';
          if (text === 'wait') {
            this.text(sessionId, 'waiting');
            await new Promise<void>((resolve) => this.cancelWaiters.set(sessionId, resolve));
            return { stopReason: 'cancelled' };
          }
          this.text(sessionId, `echo: ${text}`);
          return { stopReason: 'end_turn' };
        }
        default:
          throw new Error(`method not found: ${message.method}`);
      }
    };
    try {
      this.send({ id: message.id, result: await answer() });
    } catch (error) {
      this.send({ id: message.id, error: { code: -32601, message: String(error) } });
    }
  }
}

const KEY = acpLaunchKey({
  command: 'memory-agent',
  args: [],
  env: { HOME: '/nowhere' },
  requestTimeoutMs: 2000,
  authMethod: undefined,
  tap: undefined,
});

const opened: SessionRecorder[] = [];
afterEach(async () => {
  await SessionRecorder.closeAll(opened.splice(0));
});

/** A registry whose `open` starts in-memory agents, and sessions on it. */
function rig() {
  const hosts = new AcpHosts();
  const agents: MultiAgent[] = [];
  const open = async () => {
    const agent = new MultiAgent();
    agents.push(agent);
    return AcpConnection.over(agent, { harness: 'acp', label: 'memory agent' }, { requestTimeoutMs: 2000 });
  };
  const session = async (share = true) => {
    const { connection, release } = await hosts.lease(KEY, open, { share });
    const created = new AcpSession({
      harness: 'acp',
      displayName: 'Memory agent',
      label: 'memory agent',
      connection,
      spec: { cwd: tmpdir() },
      quirks: {},
      requestTimeoutMs: 2000,
      env: {},
      release,
    });
    await created.open();
    const recorder = new SessionRecorder(created, 10_000);
    opened.push(recorder);
    return { session: created, recorder };
  };
  return { hosts, agents, open, session };
}

const texts = (events: readonly ReinsEvent[]) =>
  events.flatMap((event) =>
    event.type === 'item.completed' && event.item.kind === 'agent_message' ? [event.item.text] : [],
  );

describe('AcpHosts', () => {
  it('the launch key moves with every launch setting and not with the order of the environment', () => {
    const base = { command: 'x', args: ['--acp'], env: { A: '1', B: '2' }, requestTimeoutMs: 1, authMethod: undefined };
    const key = acpLaunchKey({ ...base, tap: undefined });
    expect(acpLaunchKey({ ...base, env: { B: '2', A: '1' }, tap: undefined })).toBe(key);
    expect(acpLaunchKey({ ...base, env: { A: '1', B: '3' }, tap: undefined })).not.toBe(key);
    // What the Claude Agent SDK sets on Reins' own process.env when it loads does not split the pool.
    expect(
      acpLaunchKey({ ...base, env: { ...base.env, NoDefaultCurrentDirectoryInExePath: '1' }, tap: undefined }),
    ).toBe(key);
    expect(acpLaunchKey({ ...base, args: [], tap: undefined })).not.toBe(key);
    expect(acpLaunchKey({ ...base, authMethod: 'login', tap: undefined })).not.toBe(key);
    expect(acpLaunchKey({ ...base, requestTimeoutMs: 2, tap: undefined })).not.toBe(key);
    expect(acpLaunchKey({ ...base, tap: () => {} })).not.toBe(key);
    expect(key).toMatch(/^[0-9a-f]{32}$/);
  });

  it('sessions of one key share one agent, each hearing only its own session; the last release closes it', async () => {
    const { agents, hosts, session } = rig();
    const [a, b] = await Promise.all([session(), session()]);
    expect(agents).toHaveLength(1);
    expect(hosts.sharedLeases(KEY)).toBe(2);
    expect(a.session.nativeSessionId).not.toBe(b.session.nativeSessionId);
    await Promise.all([a.recorder.turn('to a'), b.recorder.turn('to b')]);
    expect(texts(a.recorder.events)).toEqual(['echo: to a']);
    expect(texts(b.recorder.events)).toEqual(['echo: to b']);
    await a.recorder.close();
    expect(agents[0]?.closed).toBe(false);
    const closes = agents[0]?.received.filter((message) => message.method === 'session/close') ?? [];
    expect(closes.map((message) => message.params?.sessionId)).toEqual([a.session.nativeSessionId]);
    await b.recorder.close();
    expect(agents[0]?.closed).toBe(true);
    expect(hosts.sharedLeases(KEY)).toBe(0);
    // The next session starts a new agent.
    await session();
    expect(agents).toHaveLength(2);
  });

  it('interrupting one session cancels only its turn', async () => {
    const { agents, session } = rig();
    const a = await session();
    const b = await session();
    const waiting = await a.session.send('wait');
    await a.recorder.waitFor((event) => event.type === 'item.delta', 'a delta');
    await a.session.interrupt();
    expect((await a.recorder.terminalOf(waiting)).outcome).toEqual({ status: 'cancelled' });
    expect((await b.recorder.turn('meanwhile')).outcome).toEqual({ status: 'completed' });
    const cancels = agents[0]?.received.filter((message) => message.method === 'session/cancel') ?? [];
    expect(cancels.map((message) => message.params?.sessionId)).toEqual([a.session.nativeSessionId]);
  });

  it('a crash fails every session on the agent, each with its own failed turn and close; the next lease respawns', async () => {
    const { agents, hosts, session } = rig();
    const a = await session();
    const b = await session();
    const [sentA, sentB] = [await a.session.send('wait'), await b.session.send('wait')];
    await a.recorder.waitFor((event) => event.type === 'item.delta', 'a delta');
    await b.recorder.waitFor((event) => event.type === 'item.delta', 'a delta');
    agents[0]?.end(9);
    for (const [recorder, sent] of [
      [a.recorder, sentA],
      [b.recorder, sentB],
    ] as const) {
      const completed = await recorder.terminalOf(sent);
      expect(completed.outcome).toMatchObject({ status: 'failed', error: { code: 'process_exited' } });
      expect(completed.sessionId).toBe(recorder === a.recorder ? a.session.id : b.session.id);
      await recorder.waitFor((event) => event.type === 'session.closed', 'session.closed');
      expect(recorder.ofType('turn.completed')).toHaveLength(1);
    }
    expect(hosts.sharedLeases(KEY)).toBe(0);
    const c = await session();
    expect(agents).toHaveLength(2);
    expect((await c.recorder.turn('after the crash')).outcome).toEqual({ status: 'completed' });
  });

  it('frames naming no live session are dropped and counted, never shown to another session', async () => {
    const { agents, session } = rig();
    const a = await session();
    const b = await session();
    const agent = agents[0] as MultiAgent;
    await b.recorder.close();
    agent.text(b.session.nativeSessionId as string, 'for the session that left');
    agent.line('a line that is no JSON');
    agent.send({ id: 77, method: 'fs/read_text_file', params: { sessionId: 'mem-999', path: '/etc/hostname' } });
    agent.send({ method: 'x/unknown-extension', params: {} });
    expect((await a.recorder.turn('still fine')).outcome).toEqual({ status: 'completed' });
    expect(a.session.processDroppedFrames).toBe(3);
    const shown = JSON.stringify(a.recorder.events);
    expect(shown).not.toContain('for the session that left');
    expect(shown).not.toContain('no JSON');
    expect(shown).not.toContain('/etc/hostname');
    // An extension notification naming no session is about the process: the live session sees it.
    expect(shown).toContain('x/unknown-extension');
    const refused = agent.received.find((message) => message.id === 77) as { error?: { code: number } } | undefined;
    expect(refused?.error?.code).toBe(-32601);
  });

  it('share: false leases an agent of its own; warm keeps one ready that the next lease takes', async () => {
    const { agents, hosts, open, session } = rig();
    await session(false);
    await session(false);
    expect(agents).toHaveLength(2);
    await hosts.warm(KEY, open, 1);
    expect(agents).toHaveLength(3);
    expect(hosts.readyCount(KEY)).toBe(1);
    const warmAgent = agents[2] as MultiAgent;
    const taken = await session();
    expect(warmAgent.received.filter((message) => message.method === 'session/new')).toHaveLength(1);
    expect((await taken.recorder.turn('on the warm one')).outcome).toEqual({ status: 'completed' });
    await hosts.warm(KEY, open, 0);
    // The replacement started by the take is stopped; the taken one runs on.
    expect(agents.slice(3).every((agent) => agent.closed)).toBe(true);
    expect(warmAgent.closed).toBe(false);
  });
});
