// Claude Code warm starts (docs/architecture/contract.md, "Warm starts and shared processes"): spare
// `claude` processes started and initialised ahead with the Agent SDK's `prewarm()`, kept in a WarmPool
// per host-level launch settings, and bound to a session with `SpareProcess.claim()`.
//
// Facts of @anthropic-ai/claude-agent-sdk 0.3.333 (sdk.d.ts, sdk.mjs) and Claude Code 2.1.332:
// - prewarm() runs the same spawn path as query(): `pathToClaudeCodeExecutable` and
//   `spawnClaudeCodeProcess` are honoured, so a spare runs the discovered binary through Reins' own
//   process bridge (own process group, close ladder, counted in liveProcessCount, seen by the daemon's
//   tracker) like any session process. It adds `--await-claim <parking dir>` (under CLAUDE_CONFIG_DIR).
// - 2.1.197 has no --await-claim: prewarm() rejects there, so warm() is `unsupported_capability` on it
//   and its sessions start cold as before.
// - Fixed at prewarm (host level): the executable, its environment (all but three claimable keys),
//   extra arguments, partial messages, the system prompt preset, MCP servers, allowed tools, the
//   output schema (--json-schema), session persistence, canUseTool, resume/fork (prewarm refuses them)
//   and `sessionId`: 2.1.332 keeps the --session-id of the spare through the claim (claimed.sessionId
//   is it), so each spare gets a fresh id Reins picks and the session knows its native id at once.
// - Per session (the claim): cwd, permissionMode (part of the claim: a mode the spare cannot take
//   refuses it), model (a set_model after the claim; no probe request on 2.1.332), the effort as the
//   flag-settings overlay `effortLevel` (the request's output_config.effort, as --effort gives),
//   appendSystemPrompt, and env CLAUDE_CODE_OAUTH_TOKEN / CLAUDE_CODE_SESSION_ACCESS_TOKEN /
//   CLAUDE_CODE_HOST_SESSION_ID.
// - A refused claim (the folder's project settings set env/model, a dead spare, a refused overlay, a
//   model not applied) rejects `claimed`. The session's first message is held until `claimed`
//   resolves, so on a refusal nothing has run: the query falls back to a cold start (query.ts).
import { createHash, randomUUID } from 'node:crypto';
import { prewarm } from '@anthropic-ai/claude-agent-sdk';
import { type DiscoveredBinary, ReinsError, type SessionSpec } from '@reins/core';
import type { FrameTap } from '../runtime/child-process.js';
import { keyedEnvironment } from '../runtime/launch-environment.js';
import { WarmPools } from '../runtime/warm-pool.js';
import type { ClaudeCodeHarnessOptions } from './harness-options.js';
import { SdkProcessBridge } from './process-bridge.js';
import type { CanUseTool, PermissionResult, Query, SDKUserMessage } from './wire.js';

const HARNESS = 'claude-code';

/** The environment keys a claim may carry (SDK 0.3.333, ClaimOptions.env); any other is host level. */
export const CLAIMABLE_ENV = [
  'CLAUDE_CODE_OAUTH_TOKEN',
  'CLAUDE_CODE_SESSION_ACCESS_TOKEN',
  'CLAUDE_CODE_HOST_SESSION_ID',
] as const;

/** What a spare is started with: everything Claude Code binds at spawn. */
export interface HostLaunch {
  binary: DiscoveredBinary;
  /** The whole child environment (the SDK's env replaces the child's). */
  env: Record<string, string>;
  options: ClaudeCodeHarnessOptions;
}

/** The callbacks of the session that claims a spare (the spare's process was started before it). */
export interface SpareBinding {
  onGarbage(shown: unknown): void;
  onOversizeLine(bytes: number): void;
  /** The session's approvals in posture `ask`; absent in `bypass`. */
  canUseTool: CanUseTool | undefined;
}

