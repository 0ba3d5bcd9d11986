// The Pi session: one `pi --mode rpc` process on the shared session chassis. What is Pi's own lives
// here: its command channel, the prompt / steer / abort commands, the get_state barrier that settles a
// turn end (translate.ts), model and thinking-level switches, and Pi's launch-time failures.
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import {
  type DiscoveredBinary,
  type Effort,
  type EmitMeta,
  type EventPayload,
  type PermissionDecision,
  ReinsError,
  type ReinsEvent,
  type RevertOptions,
  type RevertResult,
  type SendOptions,
  type SendResult,
  type Session,
  type SessionDiff,
  type SessionSpec,
  type SettingChange,
  type TurnInput,
  unsupportedModelError,
} from '@reins/core';
import {
  type ChassisTurn,
  type CommitEmission,
  type FrameSink,
  SessionChassis,
  type TurnHost,
} from '../runtime/chassis/index.js';
import { sessionDiff, sessionRevert } from '../runtime/checkpoints/index.js';
import { HarnessProcess } from '../runtime/child-process.js';
import type { Confinement } from '../runtime/confinement.js';
import { parseHarnessLine } from '../runtime/json-depth.js';
import type { HarnessOptions } from '../runtime/options.js';
import { PiCommandChannel } from './commands.js';
import { compactPi } from './compact.js';
import { imageContent, messageText } from './prompt-input.js';
import { forkBeforeTurn, PiUserMessages } from './revert.js';
import {
  beginPiTurn,
  createPiTranslateState,
  failTurn,
  isTurnEndPending,
  PI_DIALOG_METHODS,
  type PiTranslateState,
  settleTurn,
  translatePiFrameInto,
} from './translate.js';
import { PiFrameSchema, type PiModel, PiResponseSchema, type PiSessionState, type PiThinkingLevel } from './wire.js';

export const PI_SOURCE = 'pi.rpc';
export const DEFAULT_PI_TIMEOUT_MS = 30_000;

export interface PiLaunch {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  binary: DiscoveredBinary | undefined;
  confine?: Confinement; // posture workspace: Reins' confinement (runtime/confinement.ts)
}

export interface PiSessionOptions extends HarnessOptions {
  sessionDir?: string;
}

export function piModelName(model: PiModel | null | undefined): string | undefined {
  return model ? `${model.provider}/${model.id}` : undefined;
}

const EFFORT_TO_PI: Record<Effort, PiThinkingLevel | undefined> = {
  minimal: 'minimal',
  low: 'low',
  medium: 'medium',
  high: 'high',
  xhigh: 'xhigh',
  max: undefined,
};

export function piThinkingLevel(effort: Effort): PiThinkingLevel {
  const level = EFFORT_TO_PI[effort];
  if (!level) {
    throw new ReinsError(
      'invalid_input',
      `Pi has no "${effort}" thinking level; use one of minimal, low, medium, high, xhigh.`,
      { harness: 'pi', operation: 'setEffort' },
    );
  }
  return level;
}

/** Reins model strings for Pi are `provider/id`; a bare id keeps the current provider. */
export function splitPiModel(
  model: string,
  currentProvider: string | undefined,
): { provider: string; modelId: string } {
  const slash = model.indexOf('/');
  if (slash > 0) return { provider: model.slice(0, slash), modelId: model.slice(slash + 1) };
  if (!currentProvider) {
    throw new ReinsError('invalid_input', `Pi needs a provider for model "${model}"; write it as provider/model.`, {
      harness: 'pi',
      operation: 'setModel',
    });
  }
  return { provider: currentProvider, modelId: model };
}

/** Pi 0.73.1: "No API key found for <provider>..." / "Authentication failed for ..." are sign-in problems. */
function classifyPromptError(error: unknown): ReinsError {
  const reinsError = ReinsError.from(error, 'protocol_error', { harness: 'pi', operation: 'prompt' });
  const piError = String(reinsError.data?.piError ?? '');
  if (/api key|authentication|login/i.test(piError)) {
    return new ReinsError('auth_required', reinsError.message, { harness: 'pi', operation: 'prompt', cause: error });
  }
  return reinsError;
}

export class PiSession implements Session, TurnHost {
  readonly id = randomUUID();
  readonly harness = 'pi' as const;
  private readonly chassis: SessionChassis;
  private readonly state: PiTranslateState = createPiTranslateState();
  private process!: HarnessProcess;
  private channel!: PiCommandChannel;
  private native: string | undefined;
  private readonly userMessages = new PiUserMessages();
  private provider: string | undefined;
  private barrierInFlight = false;
  /** Resolves when Pi ended the run of a turn the chassis abandoned (a stall). */
  private abandonedRunEnded: (() => void) | undefined;

