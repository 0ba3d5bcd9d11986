// One streaming-input Agent SDK `query()` and the `claude` process under it: how it is launched
// (always the discovered binary, never the SDK's bundled CLI; the SDK's env replaces the child's, so
// the whole merged environment goes in), how a turn's message reaches it, how it is read, and how it
// is retired. The session replaces it to apply launch-time settings (effort, output schema).
import { readFile } from 'node:fs/promises';
import { query } from '@anthropic-ai/claude-agent-sdk';
import {
  type DiscoveredBinary,
  type Effort,
  type ErrorInfo,
  type JsonSchema,
  ReinsError,
  type SessionSpec,
  type TurnInput,
  withDeadline,
} from '@reins/core';
import { imageTypeOfPath } from '../runtime/image-types.js';
import type { ConversationLaunch } from './conversation.js';
import type { ClaudeCodeHarnessOptions } from './harness-options.js';
import { InputChannel } from './input-channel.js';
import { postureOptions } from './posture.js';
import { SdkProcessBridge } from './process-bridge.js';
import { type ClaimedQuery, claimEnv, type WarmStart } from './warm.js';
import type { CanUseTool, Query, SDKMessage, SDKUserMessage, SdkMcpServerStatus, SdkOptions } from './wire.js';

export const HARNESS = 'claude-code';

export const CLAUDE_EFFORTS = ['low', 'medium', 'high', 'xhigh', 'max'] as const;
export type ClaudeEffort = (typeof CLAUDE_EFFORTS)[number];

/** A Reins effort as Claude Code's, else `invalid_input` naming the ones it has. */
export function claudeEffort(effort: Effort): ClaudeEffort {
  if ((CLAUDE_EFFORTS as readonly string[]).includes(effort)) return effort as ClaudeEffort;
  throw new ReinsError(
    'invalid_input',
    `Claude Code has no "${effort}" effort; use one of ${CLAUDE_EFFORTS.join(', ')}.`,
    { harness: HARNESS, operation: 'effort', data: { effort } },
  );
}

/**
 * Why the first launch failed, as the error `createSession` throws. 2.1.197 checks --resume before
 * answering initialize: it prints a result frame (`early`) and stderr "No conversation found with
 * session ID: ..." and exits 1; a fork of an unknown conversation fails the same way.
 */
export function launchFailure(
  spec: SessionSpec,
  why: { early: ErrorInfo | undefined; exit: string | undefined; cause: unknown },
): ReinsError {
  const { early, exit, cause } = why;
  const source = spec.resume?.nativeSessionId;
  const said = spec.resume ? /No conversation found[^\n]*/i.exec(exit ?? '')?.[0].trim() : undefined;
  if (early?.code === 'resume_failed' || said) {
    const verb = spec.resume?.fork === true ? 'fork' : 'resume';
    return new ReinsError(
      'resume_failed',
      early?.message ?? `Claude Code has no conversation ${source} to ${verb} in ${spec.cwd} (it said: ${said}).`,
      { harness: HARNESS, operation: verb, data: { nativeSessionId: source }, cause },
    );
  }
  return new ReinsError(
    ReinsError.isInstance(cause) && cause.code === 'timeout' ? 'timeout' : 'harness_unhealthy',
    `Claude Code did not start: ${exit ?? (cause instanceof Error ? cause.message : String(cause))}`,
    { harness: HARNESS, operation: 'initialize', cause },
  );
}

/** Everything a launch needs that does not change while the session lives. */
export interface LaunchContext {
  spec: SessionSpec;
  binary: DiscoveredBinary;
  env: Record<string, string>;
  options: ClaudeCodeHarnessOptions;
  /** Present in posture `ask`: the approvals' callback. */
  canUseTool: CanUseTool | undefined;
  /** A prewarmed spare the first launch claims (warm.ts); absent: every launch is cold. */
  warm?: WarmStart;
}

/** What this launch applies: the settings the CLI takes only at launch, and which conversation. */
export interface LaunchSettings {
  model: string | undefined;
  effort: ClaudeEffort | undefined;
  schema: JsonSchema | undefined;
  conversation: ConversationLaunch;
}

