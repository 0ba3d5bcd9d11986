// One Codex thread over one Reins session: a pump turns the session's events into notifications
// (translate.ts, behind its guard), asks the client for approvals, and hands every turn that ended to
// the bridge's records. Whatever the harness sends, the pump only ever hurts this thread: an event
// that cannot be translated is left out with a warning, and a session whose stream breaks ends its
// turn (failed) and its thread (thread/closed), while every other thread goes on.
import { type PermissionRequestedEvent, type PermissionResolvedEvent, ReinsError, type Session } from '@reins/core';
import { eventChecker, type TranslationFault, translatedSafely } from '../events.js';
import { withDeadline } from '../lifecycle.js';
import type { TurnRecord } from '../records.js';
import { approvalRequestOf } from './approvals.js';
import type { RpcId } from './connection.js';
import { approvalAnswerOf, type ThreadRequest } from './requests.js';
import type { ThreadState } from './state.js';
import { translateEvent } from './translate.js';
import { finishTurn, requestInterrupt } from './turns.js';
import type { BridgeNotification } from './wire.js';

/** Where a thread's messages go: the client connection (app-server) or stdout (blocks). */
export interface Outbound {
  notify(method: string, params: unknown): void;
  /** A server -> client request; absent where no client can answer (blocks mode: declined). */
  request?(method: string, params: unknown, timeoutMs: number): { id: RpcId; answer: Promise<unknown> };
  /** Stops waiting for a request's answer. */
  forget?(id: RpcId, reason: string): void;
}

export interface ThreadContext {
  out: Outbound;
  requestTimeoutMs: number;
  permissionTimeoutMs: number;
  optedOut: ReadonlySet<string>;
  log: (message: string) => void;
  /** A turn of this thread ended (for the bridge's records). */
  turnEnded: (thread: BridgeThread, turn: TurnRecord) => void;
  /** The session's event stream ended (closed, or the harness went away). */
  ended: (thread: BridgeThread) => void;
}

export class BridgeThread {
  readonly pump: Promise<void>;
  readonly createdAt = Date.now();
  private holds = 0;
  private held: Array<() => void> = [];
  private readonly approvals = new Map<string, RpcId>();
  private readonly faults = new Set<string>();
  /** Codex turn ids turn/start answered whose turn.started the pump has not seen yet. */
  readonly unstarted = new Set<string>();
  /** Of those, the ones a turn/interrupt already asked to stop. */
  readonly interruptOnStart = new Set<string>();

  constructor(
    readonly id: string,
    readonly session: Session,
    readonly state: ThreadState,
    readonly request: ThreadRequest,
    private readonly context: ThreadContext,
  ) {
    this.pump = this.run();
  }

