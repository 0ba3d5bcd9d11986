// A daemon session seen through one client connection. It implements @reins/core's Session, so code
// written against a local session runs unchanged against the daemon. Events arrive in seq order; a
// duplicate (seq already seen) is dropped, a gap ends the stream (the daemon promises none), and
// `lastSeq` is what a reconnecting client passes to `attach(id, { afterSeq })` to resume exactly.
// The events can be read one by one (`events`, core's Session) or as the runs they arrived in
// (`batches`: a session/events notification is one run), which lets a view fold a replay in one
// pass; either way they are the same events in the same order.
import {
  AsyncQueue,
  type Effort,
  type HarnessId,
  type McpServerStatus,
  type PermissionDecision,
  ReinsError,
  type ReinsEvent,
  type RevertOptions,
  type RevertResult,
  type SendOptions,
  type SendResult,
  type Session,
  type SessionDiff,
  type SettingChange,
  type TurnInput,
} from '@reins/core';
import type { MethodName, ParamsOf, ResultOf } from '@reins/protocol';
import type { RpcChannel } from './rpc-channel.js';

export interface RemoteSessionContext {
  channel: RpcChannel;
  requestTimeoutMs: number;
  /** Called once the session no longer receives events on this connection. */
  onDetached: (session: RemoteSession) => void;
}

export class RemoteSession implements Session {
  /** Runs of events in arrival order (a single session/event is a run of one). */
  private readonly queue = new AsyncQueue<readonly ReinsEvent[]>(Number.POSITIVE_INFINITY);
  private harnessId: HarnessId | undefined;
  private native: string | undefined;
  private seenSeq: number;
  private subscribedSeq: number;
  private sawClosed = false;
  private closing: Promise<void> | undefined;
  private detached = false;
  /** Why the events ended early (a gap, a dropped connection), when they did. */
  endReason: ReinsError | undefined;

  constructor(
    readonly id: string,
    afterSeq: number,
    private readonly context: RemoteSessionContext,
  ) {
    this.seenSeq = afterSeq;
    this.subscribedSeq = afterSeq;
  }

  /**
   * The newest seq of the session when the subscription started (the subscribe answer): the events
   * up to it are the replay of its log, the ones after it live. A view can wait for lastSeq to
   * reach it before it draws a long history.
   */
  get backlogSeq(): number {
    return this.subscribedSeq;
  }

  get harness(): HarnessId {
    if (this.harnessId === undefined) throw new ReinsError('invalid_input', 'The session is still attaching.');
    return this.harnessId;
  }

  get nativeSessionId(): string | undefined {
    return this.native;
  }

  /** The events one by one (one consumer: this or `batches`). */
  get events(): AsyncIterable<ReinsEvent> {
    return { [Symbol.asyncIterator]: () => flatten(this.queue[Symbol.asyncIterator]()) };
  }

  /** The same events as the runs they arrived in, each non-empty (one consumer: this or `events`). */
  get batches(): AsyncIterable<readonly ReinsEvent[]> {
    return this.queue;
  }

  /** seq of the last event received: resume from here after a reconnect. */
  get lastSeq(): number {
    return this.seenSeq;
  }

  /** True once the daemon sent session.closed for it. */
  get isClosed(): boolean {
    return this.sawClosed;
  }

  send(input: TurnInput | string, options?: SendOptions): Promise<SendResult> {
    return this.call('session/send', { sessionId: this.id, input, ...(options ? { options } : {}) });
  }

  async interrupt(): Promise<void> {
    await this.call('session/interrupt', { sessionId: this.id });
  }

  setModel(model: string): Promise<SettingChange> {
    return this.call('session/setModel', { sessionId: this.id, model });
  }

  setEffort(effort: Effort): Promise<SettingChange> {
    return this.call('session/setEffort', { sessionId: this.id, effort });
  }

  async respondToPermission(requestId: string, decision: PermissionDecision): Promise<void> {
    await this.call('session/respondToPermission', { sessionId: this.id, requestId, decision });
  }

  /** The MCP servers as the harness reports them (unsupported_capability where it reports none). */
  mcpStatus(): Promise<McpServerStatus[]> {
    return this.call('session/mcpStatus', { sessionId: this.id });
  }

  /** One turn's measured changes, or the whole session's (docs/architecture/contract.md, "Checkpoints"). */
  diff(turnId?: string): Promise<SessionDiff> {
    return this.call('session/diff', { sessionId: this.id, ...(turnId !== undefined ? { turnId } : {}) });
  }