export interface QueryHooks {
  /** One SDK message (a native frame); must not throw. */
  onMessage(message: SDKMessage): void;
  /** A stdout line that is not JSON (the SDK never sees it). */
  onGarbage(shown: unknown): void;
  /** A stdout line over Reins' limit was skipped whole (its size in bytes). */
  onOversizeLine(bytes: number): void;
  /** The query ended on its own (not retired): the CLI went away. */
  onEnded(query: ClaudeQuery, failure: unknown): void;
}

/** The user message for a turn: text, @-mentions for file references, images inline as base64. */
export async function userMessage(input: TurnInput): Promise<SDKUserMessage> {
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
      mediaType ??= imageTypeOfPath(image.path);
    }
    if (!data || !mediaType) {
      throw new ReinsError('invalid_input', 'An image needs its data (or a readable path) and a media type.', {
        harness: HARNESS,
        operation: 'send',
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

function sdkOptions(
  context: LaunchContext,
  settings: LaunchSettings,
  onSpawn: (bridge: SdkProcessBridge) => void,
  hooks: QueryHooks,
): SdkOptions {
  const { spec, binary, env, options } = context;
  const extraArgs = options.extraArgs ?? [];
  return {
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
    ...postureOptions(spec, context.canUseTool),
    persistSession: spec.ephemeral !== true,
    // 2.1.197 predates initialize-delivered MCP servers (2.1.261): keep them on the command line.
    mcpServersDelivery: 'argv',
    ...(settings.model ? { model: settings.model } : {}),
    ...(settings.effort ? { effort: settings.effort } : {}),
    ...(settings.schema ? { outputFormat: { type: 'json_schema', schema: settings.schema } } : {}),
    ...(spec.allowedTools ? { allowedTools: spec.allowedTools } : {}),
    ...(spec.mcpServers ? { mcpServers: mcpServers(spec.mcpServers) } : {}),
    ...settings.conversation,
    spawnClaudeCodeProcess: (spawnOptions) => {
      const bridge = new SdkProcessBridge(
        { ...spawnOptions, args: [...spawnOptions.args, ...extraArgs] },
        {
          label: 'claude (stream-json)',
          ...(options.tap ? { tap: options.tap } : {}),
          onGarbage: hooks.onGarbage,
          onFault: (fault) => {
            if (fault.kind === 'oversize_line') hooks.onOversizeLine(fault.bytes);
          },
        },
      );
      onSpawn(bridge);
      return bridge;
    },
  };
}

function mcpServers(servers: NonNullable<SessionSpec['mcpServers']>): SdkOptions['mcpServers'] {
  return Object.fromEntries(
    servers.map((server) => [
      server.name,
      server.transport === 'stdio'
        ? {
            type: 'stdio' as const,
            command: server.command,
            ...(server.args ? { args: server.args } : {}),
            ...(server.env ? { env: server.env } : {}),
          }
        : { type: server.transport, url: server.url, ...(server.headers ? { headers: server.headers } : {}) },
    ]),
  );
}

/** One running `query()` and its process; the session replaces it on restart. */
export class ClaudeQuery {
  readonly settings: LaunchSettings;
  private readonly channel = new InputChannel<SDKUserMessage>();
  private sdk: Query;
  private bridge: SdkProcessBridge | undefined;
  private readonly loop: Promise<void>;
  /** Settles when the query runs: at once when cold, once a spare's claim was answered when warm. */
  private readonly started: Promise<void> = Promise.resolve();
  /** A spare's claim was accepted: the claim's answer is its initialize (warm.ts). */
  private claimed = false;
  /** Set when the session ends this query itself (restart, close): its end is not a crash. */
  private retiring = false;

  constructor(
    context: LaunchContext,
    settings: LaunchSettings,
    private readonly hooks: QueryHooks,
  ) {
    this.settings = settings;
    const cold = () =>
      query({
        prompt: this.channel,
        options: sdkOptions(context, settings, (bridge) => (this.bridge = bridge), hooks),
      });
    const claimed = claimSpare(context, settings, this.channel, hooks);
    if (!claimed) {
      this.sdk = cold();
      this.loop = this.read();
      return;
    }
    // Warm: the spare's query, read once its claim was accepted; a refused claim ran nothing, so the
    // session starts cold in its place (same id, same settings), never a failed session.
    this.sdk = claimed.query;
    this.bridge = claimed.bridge;
    this.started = claimed.accepted.then((accepted) => {
      this.claimed = accepted;
      if (!accepted && !this.retiring) this.sdk = cold();
    });
    this.loop = this.started.then(() => this.read());
  }

  get isRetiring(): boolean {
    return this.retiring;
  }

  /** The CLI's exit status, once it exited. */
  get exitStatus() {
    return this.bridge?.process.exitStatus;
  }

  /** Waits until the CLI answered `initialize`. */
  initialized(timeoutMs: number): Promise<unknown> {
    // A claimed spare answered initialize in its parking folder and then the claim. SDK 0.3.333 sends
    // one more initialize after the claim; the first message does not need its answer, so a warm
    // session does not wait for it (seen holding createSession ~15 ms on 2.1.332).
    const answered = this.started.then(() => (this.claimed ? undefined : this.sdk.initializationResult()));
    return withDeadline(answered, timeoutMs, 'Claude Code initialize', {
      harness: HARNESS,
      operation: 'initialize',
    });
  }

  /** Hands a turn's message to the CLI; false when the query is gone. */
  push(message: SDKUserMessage): boolean {
    return !this.retiring && this.channel.push(message);
  }

  async interrupt(timeoutMs: number): Promise<{ still_queued?: string[] } | undefined> {
    return withDeadline(this.sdk.interrupt(), timeoutMs, 'Claude Code interrupt', {
      harness: HARNESS,
      operation: 'interrupt',
    });
  }

  setModel(model: string, timeoutMs: number): Promise<void> {
    return withDeadline(this.sdk.setModel(model), timeoutMs, 'Claude Code set_model', {
      harness: HARNESS,
      operation: 'setModel',
    });
  }

  /** Claude Code's own report of its MCP servers (the SDK's `mcpServerStatus()` control request). */
  mcpServerStatus(timeoutMs: number): Promise<SdkMcpServerStatus[]> {
    return withDeadline(this.sdk.mcpServerStatus(), timeoutMs, 'Claude Code mcp_status', {
      harness: HARNESS,
      operation: 'mcpStatus',
    });
  }

  /** What the CLI's exit said (stderr tail, code, signal), waiting a little for it to exit. */
  async describeExit(): Promise<string | undefined> {
    const bridge = this.bridge;
    if (!bridge) return undefined;
    await Promise.race([bridge.process.exited, new Promise((resolve) => setTimeout(resolve, 2000))]);
    return bridge.process.describeExit();
  }

  /** Ends this query and its process (stdin end, SIGTERM, SIGKILL); its end is not reported. */
  async retire(): Promise<void> {
    this.retiring = true;
    this.channel.end();
    this.sdk.close();
    await this.bridge?.process.close();
    await Promise.race([this.loop, new Promise((resolve) => setTimeout(resolve, 5000))]);
  }

  private async read(): Promise<void> {
    let failure: unknown;
    try {
      for await (const message of this.sdk) this.hooks.onMessage(message);
    } catch (error) {
      failure = error;
    }
    if (this.retiring) return;
    this.hooks.onEnded(this, failure);
  }
}

/**
 * The first launch of a session with a warm start: its spare claimed with the session's settings, or
 * undefined (no spare, a launch that is no new conversation, a spare that died after it was taken).
 */
function claimSpare(
  context: LaunchContext,
  settings: LaunchSettings,
  prompt: AsyncIterable<SDKUserMessage>,
  hooks: QueryHooks,
): ClaimedQuery | undefined {
  const spare = context.warm?.take(settings.conversation, settings.schema);
  if (!spare) return undefined;
  const { spec } = context;
  try {
    return spare.claim(
      prompt,
      {
        cwd: spec.cwd,
        bypass: spec.posture !== 'ask',
        model: settings.model,
        effort: settings.effort,
        appendSystemPrompt: spec.systemPrompt?.append,
        env: claimEnv(context.env),
      },
      { onGarbage: hooks.onGarbage, onOversizeLine: hooks.onOversizeLine, canUseTool: context.canUseTool },
    );
  } catch {
    void spare.close(); // it exited after it was taken: the caller starts cold
    return undefined;
  }
}
