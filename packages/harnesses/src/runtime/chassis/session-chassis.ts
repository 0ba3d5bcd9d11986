// The session skeleton every adapter composes (docs/architecture/contract.md, "Turn rules"): the
// turn queue and turn ids, the send guards, the `user_message` item of every turn, interrupt
// semantics (the running turn AND every queued turn end cancelled, each with its one terminal), the
// stall watchdog, structured output acceptance (native or emulated), the guarded translation of
// native frames, and the one closed-session error. An adapter keeps only what is truly its own: how
// a turn reaches its harness (`TurnHost.beginTurn`), how it is stopped or steered, and its translation.
import {
  type EmitMeta,
  type ErrorInfo,
  type NativeFrame,
  type PayloadOf,
  ReinsError,
  type ReinsEvent,
  type SendOptions,
  type SendResult,
  SessionEventStream,
  type TurnInput,
  type TurnOutcome,
  type UserMessageOrigin,
} from '@reins/core';
import { checkpointsFor, type TurnCheckpoints } from '../checkpoints/index.js';
import { sayResumeFallback } from '../resume-fallback.js';
import { answerWithin } from './answer-window.js';
import { type CommitEmission, type FrameMeta, type FrameSink, HeldEmissions } from './held-emissions.js';
import { RetryBound } from './retry-bound.js';
import { parseInput, parseOptions } from './send-input.js';
import { isTurnProgress, StallWatchdog } from './stall-watchdog.js';
import { structuredCompletion, structuredPrompt } from './structured-turn.js';
import {
  type ChassisOptions,
  type ChassisTurn,
  DEFAULT_INTERRUPT_GRACE_MS,
  DEFAULT_STALL_TIMEOUT_MS,
  type StructuredResult,
  type TurnHost,
} from './turn-host.js';
import { emitUserMessage } from './user-message.js';

export {
  type ChassisOptions,
  type ChassisTurn,
  DEFAULT_INTERRUPT_GRACE_MS,
  DEFAULT_STALL_TIMEOUT_MS,
  type StructuredResult,
  type TurnHost,
} from './turn-host.js';

type Completion = Omit<PayloadOf<'turn.completed'>, 'type'>;

/** The input a `Session.compact()` turn shows (what a user types for it in Claude Code and the Codex TUI). */
export const COMPACT_INPUT = '/compact';

export class SessionChassis<Plan = undefined> {
  readonly stream: SessionEventStream;
  readonly checkpoints: TurnCheckpoints | undefined; // docs/architecture/contract.md, "Checkpoints"
  private readonly options: ChassisOptions;
  private readonly queue: ChassisTurn<Plan>[] = [];
  private current: ChassisTurn<Plan> | undefined;
  private turnCounter = 0;
  private steerCounter = 0;
  private closedReason: string | undefined;
  /** The last agent_message text of the running turn (emulated structured output reads it). */
  private lastAgentText: string | undefined;
  private readonly watchdog: StallWatchdog;
  private readonly retryBound: RetryBound | undefined;
  private graceTimer: ReturnType<typeof setTimeout> | undefined;
  /** The harness is still settling an abandoned turn: the next queued turn waits for it. */
  private settling: Promise<void> | undefined;
  private readonly sayFallback: (event: ReinsEvent) => void; // a fallback session says so (resume-fallback.ts)
  /** Queued turns an interrupt cancelled; they get their terminals right after the running turn's. */
  private readonly cancelAfterCurrent: ChassisTurn<Plan>[] = [];
  /** The frame being translated's events (translateInto), and whether some are being committed. */
  private readonly held = new HeldEmissions();
  private committing = false;

  constructor(
    private readonly host: TurnHost<Plan>,
    options: ChassisOptions,
  ) {
    this.options = options;
    const stallTimeoutMs = options.spec?.stallTimeoutMs ?? options.stallTimeoutMs ?? DEFAULT_STALL_TIMEOUT_MS;
    this.watchdog = new StallWatchdog(stallTimeoutMs, () => this.now);
    if (options.retryTimeoutMs) this.retryBound = new RetryBound(options.retryTimeoutMs, options.displayName);
    this.stream = new SessionEventStream({
      harness: options.harness,
      sessionId: options.sessionId,
      ...(options.keepNative !== undefined ? { keepNative: options.keepNative } : {}),
      ...(options.now ? { now: options.now } : {}),
      onEvent: (event) => this.observe(event),
    });
    this.checkpoints = checkpointsFor(this.stream, options);
    this.sayFallback = sayResumeFallback(options.spec, (notice) => this.stream.emit(notice));
  }

