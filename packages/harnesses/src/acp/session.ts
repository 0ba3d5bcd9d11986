// One Reins session over one ACP session: the turn state machine (queue, cancel, permissions),
// settings (model, effort, mode through config options or the older set_model / set_mode), and
// the client half of fs. It reads and writes through an AcpConnection it may share with others.
import { readFile } from 'node:fs/promises';
import { basename, extname, isAbsolute, resolve } from 'node:path';
import { RequestError } from '@agentclientprotocol/sdk';
import {
  acceptStructuredOutput,
  type Effort,
  type ErrorInfo,
  ErrorInfoSchema,
  type EventPayload,
  type HarnessId,
  type JsonSchema,
  type PermissionDecision,
  ReinsError,
  type ReinsEvent,
  type SendOptions,
  type SendResult,
  type Session,
  SessionEventStream,
  type SessionSpec,
  type SettingChange,
  structuredOutputInstruction,
  type TurnInput,
  type TurnOutcome,
  type Usage,
  unsupportedModelError,
} from '@reins/core';
import { ConfinedFs } from './client-fs.js';
import type { AcpConnection, SessionSink } from './connection.js';
import type { AcpQuirks } from './preset.js';
import {
  beginTurn,
  createTranslateState,
  endTurn,
  finishReplay,
  outcomeOf,
  pickPermissionOption,
  providerFailure,
  settingsFromConfigOptions,
  type TranslateState,
  translatePermission,
  translateUpdate,
  turnTokens,
} from './translate.js';
import {
  type ContentBlock,
  type PermissionOption,
  type PromptResponse,
  RPC,
  type SessionConfigOption,
  type SessionModelState,
  type SessionModeState,
  type SessionSetupResponse,
  type SessionUpdate,
} from './wire.js';

export interface AcpSessionContext {
  harness: HarnessId;
  label: string;
  connection: AcpConnection;
  spec: SessionSpec;
  quirks: AcpQuirks;
  requestTimeoutMs: number;
  binaryPath?: string;
  harnessVersion?: string;
  env: Record<string, string | undefined>;
  /** Gives the shared process back (closes it when this was the last session). */
  release: () => Promise<void>;
}

interface QueuedTurn {
  turnId: string;
  input: TurnInput;
  outputSchema: JsonSchema | undefined;
}

interface PendingPermission {
  options: PermissionOption[];
  resolve: (response: unknown) => void;
}

let sessionCounter = 0;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Values of a select config option, flattening groups. */
export function optionValues(option: SessionConfigOption): { value: string; name: string }[] {
  if (option.type !== 'select') return [];
  const out: { value: string; name: string }[] = [];
  for (const entry of option.options as unknown[]) {
    if (!isRecord(entry)) continue;
    if (Array.isArray(entry.options)) {
      for (const inner of entry.options as Record<string, unknown>[])
        out.push({ value: String(inner.value), name: String(inner.name ?? inner.value) });
    } else if (entry.value !== undefined) {
      out.push({ value: String(entry.value), name: String(entry.name ?? entry.value) });
    }
  }
  return out;
}

const IMAGE_TYPES: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
};

/** A provider failure inside a JSON-RPC error: an HTTP status in the code, message or data. */
export function classifyPromptError(error: ReinsError, model?: string): ErrorInfo {
  if (error.code !== 'protocol_error') return error.toInfo();
  const rpcCode = error.data?.rpcCode;
  const rpcData = error.data?.rpcData;
  // An agent that speaks Reins errors (our own ACP bridge) puts the ErrorInfo in data: keep it as is.
  const reins = ErrorInfoSchema.safeParse(rpcData);
  if (reins.success) return reins.data;
  const haystack = `${String(error.data?.rpcMessage ?? '')} ${JSON.stringify(rpcData ?? '')}`;
  // Gemini CLI 0.61.0 answers with the HTTP status as the JSON-RPC code (400); Qwen 0.24.4,
  // OpenCode 1.18.33 and claude-agent-acp 0.23.1 say -32603 with the status in the text.
  const status =
    typeof rpcCode === 'number' && rpcCode >= 400 && rpcCode < 600
      ? rpcCode
      : Number(/\b([45]\d\d)\b/.exec(haystack)?.[1] ?? Number.NaN);
  const apiError = /APIError|API Error|invalid_request|rate.?limit|overloaded/i.test(haystack);
  if (Number.isNaN(status) && !apiError) return error.toInfo();
  const kind =
    status === 429
      ? 'rate_limited'
      : status === 529 || /overloaded/i.test(haystack)
        ? 'overloaded'
        : status >= 500
          ? 'server_error'
          : /context|too long|too many tokens/i.test(haystack)
            ? 'context_window_exceeded'
            : status >= 400
              ? 'bad_request'
              : 'unknown';
  // Qwen 0.24.4 says only "Internal error" and puts the provider's words in data.details.
  const details = isRecord(rpcData) && typeof rpcData.details === 'string' ? rpcData.details : undefined;
  const message = [String(error.data?.rpcMessage ?? error.message), details].filter(Boolean).join(': ');
  return providerFailure({ kind, ...(Number.isNaN(status) ? {} : { status }), message }, { ...error.data }, model);
}

