// Shared app-servers on an in-memory peer (no process): several Codex sessions on one host, each
// frame routed by threadId, reference counting, one session closing or interrupting alone, a crash
// failing every session with its own terminal, the next lease respawning, warm hosts. The JSON-RPC
// side is the real one (host.ts, connection.ts codexPeer); the app-server end is a script.
import { ReinsError, type ReinsEvent, type SessionSpec } from '@reins/core';
import { afterEach, describe, expect, it } from 'vitest';
import { streamViolations } from '../../../testkit/src/conformance/invariants.js';
import { until } from '../../../testkit/src/polling/until.js';
import type { Connect } from './connection.js';
import { CodexHost, type HostTransport } from './host.js';
import { CodexHosts } from './hosts.js';
import { CodexSession } from './session.js';

type Message = { id?: number; method?: string; params?: Record<string, unknown>; result?: unknown; error?: unknown };

/** One in-memory app-server: many threads, a scripted reply per turn unless told to hold turns. */
class MemoryAppServer implements HostTransport {
  readonly binaryPath = '/memory/codex';
  /** Which executable it was started from (the rig's `binary` at spawn). */
  binaryStamp: string | undefined;
  readonly requests: Array<{ method: string; params: Record<string, unknown> }> = [];
  readonly answers = new Map<number, unknown>();
  /** Threads whose turns start but do not finish until finishTurn. */
  readonly holdTurns = new Set<string>();
  /** Sent before the answer to thread/start (Codex may send thread/started first). */
  announceFirst = false;
  closed = false;
  private threads = 0;
  private turns = 0;
  private line: (line: string) => void = () => {};
  private end: () => void = () => {};
  private crashed = false;
  readonly exited = new Promise<void>((resolve) => {
    this.end = resolve;
  });

  onLine(handler: (line: string) => void): void {
    this.line = handler;
  }
  onOversizeLine(): void {}