  get events(): AsyncIterable<ReinsEvent> {
    return this.stream.events;
  }

  /** The turn the harness is working on, if any. */
  get running(): ChassisTurn<Plan> | undefined {
    return this.current;
  }

  get queued(): readonly ChassisTurn<Plan>[] {
    return this.queue;
  }

  get isClosed(): boolean {
    return this.closedReason !== undefined;
  }

  private get now(): number {
    return this.options.now?.() ?? Date.now();
  }

  // ---- guards ------------------------------------------------------------------------------------

  /** The one error for any call on a closed session (same code in every adapter). */
  closedError(operation: string, nativeSessionId?: string): ReinsError {
    const resume = nativeSessionId ? `, or resume conversation ${nativeSessionId} in a new one` : '';
    return new ReinsError(
      'invalid_input',
      `This ${this.options.displayName} session is closed (${this.closedReason ?? 'closing'}); start a new session${resume}.`,
      { harness: this.options.harness, operation, data: { reason: 'session_closed' } },
    );
  }

  assertOpen(operation: string, nativeSessionId?: string): void {
    if (this.closedReason !== undefined) throw this.closedError(operation, nativeSessionId);
  }

  /** Marks the session as closing: every later call gets the closed-session error. */
  markClosing(reason: string): void {
    this.closedReason ??= reason;
  }

  // ---- send --------------------------------------------------------------------------------------

  async send(raw: TurnInput | string, rawOptions: SendOptions = {}): Promise<SendResult> {
    const input = parseInput(raw, this.options.harness);
    const options = parseOptions(rawOptions, this.options.harness);
    this.assertOpen('send');
    const running = this.current;
    if (running && options.mode === 'steer') {
      if (options.outputSchema) {
        throw new ReinsError(
          'invalid_input',
          'An outputSchema belongs to a new turn; it cannot be added to a running turn by steering.',
          { harness: this.options.harness, operation: 'send' },
        );
      }
      if (this.host.steerTurn && (await this.host.steerTurn(running, input))) {
        this.emitSteeredMessage(running, input, options);
        return { turnId: running.turnId, delivery: 'steered' };
      }
      if (options.steerFallback === 'fail') {
        throw new ReinsError(
          'unsupported_capability',
          `${this.options.displayName} did not take the message into the running turn, and steerFallback is "fail".`,
          { harness: this.options.harness, operation: 'steer' },
        );
      }
    }
    const outputSchema = options.outputSchema ?? this.options.spec?.outputSchema ?? this.options.outputSchema;
    const plan = (this.host.planTurn ? await this.host.planTurn(input, options) : undefined) as Plan;
    this.assertOpen('send');
    const turn: ChassisTurn<Plan> = {
      turnId: `turn_${++this.turnCounter}`,
      input,
      prompt: structuredPrompt(input, outputSchema, this.options.structuredOutput),
      options,
      outputSchema,
      plan,
    };
    if (this.current || this.settling || this.queue.length > 0) {
      this.queue.push(turn);
      return { turnId: turn.turnId, delivery: 'queued' };
    }
    void this.begin(turn);
    return { turnId: turn.turnId, delivery: 'started' };
  }

  /**
   * `Session.compact()` (docs/architecture/contract.md, "Compaction"): a turn of its own whose input is
   * `/compact` and whose `user_message` is synthetic; the adapter's `beginTurn` asks the harness to
   * compact. Refused while a turn runs or waits: a compaction queued behind work would summarise a
   * conversation the caller has not seen yet.
   */
  compact(plan: Plan): SendResult {
    this.assertOpen('compact');
    if (this.current || this.settling || this.queue.length > 0) {
      throw new ReinsError(
        'invalid_input',
        'A turn is running or queued; wait for it to end (or interrupt it) before compacting the conversation.',
        { harness: this.options.harness, operation: 'compact', data: { reason: 'turn_running' } },
      );
    }
    const turn: ChassisTurn<Plan> = { ...this.plainTurn({ text: COMPACT_INPUT }, plan), compaction: true };
    void this.begin(turn);
    return { turnId: turn.turnId, delivery: 'started' };
  }

