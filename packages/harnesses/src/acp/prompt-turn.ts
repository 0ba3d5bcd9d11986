// ACP's turn: one `session/prompt` per chassis turn (docs/architecture/contract.md, "Turn rules"). The
// prompt is sent (after a reopen where a quirk asks, with the system prompt's append on the first turn),
// its answer or failure becomes the turn's completion (prompt.ts reads it), a cancel is
// `session/cancel`, and a turn the chassis gave up on is waited for (bounded) before the next. The
// session (session.ts) is the chassis's TurnHost and hands its turns here.
import {
  type EmitMeta,
  type EventPayload,
  type HarnessId,
  isRecord,
  type NativeFrame,
  ReinsError,
  type SessionSpec,
  type TurnInput,
} from '@reins/core';
import type { ChassisTurn, SessionChassis } from '../runtime/chassis/index.js';
import type { AcpApprovals } from './approvals.js';
import type { AcpConnection } from './connection.js';
import { type NativeSessionContext, nativeSessionParams } from './native-session.js';
import type { AcpQuirks } from './preset.js';
import { assertAcceptsImages, type Completion, promptBlocks, readPromptAnswer, readPromptFailure } from './prompt.js';
import type { AcpSettings } from './settings.js';
import { beginTurn, endTurn, type TranslateState } from './translate.js';
import type { SessionSetupResponse } from './wire.js';

export interface PromptTurnsContext {
  harness: HarnessId;
  /** The launch line, for messages about the process: 'gemini --acp'. */
  label: string;
  spec: SessionSpec;
  quirks: AcpQuirks;
  connection: AcpConnection;
  /** What session/resume takes when a quirk reopens the native session. */
  native: NativeSessionContext;
  nativeSessionId: () => string | undefined;
  chassis: SessionChassis;
  state: TranslateState;
  settings: AcpSettings;
  approvals: AcpApprovals;
  interruptGraceMs: number;
  emit: (payload: EventPayload, meta?: EmitMeta) => void;
  emitAll: (payloads: EventPayload[], meta?: EmitMeta) => void;
}

/** The prompt was never sent (the turn was cancelled before it could be). */
const NOT_SENT = Symbol('not sent');

export class PromptTurns {
  /** Turns Reins asked the agent to cancel (interrupt, or the stall watchdog). */
  private readonly cancelRequested = new WeakSet<ChassisTurn>();
  /** Each begun turn's prompt request, so an abandoned one can be waited for. */
  private readonly prompts = new WeakMap<ChassisTurn, Promise<unknown>>();
  private needsReopen = false;
  /** The previous turn was cancelled (for prompt.ts's empty-answer check). */
  private afterCancel = false;
  private firstTurn = true;

  constructor(private readonly context: PromptTurnsContext) {}

  /** Whether Reins asked the agent to cancel `turn`. */
  cancelling(turn: ChassisTurn): boolean {
    return this.cancelRequested.has(turn);
  }

  async begin(turn: ChassisTurn): Promise<void> {
    this.context.emitAll(beginTurn(this.context.state));
    this.context.emit({ type: 'session.status', status: 'running' });
    const prompt = this.prompt(turn);
    this.prompts.set(turn, prompt);
    let response: unknown;
    let failure: ReinsError | undefined;
    try {
      response = await prompt;
    } catch (error) {
      failure = ReinsError.from(error, 'protocol_error', {
        harness: this.context.harness,
        operation: 'session/prompt',
      });
    }
    // Updates read before the answer may still be in the SDK's dispatch: let them land first.
    await new Promise((resolve) => setImmediate(resolve));
    const at = Date.now();
    const native: NativeFrame = {
      source: 'acp',
      method: 'session/prompt',
      frame: response === NOT_SENT ? null : (response ?? null),
    };
    if (this.context.chassis.running !== turn) {
      // The chassis ended this turn already (stall, interrupt grace, close): the agent's late
      // answer stays visible but ends nothing.
      if (response !== undefined && response !== NOT_SENT)
        this.context.emit({ type: 'passthrough', frame: response }, { native, at });
      return;
    }
    this.context.emitAll(endTurn(this.context.state));
    const answer = {
      label: this.context.label,
      cancelRequested: this.cancelRequested.has(turn),
      afterCancel: this.afterCancel,
      turnUpdates: this.context.state.turnUpdates,
      providerError: this.context.state.providerError,
      model: this.context.state.current.model,
    };
    let completion: Completion;
    if (failure || response === NOT_SENT) {
      completion = failure ? readPromptFailure(failure, answer) : { outcome: { status: 'cancelled' } };
    } else {
      completion = this.context.chassis.translate(native, at, () => {
        const read = readPromptAnswer(response, answer);
        this.context.emitAll(read.before, { native, at });
        return [read.completion];
      })[0] ?? { outcome: { status: 'completed' } };
    }
    this.afterCancel = completion.outcome.status === 'cancelled';
    this.context.chassis.complete(turn, completion, failure || response === NOT_SENT ? {} : { native, at });
    this.context.emit({ type: 'session.status', status: 'idle' });
  }