  exitError(): ReinsError {
    return new ReinsError('process_exited', `codex app-server ${this.crashed ? 'exited with code 70' : 'ended'}.`, {
      harness: 'codex',
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    this.end();
  }

  /** The thread sets whose processes the host asked to end. */
  readonly endedThreads: string[][] = [];
  async endThreadProcesses(threads: ReadonlySet<string>): Promise<void> {
    this.endedThreads.push([...threads]);
  }

  crash(): void {
    this.crashed = true;
    this.end();
  }

  send(line: string): boolean {
    if (this.closed || this.crashed) return false;
    const message = JSON.parse(line) as Message;
    if (message.method === undefined) {
      if (message.id !== undefined) this.answers.set(message.id, message.error ?? message.result);
      return true;
    }
    if (message.id === undefined) return true;
    const { id, method } = message;
    const params = message.params ?? {};
    this.requests.push({ method, params });
    queueMicrotask(() => this.serve(id, method, params));
    return true;
  }

  emit(frame: unknown): void {
    this.line(JSON.stringify(frame));
  }

  notify(method: string, params: Record<string, unknown>): void {
    this.emit({ method, params });
  }

  sent(method: string) {
    return this.requests.filter((request) => request.method === method).map((request) => request.params);
  }

  /** Ends the held turn of a thread with a reply. */
  finishTurn(threadId: string, turnId: string, text: string, status = 'completed'): void {
    if (status === 'completed') this.reply(threadId, turnId, text);
    this.notify('turn/completed', { threadId, turn: { id: turnId, status, items: [], error: null } });
  }

  private reply(threadId: string, turnId: string, text: string): void {
    const item = { type: 'agentMessage', id: `msg_${turnId}`, text: '', phase: null, memoryCitation: null };
    this.notify('item/started', { threadId, turnId, item });
    this.notify('item/agentMessage/delta', { threadId, turnId, itemId: item.id, delta: text });
    this.notify('item/completed', { threadId, turnId, item: { ...item, text } });
  }

  private serve(id: number, method: string, params: Record<string, unknown>): void {
    const answer = (result: unknown) => this.emit({ id, result });
    switch (method) {
      case 'initialize':
        answer({ userAgent: 'reins/0.171.0 (memory)' });
        return;
      case 'thread/start':
      case 'thread/resume': {
        const threadId = typeof params.threadId === 'string' ? params.threadId : `thr_${++this.threads}`;
        const thread = { id: threadId, name: null };
        if (this.announceFirst) this.notify('thread/started', { thread: { ...thread, name: `named ${threadId}` } });
        answer({ thread, model: 'fake-model' });
        return;
      }
      case 'turn/start': {
        const threadId = params.threadId as string;
        const turnId = `turn_${++this.turns}`;
        answer({ turn: { id: turnId } });
        this.notify('turn/started', { threadId, turn: { id: turnId, status: 'inProgress', items: [], error: null } });
        const input = (params.input as Array<{ text: string }>)[0]?.text ?? '';
        if (!this.holdTurns.has(threadId)) this.finishTurn(threadId, turnId, `reply to ${input} on ${threadId}`);
        return;
      }
      case 'turn/interrupt':
        answer({});
        this.notify('turn/completed', {
          threadId: params.threadId,
          turn: { id: params.turnId, status: 'interrupted', items: [], error: null },
        });
        return;
      case 'thread/unsubscribe':
        answer({ status: 'unsubscribed' });
        return;
      default:
        answer({});
    }
  }
}

/** A registry of its own and the app-servers it spawned. */
function rig(options: { share?: boolean; refillDelayMs?: number; spawnGate?: Promise<void> } = {}) {
  const hosts = new CodexHosts(options.refillDelayMs !== undefined ? { refillDelayMs: options.refillDelayMs } : {});
  const servers: MemoryAppServer[] = [];
  /** The executable's stamp now (an upgrade in place changes it). */
  const binary = { stamp: 'codex 1' };
  const spawn = async () => {
    const server = new MemoryAppServer();
    server.binaryStamp = binary.stamp;
    servers.push(server);
    await options.spawnGate;
    return CodexHost.open(server, 5_000);
  };
  const connect: Connect = (_cwd, _env, hooks, resumeThreadId) =>
    hosts.lease('key', spawn, hooks, {
      share: options.share ?? true,
      binaryStamp: binary.stamp,
      ...(resumeThreadId !== undefined ? { resumeThreadId } : {}),
    });
  return { hosts, servers, spawn, connect, binary };
}

const sessions: CodexSession[] = [];
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((session) => session.close()));
});

async function open(connect: Connect, spec: Partial<SessionSpec> = {}) {
  const session = new CodexSession({ cwd: '/work', ...spec }, { connect, interruptGraceMs: 1_000 });
  sessions.push(session);
  const events: ReinsEvent[] = [];
  const done = (async () => {
    for await (const event of session.events) events.push(event);
  })();
  await session.start();
  /** The first event the predicate matches (a predicate may also poll what the fake received). */
  const untilEvent = (predicate: (event: ReinsEvent) => boolean) =>
    until(() => events.find(predicate), 'a matching event');
  return { session, events, untilEvent, done };
}

const terminalOf = (turnId: string) => (event: ReinsEvent) =>
  event.type === 'turn.completed' && event.turnId === turnId;