  /** A turn no caller's send options shape (a compaction, a turn the harness started): the input as is. */
  private plainTurn(input: TurnInput, plan: Plan): ChassisTurn<Plan> {
    return { turnId: `turn_${++this.turnCounter}`, input, prompt: input, options: {}, outputSchema: undefined, plan };
  }

  private async begin(turn: ChassisTurn<Plan>): Promise<void> {
    const turnId = this.stream.startTurn(turn.input, { turnId: turn.turnId });
    if (turnId === undefined) return;
    this.current = turn;
    this.lastAgentText = undefined;
    if (this.options.userMessage !== 'harness') {
      const origin = turn.compaction ? 'synthetic' : undefined;
      this.emitUserMessage(turn, `${turn.turnId}:input`, turn.input, 'completed', origin);
    }
    await this.checkpoints?.beforeTurn(turn.turnId); // before the watchdog: taking it is not the harness stalling
    if (this.current !== turn) return; // interrupted or closed while the checkpoint was taken
    this.armStallWatchdog();
    try {
      await this.host.beginTurn(turn);
    } catch (error) {
      if (this.current !== turn) return;
      const info = ReinsError.from(error, 'protocol_error', { harness: this.options.harness, operation: 'send' });
      this.complete(turn, { outcome: { status: 'failed', error: info.toInfo() } });
    }
  }

  private emitUserMessage(
    turn: ChassisTurn<Plan>,
    id: string,
    input: TurnInput,
    status: 'completed' | 'cancelled' = 'completed',
    origin?: UserMessageOrigin,
  ): void {
    emitUserMessage(this.stream, { id, input, clientMessageId: turn.options.clientMessageId, status, origin });
  }

  private emitSteeredMessage(turn: ChassisTurn<Plan>, input: TurnInput, options: SendOptions): void {
    if (this.options.userMessage === 'harness') return;
    this.emitUserMessage({ ...turn, options }, `${turn.turnId}:steer:${++this.steerCounter}`, input);
  }

  // ---- turns the harness starts by itself -------------------------------------------------------

  /**
   * A turn the harness started by itself, not from the queue (Claude Code answering a background
   * task's notification; docs/architecture/contract.md, "Events"): `turn.started` with `input`, its
   * `user_message` item (origin `notification` unless told otherwise) and the stall watchdog, as for a
   * sent turn, but nothing is delivered to the harness (`beginTurn` is not called). It ends like any
   * turn (`complete`, interrupt, stall); queued turns wait for its terminal. Returns undefined when a
   * turn is running already or the session is closed.
   */
  beginHarnessTurn(
    input: TurnInput,
    options: { origin?: UserMessageOrigin; plan?: Plan; meta?: EmitMeta } = {},
  ): ChassisTurn<Plan> | undefined {
    if (this.current || this.isClosed) return undefined;
    const turn = this.plainTurn(input, options.plan as Plan);
    if (this.stream.startTurn(input, { ...options.meta, turnId: turn.turnId }) === undefined) return undefined;
    this.current = turn;
    this.lastAgentText = undefined;
    if (this.options.userMessage !== 'harness') {
      this.emitUserMessage(turn, `${turn.turnId}:input`, input, 'completed', options.origin ?? 'notification');
    }
    this.armStallWatchdog();
    void this.checkpoints?.beforeTurn(turn.turnId);
    return turn;
  }

  // ---- terminals ---------------------------------------------------------------------------------

