// The Codex Harness: discovery, health, capabilities, the model catalog, the conversations Codex
// keeps (session list, history) and createSession. Each question Codex answers over the app-server
// runs on the shared (or a ready warm) app-server of the launch settings, starting the shared one when
// none runs (CodexRuntime.probe); sessions share one app-server per launch settings unless
// `shareProcess: false`, and `warm(n)` keeps n initialised ones ahead (hosts.ts).
import {
  type CapabilityMatrix,
  type Discovery,
  type Harness,
  type Health,
  type Item,
  type ModelInfo,
  ReinsError,
  type Session,
  type SessionSpec,
  type SessionSummary,
  toCodexStrictSchema,
} from '@reins/core';
import { acceptSessionSpec } from '../runtime/chassis/index.js';
import { failedProbeHealth } from '../runtime/discovery-health.js';
import { capabilitiesOfDiscovered } from '../runtime/evidence.js';
import type { HarnessOptions } from '../runtime/options.js';
import { DEFAULT_PERMISSION_TIMEOUT_MS } from './approvals.js';
import { CODEX_SIGN_IN_FIX, createCodexAuth } from './auth.js';
import { CODEX_IMPLEMENTED } from './capabilities.js';
import { CodexRuntime, HARNESS } from './connection.js';
import { CODEX_INSTALL } from './discovery.js';
import { readHistory } from './history.js';
import { WARM_REFILL_DELAY_MS } from './hosts.js';
import { instructionsFingerprint } from './instruction-files.js';
import { CodexSession } from './session.js';
import { lastSessionSource, type ThreadAheadSource, type ThreadSettings, type ThreadTemplate } from './thread-ahead.js';
import { assertCodexSpec, CODEX_SPEC_SUPPORT } from './thread-params.js';
import { modelInfoOf } from './translate.js';
import type { GetAccountResponse, ModelListResponse, ThreadListResponse } from './wire.js';

export interface CodexHarnessOptions extends HarnessOptions {
  /** How long a permission request waits for respondToPermission before it is declined (ms). */
  permissionTimeoutMs?: number;
  /** How long after turn/interrupt Codex has to end the turn before Reins ends it (ms). */
  interruptGraceMs?: number;
  /**
   * The settings of the sessions `warm(n)` prepares for: each warm app-server also opens a thread with
   * them (thread/start), which the next session whose spec asks for the same thread settings takes
   * instead of opening its own; a session that does not fit gets a `notice` (kind `info`, `data:
   * { warmThread: 'missed', reason }`). `'last-session'`: the settings of the last session started on
   * these launch settings (none before the first; a session that did not fit moves the next thread to
   * its own settings), what the daemon's `--warm codex=N` uses. See docs/architecture/contract.md,
   * "Warm starts and shared processes".
   */
  warmThread?: ThreadSettings | 'last-session';
}

const DISPLAY_NAME = 'Codex';