const texts = (events: ReinsEvent[]) =>
  events.flatMap((event) => (event.type === 'item.delta' && event.kind === 'text' ? [event.text] : []));
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('Codex sessions on one shared app-server (in memory)', () => {
  it('two sessions share one process; each turn goes to its own thread and each reply only to its session', async () => {
    const { servers, connect } = rig();
    const a = await open(connect);
    const b = await open(connect);
    expect(servers).toHaveLength(1);
    expect(a.session.nativeSessionId).not.toBe(b.session.nativeSessionId);
    const [sentA, sentB] = await Promise.all([a.session.send('one'), b.session.send('two')]);
    await Promise.all([a.untilEvent(terminalOf(sentA.turnId)), b.untilEvent(terminalOf(sentB.turnId))]);
    expect(texts(a.events)).toEqual([`reply to one on ${a.session.nativeSessionId}`]);
    expect(texts(b.events)).toEqual([`reply to two on ${b.session.nativeSessionId}`]);
    const server = servers[0] as MemoryAppServer;
    expect(server.sent('turn/start').map((params) => params.threadId)).toEqual([
      a.session.nativeSessionId,
      b.session.nativeSessionId,
    ]);
    expect(streamViolations(a.events, { settled: true })).toEqual([]);
    expect(streamViolations(b.events, { settled: true })).toEqual([]);
  });

  it('a process-wide frame reaches every session; a frame of a thread nobody holds reaches none', async () => {
    const { servers, connect } = rig();
    const a = await open(connect);
    const b = await open(connect);
    const server = servers[0] as MemoryAppServer;
    server.notify('configWarning', { summary: 'shared config warning', details: null });
    server.notify('thread/status/changed', { threadId: 'thr_stranger', status: { type: 'active', activeFlags: [] } });
    server.emit('not json at all');
    await settle();
    for (const { events } of [a, b]) {
      expect(
        events.filter((event) => event.type === 'notice' && /shared config warning/.test(event.message)),
      ).toHaveLength(1);
      expect(JSON.stringify(events)).not.toContain('thr_stranger');
      expect(JSON.stringify(events)).not.toContain('not json at all');
    }
  });

  it('a session handler that throws is kept from the process: the other session and the process run on', async () => {
    const { servers, connect } = rig();
    const a = await open(connect);
    const server = servers[0] as MemoryAppServer;
    // A lease whose handler throws, beside a real session.
    const broken = await connect('/work', undefined, {
      onNotification: () => {
        throw new Error('a bug in one session');
      },
    });
    broken.bindThread('thr_broken');
    server.notify('item/agentMessage/delta', { threadId: 'thr_broken', turnId: 't', itemId: 'm', delta: 'x' });
    server.notify('configWarning', { summary: 'still delivered', details: null });
    await settle();
    expect(a.events.some((event) => event.type === 'notice' && /still delivered/.test(event.message))).toBe(true);
    const sent = await a.session.send('after the bug');
    await a.untilEvent(terminalOf(sent.turnId));
    expect(server.closed).toBe(false);
    await broken.close();
  });

  it('frames Codex sends before answering thread/start are held and reach the right session', async () => {
    const { servers, connect } = rig();
    const a = await open(connect);
    (servers[0] as MemoryAppServer).announceFirst = true;
    const b = await open(connect);
    const title = (events: ReinsEvent[]) =>
      events.flatMap((event) => (event.type === 'session.updated' && event.title ? [event.title] : []));
    expect(title(b.events)).toEqual([`named ${b.session.nativeSessionId}`]);
    expect(title(a.events)).toEqual([]);
  });

  it('closing one session unsubscribes only its thread; the other runs on, and the last close ends the process', async () => {
    const { servers, connect } = rig();
    const a = await open(connect);
    const b = await open(connect);
    const server = servers[0] as MemoryAppServer;
    const threadA = a.session.nativeSessionId;
    await a.session.close();
    expect(server.sent('thread/unsubscribe')).toEqual([{ threadId: threadA }]);
    // Its commands are ended (Codex leaves them running), nothing of the other session's.
    expect(server.endedThreads).toEqual([[threadA]]);
    expect(server.closed).toBe(false);
    // A late frame of the closed session's thread reaches nobody, not the session still open.
    server.notify('item/agentMessage/delta', { threadId: threadA, turnId: 'x', itemId: 'm', delta: 'late of a' });
    const sent = await b.session.send('still here');
    await b.untilEvent(terminalOf(sent.turnId));
    expect(texts(b.events)).toEqual([`reply to still here on ${b.session.nativeSessionId}`]);
    await b.session.close();
    expect(server.closed).toBe(true);
  });

  it('closing a session mid-turn interrupts its turn at Codex before unsubscribing', async () => {
    const { servers, connect } = rig();
    const a = await open(connect);
    const b = await open(connect);
    const server = servers[0] as MemoryAppServer;
    server.holdTurns.add(a.session.nativeSessionId as string);
    await a.session.send('long work');
    await a.untilEvent((event) => event.type === 'turn.started');
    await settle();
    await a.session.close();
    expect(server.sent('turn/interrupt')).toEqual([{ threadId: a.session.nativeSessionId, turnId: 'turn_1' }]);
    expect(server.sent('thread/unsubscribe')).toEqual([{ threadId: a.session.nativeSessionId }]);
    expect(b.events.some((event) => event.type === 'turn.completed')).toBe(false);
  });

  it('interrupting one session leaves the other’s turn to complete', async () => {
    const { servers, connect } = rig();
    const a = await open(connect);
    const b = await open(connect);
    const server = servers[0] as MemoryAppServer;
    server.holdTurns.add(a.session.nativeSessionId as string);
    server.holdTurns.add(b.session.nativeSessionId as string);
    const sentA = await a.session.send('stop me');
    const sentB = await b.session.send('finish me');
    await a.untilEvent((event) => event.type === 'turn.started');
    await b.untilEvent((event) => event.type === 'turn.started');
    await settle();
    await a.session.interrupt();
    expect(await a.untilEvent(terminalOf(sentA.turnId))).toMatchObject({ outcome: { status: 'cancelled' } });
    expect(b.events.some(terminalOf(sentB.turnId))).toBe(false);
    server.finishTurn(b.session.nativeSessionId as string, 'turn_2', 'done');
    expect(await b.untilEvent(terminalOf(sentB.turnId))).toMatchObject({ outcome: { status: 'completed' } });
    expect(server.sent('turn/interrupt')).toEqual([{ threadId: a.session.nativeSessionId, turnId: 'turn_1' }]);
  });

  it('a crash fails every session on the process with its own terminal; the next session gets a new process', async () => {
    const { servers, connect } = rig();
    const a = await open(connect);
    const b = await open(connect);
    const server = servers[0] as MemoryAppServer;
    server.holdTurns.add(a.session.nativeSessionId as string);
    server.holdTurns.add(b.session.nativeSessionId as string);
    const sentA = await a.session.send('one');
    const sentB = await b.session.send('two');
    await a.untilEvent((event) => event.type === 'turn.started');
    await b.untilEvent((event) => event.type === 'turn.started');
    server.crash();
    await Promise.all([a.done, b.done]);
    for (const [{ events }, sent] of [
      [a, sentA],
      [b, sentB],
    ] as const) {
      expect(events.filter((event) => event.type === 'turn.completed')).toEqual([
        expect.objectContaining({ turnId: sent.turnId, outcome: expect.objectContaining({ status: 'failed' }) }),
      ]);
      expect(events.at(-1)).toMatchObject({
        type: 'session.closed',
        reason: 'process_exited',
        error: { code: 'process_exited' },
      });
      expect(streamViolations(events, { settled: true })).toEqual([]);
    }
    const c = await open(connect);
    expect(servers).toHaveLength(2);
    const sent = await c.session.send('after the crash');
    await c.untilEvent(terminalOf(sent.turnId));
    expect(texts(c.events)).toEqual([`reply to after the crash on ${c.session.nativeSessionId}`]);
  });

  it('a server request goes to the session of its thread; one for a thread nobody holds is refused', async () => {
    const { servers, connect } = rig();
    const a = await open(connect, { posture: 'ask' });
    const b = await open(connect, { posture: 'ask' });
    const server = servers[0] as MemoryAppServer;
    server.holdTurns.add(b.session.nativeSessionId as string);
    await b.session.send('run something');
    await b.untilEvent((event) => event.type === 'turn.started');
    server.emit({
      id: 900,
      method: 'item/commandExecution/requestApproval',
      params: { threadId: b.session.nativeSessionId, turnId: 'turn_1', itemId: 'cmd_1', command: 'ls', cwd: '/work' },
    });
    server.emit({
      id: 901,
      method: 'item/commandExecution/requestApproval',
      params: { threadId: 'thr_stranger', turnId: 't', itemId: 'c', command: 'rm -rf /', cwd: '/' },
    });
    const asked = await b.untilEvent((event) => event.type === 'permission.requested');
    expect(a.events.some((event) => event.type === 'permission.requested')).toBe(false);
    await settle();
    expect(server.answers.get(901)).toMatchObject({ code: -32603 });
    if (asked.type !== 'permission.requested') throw new Error('unreachable');
    await b.session.respondToPermission(asked.requestId, { behavior: 'allow' } as never);
    await settle();
    expect(server.answers.get(900)).toMatchObject({ decision: 'accept' });
  });

  it('a subagent thread named by a collabAgentToolCall item belongs to the session that spawned it', async () => {
    const { servers, connect } = rig();
    const a = await open(connect);
    const b = await open(connect);
    const server = servers[0] as MemoryAppServer;
    const threadA = a.session.nativeSessionId as string;
    server.holdTurns.add(threadA);
    await a.session.send('spawn a helper');
    await a.untilEvent((event) => event.type === 'turn.started');
    const collab = {
      type: 'collabAgentToolCall',
      id: 'collab_1',
      tool: 'spawnAgent',
      status: 'inProgress',
      senderThreadId: threadA,
      receiverThreadIds: ['thr_child'],
      prompt: 'help',
      agentsStates: {},
    };
    server.notify('item/started', { threadId: threadA, turnId: 'turn_1', item: collab });
    server.notify('item/agentMessage/delta', {
      threadId: 'thr_child',
      turnId: 'c1',
      itemId: 'cm',
      delta: 'child says',
    });
    await settle();
    expect(JSON.stringify(a.events)).toContain('child says');
    expect(JSON.stringify(b.events)).not.toContain('child says');
  });

  it('a one-off call holds the shared process without a lease: the session stays its sole one, and its leaving mid-call ends the process only with the call', async () => {
    const { hosts, servers, spawn, connect } = rig();
    const a = await open(connect);
    let finish = () => {};
    const gate = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const call = hosts.probe('key', spawn, async (peer) => {
      await peer.request('model/list', {});
      await gate;
      return 'listed';
    });
    await settle();
    expect(servers).toHaveLength(1);
    const server = servers[0] as MemoryAppServer;
    expect(server.sent('model/list')).toHaveLength(1);
    // Still the process's sole session: what names no thread reaches it (two leases would drop it).
    server.emit('not json at all');
    await settle();
    expect(JSON.stringify(a.events)).toContain('not json at all');
    expect(server.sent('thread/start')).toHaveLength(1);
    await a.session.close();
    expect(server.closed).toBe(false);
    finish();
    await expect(call).resolves.toBe('listed');
    expect(server.closed).toBe(true);
  });

  it('a one-off call with no process starts the shared one; a session opened meanwhile takes it; alone it ends with the call', async () => {
    const { hosts, servers, spawn, connect } = rig();
    const call = hosts.probe('key', spawn, (peer) => peer.request('model/list', {}));
    const a = await open(connect);
    await call;
    expect(servers).toHaveLength(1);
    expect((servers[0] as MemoryAppServer).closed).toBe(false);
    await a.session.close();
    expect((servers[0] as MemoryAppServer).closed).toBe(true);
    await hosts.probe('key', spawn, (peer) => peer.request('model/list', {}));
    expect(servers).toHaveLength(2);
    expect((servers[1] as MemoryAppServer).closed).toBe(true);
  });

  it('resuming a thread the shared process already holds starts a process of its own', async () => {
    const { servers, connect } = rig();
    const a = await open(connect);
    await open(connect, { resume: { nativeSessionId: a.session.nativeSessionId as string } });
    expect(servers).toHaveLength(2);
  });

  it('shareProcess false: a process per session', async () => {
    const { servers, connect } = rig({ share: false });
    await open(connect);
    await open(connect);
    expect(servers).toHaveLength(2);
  });

  it('a session that comes while the warm host is still starting waits for it instead of spawning another', async () => {
    let open_ = () => {};
    const spawnGate = new Promise<void>((resolve) => {
      open_ = resolve;
    });
    // No replacement during the test: what runs is what the session asked for.
    const { hosts, servers, spawn, connect } = rig({ refillDelayMs: 600_000, spawnGate });
    const warming = hosts.warm('key', spawn, 1);
    const opening = open(connect);
    await settle();
    expect(servers).toHaveLength(1);
    open_();
    await warming;
    await opening;
    expect(servers).toHaveLength(1);
    expect((servers[0] as MemoryAppServer).sent('thread/start')).toHaveLength(1);
    await hosts.warm('key', spawn, 0);
  });

  it('a warm host is a host with zero threads: the first session takes it, a replacement starts, warm(0) stops it', async () => {
    const { hosts, servers, spawn, connect } = rig();
    await hosts.warm('key', spawn, 1);
    expect(servers).toHaveLength(1);
    expect((servers[0] as MemoryAppServer).sent('thread/start')).toEqual([]);
    const a = await open(connect);
    // The session runs on the warm process; the pool starts its replacement.
    expect((servers[0] as MemoryAppServer).sent('thread/start')).toHaveLength(1);
    // The replacement starts a moment later (WARM_REFILL_DELAY_MS), not beside the session's first turn.
    await expect.poll(() => hosts.readyCount('key'), { timeout: 10_000 }).toBe(1);
    expect(servers).toHaveLength(2);
    // Sharing: the next session joins the first one's process, not the warm one.
    await open(connect);
    expect((servers[0] as MemoryAppServer).sent('thread/start')).toHaveLength(2);
    expect((servers[1] as MemoryAppServer).sent('thread/start')).toEqual([]);
    await hosts.warm('key', spawn, 0);
    expect((servers[1] as MemoryAppServer).closed).toBe(true);
    expect((servers[0] as MemoryAppServer).closed).toBe(false);
    await a.session.close();
  });

  it('after Codex is replaced in place, a new session gets a process of the new one; the old keeps its sessions and ends with them', async () => {
    const { servers, connect, binary } = rig();
    const a = await open(connect);
    binary.stamp = 'codex 2';
    const b = await open(connect);
    expect(servers.map((server) => server.binaryStamp)).toEqual(['codex 1', 'codex 2']);
    expect((servers[1] as MemoryAppServer).sent('thread/start')).toHaveLength(1);
    // The next session joins the new process; the old one still serves its session.
    await open(connect);
    expect(servers).toHaveLength(2);
    expect((servers[1] as MemoryAppServer).sent('thread/start')).toHaveLength(2);
    const sent = await a.session.send('still here');
    await a.untilEvent(terminalOf(sent.turnId));
    expect((servers[0] as MemoryAppServer).closed).toBe(false);
    await a.session.close();
    expect((servers[0] as MemoryAppServer).closed).toBe(true);
    expect((servers[1] as MemoryAppServer).closed).toBe(false);
    await b.session.close();
  });

  it('a warm host of a replaced executable is ended, not handed to a session', async () => {
    const { hosts, servers, spawn, connect, binary } = rig({ refillDelayMs: 600_000 });
    await hosts.warm('key', spawn, 1);
    binary.stamp = 'codex 2';
    await open(connect);
    expect((servers[0] as MemoryAppServer).closed).toBe(true);
    expect((servers[0] as MemoryAppServer).sent('thread/start')).toEqual([]);
    expect(servers.at(-1)?.binaryStamp).toBe('codex 2');
    expect(servers.at(-1)?.sent('thread/start')).toHaveLength(1);
    await hosts.warm('key', spawn, 0);
  });
});
