// The Claude Code harness: discovery of the user's own `claude` binary, health from `claude auth
// status`, the model list from the CLI's initialize answer, transcripts on disk, and sessions
// (session.ts) on the Agent SDK's streaming-input `query()` (query.ts), always on the discovered
// binary, never the SDK's bundled CLI; warm starts on spares prewarmed ahead (warm.ts).
import { query } from '@anthropic-ai/claude-agent-sdk';
import {
  assertValidSchema,
  type DiscoveredBinary,
  type Discovery,
  type Harness,
  type Health,
  type ModelInfo,
  ReinsError,
  type Session,
  type SessionSpec,
  withDeadline,
} from '@reins/core';
import { acceptSessionSpec, HarnessBinary, type SpecSupport } from '../runtime/chassis/index.js';
import { failedProbeHealth } from '../runtime/discovery-health.js';
import { capabilitiesOfDiscovered, mergeEnv, overrideVariable } from '../runtime/index.js';
import { claudeAuthStatus, createClaudeAuth } from './auth.js';
import { claudeCodeImplemented } from './capabilities.js';
import { claudeBinarySpec } from './discovery.js';
import type { ClaudeCodeHarnessOptions } from './harness-options.js';
import { InputChannel } from './input-channel.js';
import { assertWorkspaceSandbox } from './posture.js';
import { SdkProcessBridge } from './process-bridge.js';
import { claudeEffort, HARNESS } from './query.js';
import { ClaudeCodeSession } from './session.js';
import { listTranscripts, readHistory } from './transcripts.js';
import { claudeSpares, type HostLaunch, warmStartFor } from './warm.js';
import type { SDKUserMessage } from './wire.js';

export type { ClaudeCodeHarnessOptions };

/**
 * Every SessionSpec field, honoured (docs/architecture/contract.md, "Harness and session"): model and
 * effort at launch (effort also by restart), resume by --resume, fork by --resume --fork-session
 * (conversation.ts), posture bypass, ask (canUseTool) or workspace (posture.ts), ephemeral as persistSession false,
 * allowedTools, systemPrompt as the preset's append, MCP servers.
 */
export const CLAUDE_SPEC_SUPPORT: SpecSupport = {
  model: true,
  effort: true,
  resume: true,
  fork: true,
  postures: ['bypass', 'ask', 'workspace'],
  ephemeral: true,
  allowedTools: true,
  systemPrompt: true,
  mcpServers: true,
};

export function createClaudeCodeHarness(options: ClaudeCodeHarnessOptions = {}): Harness {
  const baseEnv = options.baseEnv ?? process.env;
  // Kept while its file is unchanged: an upgrade in place is found at the next session (harness-binary.ts).
  const claudeBinary = new HarnessBinary(claudeBinarySpec, options, 'npm install -g @anthropic-ai/claude-code');
  const requestTimeoutMs = options.requestTimeoutMs ?? 60_000;

  function locate(): Promise<DiscoveredBinary> {
    return claudeBinary.resolve();
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

  /** What a spare of this harness is started with (warm.ts): the binary and the user's environment. */
  const host = async (): Promise<HostLaunch> => ({
    binary: await locate(),
    env: mergeEnv(baseEnv, undefined),
    options,
  });

  const authContext = { locate, baseEnv, requestTimeoutMs };
  const authStatus = (binary: DiscoveredBinary) => claudeAuthStatus(authContext, binary);

  return {
    id: HARNESS,
    displayName: 'Claude Code',
    discover,
    auth: createClaudeAuth(authContext),

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
      return capabilitiesOfDiscovered('claude-code', claudeCodeImplemented, await discover());
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
        const models = await withDeadline(probe.supportedModels(), requestTimeoutMs, 'Claude Code supportedModels', {
          harness: HARNESS,
        });
        // No defaultEffort: neither the CLI's initialize answer (2.1.332) nor the Agent SDK's ModelInfo
        // (0.3.332) names a model's default effort, and Reins does not guess one.
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

    /** Keeps `count` spare Claude Code processes prewarmed (warm.ts); sessions that fit a claim take one. */
    async warm(count: number): Promise<void> {
      await claudeSpares.warm(await host(), count);
    },

    async createSession(raw: SessionSpec): Promise<Session> {
      const spec = acceptSessionSpec(raw, CLAUDE_SPEC_SUPPORT, { id: HARNESS, displayName: 'Claude Code' });
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
      assertWorkspaceSandbox(spec, env);
      const binary = await locate();
      const warm = warmStartFor(spec, env, await host());
      const session = new ClaudeCodeSession({ spec, binary, env, options, ...(warm ? { warm } : {}) });
      await session.open();
      return session;
    },
  };
}

export { claudeCodeImplemented };
