// An in-process harness for the daemon's own logic tests (no child process): its sessions emit
// through core's SessionEventStream like every adapter, remember what they were asked (the spec
// they started with, resume included; each send and its options), and can be told to hold a turn
// open, ask for a permission, run background work, die, or refuse a resume. The process-level
// tests use the testkit's fake CLIs instead.
import { randomUUID } from 'node:crypto';
import {
  type CapabilityMatrix,
  type Discovery,
  type Effort,
  type Harness,
  type HarnessId,
  type PermissionDecision,
  ReinsError,
  type SendOptions,
  type SendResult,
  type Session,
  SessionEventStream,
  type SessionSpec,
  type SettingChange,
  type TurnInput,
} from '@reins/core';

export interface ScriptedHarnessOptions {
  /** Each turn answers after this many agent-message deltas (default 2). */
  deltas?: number;
  /** Resumes fail with resume_failed. */
  failResume?: boolean;
  /** A resume comes back with another native id (a silent fresh start the daemon must refuse). */
  resumeAsOther?: boolean;
}

export class ScriptedSession implements Session {
  readonly id = randomUUID();
  readonly stream: SessionEventStream;
  readonly sends: Array<{ input: TurnInput | string; options: SendOptions | undefined }> = [];
  nativeSessionId: string | undefined;
  /** While set, a started turn does not end until release() is called. */
  hold = false;
  private releaseTurn: (() => void) | undefined;
  private turnCounter = 0;
  closed = false;

  constructor(
    readonly harness: HarnessId,
    readonly spec: SessionSpec,
    private readonly options: ScriptedHarnessOptions,
  ) {
    this.stream = new SessionEventStream({ harness, sessionId: this.id });
    // A fork (spec.resume.fork) is a new conversation, like a fresh start.
    this.nativeSessionId =
      spec.resume && spec.resume.fork !== true
        ? options.resumeAsOther
          ? `other-${randomUUID()}`
          : spec.resume.nativeSessionId
        : `native-${randomUUID()}`;
    this.stream.emit({ type: 'session.started', harnessVersion: '1.0.0', binaryPath: '/fake', cwd: spec.cwd });
    this.stream.emit({
      type: 'session.updated',
      nativeSessionId: this.nativeSessionId,
      model: spec.model ?? 'model-a',
    });
  }

  get events() {
    return this.stream.events;
  }

  async send(input: TurnInput | string, options?: SendOptions): Promise<SendResult> {
    if (this.closed) throw new ReinsError('invalid_input', 'closed');
    this.sends.push({ input, options });
    const text = typeof input === 'string' ? input : input.text;
    const turnId = `turn_${++this.turnCounter}`;
    this.stream.startTurn({ text }, { turnId });
    this.stream.emit({ type: 'session.status', status: 'running' });
    this.stream.emit({
      type: 'item.completed',
      item: {
        kind: 'user_message',
        id: `${turnId}-user`,
        status: 'completed',
        text,
        ...(options?.clientMessageId !== undefined ? { clientMessageId: options.clientMessageId } : {}),
      },
    });
    const finish = () => {
      if (this.stream.isClosed || this.stream.activeTurnId !== turnId) return;
      const itemId = `${this.id}-${turnId}-answer`;
      this.stream.emit({
        type: 'item.started',
        item: { kind: 'agent_message', id: itemId, status: 'running', text: '' },
      });
      const deltas = this.options.deltas ?? 2;
      for (let i = 0; i < deltas; i++) this.stream.emit({ type: 'item.delta', itemId, kind: 'text', text: `w${i} ` });
      this.stream.emit({
        type: 'item.completed',
        item: { kind: 'agent_message', id: itemId, status: 'completed', text: `answer to ${text}` },
      });
      this.stream.completeTurn({ outcome: { status: 'completed' } });
      this.stream.emit({ type: 'session.status', status: 'idle' });
    };
    if (this.hold) this.releaseTurn = finish;
    else setImmediate(finish);
    return { turnId, delivery: 'started' };
  }

  /** Ends a held turn. */
  release(): void {
    const finish = this.releaseTurn;
    this.releaseTurn = undefined;
    finish?.();
  }

  /** Asks the client for a permission (outside any turn, to keep it simple). */
  requestPermission(requestId: string): void {
    this.stream.emit({
      type: 'permission.requested',
      requestId,
      tool: { kind: 'command', name: 'Bash' },
      options: [],
    });
  }

  /** Starts (and later ends) work outside any turn, like a background subagent. */
  background(itemId: string, done: boolean): void {
    const item = { kind: 'agent_message' as const, id: itemId, text: done ? 'done' : '' };
    this.stream.emit(
      done
        ? { type: 'item.completed', item: { ...item, status: 'completed' } }
        : { type: 'item.started', item: { ...item, status: 'running' } },
      { parentItemId: 'task-1' },
    );
  }

  /** The process dies on its own. */
  die(message = 'the fake process died'): void {
    this.closed = true;
    this.stream.close('process_exited', { code: 'process_exited', message });
  }

  async interrupt(): Promise<void> {
    if (this.stream.activeTurnId !== null) this.stream.completeTurn({ outcome: { status: 'cancelled' } });
  }

  async setModel(model: string): Promise<SettingChange> {
    this.stream.emit({ type: 'session.updated', model });
    return { applied: 'live' };
  }

  async setEffort(_effort: Effort): Promise<SettingChange> {
    return { applied: 'restart' };
  }

  async respondToPermission(requestId: string, decision: PermissionDecision): Promise<void> {
    this.stream.emit({ type: 'permission.resolved', requestId, decision, by: 'client' });
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stream.close('requested');
  }
}

export class ScriptedHarness implements Harness {
  readonly displayName = 'Scripted';
  readonly sessions: ScriptedSession[] = [];

  constructor(
    readonly id: HarnessId = 'codex',
    readonly options: ScriptedHarnessOptions = {},
  ) {}

  async discover(): Promise<Discovery> {
    return { found: false, searched: [], hint: 'scripted' };
  }

  async health() {
    return { status: 'ready' as const };
  }

  async capabilities(): Promise<CapabilityMatrix> {
    throw new ReinsError('unsupported_capability', 'The scripted harness has no capability matrix.');
  }

  async createSession(spec: SessionSpec): Promise<Session> {
    if (spec.resume && this.options.failResume) {
      throw new ReinsError('resume_failed', `No conversation ${spec.resume.nativeSessionId} here.`);
    }
    const session = new ScriptedSession(this.id, spec, this.options);
    this.sessions.push(session);
    return session;
  }

  get last(): ScriptedSession {
    const session = this.sessions.at(-1);
    if (!session) throw new Error('no scripted session yet');
    return session;
  }
}