/** The per-session half, as the claim takes it. */
export interface ClaimSettings {
  cwd: string;
  bypass: boolean;
  model: string | undefined;
  effort: string | undefined;
  appendSystemPrompt: string | undefined;
  env: Record<string, string>;
}

export interface ClaimedQuery {
  query: Query;
  /** The spare's process. */
  bridge: SdkProcessBridge | undefined;
  /** True once the claim (and its settings) were accepted; false when it was refused (nothing ran). */
  accepted: Promise<boolean>;
  /** Why the claim was refused, once `accepted` is false. */
  readonly refusal: unknown;
}

/**
 * Why a spec does not start on a spare, or undefined when it does. Each of these is host level in
 * SDK 0.3.333 (fixed at prewarm, or refused by it), so such a session starts cold as before.
 */
export function coldReason(
  spec: SessionSpec,
  sessionEnv: Record<string, string>,
  host: HostLaunch,
): string | undefined {
  if (spec.resume) return spec.resume.fork ? 'fork' : 'resume'; // prewarm() refuses resume/forkSession
  if (spec.outputSchema) return 'outputSchema'; // --json-schema is a spawn flag
  if (spec.mcpServers && spec.mcpServers.length > 0) return 'mcpServers'; // host-level MCP servers
  if (spec.allowedTools) return 'allowedTools'; // --allowedTools is a spawn flag
  if (spec.ephemeral) return 'ephemeral'; // --no-session-persistence is a spawn flag
  if (spec.posture === 'workspace') return 'posture'; // the sandbox settings are spawn settings
  // The environment: every key but the claimable ones must be what the spare was started with.
  if (hostEnvKey(sessionEnv) !== hostEnvKey(host.env)) return 'env';
  return undefined;
}

/** The claimable keys of the session's environment (the claim sends them; the spare may have others). */
export function claimEnv(sessionEnv: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of CLAIMABLE_ENV) if (sessionEnv[key] !== undefined) env[key] = sessionEnv[key];
  return env;
}

function hostEnvKey(env: Record<string, string>): string {
  return JSON.stringify(keyedEnvironment(env, new Set<string>(CLAIMABLE_ENV)));
}

const tapIds = new WeakMap<FrameTap, number>();
let nextTapId = 1;

/** A digest of the host-level launch settings (the environment is hashed, never kept as text). */
export function hostKey(host: HostLaunch): string {
  const { binary, options } = host;
  let tap = 0;
  if (options.tap) {
    tap = tapIds.get(options.tap) ?? nextTapId++;
    tapIds.set(options.tap, tap);
  }
  return createHash('sha256')
    .update(
      JSON.stringify([
        binary.path,
        binary.sha256,
        options.extraArgs ?? [],
        options.includePartialMessages ?? true,
        options.requestTimeoutMs ?? 60_000,
        tap,
        hostEnvKey(host.env),
      ]),
    )
    .digest('hex')
    .slice(0, 32);
}

/**
 * How long after a session claimed a spare its replacement starts (ms): a `claude` 2.1.332 spare
 * takes 390-520 ms of CPU to start and park, which the claiming session's first message (its
 * ~130-170 ms of CLI work before the model request) competes with on a 2-core machine
 * (runtime/warm-pool.ts).
 */
const SPARE_REFILL_DELAY_MS = 1_000;

/** The deny a spare's canUseTool gives when no session in posture `ask` holds it. */
const NO_APPROVER: PermissionResult = {
  behavior: 'deny',
  message: 'This session has no approval channel (posture bypass).',
};

/** One parked `claude` process, prewarmed with the host-level options; single use. */
export class ClaudeSpare {
  /** The native session id the spare runs under (its --session-id). */
  readonly sessionId = randomUUID();
  private binding: SpareBinding | undefined;
  private bridge: SdkProcessBridge | undefined;
  private spare: Awaited<ReturnType<typeof prewarm>> | undefined;
  private closed = false;

  private constructor(private readonly host: HostLaunch) {}