  /**
   * The native frames of the events after `afterSeq` (at most `limit`), as the daemon stored them:
   * for a client connected with `nativeFrames: false` that wants some back (a debug view).
   */
  nativeFrames(afterSeq: number, limit?: number): Promise<ResultOf<'session/nativeFrames'>['frames']> {
    return this.call('session/nativeFrames', {
      sessionId: this.id,
      afterSeq,
      ...(limit !== undefined ? { limit } : {}),
    }).then((result) => result.frames);
  }

  /** The harness compacts the conversation now, a turn of its own (docs/architecture/contract.md, "Compaction"). */
  compact(): Promise<SendResult> {
    return this.call('session/compact', { sessionId: this.id });
  }

  /** The files (and the conversation where the harness can) back to before `turnId`. */
  revert(turnId: string, options: RevertOptions = {}): Promise<RevertResult> {
    return this.call('session/revert', { sessionId: this.id, turnId, ...(options.force ? { force: true } : {}) });
  }

  /**
   * Closes the daemon session (its harness process ends). The daemon answers after it sent every
   * event up to session.closed, so once this resolves the events stream has them all. Idempotent.
   */
  close(): Promise<void> {
    if (this.sawClosed) return Promise.resolve();
    this.closing ??= this.call('session/close', { sessionId: this.id }).then(() => {
      // Not subscribed any more (detached): nothing else will end the stream.
      this.end();
    });
    return this.closing;
  }

  /** Stops receiving events on this connection; the daemon session lives on (attach again later). */
  async detach(): Promise<void> {
    if (this.detached) return;
    this.end();
    if (!this.context.channel.isClosed) {
      await this.call('session/unsubscribe', { sessionId: this.id });
    }
  }

  // ---- fed by the client ------------------------------------------------------------------------

  /**
   * The subscribe answer, seen synchronously before the replayed events behind it: those can only
   * bring the native id up to date again, so the stream ends on the newest one.
   */
  attached(harness: HarnessId, nativeSessionId: string | undefined, lastSeq?: number): void {
    this.harnessId = harness;
    if (lastSeq !== undefined) this.subscribedSeq = Math.max(lastSeq, this.seenSeq);
    if (nativeSessionId !== undefined) this.native = nativeSessionId;
  }

  receive(event: ReinsEvent): void {
    this.receiveAll([event]);
  }

  /**
   * A run of events (a session/events batch, or one event): each judged as if it had come alone,
   * in order; the ones taken go on as one run.
   */
  receiveAll(events: readonly ReinsEvent[]): void {
    if (this.detached) return;
    const taken: ReinsEvent[] = [];
    let failure: ReinsError | undefined;
    for (const event of events) {
      if (event.seq <= this.seenSeq) continue;
      if (event.seq !== this.seenSeq + 1) {
        failure = new ReinsError(
          'protocol_error',
          `Event seq ${event.seq} arrived after ${this.seenSeq}: events were lost. Attach again with afterSeq ${this.seenSeq}.`,
          { data: { lastSeq: this.seenSeq, received: event.seq } },
        );
        break;
      }
      this.seenSeq = event.seq;
      if (event.type === 'session.updated' && event.nativeSessionId !== undefined) this.native = event.nativeSessionId;
      taken.push(event);
      if (event.type === 'session.closed') {
        this.sawClosed = true;
        break;
      }
    }
    if (taken.length > 0) this.queue.push(events.length === taken.length ? events : taken);
    if (failure) this.end(failure);
    else if (this.sawClosed) this.end();
  }

  /** The connection dropped: the events stream ends; the daemon session itself lives on. */
  connectionLost(reason: ReinsError): void {
    this.end(reason);
  }

  private end(reason?: ReinsError): void {
    if (this.detached) return;
    this.detached = true;
    if (reason && !this.sawClosed) this.endReason = reason;
    this.queue.end();
    this.context.onDetached(this);
  }

  private call<M extends MethodName>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>> {
    return this.context.channel.request(method, params, { timeoutMs: this.context.requestTimeoutMs });
  }
}

/** One event at a time out of runs of events. */
function flatten<T>(runs: AsyncIterator<readonly T[]>): AsyncIterator<T> {
  let run: readonly T[] = [];
  let index = 0;
  return {
    async next(): Promise<IteratorResult<T>> {
      while (index >= run.length) {
        const next = await runs.next();
        if (next.done) return { value: undefined, done: true };
        run = next.value;
        index = 0;
      }
      return { value: run[index++] as T, done: false };
    },
    async return(): Promise<IteratorResult<T>> {
      await runs.return?.();
      return { value: undefined, done: true };
    },
  };
}