  constructor(
    private readonly spec: SessionSpec,
    private readonly options: PiSessionOptions,
  ) {
    this.chassis = new SessionChassis(this, {
      harness: 'pi',
      displayName: 'Pi',
      sessionId: this.id,
      // Pi 0.73.1 has no structured output: the chassis asks for JSON and validates the reply.
      structuredOutput: 'emulated',
      spec,
    });
  }

  get nativeSessionId(): string | undefined {
    return this.native;
  }

  get events(): AsyncIterable<ReinsEvent> {
    return this.chassis.events;
  }

  private get stream() {
    return this.chassis.stream;
  }

  async start(launch: PiLaunch): Promise<void> {
    const timeoutMs = this.options.requestTimeoutMs ?? DEFAULT_PI_TIMEOUT_MS;
    this.process = await HarnessProcess.start({
      command: launch.command,
      args: launch.args,
      cwd: launch.cwd,
      env: launch.env,
      label: 'pi --mode rpc',
      harness: 'pi',
      ...(this.options.tap ? { tap: this.options.tap } : {}),
      ...(launch.confine ? { confine: launch.confine } : {}),
    });
    this.channel = new PiCommandChannel({
      send: (line) => this.process.writeLine(line),
      defaultTimeoutMs: timeoutMs,
    });
    this.process.onLine((line) => this.onLine(line));
    this.process.onFault((fault) => {
      if (fault.kind !== 'oversize_line') return;
      this.stream.emit({
        type: 'notice',
        kind: 'warning',
        message: `Pi wrote a ${fault.bytes}-byte line, over Reins' limit; it was skipped.`,
        data: { bytes: fault.bytes },
      });
    });
    void this.process.exited.then(() => this.onExit());
    const state = await this.initialState();
    this.native = state.sessionFile;
    this.provider = state.model?.provider;
    this.state.contextWindow = state.model?.contextWindow;
    const model = piModelName(state.model);
    this.stream.emit({
      type: 'session.started',
      cwd: this.spec.cwd,
      binaryPath: launch.binary?.path ?? launch.command,
      ...(launch.binary?.version ? { harnessVersion: launch.binary.version } : {}),
      ...(model ? { model } : {}),
    });
    this.stream.emit({
      type: 'session.updated',
      ...(state.sessionFile ? { nativeSessionId: state.sessionFile } : {}),
      ...(model ? { model } : {}),
      ...(state.thinkingLevel ? { effort: state.thinkingLevel } : {}),
      ...(state.sessionName ? { title: state.sessionName } : {}),
    });
    this.stream.emit({ type: 'session.status', status: 'idle' });
  }

