// A thread opened ahead on a warm app-server (docs/architecture/contract.md, "Warm starts and shared processes"), pure:
// whether a session's spec fits the thread a warm app-server opened with `CodexHarnessOptions.warmThread`
// (thread/start fixes cwd, model, posture, developer instructions, MCP servers and ephemeral; effort
// goes on the first turn/start, so it never stands in the way), the notice a session that could not
// take it gets, so the caller can read why it started its thread itself, and, with `warmThread:
// 'last-session'`, the settings of the last session started, which the next threads ahead are opened with.
import type { EventPayload, SessionSpec } from '@reins/core';
import type { ThreadAheadMiss } from './peer.js';
import { threadStartParams } from './thread-params.js';

/** What a warm app-server opens its thread ahead with; `fingerprint` reads the files Codex reads then. */
export interface ThreadTemplate {
  readonly spec: SessionSpec;
  fingerprint(): Promise<string>;
  /** How long after a session took the thread the host opens the next one (ms). */
  readonly refillDelayMs: number;
}

/**
 * Where a warm app-server's threads ahead get their settings: a fixed template, or (`learn`) the last
 * session's, so a daemon's next session in the same project starts on an open thread.
 */
export interface ThreadAheadSource {
  /** The template a new warm app-server opens its thread with; undefined: none yet. */
  current(): ThreadTemplate | undefined;
  /** Remembers a session's settings as the next threads' (and returns their template); absent: fixed. */
  learn?(spec: SessionSpec): ThreadTemplate | undefined;
}

/** The thread settings of a spec: what thread/start fixes (CodexHarnessOptions.warmThread's fields). */
export type ThreadSettings = Pick<
  SessionSpec,
  'cwd' | 'model' | 'posture' | 'systemPrompt' | 'mcpServers' | 'ephemeral'
>;

export function threadSettingsOf(spec: SessionSpec): ThreadSettings {
  const { cwd, model, posture, systemPrompt, mcpServers, ephemeral } = spec;
  return {
    cwd,
    ...(model !== undefined ? { model } : {}),
    ...(posture !== undefined ? { posture } : {}),
    ...(systemPrompt !== undefined ? { systemPrompt } : {}),
    ...(mcpServers !== undefined ? { mcpServers } : {}),
    ...(ephemeral !== undefined ? { ephemeral } : {}),
  };
}

/** The threads ahead follow the last session started (any Harness of the launch settings, as the pool does). */
export function lastSessionSource(make: (settings: ThreadSettings) => ThreadTemplate): ThreadAheadSource {
  let last: ThreadTemplate | undefined;
  return {
    current: () => last,
    learn(spec) {
      const settings = threadSettingsOf(spec);
      // The same settings keep their template (one fingerprint function, no churn per session).
      if (!last || threadAheadMisfit(settings as SessionSpec, last.spec) !== undefined) {
        try {
          last = make(settings);
        } catch {
          return last; // a spec the template refuses (it was accepted once): keep the previous one
        }
      }
      return last;
    },
  };
}

/** Which spec field each thread/start parameter comes from (thread-params.ts). */
const FIELD_OF_PARAM: Record<string, ThreadAheadMiss> = {
  cwd: 'cwd',
  model: 'model',
  approvalPolicy: 'posture',
  sandbox: 'posture',
  developerInstructions: 'systemPrompt',
  config: 'mcpServers', // mcp_servers, and the posture's network switch (the posture is compared first)
  ephemeral: 'ephemeral',
};

/** The first spec field in which `spec` asks for another thread than `ahead` was opened with; undefined: it fits. */
export function threadAheadMisfit(spec: SessionSpec, ahead: SessionSpec): ThreadAheadMiss | undefined {
  if (spec.resume) return spec.resume.fork === true ? 'fork' : 'resume';
  const wanted = threadStartParams(spec) as Record<string, unknown>;
  const opened = threadStartParams(ahead) as Record<string, unknown>;
  // In thread/start's own order (cwd, posture, model, ...): the posture is met before `config`, which carries it too.
  for (const param of new Set([...Object.keys(wanted), ...Object.keys(opened)])) {
    if (JSON.stringify(wanted[param]) !== JSON.stringify(opened[param])) return FIELD_OF_PARAM[param] ?? 'settings';
  }
  return undefined;
}

const MISS_TEXT: Record<ThreadAheadMiss, string> = {
  resume: 'the session resumes a conversation',
  fork: 'the session forks a conversation',
  cwd: 'its cwd differs from the warm thread’s',
  model: 'its model differs from the warm thread’s',
  posture: 'its posture differs from the warm thread’s',
  systemPrompt: 'its systemPrompt differs from the warm thread’s',
  mcpServers: 'its MCP servers differ from the warm thread’s',
  ephemeral: 'its ephemeral setting differs from the warm thread’s',
  settings: 'its thread settings differ from the warm thread’s',
  taken: 'another session took it and the next one is not open yet',
  instructions_changed: 'a file Codex reads when a thread starts (AGENTS.md, config, skills) changed since',
  thread_start_failed: 'the warm thread could not be opened',
};

/** The notice of a session that started its own thread although one was opened ahead. */
export function threadAheadMissNotice(reason: ThreadAheadMiss): EventPayload & { type: 'notice' } {
  return {
    type: 'notice',
    kind: 'info',
    message: `Codex warm start: this session opened its own thread (thread/start) instead of the one opened ahead: ${MISS_TEXT[reason]}.`,
    data: { warmThread: 'missed', reason },
  };
}