/** Gemini CLI 0.61.0 reports a turn's tokens only in PromptResponse._meta.quota.token_count. */
export function quotaTokens(meta: unknown): { input?: number; output?: number } | undefined {
  const quota = isRecord(meta) && isRecord(meta.quota) ? meta.quota : undefined;
  const count = quota && isRecord(quota.token_count) ? quota.token_count : undefined;
  if (!count) return undefined;
  const out: { input?: number; output?: number } = {};
  if (typeof count.input_tokens === 'number') out.input = count.input_tokens;
  if (typeof count.output_tokens === 'number') out.output = count.output_tokens;
  return Object.keys(out).length > 0 ? out : undefined;
}

export class AcpSession implements Session {
  readonly id: string;
  readonly harness: HarnessId;
  private native: string | undefined;
  private readonly stream: SessionEventStream;
  private readonly state: TranslateState;
  private readonly fs: ConfinedFs;
  private readonly queue: QueuedTurn[] = [];
  private running: QueuedTurn | undefined;
  private turnDone: Promise<void> = Promise.resolve();
  private cancelRequested = false;
  private needsReopen = false;
  /** The previous turn was cancelled (for the empty-answer check below). */
  private afterCancel = false;
  private readonly permissions = new Map<string, PendingPermission>();
  private permissionCounter = 0;
  private turnCounter = 0;
  private configOptions: SessionConfigOption[] = [];
  private modes: SessionModeState | undefined;
  private models: SessionModelState | undefined;
  private closed = false;
  private firstTurn = true;
  private readonly sink: SessionSink;

  constructor(private readonly context: AcpSessionContext) {
    this.harness = context.harness;
    this.state = createTranslateState(context.quirks.translate);
    this.id = `${context.harness}-${process.pid}-${Date.now().toString(36)}-${++sessionCounter}`;
    this.stream = new SessionEventStream({ harness: context.harness, sessionId: this.id });
    this.fs = new ConfinedFs(context.spec.cwd, {
      missingFileReadsEmpty: context.quirks.missingFileReadsEmpty ?? false,
    });
    this.sink = {
      update: (update, frame, at) => this.onUpdate(update, frame, at),
      request: (method, params, signal) => this.onRequest(method, params, signal),
      passthrough: (frame, method, at) =>
        this.emit(
          { type: 'passthrough', frame },
          { native: { source: 'acp', ...(method ? { method } : {}), frame }, at },
        ),
      ended: (error) => this.onEnded(error),
    };
  }

  get nativeSessionId(): string | undefined {
    return this.native;
  }

  get events(): AsyncIterable<ReinsEvent> {
    return this.stream.events;
  }

  private get connection(): AcpConnection {
    return this.context.connection;
  }

  private get agentCapabilities() {
    return this.connection.initializeResponse?.agentCapabilities ?? {};
  }