  /**
   * Ends `turn` with its one terminal (the adapter's reading of the harness's own end). Structured
   * output is accepted or refused here against the ORIGINAL schema. Returns false when `turn` is no
   * longer the running turn (the chassis ended it already, or it never ran): the caller keeps the
   * native frame visible as a passthrough.
   */
  complete(
    turn: ChassisTurn<Plan>,
    completion: Completion,
    meta: EmitMeta = {},
    structured?: { result: StructuredResult | undefined; restore?: (value: unknown) => unknown },
  ): boolean {
    if (this.current !== turn) return false;
    let final = completion;
    if (turn.outputSchema && completion.outcome.status === 'completed') {
      final = structuredCompletion(turn.outputSchema, completion, {
        result:
          this.options.structuredOutput === 'emulated'
            ? this.lastAgentText === undefined
              ? undefined
              : { text: this.lastAgentText }
            : structured?.result,
        restore: structured?.restore,
        harness: this.options.harness,
      });
    }
    this.clearTimers();
    this.current = undefined;
    this.stream.completeTurn(final, meta);
    this.checkpoints?.afterTurn(turn.turnId);
    this.cancelQueued(this.cancelAfterCurrent.splice(0), { status: 'cancelled' });
    queueMicrotask(() => this.startNext());
    return true;
  }

  private startNext(): void {
    if (this.current || this.isClosed) return;
    if (this.settling) return; // abandon() starts the next turn once the harness settled
    const next = this.queue.shift();
    if (next) void this.begin(next);
  }

  /**
   * Interrupt: every queued turn ends cancelled (each with its own turn.started and terminal, so a
   * caller holding its turn id sees it end), and the running turn is stopped at the harness. If the
   * harness does not end it within the grace period, the chassis ends it cancelled itself.
   */
  async interrupt(): Promise<void> {
    const running = this.current;
    if (!running && this.queue.length === 0) return;
    if (running && !this.host.interruptTurn) {
      throw new ReinsError(
        'unsupported_capability',
        `Reins cannot interrupt a ${this.options.displayName} turn: the harness offers no way to stop one.`,
        { harness: this.options.harness, operation: 'interrupt' },
      );
    }
    const cancelled = this.queue.splice(0);
    if (!running) {
      this.cancelQueued(cancelled, { status: 'cancelled' });
      return;
    }
    // Queued turns end once the running one has its terminal (a turn cannot start while another runs).
    this.cancelAfterCurrent.push(...cancelled);
    this.graceTimer ??= setTimeout(() => {
      this.graceTimer = undefined;
      if (this.current !== running) return;
      this.abandon(running, 'interrupt_grace');
      this.complete(running, { outcome: { status: 'cancelled' } });
    }, this.options.interruptGraceMs ?? DEFAULT_INTERRUPT_GRACE_MS);
    try {
      await answerWithin((this.host.interruptTurn as NonNullable<TurnHost<Plan>['interruptTurn']>)(running));
    } catch (error) {
      // The turn may have ended between our check and the harness's answer: then there is nothing to stop.
      if (this.current === running) throw error;
    }
  }

  private cancelQueued(turns: ChassisTurn<Plan>[], outcome: TurnOutcome): void {
    for (const turn of turns) {
      if (this.stream.isClosed) return;
      const turnId = this.stream.startTurn(turn.input, { turnId: turn.turnId });
      if (turnId === undefined) continue;
      if (this.options.userMessage !== 'harness') {
        this.emitUserMessage(turn, `${turn.turnId}:input`, turn.input, 'cancelled');
      }
      this.stream.completeTurn({ outcome });
    }
  }

  /**
   * The session ends: the running turn and every queued turn get their terminal (cancelled when the
   * close was requested, failed with `error` otherwise), then `session.closed`.
   */
  end(reason: 'requested' | 'process_exited' | 'error', error?: ErrorInfo): void {
    this.markClosing(reason === 'requested' ? 'closed by request' : (error?.message ?? reason));
    this.clearTimers();
    if (this.stream.isClosed) return;
    const outcome: TurnOutcome =
      reason === 'requested'
        ? { status: 'cancelled' }
        : {
            status: 'failed',
            error: error ?? { code: 'process_exited', message: `The ${this.options.displayName} process ended.` },
          };
    if (this.current) {
      this.current = undefined;
      this.stream.completeTurn({ outcome });
    }
    this.cancelQueued([...this.cancelAfterCurrent.splice(0), ...this.queue.splice(0)], outcome);
    this.stream.close(reason, error);
  }

