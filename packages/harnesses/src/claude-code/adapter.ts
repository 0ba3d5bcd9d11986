// The Claude Code adapter: one long-lived streaming-input Agent SDK `query()` per session, always on
// the discovered `claude` binary (never the SDK's bundled CLI), spawned through HarnessProcess.
// Reins turns are sequential: a follow-up sent while a turn runs waits in Reins' own queue and is
// written to the CLI when the running turn's `result` arrived (Claude has no mid-turn steer).
// Settings the CLI takes only at launch (effort, output schema) are applied by drain, close and
// resume of the same conversation inside the adapter.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { query } from '@anthropic-ai/claude-agent-sdk';
import {
  acceptStructuredOutput,
  assertValidSchema,
  type DiscoveredBinary,
  type Discovery,
  type Effort,
  type EmitMeta,
  type ErrorInfo,
  type Harness,
  type Health,
  type ImplementedCapabilities,
  type JsonSchema,
  type ModelInfo,
  type PayloadOf,
  type PermissionDecision,
  type PermissionOption,
  ReinsError,
  type ReinsEvent,
  type SendOptions,
  SendOptionsSchema,
  type SendResult,
  type Session,
  SessionEventStream,
  type SessionSpec,
  SessionSpecSchema,
  type SettingChange,
  type TurnInput,
  TurnInputSchema,
} from '@reins/core';
import { defaultClassifyTool, type TranslationState } from '../protocols/stream-json/index.js';
import { failedProbeHealth } from '../runtime/discovery-health.js';
import {
  capabilitiesFor,
  fingerprintBinary,
  type HarnessOptions,
  HarnessProcess,
  locateBinary,
  mergeEnv,
  overrideVariable,
} from '../runtime/index.js';
import { claudeBinarySpec } from './discovery.js';
import { InputChannel } from './input-channel.js';
import { SdkProcessBridge } from './process-bridge.js';
import { listTranscripts, readHistory } from './transcripts.js';
import { CLAUDE_SOURCE, createClaudeTranslation, translateFrame } from './translate.js';
import type { PermissionResult, Query, SDKMessage, SDKUserMessage, SdkOptions } from './wire.js';

const HARNESS = 'claude-code';
const SOURCE = CLAUDE_SOURCE;

export interface ClaudeCodeHarnessOptions extends HarnessOptions {
  /** How long a permission request waits for `respondToPermission` before it is denied (default 10 min). */
  permissionTimeoutMs?: number;
  /** Stream text/reasoning/tool-input deltas (default true). */
  includePartialMessages?: boolean;
}

export const claudeCodeImplemented: ImplementedCapabilities = {
  resume: true,
  interrupt: true,
  queue: true,
  liveModelSwitch: true,
  liveEffortSwitch: 'restart',
  tokenDeltas: true,
  reasoningDeltas: true,
  images: 'inline',
  structuredOutput: 'native',
  usage: true,
  cost: true,
  contextWindow: true,
  approvals: true,
  sessionList: true,
  history: true,
  compaction: true,
  subagents: true,
};

const CLAUDE_EFFORTS = ['low', 'medium', 'high', 'xhigh', 'max'] as const;
type ClaudeEffort = (typeof CLAUDE_EFFORTS)[number];

function claudeEffort(effort: Effort): ClaudeEffort {
  if ((CLAUDE_EFFORTS as readonly string[]).includes(effort)) return effort as ClaudeEffort;
  throw new ReinsError(
    'invalid_input',
    `Claude Code has no "${effort}" effort; use one of ${CLAUDE_EFFORTS.join(', ')}.`,
    { harness: HARNESS, operation: 'effort', data: { effort } },
  );
}

async function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(new ReinsError('timeout', `Claude Code did not answer ${what} within ${ms} ms.`, { harness: HARNESS })),
      ms,
    );
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

const IMAGE_TYPES: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
};