  private promptContext() {
    return { harness: this.context.harness, label: this.context.label, cwd: this.context.spec.cwd };
  }

  /** Refuses at send time what the agent cannot take (images without promptCapabilities.image). */
  plan(input: TurnInput): undefined {
    assertAcceptsImages(
      input,
      this.context.connection.initializeResponse?.agentCapabilities?.promptCapabilities?.image === true,
      this.promptContext(),
    );
    return undefined;
  }

  /** Reopens when a quirk asks, builds the blocks, sends the prompt; resolves with the agent's answer. */
  private async prompt(turn: ChassisTurn): Promise<unknown> {
    if (this.needsReopen) await this.reopen();
    const prefix = this.firstTurn ? this.context.spec.systemPrompt?.append : undefined;
    this.firstTurn = false;
    const blocks = await promptBlocks(turn.prompt, this.promptContext(), prefix);
    // Interrupted while reopening: nothing to send, nothing for the agent to answer.
    if (this.cancelRequested.has(turn)) return NOT_SENT;
    // No deadline on a prompt: turns run as long as the work takes; interrupt and the stall watchdog end them.
    return this.context.connection.request<unknown>(
      'session/prompt',
      { sessionId: this.context.nativeSessionId(), prompt: blocks },
      { timeoutMs: 0 },
    );
  }

  /** claude-agent-acp 0.23.1 off-by-one after cancel: a fresh native session drops the stale queue. */
  private async reopen(): Promise<void> {
    this.needsReopen = false;
    const sessionId = this.context.nativeSessionId() as string;
    const model = this.context.state.current.model;
    await this.context.connection.request('session/close', { sessionId });
    const setup = await this.context.connection.request<SessionSetupResponse | null>('session/resume', {
      ...nativeSessionParams(this.context.native),
      sessionId,
    });
    this.context.settings.take(isRecord(setup) ? setup : {});
    // The agent reverts to its default model on resume; put the session's model back.
    if (model && this.context.settings.reportedModel() !== model) await this.context.settings.applyModel(model);
  }

  /** ACP's session/cancel; pending permission requests are answered `cancelled`, as ACP asks. */
  async interrupt(turn: ChassisTurn): Promise<void> {
    this.cancelRequested.add(turn);
    this.context.approvals.cancelAll(true);
    if (this.context.quirks.reopenAfterCancel) this.needsReopen = true;
    this.context.connection.notify('session/cancel', { sessionId: this.context.nativeSessionId() });
  }

  /** The chassis ended `turn` itself; the next turn waits (bounded) until its prompt settled. */
  abandoned(turn: ChassisTurn, why: 'stalled' | 'interrupt_grace'): Promise<void> {
    if (why === 'interrupt_grace') {
      this.context.emit({
        type: 'notice',
        kind: 'warning',
        message: `${this.context.label} did not confirm the cancel within ${this.context.interruptGraceMs} ms; the turn was ended by Reins.`,
      });
    }
    this.context.emitAll(endTurn(this.context.state));
    this.context.emit({ type: 'session.status', status: 'idle' });
    const prompt = this.prompts.get(turn) ?? Promise.resolve();
    return prompt.then(
      () => undefined,
      () => undefined,
    );
  }
}