  // ---- native frames -----------------------------------------------------------------------------

  /**
   * Runs one frame's translation so that nothing it throws can escape: a failure becomes a passthrough
   * of the frame (reason `untranslatable`, with its one warning notice) and the session goes on.
   * `run` gets the frame and its time (one function for every frame, no closure per frame).
   */
  translate<T>(native: NativeFrame, at: number, run: (native: NativeFrame, at: number) => T[]): T[] {
    try {
      return run(native, at);
    } catch {
      this.stream.emit({ type: 'passthrough', frame: native.frame, reason: 'untranslatable' }, { native, at });
      return [];
    }
  }

  /**
   * The same guard for a translation that writes into a sink: its events are held until it returns, then
   * handed to `commit` in order; if it throws, none of them is (held-emissions.ts says why). `translate`
   * and `commit` are made once per session, not per frame. A frame translated while another commits (a
   * listener's reaction) gets a buffer of its own.
   */
  translateInto<F>(
    frame: F,
    meta: FrameMeta,
    translate: (frame: F, sink: FrameSink) => void,
    commit: CommitEmission,
  ): boolean {
    const held = this.committing ? new HeldEmissions() : this.held;
    try {
      translate(frame, held);
    } catch {
      held.clear();
      this.stream.emit({ type: 'passthrough', frame: meta.native.frame, reason: 'untranslatable' }, meta);
      return false;
    }
    const outer = this.committing;
    this.committing = true;
    try {
      held.commit(commit, meta);
    } finally {
      this.committing = outer;
    }
    return true;
  }

  /** A frame of the running turn that makes no event of its own arrived (its events count in observe). */
  activity(): void {
    this.watchdog.activity();
  }

  /** Pauses the stall watchdog while the harness legitimately waits (a pending approval); call the result to resume. */
  holdStallWatchdog(): () => void {
    return this.watchdog.hold();
  }

  private armStallWatchdog(): void {
    const turn = this.current;
    if (!turn) return;
    this.watchdog.arm(() => {
      const seconds = Math.round(this.watchdog.timeoutMs / 1000);
      this.endTurnFailed(turn, {
        code: 'timeout',
        message: `${this.options.displayName} sent nothing about this turn for ${seconds} s, so Reins ended it (stallTimeoutMs).`,
        retryable: true,
      });
    });
  }

  /** Reins ends the running turn itself (stalled, retrying without end, no sign-in) and stops the harness's work. */
  endTurnFailed(turn: ChassisTurn<Plan>, error: ErrorInfo): void {
    if (this.current !== turn) return;
    this.abandon(turn, 'stalled');
    this.complete(turn, { outcome: { status: 'failed', error } });
    void this.host.interruptTurn?.(turn).catch(() => {});
  }

  private abandon(turn: ChassisTurn<Plan>, why: 'stalled' | 'interrupt_grace'): void {
    const settled = this.host.turnAbandoned?.(turn, why);
    if (!settled) return;
    const grace = this.options.interruptGraceMs ?? DEFAULT_INTERRUPT_GRACE_MS;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const bound = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, grace);
    });
    const settling: Promise<void> = Promise.race([settled.catch(() => {}), bound]).finally(() => {
      clearTimeout(timer);
      if (this.settling === settling) this.settling = undefined;
      this.startNext();
    });
    this.settling = settling;
  }

  private clearTimers(): void {
    this.watchdog.stop();
    this.retryBound?.stop();
    if (this.graceTimer) clearTimeout(this.graceTimer);
    this.graceTimer = undefined;
  }

  private observe(event: ReinsEvent): void {
    this.sayFallback(event);
    const turn = this.current;
    if (turn && isTurnProgress(event, turn.turnId)) this.watchdog.activity();
    if (turn && event.turnId === turn.turnId)
      this.retryBound?.observe(event, (error) => this.endTurnFailed(turn, error));
    if (event.type === 'item.completed' && event.item.kind === 'agent_message' && event.turnId !== null) {
      if (event.item.text.trim() !== '') this.lastAgentText = event.item.text;
    }
  }
}