/** The user message for a turn: text, @-mentions for file references, images inline as base64. */
async function userMessage(input: TurnInput): Promise<SDKUserMessage> {
  const mentions = (input.files ?? []).map((file) => {
    const range = file.lines ? `#L${file.lines.start}${file.lines.end ? `-${file.lines.end}` : ''}` : '';
    return `@${file.path}${range}`;
  });
  const text = [input.text, ...mentions].join(mentions.length > 0 ? '\n' : '');
  if (!input.images || input.images.length === 0) {
    return { type: 'user', message: { role: 'user', content: text }, parent_tool_use_id: null };
  }
  const blocks: Array<Record<string, unknown>> = [{ type: 'text', text }];
  for (const image of input.images) {
    let data = image.data;
    let mediaType = image.mediaType;
    if (image.source === 'path') {
      if (!image.path) throw new ReinsError('invalid_input', 'An image with source "path" needs a path.');
      data = (await readFile(image.path)).toString('base64');
      mediaType ??= IMAGE_TYPES[extname(image.path).toLowerCase()];
    }
    if (!data || !mediaType) {
      throw new ReinsError('invalid_input', 'An image needs its data (or a readable path) and a media type.', {
        harness: HARNESS,
      });
    }
    blocks.push({ type: 'image', source: { type: 'base64', media_type: mediaType, data } });
  }
  return {
    type: 'user',
    message: { role: 'user', content: blocks as unknown as SDKUserMessage['message']['content'] },
    parent_tool_use_id: null,
  };
}

interface PendingTurn {
  turnId: string;
  input: TurnInput;
  schema: JsonSchema | undefined;
}

interface PendingPermission {
  settle: (decision: PermissionDecision, by: 'client' | 'timeout' | 'harness') => void;
}

/** One running `query()` and its process; replaced on restart. */
interface ActiveQuery {
  query: Query;
  channel: InputChannel<SDKUserMessage>;
  bridge: SdkProcessBridge | undefined;
  loop: Promise<void>;
  /** Set when the adapter ends this query itself (restart, close): its end is not a crash. */
  retiring: boolean;
  effort: ClaudeEffort | undefined;
  schema: JsonSchema | undefined;
}

interface SessionContext {
  spec: SessionSpec;
  binary: DiscoveredBinary;
  env: Record<string, string>;
  options: ClaudeCodeHarnessOptions;
}

class ClaudeCodeSession implements Session {
  readonly id = `cc_${randomUUID()}`;
  readonly harness = HARNESS;
  readonly stream: SessionEventStream;
  private readonly context: SessionContext;
  private readonly translation: TranslationState = createClaudeTranslation();
  private readonly requestTimeoutMs: number;
  private active: ActiveQuery | undefined;
  private native: string;
  /** True once the CLI has a transcript to resume from (a resumed session, or after a turn). */
  private persisted: boolean;
  private model: string | undefined;
  private effort: ClaudeEffort | undefined;
  private readonly pending: PendingTurn[] = [];
  private current: PendingTurn | undefined;
  private pumping: Promise<void> | undefined;
  private turnCounter = 0;
  private permissionCounter = 0;
  private readonly permissions = new Map<string, PendingPermission>();
  private closing = false;
  /** The failure a `result` frame reported before any turn (e.g. an unknown --resume id). */
  private earlyFailure: ErrorInfo | undefined;

  constructor(context: SessionContext) {
    this.context = context;
    this.requestTimeoutMs = context.options.requestTimeoutMs ?? 60_000;
    this.stream = new SessionEventStream({ harness: HARNESS, sessionId: this.id });
    this.native = context.spec.resume?.nativeSessionId ?? randomUUID();
    this.persisted = context.spec.resume !== undefined;
    this.model = context.spec.model;
    this.effort = context.spec.effort ? claudeEffort(context.spec.effort) : undefined;
  }

  get events(): AsyncIterable<ReinsEvent> {
    return this.stream.events;
  }

  get nativeSessionId(): string | undefined {
    return this.native;
  }