  /**
   * Holds this thread's output until the answer of the request in progress is on the wire (a
   * client must hear of a thread or turn before notifications name it). Returns the release.
   */
  hold(): () => void {
    this.holds++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      // The answer is written when the handler's promise settles, a few microtasks after this
      // (release runs in the handler's finally, itself after an await): a tick callback runs once the
      // microtasks are drained, so after the answer, and its lines join the answer's write on stdio.
      process.nextTick(() => {
        this.holds--;
        if (this.holds > 0) return;
        const held = this.held;
        this.held = [];
        for (const write of held) write();
      });
    };
  }

  private out(write: () => void): void {
    if (this.holds > 0) this.held.push(write);
    else write();
  }

  emit(notifications: BridgeNotification[]): void {
    for (const notification of notifications) {
      if (this.context.optedOut.has(notification.method)) continue;
      this.out(() => this.context.out.notify(notification.method, notification.params));
    }
    this.drainEndedTurns();
  }

  private drainEndedTurns(): void {
    for (const turn of this.state.endedTurns.splice(0)) this.context.turnEnded(this, turn);
  }

  private fault(fault: TranslationFault): void {
    this.context.log(`thread ${this.id}: left out a ${fault.eventType} event (${fault.reason})`);
    if (this.faults.has(fault.eventType)) return;
    this.faults.add(fault.eventType);
    this.emit([
      {
        method: 'warning',
        params: {
          threadId: this.id,
          message: `The Reins bridge could not pass on a ${fault.eventType} event of the harness; it was left out.`,
        },
      },
    ]);
  }

  private onEvent(raw: unknown, check: ReturnType<typeof eventChecker>): void {
    const checked = check(raw);
    if ('fault' in checked) {
      this.fault(checked.fault);
      return;
    }
    const event = checked.event;
    this.emit(
      translatedSafely(
        event,
        (valid) => translateEvent(this.state, valid),
        (fault) => this.fault(fault),
      ),
    );
    if (event.type === 'turn.started') {
      const open = this.state.turn;
      if (open && this.interruptOnStart.delete(open.id)) requestInterrupt(this.state, open.id);
      if (open) this.unstarted.delete(open.id);
      // Input that joined a Codex turn being interrupted is stopped too.
      if (open?.interruptRequested) void this.interruptNow();
    } else if (event.type === 'permission.requested') {
      this.out(() => void this.askApproval(event));
    } else if (event.type === 'permission.resolved') {
      this.resolved(event);
    }
  }

  private resolved(event: PermissionResolvedEvent): void {
    const rpcId = this.approvals.get(event.requestId);
    if (rpcId === undefined) return;
    this.approvals.delete(event.requestId);
    // Decided, withdrawn or timed out: the client's prompt is moot either way.
    if (event.by !== 'client') this.context.out.forget?.(rpcId, 'withdrawn by the harness');
    this.emit([{ method: 'serverRequest/resolved', params: { threadId: this.id, requestId: rpcId } }]);
  }

  private async run(): Promise<void> {
    try {
      const events = this.session.events;
      const check = eventChecker(events);
      for await (const event of events) this.onEvent(event, check);
    } catch (error) {
      this.context.log(`the event stream of thread ${this.id} failed: ${String(error)}`);
    }
    // A stream that ended without closing the thread still ends its turn and the thread for the client.
    if (!this.state.closed) {
      this.state.closed = true;
      this.emit([...finishTurn(this.state, Date.now()), { method: 'thread/closed', params: { threadId: this.id } }]);
    }
    this.context.ended(this);
  }

  interruptNow(): Promise<void> {
    return withDeadline(this.session.interrupt(), this.context.requestTimeoutMs, 'interrupt').catch((error: unknown) =>
      this.context.log(`interrupt of thread ${this.id} failed: ${String(error)}`),
    );
  }

  private async askApproval(event: PermissionRequestedEvent): Promise<void> {
    let result: ReturnType<typeof approvalAnswerOf>;
    try {
      if (!this.context.out.request) throw new Error('no client can answer approvals here');
      const { method, params } = approvalRequestOf(this.state, event);
      const { id, answer } = this.context.out.request(method, params, this.context.permissionTimeoutMs);
      this.approvals.set(event.requestId, id);
      result = approvalAnswerOf(await answer, event.options);
    } catch (error) {
      // Withdrawn, timed out, refused or the client is gone: the tool does not run.
      this.context.log(`approval ${event.requestId} not granted (${String(error)}); declining`);
      result = approvalAnswerOf(undefined, event.options);
    }
    await this.session.respondToPermission(event.requestId, result.decision).catch((error: unknown) => {
      // Already settled by the harness (withdrawn, its own deadline): nothing waits for this answer.
      if (!(ReinsError.isInstance(error) && error.code === 'invalid_input')) {
        this.context.log(`respondToPermission failed: ${String(error)}`);
      }
    });
    if (result.stopTurn && this.state.turn) {
      requestInterrupt(this.state, this.state.turn.id);
      await this.interruptNow();
    }
  }

  close(): Promise<void> {
    return this.session.close();
  }
}