  /** Creates, loads or resumes the native session. */
  async open(): Promise<void> {
    const { spec } = this.context;
    this.emit({
      type: 'session.started',
      cwd: spec.cwd,
      ...(this.context.harnessVersion ? { harnessVersion: this.context.harnessVersion } : {}),
      ...(this.context.binaryPath ? { binaryPath: this.context.binaryPath } : {}),
      ...(spec.model ? { model: spec.model } : {}),
    });
    const base = { cwd: spec.cwd, mcpServers: this.mcpServers() };
    let setup: SessionSetupResponse;
    if (spec.resume) {
      setup = await this.resumeNative(spec.resume.nativeSessionId, base);
    } else {
      setup = await this.connection.request<SessionSetupResponse>('session/new', base);
      if (typeof setup?.sessionId !== 'string') {
        throw new ReinsError('protocol_error', `${this.context.label} answered session/new without a sessionId.`, {
          harness: this.harness,
          operation: 'session/new',
        });
      }
      this.native = setup.sessionId;
      this.connection.register(setup.sessionId, this.sink);
    }
    this.takeSetup(setup);
    const settings = this.currentSettings();
    this.emit({ type: 'session.updated', nativeSessionId: this.native as string, ...settings });
    if (spec.model && settings.model !== spec.model) await this.setModel(spec.model);
    if (spec.effort) await this.setEffort(spec.effort);
    this.emit({ type: 'session.status', status: 'idle' });
  }

  private async resumeNative(
    nativeId: string,
    base: { cwd: string; mcpServers: unknown[] },
  ): Promise<SessionSetupResponse> {
    const caps = this.agentCapabilities;
    const canLoad = caps.loadSession === true;
    const canResume = Boolean(caps.sessionCapabilities?.resume);
    if (!canLoad && !canResume) {
      throw new ReinsError(
        'unsupported_capability',
        `${this.context.label} cannot resume a session: it advertises neither session/load nor session/resume.`,
        { harness: this.harness, operation: 'resume' },
      );
    }
    this.native = nativeId;
    this.connection.register(nativeId, this.sink);
    // session/load replays the conversation (shown as history, outside any turn); session/resume
    // does not. Load first where offered, so a client sees what it is continuing.
    const methods = canLoad ? ['session/load', ...(canResume ? ['session/resume'] : [])] : ['session/resume'];
    let lastError: ReinsError | undefined;
    for (const method of methods) {
      try {
        const setup = await this.connection.request<SessionSetupResponse | null>(method, {
          ...base,
          sessionId: nativeId,
        });
        this.emitAll(finishReplay(this.state), {});
        return setup ?? {};
      } catch (error) {
        lastError = ReinsError.from(error, 'resume_failed', { harness: this.harness, operation: method });
        if (lastError.code === 'auth_required' || lastError.code === 'process_exited') throw lastError;
        if (lastError.code !== 'unsupported_capability') break;
      }
    }
    this.connection.unregister(nativeId);
    throw new ReinsError(
      'resume_failed',
      `${this.context.label} could not resume session ${nativeId}: ${lastError?.message ?? 'unknown error'}`,
      {
        harness: this.harness,
        operation: 'resume',
        cause: lastError,
        data: { nativeSessionId: nativeId, ...lastError?.data },
      },
    );
  }

  private takeSetup(setup: SessionSetupResponse): void {
    if (Array.isArray(setup.configOptions)) this.configOptions = setup.configOptions;
    if (setup.modes) this.modes = setup.modes;
    if (setup.models) this.models = setup.models;
  }

  private currentSettings(): { model?: string; effort?: string; mode?: string } {
    const fromOptions = settingsFromConfigOptions(this.configOptions);
    const model = fromOptions.model ?? this.models?.currentModelId;
    const mode = fromOptions.mode ?? this.modes?.currentModeId;
    const out: { model?: string; effort?: string; mode?: string } = {};
    if (model) out.model = model;
    if (fromOptions.effort) out.effort = fromOptions.effort;
    if (mode) out.mode = mode;
    Object.assign(this.state.current, out);
    return out;
  }

  private mcpServers(): unknown[] {
    return (this.context.spec.mcpServers ?? []).map((server) => {
      if (server.transport === 'stdio') {
        return {
          name: server.name,
          command: server.command,
          args: server.args ?? [],
          env: Object.entries(server.env ?? {}).map(([name, value]) => ({ name, value })),
        };
      }
      return {
        type: server.transport,
        name: server.name,
        url: server.url,
        headers: Object.entries(server.headers ?? {}).map(([name, value]) => ({ name, value })),
      };
    });
  }