  /** Starts the first query and waits until the CLI answered `initialize`. */
  async open(): Promise<void> {
    const { spec, binary } = this.context;
    this.stream.emit({
      type: 'session.started',
      cwd: spec.cwd,
      binaryPath: binary.path,
      ...(binary.version ? { harnessVersion: binary.version } : {}),
      ...(spec.model ? { model: spec.model } : {}),
    });
    // The id is fixed up front (--session-id) for a new conversation; a resume keeps its own.
    this.translation.facts.nativeSessionId = this.native;
    this.stream.emit({
      type: 'session.updated',
      nativeSessionId: this.native,
      ...(this.effort ? { effort: this.effort } : {}),
    });
    const active = this.startQuery(spec.outputSchema);
    try {
      await withDeadline(active.query.initializationResult(), this.requestTimeoutMs, 'initialize');
    } catch (cause) {
      const exit = active.bridge ? await this.describeExit(active.bridge) : undefined;
      await this.retire(active);
      const early = this.earlyFailure;
      this.stream.close('error', early);
      // 2.1.197 checks --resume before answering initialize: it prints a result frame and stderr
      // "No conversation found with session ID: ..." and exits 1.
      if (early?.code === 'resume_failed' || (spec.resume && /No conversation found/i.test(exit ?? ''))) {
        throw new ReinsError(
          'resume_failed',
          early?.message ?? `Claude Code has no conversation ${spec.resume?.nativeSessionId} to resume in ${spec.cwd}.`,
          { harness: HARNESS, operation: 'resume', data: { nativeSessionId: spec.resume?.nativeSessionId }, cause },
        );
      }
      throw new ReinsError(
        ReinsError.isInstance(cause) && cause.code === 'timeout' ? 'timeout' : 'harness_unhealthy',
        `Claude Code did not start: ${exit ?? (cause instanceof Error ? cause.message : String(cause))}`,
        { harness: HARNESS, operation: 'initialize', cause },
      );
    }
  }

  private sdkOptions(schema: JsonSchema | undefined, active: ActiveQuery): SdkOptions {
    const { spec, binary, env, options } = this.context;
    const ask = spec.posture === 'ask';
    const extraArgs = options.extraArgs ?? [];
    const sdkOptions: SdkOptions = {
      // The discovered binary, always: the SDK's bundled CLI is not installed and must never run.
      pathToClaudeCodeExecutable: binary.path,
      cwd: spec.cwd,
      // The SDK's env REPLACES the child's environment: pass the whole merged environment.
      env,
      includePartialMessages: options.includePartialMessages ?? true,
      // Subagent text and thinking too, with parent_tool_use_id, so clients can render subagent lanes.
      forwardSubagentText: true,
      // A coding session gets Claude Code's own system prompt (the SDK default is an empty one).
      systemPrompt: {
        type: 'preset',
        preset: 'claude_code',
        ...(spec.systemPrompt ? { append: spec.systemPrompt.append } : {}),
      },
      permissionMode: ask ? 'default' : 'bypassPermissions',
      ...(ask ? { canUseTool: this.canUseTool } : { allowDangerouslySkipPermissions: true }),
      persistSession: spec.ephemeral !== true,
      // 2.1.197 predates initialize-delivered MCP servers (2.1.261): keep them on the command line.
      mcpServersDelivery: 'argv',
      ...(this.model ? { model: this.model } : {}),
      ...(this.effort ? { effort: this.effort } : {}),
      ...(schema ? { outputFormat: { type: 'json_schema', schema } } : {}),
      ...(spec.allowedTools ? { allowedTools: spec.allowedTools } : {}),
      ...(spec.mcpServers
        ? {
            mcpServers: Object.fromEntries(
              spec.mcpServers.map((server) => [
                server.name,
                server.transport === 'stdio'
                  ? {
                      type: 'stdio' as const,
                      command: server.command,
                      ...(server.args ? { args: server.args } : {}),
                      ...(server.env ? { env: server.env } : {}),
                    }
                  : {
                      type: server.transport,
                      url: server.url,
                      ...(server.headers ? { headers: server.headers } : {}),
                    },
              ]),
            ),
          }
        : {}),
      ...(this.persisted ? { resume: this.native } : { sessionId: this.native }),
      spawnClaudeCodeProcess: (spawnOptions) => {
        const bridge = new SdkProcessBridge(
          { ...spawnOptions, args: [...spawnOptions.args, ...extraArgs] },
          {
            label: 'claude (stream-json)',
            ...(options.tap ? { tap: options.tap } : {}),
            onGarbage: (line) =>
              this.stream.emit({ type: 'passthrough', frame: line }, { native: { source: SOURCE, frame: line } }),
          },
        );
        active.bridge = bridge;
        return bridge;
      },
    };
    return sdkOptions;
  }