export function createCodexHarness(options: CodexHarnessOptions = {}): Harness {
  const runtime = new CodexRuntime(options);

  const discover = async (): Promise<Discovery> => {
    try {
      return { found: true, binary: await runtime.binary() };
    } catch (error) {
      const reins = ReinsError.from(error, 'binary_not_found', { harness: HARNESS });
      return {
        found: false,
        searched: options.binaryPath ? [options.binaryPath] : (runtime.env().PATH ?? '').split(':').filter(Boolean),
        hint: reins.message,
      };
    }
  };

  return {
    id: HARNESS,
    displayName: DISPLAY_NAME,
    discover,
    auth: createCodexAuth(runtime),

    async health(): Promise<Health> {
      const discovery = await discover();
      if (!discovery.found) return { status: 'not_installed', message: discovery.hint, fix: CODEX_INSTALL };
      const binary = discovery.binary;
      const unanswered = failedProbeHealth(binary);
      if (unanswered) return unanswered;
      try {
        // account/read says whether Codex needs an OpenAI login for its configured provider; Reins never
        // looks at credential files itself.
        const account = await runtime.probe(process.cwd(), (peer) =>
          peer.request<GetAccountResponse>('account/read', { refreshToken: false }),
        );
        if (account.requiresOpenaiAuth && account.account === null) {
          return {
            status: 'auth_required',
            binary,
            message: 'Codex needs an OpenAI login for its configured provider.',
            fix: CODEX_SIGN_IN_FIX,
          };
        }
        return { status: 'ready', binary };
      } catch (error) {
        const reins = ReinsError.from(error, 'harness_unhealthy', { harness: HARNESS });
        return {
          status: 'unhealthy',
          binary,
          message: reins.message,
          fix: 'Run `codex app-server --strict-config` by hand to see why it does not start.',
        };
      }
    },

    async capabilities(): Promise<CapabilityMatrix> {
      // Codex advertises no capability list of its own; `observed` comes from the evidence store,
      // for the binary discovery finds now (a new binary starts with nothing observed).
      return capabilitiesOfDiscovered(HARNESS, CODEX_IMPLEMENTED, await discover());
    },

    async models(): Promise<ModelInfo[]> {
      return runtime.probe(process.cwd(), async (peer) => {
        const models: ModelInfo[] = [];
        let cursor: string | null = null;
        do {
          const page: ModelListResponse = await peer.request<ModelListResponse>('model/list', cursor ? { cursor } : {});
          models.push(...page.data.map(modelInfoOf));
          cursor = page.nextCursor;
        } while (cursor);
        return models;
      });
    },

    async listSessions(listOptions: { cwd?: string }): Promise<SessionSummary[]> {
      return runtime.probe(listOptions.cwd ?? process.cwd(), async (peer) => {
        const response = await peer.request<ThreadListResponse>(
          'thread/list',
          listOptions.cwd ? { cwd: listOptions.cwd } : {},
        );
        return response.data.map((thread) => ({
          nativeSessionId: thread.id,
          cwd: thread.cwd,
          ...((thread.name ?? thread.preview) ? { title: thread.name ?? thread.preview } : {}),
          updatedAt: thread.updatedAt * 1000,
        }));
      });
    },

    async history(nativeSessionId: string, historyOptions: { cwd?: string } = {}): Promise<Item[]> {
      return runtime.probe(historyOptions.cwd ?? process.cwd(), (peer) => readHistory(peer, nativeSessionId));
    },

    warm: async (count) => runtime.warm(count, count > 0 ? threadAheadSource(options.warmThread, runtime) : undefined),

    async createSession(raw: SessionSpec): Promise<Session> {
      // Every refusal comes before a process starts: the spec, the cwd, the fields Codex cannot honour,
      // a session schema outside Codex's strict subset (then connect finds the binary, or says how to).
      const spec = acceptSessionSpec(raw, CODEX_SPEC_SUPPORT, { id: HARNESS, displayName: DISPLAY_NAME });
      assertCodexSpec(spec);
      if (spec.outputSchema) toCodexStrictSchema(spec.outputSchema);
      const session = new CodexSession(spec, {
        connect: runtime.lease,
        permissionTimeoutMs: options.permissionTimeoutMs ?? DEFAULT_PERMISSION_TIMEOUT_MS,
        ...(options.interruptGraceMs !== undefined ? { interruptGraceMs: options.interruptGraceMs } : {}),
      });
      await session.start();
      return session;
    },
  };
}

/** Where warm app-servers get the settings of their thread ahead: none, fixed, or the last session's. */
function threadAheadSource(
  warmThread: CodexHarnessOptions['warmThread'],
  runtime: CodexRuntime,
): ThreadAheadSource | undefined {
  if (warmThread === undefined) return undefined;
  if (warmThread === 'last-session')
    return lastSessionSource((settings) => threadTemplate(settings, () => runtime.env()));
  const fixed = threadTemplate(warmThread, () => runtime.env());
  return { current: () => fixed };
}

/** The thread a warm app-server opens ahead, checked like a session's spec (a bad one is refused at warm()). */
function threadTemplate(raw: ThreadSettings, env: () => Record<string, string>): ThreadTemplate {
  const spec = acceptSessionSpec(raw, CODEX_SPEC_SUPPORT, { id: HARNESS, displayName: DISPLAY_NAME });
  return {
    spec,
    fingerprint: () => instructionsFingerprint(spec.cwd, env()),
    refillDelayMs: WARM_REFILL_DELAY_MS,
  };
}

export { CODEX_IMPLEMENTED };