  // ---- events in ----

  private emit(
    payload: EventPayload,
    meta: { native?: { source: string; method?: string; frame: unknown }; at?: number } = {},
  ) {
    if (this.stream.isClosed) return;
    this.stream.emit(payload, meta);
  }

  private emitAll(
    payloads: EventPayload[],
    meta: { native?: { source: string; method?: string; frame: unknown }; at?: number },
  ) {
    for (const payload of payloads) this.emit(payload, meta);
  }

  private onUpdate(update: SessionUpdate, frame: unknown, at: number): void {
    if (update.sessionUpdate === 'config_option_update') this.configOptions = update.configOptions;
    if (update.sessionUpdate === 'current_mode_update' && this.modes)
      this.modes = { ...this.modes, currentModeId: update.currentModeId };
    const payloads = translateUpdate(this.state, update, { inTurn: this.running !== undefined });
    this.emitAll(payloads, { native: { source: 'acp', method: 'session/update', frame }, at });
  }

  private async onRequest(method: string, params: Record<string, unknown>, signal: AbortSignal): Promise<unknown> {
    switch (method) {
      case 'session/request_permission':
        return this.onPermission(params, signal);
      case 'fs/read_text_file':
        return this.fs.read(params);
      case 'fs/write_text_file':
        return this.fs.write(params);
      default: {
        // Extension requests (Qwen Code 0.24.4 sends craft/drainMidTurnQueue mid-turn): answered
        // with method-not-found at once so the agent goes on, and shown as passthrough.
        const frame = { jsonrpc: '2.0', method, params };
        this.emit({ type: 'passthrough', frame }, { native: { source: 'acp', method, frame } });
        throw RequestError.methodNotFound(method);
      }
    }
  }