  private startQuery(schema: JsonSchema | undefined): ActiveQuery {
    const channel = new InputChannel<SDKUserMessage>();
    const active: ActiveQuery = {
      query: undefined as unknown as Query,
      channel,
      bridge: undefined,
      loop: Promise.resolve(),
      retiring: false,
      effort: this.effort,
      schema,
    };
    this.active = active;
    active.query = query({ prompt: channel, options: this.sdkOptions(schema, active) });
    active.loop = this.readLoop(active);
    return active;
  }

  private async readLoop(active: ActiveQuery): Promise<void> {
    let failure: unknown;
    try {
      for await (const message of active.query) this.onFrame(message);
    } catch (error) {
      failure = error;
    }
    if (active.retiring || this.stream.isClosed) return;
    // The CLI went away on its own: the session cannot go on.
    const detail = active.bridge
      ? await this.describeExit(active.bridge)
      : failure instanceof Error
        ? failure.message
        : 'the Agent SDK query ended';
    const error: ErrorInfo = {
      code: 'process_exited',
      message: `Claude Code ended unexpectedly: ${detail}`,
      ...(active.bridge?.process.exitStatus ? { data: { ...active.bridge.process.exitStatus } } : {}),
    };
    this.active = undefined;
    this.denyAllPermissions('harness');
    await active.bridge?.process.close();
    this.stream.close('process_exited', error);
  }

  private async describeExit(bridge: SdkProcessBridge): Promise<string> {
    await Promise.race([bridge.process.exited, new Promise((resolve) => setTimeout(resolve, 2000))]);
    return bridge.process.describeExit();
  }

  private onFrame(message: SDKMessage): void {
    const at = Date.now();
    const frame = message as unknown as { type: string; subtype?: string };
    const native = {
      source: SOURCE,
      method: frame.subtype ? `${frame.type}/${frame.subtype}` : frame.type,
      frame: message,
    };
    for (const emission of translateFrame(this.translation, message)) {
      const meta: EmitMeta = {
        native,
        at,
        ...(emission.parentItemId !== undefined ? { parentItemId: emission.parentItemId } : {}),
      };
      const payload = emission.payload;
      if (payload.type === 'turn.completed') {
        this.finishTurn(payload, meta);
        continue;
      }
      if (payload.type === 'session.updated' && payload.nativeSessionId) this.native = payload.nativeSessionId;
      this.stream.emit(payload, meta);
    }
  }

  private finishTurn(payload: PayloadOf<'turn.completed'>, meta: EmitMeta): void {
    const turn = this.current;
    if (!turn) {
      // A result with no Reins turn (a launch failure, or the CLI ran something on its own): keep it visible.
      if (payload.outcome.status === 'failed') this.earlyFailure = payload.outcome.error;
      this.stream.emit({ type: 'passthrough', frame: meta.native?.frame }, meta);
      return;
    }
    let completion: Omit<PayloadOf<'turn.completed'>, 'type'> = { ...payload };
    delete (completion as { type?: string }).type;
    if (turn.schema && payload.outcome.status === 'completed') {
      try {
        const value = acceptStructuredOutput(
          turn.schema,
          payload.structuredOutput === undefined ? undefined : { value: payload.structuredOutput },
        );
        completion = { ...completion, structuredOutput: value };
      } catch (error) {
        const info = ReinsError.from(error, 'structured_output_invalid', { harness: HARNESS }).toInfo();
        const { structuredOutput: _dropped, ...rest } = completion;
        completion = { ...rest, outcome: { status: 'failed', error: info } };
      }
    }
    this.stream.completeTurn(completion, meta);
    this.stream.emit({ type: 'session.status', status: 'idle' });
    this.current = undefined;
    if (this.context.spec.ephemeral !== true) this.persisted = true;
    void this.pump();
  }

  /** Starts the next queued turn when none runs, restarting the query first when a launch-time setting changed. */
  private pump(): Promise<void> {
    if (this.pumping) return this.pumping;
    const run = (async () => {
      // Yield first, so `this.pumping` is set before the body can finish and clear it.
      await null;
      try {
        while (!this.current && !this.closing && this.pending.length > 0) {
          const next = this.pending[0] as PendingTurn;
          await this.ensureQuery(next.schema);
          this.pending.shift();
          await this.beginTurn(next);
        }
      } finally {
        this.pumping = undefined;
      }
    })();
    this.pumping = run;
    return run;
  }