  /** Starts a spare and resolves once it answered initialize in its parking directory. */
  static async start(host: HostLaunch): Promise<ClaudeSpare> {
    const made = new ClaudeSpare(host);
    await made.prewarm();
    return made;
  }

  /** The spare's process (its bridge), for tests and the exit description. */
  get processBridge(): SdkProcessBridge | undefined {
    return this.bridge;
  }

  /** Settles when the spare's process exited, claimed or not. */
  get exited(): Promise<void> {
    return this.spare?.exited ?? Promise.resolve();
  }

  /** Discards an unclaimed spare (or ends a claimed one): the SDK's close, then the process ladder. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.spare?.close();
    await this.bridge?.process.close({ stdinGraceMs: 500, termGraceMs: 1000 });
  }

  /**
   * Binds the spare to a session. `prompt` is the session's input; it is read only once the claim
   * was accepted, so a refused claim has run nothing and the caller starts the session cold.
   */
  claim(prompt: AsyncIterable<SDKUserMessage>, settings: ClaimSettings, binding: SpareBinding): ClaimedQuery {
    const spare = this.spare;
    if (!spare || this.closed) throw new Error('This spare Claude Code process was already used.');
    this.binding = binding;
    let refusal: unknown;
    const accepted = spare.claimed.then(
      () => true,
      (error: unknown) => {
        refusal = error;
        return false;
      },
    );
    const query = spare.claim({
      prompt: afterClaim(accepted, prompt),
      options: {
        cwd: settings.cwd,
        permissionMode: settings.bypass ? 'bypassPermissions' : 'default',
        ...(settings.model ? { model: settings.model } : {}),
        ...(settings.effort ? { settings: { effortLevel: settings.effort as 'low' } } : {}),
        ...(settings.appendSystemPrompt !== undefined ? { appendSystemPrompt: settings.appendSystemPrompt } : {}),
        ...(Object.keys(settings.env).length > 0 ? { env: settings.env } : {}),
      },
    });
    return {
      query,
      bridge: this.bridge,
      accepted: accepted.then(async (ok) => {
        if (!ok) await this.close();
        return ok;
      }),
      get refusal() {
        return refusal;
      },
    };
  }

  private async prewarm(): Promise<void> {
    const { binary, env, options } = this.host;
    const extraArgs = options.extraArgs ?? [];
    try {
      // Host level only; each key matches what query.ts's sdkOptions gives a cold session.
      this.spare = await prewarm({
        initializeTimeoutMs: options.requestTimeoutMs ?? 60_000,
        options: {
          pathToClaudeCodeExecutable: binary.path,
          env,
          includePartialMessages: options.includePartialMessages ?? true,
          forwardSubagentText: true,
          systemPrompt: { type: 'preset', preset: 'claude_code' },
          // Both postures can claim: bypass needs the flag at spawn, ask needs the prompt tool
          // (canUseTool registered at spawn); the claim's permissionMode picks one.
          allowDangerouslySkipPermissions: true,
          canUseTool: (toolName, input, context) =>
            this.binding?.canUseTool?.(toolName, input, context) ?? Promise.resolve(NO_APPROVER),
          mcpServersDelivery: 'argv',
          sessionId: this.sessionId,
          spawnClaudeCodeProcess: (spawnOptions) => {
            const bridge = new SdkProcessBridge(
              { ...spawnOptions, args: [...spawnOptions.args, ...extraArgs] },
              {
                label: 'claude (stream-json, warm)',
                ...(options.tap ? { tap: options.tap } : {}),
                onGarbage: (shown) => this.binding?.onGarbage(shown),
                onFault: (fault) => {
                  if (fault.kind === 'oversize_line') this.binding?.onOversizeLine(fault.bytes);
                },
              },
            );
            this.bridge = bridge;
            return bridge;
          },
        },
      });
    } catch (error) {
      const exit = this.bridge?.process.describeExit();
      await this.bridge?.process.close({ stdinGraceMs: 200, termGraceMs: 500 });
      throw spareFailure(error, exit, binary);
    }
  }
}