  private onPermission(params: Record<string, unknown>, signal: AbortSignal): Promise<unknown> {
    const requestId = `perm_${++this.permissionCounter}`;
    const options = (Array.isArray(params.options) ? params.options : []) as PermissionOption[];
    const toolCall = isRecord(params.toolCall) ? params.toolCall : {};
    const frame = { jsonrpc: '2.0', method: 'session/request_permission', params };
    const native = { source: 'acp', method: 'session/request_permission', frame };
    const { payloads } = translatePermission(this.state, requestId, toolCall, options);
    this.emitAll(payloads, { native });
    const posture = this.context.spec.posture ?? 'bypass';
    if (posture === 'bypass' || this.cancelRequested) {
      const decision: PermissionDecision = this.cancelRequested ? { behavior: 'deny' } : { behavior: 'allow' };
      const optionId = this.cancelRequested ? undefined : pickPermissionOption(options, decision);
      this.emit({
        type: 'permission.resolved',
        requestId,
        decision: optionId ? { ...decision, optionId } : decision,
        by: 'client',
      });
      return Promise.resolve({ outcome: optionId ? { outcome: 'selected', optionId } : { outcome: 'cancelled' } });
    }
    this.emit({ type: 'session.status', status: 'requires_action' });
    return new Promise((resolve) => {
      const finish = (response: unknown) => {
        this.permissions.delete(requestId);
        signal.removeEventListener('abort', onAbort);
        if (this.running) this.emit({ type: 'session.status', status: 'running' });
        resolve(response);
      };
      const onAbort = () => {
        // The agent withdrew the request ($/cancel_request) or the connection ended.
        this.emit({ type: 'permission.resolved', requestId, decision: { behavior: 'deny' }, by: 'harness' });
        finish({ outcome: { outcome: 'cancelled' } });
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.permissions.set(requestId, { options, resolve: finish });
    });
  }

  private onEnded(error: ReinsError): void {
    if (this.closed) return;
    this.closed = true;
    this.stream.close('process_exited', error.toInfo());
    void this.context.release();
  }

  // ---- turns ----

  send(input: TurnInput | string, options: SendOptions = {}): Promise<SendResult> {
    if (this.closed) {
      return Promise.reject(
        new ReinsError('process_exited', 'This session is closed; start or resume another one.', {
          harness: this.harness,
          operation: 'send',
        }),
      );
    }
    const turnInput: TurnInput = typeof input === 'string' ? { text: input } : input;
    const busy = this.running !== undefined || this.queue.length > 0;
    if (busy && options.mode === 'steer' && options.steerFallback === 'fail') {
      return Promise.reject(
        new ReinsError(
          'unsupported_capability',
          `${this.context.label} cannot steer a running turn: ACP has no way to add input to it.`,
          {
            harness: this.harness,
            operation: 'send',
            data: { capability: 'steer' },
          },
        ),
      );
    }
    const turn: QueuedTurn = {
      turnId: `turn_${++this.turnCounter}`,
      input: turnInput,
      outputSchema: options.outputSchema ?? this.context.spec.outputSchema,
    };
    if (busy) {
      this.queue.push(turn);
      if (options.mode === 'steer') {
        this.emit({
          type: 'notice',
          kind: 'info',
          message: `ACP has no steering: the input was queued and runs as turn ${turn.turnId} after the current turn.`,
          data: { turnId: turn.turnId, delivery: 'queued' },
        });
      }
      return Promise.resolve({ turnId: turn.turnId, delivery: 'queued' });
    }
    this.start(turn);
    return Promise.resolve({ turnId: turn.turnId, delivery: 'started' });
  }

  private start(turn: QueuedTurn): void {
    this.running = turn;
    this.turnDone = this.runTurn(turn).finally(() => {
      this.running = undefined;
      if (this.closed) return;
      this.emit({ type: 'session.status', status: 'idle' });
      const next = this.queue.shift();
      if (next) this.start(next);
    });
  }

  private async runTurn(turn: QueuedTurn): Promise<void> {
    this.emitAll(beginTurn(this.state), {});
    this.cancelRequested = false;
    this.stream.startTurn(turn.input, { turnId: turn.turnId });
    this.emit({ type: 'session.status', status: 'running' });
    let response: PromptResponse | undefined;
    let failure: ReinsError | undefined;
    try {
      if (this.needsReopen) await this.reopen();
      const prompt = await this.promptBlocks(turn);
      // No deadline on a prompt: turns run as long as the work takes; interrupt() ends them.
      response = await this.connection.request<PromptResponse>(
        'session/prompt',
        { sessionId: this.native, prompt },
        { timeoutMs: 0 },
      );
    } catch (error) {
      failure = ReinsError.from(error, 'protocol_error', { harness: this.harness, operation: 'session/prompt' });
    }
    // Updates read before the answer may still be in the SDK's dispatch: let them land first.
    await new Promise((resolve) => setImmediate(resolve));
    if (this.stream.isClosed || this.stream.activeTurnId !== turn.turnId) return;
    const closing = endTurn(this.state);
    this.emitAll(closing, {});
    const native = response ? { source: 'acp', method: 'session/prompt', frame: response } : undefined;
    if (failure) {
      const cancelled =
        this.cancelRequested && (failure.data?.rpcCode === RPC.requestCancelled || failure.code === 'timeout');
      const outcome: TurnOutcome = cancelled
        ? { status: 'cancelled' }
        : { status: 'failed', error: classifyPromptError(failure, this.state.current.model) };
      if (cancelled && this.context.quirks.reopenAfterCancel) this.needsReopen = true;
      this.afterCancel = cancelled;
      this.stream.completeTurn({ outcome });
      return;
    }
    const answer = response as PromptResponse;
    let outcome = outcomeOf(answer.stopReason);
    // OpenCode 1.18.33 answers end_turn to a cancel that lands during provider retries: the
    // caller asked to stop and the agent stopped, so the turn is cancelled (stopReason kept).
    if (this.cancelRequested && answer.stopReason === 'end_turn') outcome = { status: 'cancelled' };
    if (outcome.status === 'cancelled' && this.context.quirks.reopenAfterCancel) this.needsReopen = true;
    // claude-agent-acp 0.23.1 without the reopen: right after a cancel, the next prompt is answered
    // at once with an empty end_turn and its real answer comes with the prompt after. Say so.
    if (this.afterCancel && answer.stopReason === 'end_turn' && this.state.turnUpdates === 0) {
      this.emit({
        type: 'notice',
        kind: 'warning',
        message: `${this.context.label} ended this turn at once with no output right after a cancelled turn; its answer may arrive with the next prompt (an agent-side queue out of step).`,
        data: { quirk: 'empty_end_turn_after_cancel' },
      });
    }
    this.afterCancel = outcome.status === 'cancelled';
    const tokens = turnTokens(answer.usage) ?? quotaTokens(answer._meta);
    const usage: Usage | undefined = tokens ? { turn: tokens } : undefined;
    if (usage) this.emit({ type: 'usage.updated', ...usage }, native ? { native } : {});
    let structuredOutput: unknown;
    if (outcome.status === 'completed') {
      const providerError = this.state.providerError;
      if (providerError) {
        outcome = {
          status: 'failed',
          error: providerFailure(providerError, { reportedAs: 'message_text' }, this.state.current.model),
        };
      } else if (turn.outputSchema) {
        try {
          structuredOutput = acceptStructuredOutput(turn.outputSchema, { text: this.state.lastAgentText });
        } catch (error) {
          outcome = { status: 'failed', error: ReinsError.from(error, 'structured_output_invalid').toInfo() };
        }
      }
    }
    this.stream.completeTurn(
      {
        outcome,
        stopReason: answer.stopReason,
        ...(usage ? { usage } : {}),
        ...(structuredOutput !== undefined ? { structuredOutput } : {}),
      },
      native ? { native } : {},
    );
  }

  /** claude-agent-acp 0.23.1 off-by-one after cancel: a fresh native session drops the stale queue. */
  private async reopen(): Promise<void> {
    this.needsReopen = false;
    const id = this.native as string;
    const model = this.state.current.model;
    await this.connection.request('session/close', { sessionId: id });
    const setup = await this.connection.request<SessionSetupResponse | null>('session/resume', {
      sessionId: id,
      cwd: this.context.spec.cwd,
      mcpServers: this.mcpServers(),
    });
    this.takeSetup(setup ?? {});
    // The agent reverts to its default model on resume; put the session's model back.
    if (model && settingsFromConfigOptions(this.configOptions).model !== model) await this.applyModel(model);
  }

  private async promptBlocks(turn: QueuedTurn): Promise<ContentBlock[]> {
    const { spec } = this.context;
    let text = turn.input.text;
    if (this.firstTurn && spec.systemPrompt?.append) text = `${spec.systemPrompt.append}\n\n${text}`;
    this.firstTurn = false;
    if (turn.outputSchema) text = `${text}\n\n${structuredOutputInstruction(turn.outputSchema)}`;
    const blocks: ContentBlock[] = [{ type: 'text', text }];
    if (turn.input.images?.length) {
      if (this.agentCapabilities.promptCapabilities?.image !== true) {
        throw new ReinsError('unsupported_capability', `${this.context.label} does not accept images in a prompt.`, {
          harness: this.harness,
          operation: 'send',
          data: { capability: 'images' },
        });
      }
      for (const image of turn.input.images) {
        if (image.source === 'data' && image.data) {
          blocks.push({ type: 'image', data: image.data, mimeType: image.mediaType ?? 'image/png' });
        } else if (image.path) {
          const path = isAbsolute(image.path) ? image.path : resolve(spec.cwd, image.path);
          const data = (await readFile(path)).toString('base64');
          const mimeType = image.mediaType ?? IMAGE_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream';
          blocks.push({ type: 'image', data, mimeType, uri: `file://${path}` });
        } else {
          throw new ReinsError('invalid_input', 'An image needs inline data or a path.', {
            harness: this.harness,
            operation: 'send',
          });
        }
      }
    }
    for (const file of turn.input.files ?? []) {
      const path = isAbsolute(file.path) ? file.path : resolve(spec.cwd, file.path);
      const lines = file.lines ? `#L${file.lines.start}${file.lines.end ? `-${file.lines.end}` : ''}` : '';
      blocks.push({ type: 'resource_link', uri: `file://${path}${lines}`, name: basename(path) });
    }
    return blocks;
  }

  async interrupt(): Promise<void> {
    const turn = this.running;
    if (!turn || this.closed) return;
    this.cancelRequested = true;
    // ACP: the client answers pending permission requests with `cancelled` when it cancels.
    for (const [requestId, pending] of [...this.permissions]) {
      this.emit({ type: 'permission.resolved', requestId, decision: { behavior: 'deny' }, by: 'client' });
      pending.resolve({ outcome: { outcome: 'cancelled' } });
    }
    this.connection.notify('session/cancel', { sessionId: this.native });
    const deadline = this.context.requestTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([
      this.turnDone.then(() => false),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(true), deadline);
      }),
    ]);
    clearTimeout(timer);
    if (timedOut && this.stream.activeTurnId === turn.turnId) {
      // The agent never confirmed: end the turn here; its late answer is ignored (turn ids differ).
      this.emit({
        type: 'notice',
        kind: 'warning',
        message: `${this.context.label} did not confirm the cancel within ${deadline} ms; the turn was ended by Reins.`,
      });
      this.emitAll(endTurn(this.state), {});
      this.stream.completeTurn({ outcome: { status: 'cancelled' } });
    }
  }

  // ---- settings ----

  private option(category: string): SessionConfigOption | undefined {
    return this.configOptions.find((option) => option.category === category && option.type === 'select');
  }

  private visibleModels(): { value: string; name: string }[] {
    const option = this.option('model');
    const all = option
      ? optionValues(option)
      : (this.models?.availableModels ?? []).map((model) => ({
          value: model.modelId,
          name: model.name ?? model.modelId,
        }));
    const hide = this.context.quirks.hideModel;
    return hide ? all.filter((model) => !hide(model.value, this.context.env)) : all;
  }

  /** Models this session can switch to, as the agent listed them (minus the ones a quirk hides). */
  availableModels(): { id: string; displayName: string; isDefault: boolean }[] {
    const current = this.state.current.model;
    return this.visibleModels().map((model) => ({
      id: model.value,
      displayName: model.name,
      isDefault: model.value === current,
    }));
  }

  async setModel(model: string): Promise<SettingChange> {
    const listed = this.visibleModels();
    if (listed.length > 0 && !listed.some((entry) => entry.value === model)) {
      throw unsupportedModelError(
        model,
        `${this.context.label} offers ${listed.map((entry) => entry.value).join(', ')}`,
        {
          harness: this.harness,
          operation: 'setModel',
        },
      );
    }
    await this.applyModel(model);
    return { applied: 'live' };
  }

  private async applyModel(model: string): Promise<void> {
    const option = this.option('model');
    try {
      if (option) {
        const answer = await this.connection.request<{ configOptions?: SessionConfigOption[] } | null>(
          'session/set_config_option',
          {
            sessionId: this.native,
            configId: option.id,
            value: model,
          },
        );
        if (Array.isArray(answer?.configOptions)) this.configOptions = answer.configOptions;
        else
          this.configOptions = this.configOptions.map((entry) =>
            entry.id === option.id ? ({ ...entry, currentValue: model } as SessionConfigOption) : entry,
          );
      } else {
        // Not in the 2.4.0 schema, but Gemini 0.61.0, Qwen 0.24.4, Copilot 1.0.102 and claude-agent-acp 0.23.1 take it.
        await this.connection.request('session/set_model', { sessionId: this.native, modelId: model });
        if (this.models) this.models = { ...this.models, currentModelId: model };
      }
    } catch (error) {
      const reins = ReinsError.from(error, 'protocol_error', { harness: this.harness, operation: 'setModel' });
      if (reins.code === 'unsupported_capability') {
        throw new ReinsError(
          'unsupported_capability',
          `${this.context.label} cannot switch models in a live session.`,
          {
            harness: this.harness,
            operation: 'setModel',
            cause: reins,
          },
        );
      }
      if (reins.code === 'protocol_error')
        throw unsupportedModelError(model, reins.message, { harness: this.harness, operation: 'setModel' });
      throw reins;
    }
    this.state.current.model = model;
    this.emit({ type: 'session.updated', model });
  }

  async setEffort(effort: Effort): Promise<SettingChange> {
    const option = this.option('thought_level');
    if (!option) {
      throw new ReinsError(
        'unsupported_capability',
        `${this.context.label} offers no reasoning effort setting for this session.`,
        {
          harness: this.harness,
          operation: 'setEffort',
          data: { capability: 'liveEffortSwitch' },
        },
      );
    }
    const values = optionValues(option);
    const match = values.find((entry) => entry.value === effort || entry.name.toLowerCase() === effort);
    if (!match) {
      throw new ReinsError(
        'invalid_input',
        `${this.context.label} has no effort "${effort}"; it offers ${values.map((v) => v.value).join(', ')}.`,
        {
          harness: this.harness,
          operation: 'setEffort',
        },
      );
    }
    await this.setConfig(option, match.value, 'setEffort');
    this.state.current.effort = effort;
    this.emit({ type: 'session.updated', effort });
    return { applied: 'live' };
  }

  /** Selects one of the agent's modes (config option of category mode, else session/set_mode). */
  async setMode(modeId: string): Promise<SettingChange> {
    const option = this.option('mode');
    if (option) {
      const values = optionValues(option);
      if (!values.some((entry) => entry.value === modeId)) {
        throw new ReinsError(
          'invalid_input',
          `${this.context.label} has no mode "${modeId}"; it offers ${values.map((v) => v.value).join(', ')}.`,
          {
            harness: this.harness,
            operation: 'setMode',
          },
        );
      }
      await this.setConfig(option, modeId, 'setMode');
    } else if (this.modes) {
      if (!this.modes.availableModes.some((mode) => mode.id === modeId)) {
        throw new ReinsError(
          'invalid_input',
          `${this.context.label} has no mode "${modeId}"; it offers ${this.modes.availableModes.map((m) => m.id).join(', ')}.`,
          {
            harness: this.harness,
            operation: 'setMode',
          },
        );
      }
      await this.connection.request('session/set_mode', { sessionId: this.native, modeId });
      this.modes = { ...this.modes, currentModeId: modeId };
    } else {
      throw new ReinsError('unsupported_capability', `${this.context.label} offers no modes.`, {
        harness: this.harness,
        operation: 'setMode',
      });
    }
    this.state.current.mode = modeId;
    this.emit({ type: 'session.updated', mode: modeId });
    return { applied: 'live' };
  }

  private async setConfig(option: SessionConfigOption, value: string, operation: string): Promise<void> {
    const answer = await this.connection
      .request<{ configOptions?: SessionConfigOption[] } | null>('session/set_config_option', {
        sessionId: this.native,
        configId: option.id,
        value,
      })
      .catch((error: unknown) => {
        throw ReinsError.from(error, 'protocol_error', { harness: this.harness, operation });
      });
    if (Array.isArray(answer?.configOptions)) this.configOptions = answer.configOptions;
  }

  async respondToPermission(requestId: string, decision: PermissionDecision): Promise<void> {
    const pending = this.permissions.get(requestId);
    if (!pending) {
      throw new ReinsError(
        'invalid_input',
        `No permission request ${requestId} is waiting (it was answered, withdrawn or never asked).`,
        {
          harness: this.harness,
          operation: 'respondToPermission',
        },
      );
    }
    const optionId = pickPermissionOption(pending.options, decision);
    if (!optionId && decision.behavior === 'allow') {
      throw new ReinsError(
        'invalid_input',
        `The agent offered no option that allows this request; options: ${pending.options.map((o) => o.optionId).join(', ')}.`,
        {
          harness: this.harness,
          operation: 'respondToPermission',
        },
      );
    }
    this.emit({
      type: 'permission.resolved',
      requestId,
      decision: optionId ? { ...decision, optionId } : decision,
      by: 'client',
    });
    pending.resolve({ outcome: optionId ? { outcome: 'selected', optionId } : { outcome: 'cancelled' } });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const pending of this.permissions.values()) pending.resolve({ outcome: { outcome: 'cancelled' } });
    this.queue.length = 0;
    const connection = this.connection;
    if (this.native && !connection.ended) {
      if (this.running) connection.notify('session/cancel', { sessionId: this.native });
      if (this.agentCapabilities.sessionCapabilities?.close) {
        await connection
          .request(
            'session/close',
            { sessionId: this.native },
            { timeoutMs: Math.min(this.context.requestTimeoutMs, 5000) },
          )
          .catch(() => {});
      }
      connection.unregister(this.native);
    }
    this.stream.close('requested');
    await this.context.release();
  }
}