  /** The first get_state: Pi's launch-time refusals become clear errors, a wrong session file resume_failed. */
  private async initialState(): Promise<PiSessionState> {
    let state: PiSessionState;
    try {
      state = (await this.channel.request({ type: 'get_state' })).data as PiSessionState;
    } catch (error) {
      await this.process.close({ stdinGraceMs: 200, termGraceMs: 1000 });
      const cause = ReinsError.from(error, 'protocol_error', { harness: 'pi', operation: 'start' });
      // 0.73.1 refuses an unknown --model at launch: stderr 'Error: Model "x" not found.' and exit 1.
      const missingModel = /Model "([^"]+)" not found/.exec(this.process.stderr.text());
      if (missingModel) {
        throw unsupportedModelError(
          missingModel[1] as string,
          'Pi does not know this model (pi --list-models lists them)',
          {
            harness: 'pi',
            operation: 'start',
            cause,
          },
        );
      }
      if (this.spec.resume) {
        throw new ReinsError(
          'resume_failed',
          `Pi could not resume ${this.spec.resume.nativeSessionId}: ${cause.message}`,
          {
            harness: 'pi',
            operation: 'resume',
            cause,
          },
        );
      }
      throw cause;
    }
    const resume = this.spec.resume?.nativeSessionId;
    if (this.spec.resume?.fork) {
      // A fork must be a new file: on the source's own file two sessions would share one conversation.
      if (!state.sessionFile || resolve(state.sessionFile) === resolve(this.spec.resume.nativeSessionId)) {
        await this.process.close({ stdinGraceMs: 200, termGraceMs: 1000 });
        throw new ReinsError(
          'resume_failed',
          `Pi did not fork ${this.spec.resume.nativeSessionId} into a new session file (it reported ${state.sessionFile ?? 'none'}).`,
          { harness: 'pi', operation: 'fork' },
        );
      }
    } else if (resume && state.sessionFile && resolve(state.sessionFile) !== resolve(resume)) {
      await this.process.close({ stdinGraceMs: 200, termGraceMs: 1000 });
      throw new ReinsError(
        'resume_failed',
        `Pi opened ${state.sessionFile} instead of ${resume}; refusing a silent fresh start.`,
        { harness: 'pi', operation: 'resume' },
      );
    }
    return state;
  }

  // ---- stdout ----------------------------------------------------------------------------------

  private onLine(line: string): void {
    const at = Date.now();
    const read = parseHarnessLine(line);
    if (!read.parsed) {
      // Pi 0.73.1 keeps stdout for JSONL (takeOverStdout), but a stray print must not be lost.
      this.stream.emit(
        { type: 'passthrough', frame: read.shown, reason: 'unparsable' },
        { at, native: { source: PI_SOURCE, frame: read.shown } },
      );
      return;
    }
    const parsed = read.value;
    const frame = PiFrameSchema.safeParse(parsed);
    if (!frame.success) {
      this.stream.emit(
        { type: 'passthrough', frame: parsed, reason: 'unparsable' },
        { at, native: { source: PI_SOURCE, frame: parsed } },
      );
      return;
    }
    const native = { source: PI_SOURCE, method: frame.data.type, frame: parsed };
    if (frame.data.type === 'response') {
      this.chassis.activity();
      const response = PiResponseSchema.safeParse(parsed);
      if (response.success && this.channel.receive(response.data as never)) return;
      this.stream.emit({ type: 'passthrough', frame: parsed }, { at, native });
      return;
    }
    if (
      frame.data.type === 'extension_ui_request' &&
      typeof frame.data.method === 'string' &&
      PI_DIALOG_METHODS.has(frame.data.method)
    ) {
      // A dialog blocks Pi until answered, and Reins has no channel for extension UI.
      this.process.writeLine(JSON.stringify({ type: 'extension_ui_response', id: frame.data.id, cancelled: true }));
    }
    this.chassis.translateInto(frame.data, { at, native }, this.translateOne, this.commitOne);
    this.maybeBarrier();
  }

  private readonly translateOne = (frame: Record<string, unknown>, sink: FrameSink): void =>
    translatePiFrameInto(this.state, frame, sink);

  /** One committed event of a frame (chassis.translateInto). */
  private readonly commitOne: CommitEmission = (payload, _parentItemId, _background, meta) =>
    this.emitOne(payload, meta);

  private emitAll(payloads: EventPayload[], meta: EmitMeta = {}): void {
    for (const payload of payloads) this.emitOne(payload, meta);
  }

  private emitOne(payload: EventPayload, meta: EmitMeta): void {
    if (payload.type !== 'turn.completed') {
      this.stream.emit(payload, meta);
      return;
    }
    const turn = this.chassis.running;
    if (this.abandonedRunEnded) {
      // The end of a run the chassis already ended (a stall): it must not end the next turn.
      this.abandonedRunEnded();
      this.abandonedRunEnded = undefined;
      if (meta.native) this.stream.emit({ type: 'passthrough', frame: meta.native.frame }, meta);
      return;
    }
    if (!turn) return; // an agent run Reins did not start (e.g. after a settled turn)
    const { type: _type, ...completion } = payload;
    this.chassis.complete(turn, completion, meta);
  }

  /** agent_end makes the end pending; a get_state round trip proves no retry decision is still unread. */
  private maybeBarrier(): void {
    if (!isTurnEndPending(this.state) || this.barrierInFlight || this.chassis.isClosed) return;
    this.barrierInFlight = true;
    this.channel
      .request({ type: 'get_state' })
      .then((response) => {
        const state = response.data as PiSessionState | undefined;
        this.adoptSessionFile(state?.sessionFile);
        this.barrierInFlight = false;
        this.emitAll(settleTurn(this.state));
      })
      .catch((error: unknown) => {
        this.barrierInFlight = false;
        if (this.chassis.isClosed || this.process.hasExited) return; // the exit path ends the turn
        this.emitAll(failTurn(this.state, ReinsError.from(error, 'protocol_error', { harness: 'pi' }).toInfo()));
      });
  }

  private onExit(): void {
    const error = new ReinsError('process_exited', this.process.describeExit(), {
      harness: 'pi',
      data: { exit: this.process.exitStatus },
    });
    this.channel.close(error);
    this.chassis.end(this.chassis.isClosed ? 'requested' : 'process_exited', error.toInfo());
  }

  // ---- TurnHost: how a turn reaches Pi ---------------------------------------------------------

  async beginTurn(turn: ChassisTurn): Promise<void> {
    this.abandonedRunEnded = undefined; // the chassis waited for it, or gave up after the grace period
    beginPiTurn(this.state);
    const current = () => this.chassis.running === turn && !this.process.hasExited;
    if (turn.compaction) return compactPi(this.channel, this.state, (payloads) => this.emitAll(payloads), current);
    try {
      const images = await imageContent(turn.prompt);
      await this.channel.request(
        { type: 'prompt', message: messageText(turn.prompt), ...(images ? { images } : {}) },
        { failureCode: 'harness_unhealthy' },
      );
      this.userMessages.prompt(turn.turnId, messageText(turn.prompt)); // in Pi's session once accepted
    } catch (error) {
      if (current()) this.emitAll(failTurn(this.state, classifyPromptError(error).toInfo())); // else the exit path
    }
  }

  /** Pi's native steer: delivered before the next model call of the running turn. */
  async steerTurn(turn: ChassisTurn, input: TurnInput): Promise<boolean> {
    const images = await imageContent(input);
    await this.channel.request({ type: 'steer', message: messageText(input), ...(images ? { images } : {}) });
    this.userMessages.steer(turn.turnId, messageText(input));
    return true;
  }

  /**
   * Pi answers abort after its agent has gone idle; the terminal comes from agent_end (aborted) or
   * auto_retry_end (a retry wait that was cancelled).
   */
  async interruptTurn(): Promise<void> {
    this.state.interruptRequested = true;
    await this.channel.request({ type: 'abort' });
  }

  /** The next prompt waits until Pi ended the abandoned run (abort is sent by the chassis). */
  turnAbandoned(): Promise<void> {
    return new Promise((resolve) => {
      this.abandonedRunEnded = resolve;
    });
  }

  // ---- Session ---------------------------------------------------------------------------------

  send(input: TurnInput | string, options?: SendOptions): Promise<SendResult> {
    return this.chassis.send(input, options);
  }

  interrupt(): Promise<void> {
    return this.chassis.interrupt();
  }

  /** Pi's RPC `compact` (compact.ts). */
  async compact(): Promise<SendResult> {
    return this.chassis.compact(undefined);
  }

  async setModel(model: string): Promise<SettingChange> {
    this.chassis.assertOpen('setModel', this.native);
    const { provider, modelId } = splitPiModel(model, this.provider);
    let response: Awaited<ReturnType<PiCommandChannel['request']>>;
    try {
      response = await this.channel.request({ type: 'set_model', provider, modelId });
    } catch (error) {
      const reinsError = ReinsError.from(error, 'protocol_error', { harness: 'pi' });
      // Pi 0.73.1: `Model not found: fake/nope`.
      if (/not found/i.test(String(reinsError.data?.piError ?? ''))) {
        throw unsupportedModelError(model, String(reinsError.data?.piError), { harness: 'pi', operation: 'setModel' });
      }
      throw reinsError;
    }
    const selected = response.data as PiModel | undefined;
    this.provider = selected?.provider ?? provider;
    if (selected?.contextWindow !== undefined) this.state.contextWindow = selected.contextWindow;
    this.stream.emit({ type: 'session.updated', model: piModelName(selected) ?? `${provider}/${modelId}` });
    return { applied: 'live' };
  }

  async setEffort(effort: Effort): Promise<SettingChange> {
    this.chassis.assertOpen('setEffort', this.native);
    const level = piThinkingLevel(effort);
    await this.channel.request({ type: 'set_thinking_level', level });
    this.stream.emit({ type: 'session.updated', effort: level });
    return { applied: 'live' };
  }

  /** Async: a refusal (checkpoints off) rejects the promise rather than throwing at the call. */
  async diff(turnId?: string): Promise<SessionDiff> {
    return sessionDiff(this.chassis, 'pi', turnId);
  }

  /** The files go back, and the conversation to a fork before the turn's message where Reins knows it (revert.ts). */
  async revert(turnId: string, options: RevertOptions = {}): Promise<RevertResult> {
    const context = { channel: this.channel, messages: this.userMessages, forked: this.adoptSessionFile };
    return sessionRevert(this.chassis, 'pi', turnId, options, (turnIds) => forkBeforeTurn(context, turnIds));
  }

  private readonly adoptSessionFile = (file: string | undefined): void => {
    if (!file || file === this.native) return;
    this.native = file;
    this.stream.emit({ type: 'session.updated', nativeSessionId: file });
  };

  async respondToPermission(_requestId: string, _decision: PermissionDecision): Promise<void> {
    throw new ReinsError('unsupported_capability', 'Pi has no permission requests: its tools run without asking.', {
      harness: 'pi',
      operation: 'respondToPermission',
    });
  }

  async close(): Promise<void> {
    this.chassis.markClosing('closed by request');
    this.channel?.close(new ReinsError('process_exited', 'The Pi session was closed.', { harness: 'pi' }));
    await this.process?.close();
    this.chassis.end('requested');
  }
}