  private async ensureQuery(schema: JsonSchema | undefined): Promise<void> {
    const active = this.active;
    if (!active) {
      throw new ReinsError('process_exited', 'The Claude Code process of this session is gone; open a new session.', {
        harness: HARNESS,
      });
    }
    const sameSchema = JSON.stringify(active.schema) === JSON.stringify(schema);
    if (sameSchema && active.effort === this.effort) return;
    await this.restart(schema);
  }

  /** Drain is the caller's job (no turn runs); this closes the query and resumes the same conversation. */
  private async restart(schema: JsonSchema | undefined): Promise<void> {
    if (this.context.spec.ephemeral && this.persisted) {
      throw new ReinsError(
        'unsupported_capability',
        'Claude Code takes effort and output schema only at launch, and an ephemeral session cannot be resumed ' +
          'after its first turn to change them: open a new session with the settings you need.',
        { harness: HARNESS, operation: 'restart' },
      );
    }
    const old = this.active;
    if (old) await this.retire(old);
    if (!this.persisted) {
      // Nothing was said yet: a fresh id avoids "session id already in use" for an unwritten transcript.
      this.native = randomUUID();
      this.translation.facts.nativeSessionId = this.native;
      this.stream.emit({ type: 'session.updated', nativeSessionId: this.native });
    }
    const active = this.startQuery(schema);
    await withDeadline(active.query.initializationResult(), this.requestTimeoutMs, 'initialize');
  }

  private async retire(active: ActiveQuery): Promise<void> {
    active.retiring = true;
    if (this.active === active) this.active = undefined;
    active.channel.end();
    active.query.close();
    await active.bridge?.process.close();
    await Promise.race([active.loop, new Promise((resolve) => setTimeout(resolve, 5000))]);
  }

  private async beginTurn(turn: PendingTurn): Promise<void> {
    const active = this.active;
    if (!active) return;
    const message = await userMessage(turn.input);
    const turnId = this.stream.startTurn(turn.input, { turnId: turn.turnId });
    if (turnId === undefined) return;
    this.current = turn;
    this.stream.emit({
      type: 'item.started',
      item: { kind: 'user_message', id: `${turnId}:input`, status: 'running', text: turn.input.text },
    });
    this.stream.emit({
      type: 'item.completed',
      item: {
        kind: 'user_message',
        id: `${turnId}:input`,
        status: 'completed',
        text: turn.input.text,
        ...(turn.input.images ? { images: turn.input.images } : {}),
      },
    });
    this.stream.emit({ type: 'session.status', status: 'running' });
    active.channel.push(message);
  }

  async send(input: TurnInput | string, options: SendOptions = {}): Promise<SendResult> {
    if (this.closing || this.stream.isClosed) {
      throw new ReinsError('invalid_input', 'This session is closed; open a new one (or resume it).', {
        harness: HARNESS,
        operation: 'send',
      });
    }
    const parsedInput = TurnInputSchema.safeParse(typeof input === 'string' ? { text: input } : input);
    const parsedOptions = SendOptionsSchema.safeParse(options);
    if (!parsedInput.success || !parsedOptions.success) {
      throw new ReinsError('invalid_input', 'send() takes text (or { text, images?, files? }) and valid options.', {
        harness: HARNESS,
        operation: 'send',
      });
    }
    if (parsedOptions.data.mode === 'steer' && parsedOptions.data.steerFallback === 'fail') {
      throw new ReinsError(
        'unsupported_capability',
        'Claude Code cannot add input to a running turn (no steer); send with mode "queue" to run it next.',
        { harness: HARNESS, operation: 'send', data: { capability: 'steer' } },
      );
    }
    const schema = parsedOptions.data.outputSchema ?? this.context.spec.outputSchema;
    if (schema) assertValidSchema(schema);
    if (!this.active) {
      throw new ReinsError('process_exited', 'The Claude Code process of this session is gone; open a new session.', {
        harness: HARNESS,
      });
    }
    const turnId = `turn_${++this.turnCounter}`;
    const busy = this.current !== undefined || this.pending.length > 0 || this.pumping !== undefined;
    this.pending.push({ turnId, input: parsedInput.data, schema });
    if (busy) {
      void this.pump().catch((error: unknown) => this.failQueued(error));
      return { turnId, delivery: 'queued' };
    }
    try {
      await this.pump();
    } catch (error) {
      this.failQueued(error);
      throw ReinsError.from(error, 'harness_unhealthy', { harness: HARNESS, operation: 'send' });
    }
    return { turnId, delivery: 'started' };
  }