/** The prompt, held until the claim settled: nothing is sent on a refused claim. */
async function* afterClaim<T>(accepted: Promise<boolean>, prompt: AsyncIterable<T>): AsyncGenerator<T> {
  if (!(await accepted)) return;
  yield* prompt;
}

/** Why a spare did not start, as a ReinsError. */
function spareFailure(error: unknown, exit: string | undefined, binary: DiscoveredBinary): ReinsError {
  const text = `${error instanceof Error ? error.message : String(error)} ${exit ?? ''}`;
  if (/await-claim/.test(text)) {
    return new ReinsError(
      'unsupported_capability',
      `Claude Code ${binary.version ?? binary.path} has no warm starts (it does not know --await-claim); ` +
        'its sessions start cold. Update Claude Code (2.1.332 has them) to use warm processes.',
      { harness: HARNESS, operation: 'warm', data: { field: 'warm' }, cause: error },
    );
  }
  return new ReinsError('harness_unhealthy', `A warm Claude Code process did not start: ${exit ?? text.trim()}`, {
    harness: HARNESS,
    operation: 'warm',
    cause: error,
  });
}

/**
 * The spare pools of this Reins process, one per host key. Process-wide like Codex's hosts: the daemon
 * builds a Harness per call, and the one that warmed must feed the one that creates the session.
 */
export class ClaudeSpares {
  private readonly pools = new WarmPools<ClaudeSpare>();

  /** Keeps `count` spares of these host settings ready; 0 stops the ready ones and forgets the pool. */
  async warm(host: HostLaunch, count: number): Promise<void> {
    if (!Number.isInteger(count) || count < 0) {
      throw new ReinsError('invalid_input', `warm needs a whole number of processes (0 or more), got ${count}.`, {
        harness: HARNESS,
        operation: 'warm',
      });
    }
    await this.pools.warm(
      hostKey(host),
      () => ({
        start: () => ClaudeSpare.start(host),
        stop: (spare) => spare.close(),
        ended: (spare) => spare.exited,
        refillDelayMs: SPARE_REFILL_DELAY_MS,
      }),
      count,
    );
  }

  /** A ready spare of these host settings (now the caller's), or undefined; the pool replaces it. */
  take(host: HostLaunch): ClaudeSpare | undefined {
    if (this.pools.size === 0) return undefined;
    return this.pools.take(hostKey(host));
  }

  /** Spares of these host settings ready now. */
  readyCount(host: HostLaunch): number {
    return this.pools.readyCount(hostKey(host));
  }
}

/** The one registry of this Reins process. */
export const claudeSpares = new ClaudeSpares();

/**
 * A spare taken for one session: its id is the session's native id from the start, and the session's
 * first launch claims it (later launches, restarts for a launch-time setting, start cold).
 */
export class WarmStart {
  readonly sessionId: string;
  private spare: ClaudeSpare | undefined;

  constructor(spare: ClaudeSpare) {
    this.spare = spare;
    this.sessionId = spare.sessionId;
  }

  /** The spare, once, for a launch of a new conversation under its id; else undefined. */
  take(conversation: object, schema: unknown): ClaudeSpare | undefined {
    const spare = this.spare;
    this.spare = undefined;
    const fits = schema === undefined && (conversation as { sessionId?: unknown }).sessionId === this.sessionId;
    if (spare && !('resume' in conversation) && fits) return spare;
    if (spare) void spare.close();
    return undefined;
  }
}

/** A spare for a session whose spec fits a claim (coldReason), when one is ready; else undefined. */
export function warmStartFor(
  spec: SessionSpec,
  sessionEnv: Record<string, string>,
  host: HostLaunch,
): WarmStart | undefined {
  if (coldReason(spec, sessionEnv, host) !== undefined) return undefined;
  const spare = claudeSpares.take(host);
  return spare ? new WarmStart(spare) : undefined;
}