  /** A restart failed before queued turns could start: they end failed, with the reason. */
  private failQueued(error: unknown): void {
    const info = ReinsError.from(error, 'harness_unhealthy', { harness: HARNESS }).toInfo();
    for (const turn of this.pending.splice(0)) {
      if (this.stream.startTurn(turn.input, { turnId: turn.turnId }) !== undefined) {
        this.stream.completeTurn({ outcome: { status: 'failed', error: info } });
      }
    }
  }

  async interrupt(): Promise<void> {
    const active = this.active;
    if (!this.current || !active) return;
    this.translation.interruptRequested = true;
    this.denyAllPermissions('harness');
    await withDeadline(active.query.interrupt(), this.requestTimeoutMs, 'interrupt');
  }

  async setModel(model: string): Promise<SettingChange> {
    if (typeof model !== 'string' || model.trim() === '') {
      throw new ReinsError('invalid_input', 'setModel needs a model name.', { harness: HARNESS });
    }
    const active = this.active;
    if (!active) {
      throw new ReinsError('process_exited', 'The Claude Code process of this session is gone.', { harness: HARNESS });
    }
    // 2.1.197 accepts any name here; a model the provider does not know fails the next turn with
    // model_not_found, which the translation maps to unsupported_model.
    await withDeadline(active.query.setModel(model), this.requestTimeoutMs, 'set_model');
    this.model = model;
    this.stream.emit({ type: 'session.updated', model });
    return { applied: 'live' };
  }

  async setEffort(effort: Effort): Promise<SettingChange> {
    const next = claudeEffort(effort);
    this.effort = next;
    this.stream.emit({ type: 'session.updated', effort: next });
    // Idle: restart now. Busy: pump() restarts between turns (drain, close, resume).
    if (!this.current && this.pending.length === 0 && !this.pumping && this.active && this.active.effort !== next) {
      await this.restart(this.active.schema);
    }
    return { applied: 'restart' };
  }

  async respondToPermission(requestId: string, decision: PermissionDecision): Promise<void> {
    const pending = this.permissions.get(requestId);
    if (!pending) {
      throw new ReinsError(
        'invalid_input',
        `No open permission request "${requestId}" (already answered or expired).`,
        {
          harness: HARNESS,
          operation: 'respondToPermission',
        },
      );
    }
    pending.settle(decision, 'client');
  }

  private readonly canUseTool = (
    toolName: string,
    input: Record<string, unknown>,
    context: { signal: AbortSignal; toolUseID: string; suggestions?: unknown[] },
  ): Promise<PermissionResult> => {
    const requestId = `perm_${++this.permissionCounter}`;
    const kind = defaultClassifyTool(toolName);
    const options: PermissionOption[] = [
      { id: 'allow_once', kind: 'allow_once', label: 'Allow once' },
      ...(context.suggestions && context.suggestions.length > 0
        ? [{ id: 'allow_always', kind: 'allow_always' as const, label: 'Allow for this session' }]
        : []),
      { id: 'reject_once', kind: 'reject_once', label: 'Deny' },
    ];
    this.stream.emit({
      type: 'permission.requested',
      requestId,
      tool: { kind: kind === 'plan' ? 'other' : kind, name: toolName },
      input,
      itemId: context.toolUseID,
      options,
    });
    this.stream.emit({ type: 'session.status', status: 'requires_action' });
    const timeoutMs = this.context.options.permissionTimeoutMs ?? 600_000;
    return new Promise<PermissionResult>((resolve) => {
      const timer = setTimeout(
        () => settle({ behavior: 'deny', message: 'No answer to the permission request in time.' }, 'timeout'),
        timeoutMs,
      );
      const onAbort = () => settle({ behavior: 'deny', message: 'The turn was interrupted.' }, 'harness');
      const settle = (decision: PermissionDecision, by: 'client' | 'timeout' | 'harness') => {
        if (!this.permissions.has(requestId)) return;
        this.permissions.delete(requestId);
        clearTimeout(timer);
        context.signal.removeEventListener('abort', onAbort);
        const behavior =
          decision.optionId === 'reject_once'
            ? 'deny'
            : decision.optionId === 'allow_once' || decision.optionId === 'allow_always'
              ? 'allow'
              : decision.behavior;
        const always = decision.optionId === 'allow_always' || decision.scope === 'session';
        const final: PermissionDecision = { ...decision, behavior };
        if (!this.stream.isClosed) {
          this.stream.emit({ type: 'permission.resolved', requestId, decision: final, by });
          if (this.current) this.stream.emit({ type: 'session.status', status: 'running' });
        }
        if (behavior === 'allow') {
          resolve({
            behavior: 'allow',
            updatedInput: input,
            ...(always && context.suggestions ? { updatedPermissions: context.suggestions as never } : {}),
          });
        } else {
          this.translation.declined.add(context.toolUseID);
          resolve({ behavior: 'deny', message: decision.message ?? 'The user denied this tool call.' });
        }
      };
      context.signal.addEventListener('abort', onAbort, { once: true });
      this.permissions.set(requestId, { settle });
    });
  };

  private denyAllPermissions(by: 'client' | 'timeout' | 'harness'): void {
    for (const pending of [...this.permissions.values()]) {
      pending.settle({ behavior: 'deny', message: 'The turn was stopped.' }, by);
    }
  }

  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    this.pending.length = 0;
    this.denyAllPermissions('harness');
    const active = this.active;
    if (active) await this.retire(active);
    this.stream.close('requested');
  }
}

export function createClaudeCodeHarness(options: ClaudeCodeHarnessOptions = {}): Harness {
  const baseEnv = options.baseEnv ?? process.env;
  let discovered: Promise<DiscoveredBinary> | undefined;
  const requestTimeoutMs = options.requestTimeoutMs ?? 60_000;

  function locate(): Promise<DiscoveredBinary> {
    discovered ??= (
      options.binaryPath
        ? fingerprintBinary(options.binaryPath, claudeBinarySpec, 'explicit', baseEnv)
        : locateBinary(claudeBinarySpec, baseEnv)
    ).catch((error: unknown) => {
      discovered = undefined;
      throw error;
    });
    return discovered;
  }

  async function discover(): Promise<Discovery> {
    try {
      return { found: true, binary: await locate() };
    } catch (error) {
      if (ReinsError.isInstance(error) && error.code === 'binary_not_found') {
        return {
          found: false,
          searched: options.binaryPath ? [options.binaryPath] : (baseEnv.PATH ?? '').split(':').filter(Boolean),
          hint: `Install Claude Code (npm install -g @anthropic-ai/claude-code) or set ${overrideVariable(HARNESS)}.`,
        };
      }
      throw error;
    }
  }

  /** `claude auth status` prints JSON and reads only local state (no request, 2.1.197). */
  async function authStatus(binary: DiscoveredBinary): Promise<{ loggedIn?: boolean; authMethod?: string }> {
    const child = await HarnessProcess.start({
      command: binary.path,
      args: ['auth', 'status'],
      cwd: process.cwd(),
      env: mergeEnv(baseEnv, undefined),
      label: 'claude auth status',
      harness: HARNESS,
    });
    const lines: string[] = [];
    child.onLine((line) => lines.push(line));
    try {
      await withDeadline(child.exited, requestTimeoutMs, 'auth status');
      await Promise.race([child.outputEnded, new Promise((resolve) => setTimeout(resolve, 500))]);
    } finally {
      await child.close();
    }
    const text = lines.join('\n');
    const start = text.indexOf('{');
    if (start === -1)
      throw new ReinsError('protocol_error', `claude auth status printed no JSON: ${text.slice(0, 200)}`);
    return JSON.parse(text.slice(start)) as { loggedIn?: boolean; authMethod?: string };
  }

  return {
    id: HARNESS,
    displayName: 'Claude Code',
    discover,

    async health(): Promise<Health> {
      const found = await discover();
      if (!found.found) return { status: 'not_installed', message: 'Claude Code is not installed.', fix: found.hint };
      const unanswered = failedProbeHealth(found.binary);
      if (unanswered) return unanswered;
      try {
        const status = await authStatus(found.binary);
        if (status.loggedIn) {
          return {
            status: 'ready',
            binary: found.binary,
            ...(status.authMethod ? { authMethods: [status.authMethod] } : {}),
          };
        }
        return {
          status: 'auth_required',
          binary: found.binary,
          message: 'Claude Code is not logged in.',
          fix: 'Run `claude` and use /login, or set ANTHROPIC_API_KEY.',
        };
      } catch (error) {
        return {
          status: 'unhealthy',
          binary: found.binary,
          message: `claude auth status failed: ${error instanceof Error ? error.message : String(error)}`,
          fix: 'Run `claude auth status` yourself to see what is wrong.',
        };
      }
    },

    async capabilities() {
      const found = await discover();
      return capabilitiesFor({
        harness: 'claude-code',
        implemented: claudeCodeImplemented,
        ...(found.found ? { binary: found.binary } : {}),
      });
    },

    async models(): Promise<ModelInfo[]> {
      const binary = await locate();
      // supportedModels() is answered from the CLI's initialize response: no model request is made.
      const channel = new InputChannel<SDKUserMessage>();
      let bridge: SdkProcessBridge | undefined;
      const probe = query({
        prompt: channel,
        options: {
          pathToClaudeCodeExecutable: binary.path,
          env: mergeEnv(baseEnv, undefined),
          persistSession: false,
          spawnClaudeCodeProcess: (spawnOptions) => {
            bridge = new SdkProcessBridge(spawnOptions, { label: 'claude (models)', onGarbage: () => {} });
            return bridge;
          },
        },
      });
      try {
        const models = await withDeadline(probe.supportedModels(), requestTimeoutMs, 'supportedModels');
        return models.map((model) => ({
          id: model.value,
          displayName: model.displayName,
          ...(model.value === 'default' ? { isDefault: true } : {}),
          ...(model.supportedEffortLevels ? { efforts: [...model.supportedEffortLevels] } : {}),
        }));
      } finally {
        channel.end();
        probe.close();
        await bridge?.process.close();
      }
    },

    async listSessions({ cwd }: { cwd?: string }) {
      return listTranscripts(baseEnv, cwd ?? process.cwd());
    },

    async history(nativeSessionId: string, historyOptions?: { cwd?: string }) {
      const items = await readHistory(baseEnv, historyOptions?.cwd ?? process.cwd(), nativeSessionId);
      if (!items) {
        throw new ReinsError(
          'resume_failed',
          `No Claude Code transcript for session ${nativeSessionId} in that folder.`,
          {
            harness: HARNESS,
            operation: 'history',
          },
        );
      }
      return items;
    },

    async createSession(spec: SessionSpec): Promise<Session> {
      const parsed = SessionSpecSchema.safeParse(spec);
      if (!parsed.success) {
        throw new ReinsError(
          'invalid_input',
          `Invalid session spec: ${parsed.error.issues[0]?.message ?? 'bad value'}`,
          {
            harness: HARNESS,
            operation: 'createSession',
          },
        );
      }
      const env = mergeEnv(baseEnv, spec.env);
      const posture = spec.posture ?? 'bypass';
      // Claude Code refuses bypassPermissions as root unless IS_SANDBOX=1 (it exits at launch, which
      // the SDK would only report as a closed query): say so up front.
      if (posture === 'bypass' && process.getuid?.() === 0 && !env.IS_SANDBOX) {
        throw new ReinsError(
          'harness_unhealthy',
          'Claude Code refuses to bypass permissions when run as root unless IS_SANDBOX=1 is set. ' +
            'Set IS_SANDBOX=1 in the session spec env (only inside a sandbox), or use posture "ask".',
          { harness: HARNESS, operation: 'createSession', data: { fix: 'IS_SANDBOX=1' } },
        );
      }
      if (spec.effort) claudeEffort(spec.effort);
      if (spec.outputSchema) assertValidSchema(spec.outputSchema);
      const binary = await locate();
      const session = new ClaudeCodeSession({ spec: parsed.data, binary, env, options });
      await session.open();
      return session;
    },
  };
}
