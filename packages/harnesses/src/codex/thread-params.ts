// What a Reins session spec and a turn's input become on Codex's wire (pure: no process, no I/O):
// which SessionSpec fields Codex honours and how (thread/start, thread/resume), the posture as an
// approval policy and sandbox, MCP servers as config overrides, and a turn input as UserInput parts.
import { ReinsError, type SessionSpec, type TurnInput } from '@reins/core';
import type { SpecSupport } from '../runtime/chassis/index.js';
import { HARNESS } from './peer.js';
import type {
  AskForApproval,
  JsonValue,
  SandboxMode,
  ThreadForkParams,
  ThreadResumeParams,
  ThreadStartParams,
  UserInput,
} from './wire.js';

/**
 * What Codex honours of the session spec (docs/architecture/contract.md, "Harness and session"):
 * model, sandbox/approval posture, developer instructions, MCP servers and `ephemeral` go on
 * thread/start (thread/resume takes all but `ephemeral`); effort goes on the first turn/start.
 * `allowedTools` is refused: Codex 0.169.0 and 0.171.0 offer no list of allowed tools on the
 * app-server wire (thread/start `config` only switches single tools such as web_search, and MCP
 * servers' own enabled_tools), so Reins cannot restrict the built-in shell or apply_patch.
 */
export const CODEX_SPEC_SUPPORT: SpecSupport = {
  model: true,
  effort: true,
  resume: true,
  postures: ['bypass', 'ask', 'workspace'],
  ephemeral: true,
  allowedTools: false,
  systemPrompt: true,
  mcpServers: true,
  fork: true,
};

type ThreadOverrides = Pick<
  ThreadStartParams & ThreadResumeParams,
  'cwd' | 'approvalPolicy' | 'sandbox' | 'model' | 'developerInstructions' | 'config'
>;

/**
 * The one combination Codex cannot honour although each field alone is fine: thread/resume has no
 * `ephemeral` (0.171.0), and a resumed conversation is persisted already.
 */
export function assertCodexSpec(spec: SessionSpec): void {
  if (spec.ephemeral && spec.resume) {
    throw new ReinsError(
      'unsupported_capability',
      'Codex cannot make a resumed conversation ephemeral (spec.ephemeral with spec.resume); leave one of them out.',
      { harness: HARNESS, operation: 'createSession', data: { field: 'ephemeral' } },
    );
  }
}

/** The spec fields Codex honours on thread/start and thread/resume alike. */
export function threadOverrides(spec: SessionSpec): ThreadOverrides {
  const { approvalPolicy, sandbox } = postureParams(spec);
  return {
    cwd: spec.cwd,
    approvalPolicy,
    sandbox,
    ...(spec.model ? { model: spec.model } : {}),
    ...(spec.systemPrompt ? { developerInstructions: spec.systemPrompt.append } : {}),
    ...threadConfig(spec),
  };
}

/**
 * thread/start `config` overrides: MCP servers, and in posture `workspace` the tools' network off
 * (Codex's `sandbox_workspace_write.network_access`, already false by default in 0.171.0: said, not assumed).
 */
function threadConfig(spec: SessionSpec): { config?: { [key: string]: JsonValue } } {
  const config: { [key: string]: JsonValue } = {};
  if (spec.mcpServers?.length) config.mcp_servers = mcpConfig(spec) as JsonValue;
  if (spec.posture === 'workspace') config.sandbox_workspace_write = { network_access: false };
  return Object.keys(config).length > 0 ? { config } : {};
}

export function threadStartParams(spec: SessionSpec): ThreadStartParams {
  return { ...threadOverrides(spec), ...(spec.ephemeral ? { ephemeral: true } : {}) };
}

/** thread/fork: a new thread on a copy of `threadId`'s history, with the spec's overrides (0.171.0). */
export function threadForkParams(spec: SessionSpec, threadId: string): ThreadForkParams {
  return { threadId, ...threadOverrides(spec), excludeTurns: true };
}

export function threadResumeParams(spec: SessionSpec, threadId: string): ThreadResumeParams {
  // excludeTurns: the conversation so far is history (Harness.history), not events of this session.
  return { threadId, ...threadOverrides(spec), excludeTurns: true };
}

/**
 * bypass: no sandbox, never ask. ask: Codex asks before anything it does not trust and the requests
 * surface as permission events; the sandbox stays off because approvals are the gate here (and the
 * Linux sandbox needs bubblewrap, which 0.169.0 warns about when it is missing). workspace: Codex's own
 * sandbox, `workspace-write` (writes inside the cwd and temp, reads anywhere; on Linux Landlock or
 * bubblewrap: docs/architecture/contract.md, "Postures"), never asking, so a command the sandbox stops
 * fails with Codex's own message instead of waiting for an approval.
 */
export function postureParams(spec: SessionSpec): { approvalPolicy: AskForApproval; sandbox: SandboxMode } {
  switch (spec.posture) {
    case 'ask':
      return { approvalPolicy: 'untrusted', sandbox: 'danger-full-access' };
    case 'workspace':
      return { approvalPolicy: 'never', sandbox: 'workspace-write' };
    default:
      return { approvalPolicy: 'never', sandbox: 'danger-full-access' };
  }
}

/** MCP servers as Codex's `mcp_servers` config table. */
export function mcpConfig(spec: SessionSpec): Record<string, unknown> {
  const servers: Record<string, unknown> = {};
  for (const server of spec.mcpServers ?? []) {
    servers[server.name] =
      server.transport === 'stdio'
        ? { command: server.command, args: server.args ?? [], ...(server.env ? { env: server.env } : {}) }
        : { url: server.url, ...(server.headers ? { http_headers: server.headers } : {}) };
  }
  return servers;
}

/**
 * A turn input as Codex's UserInput parts: file references become `@path[:lines]` mentions in the
 * text, images a local path or a data URL. Throws invalid_input for an image with neither.
 */
export function toUserInput(input: TurnInput): UserInput[] {
  let text = input.text;
  for (const file of input.files ?? []) {
    const lines = file.lines ? `:${file.lines.start}${file.lines.end ? `-${file.lines.end}` : ''}` : '';
    text += `\n@${file.path}${lines}`;
  }
  const parts: UserInput[] = [{ type: 'text', text, text_elements: [] }];
  for (const image of input.images ?? []) {
    if (image.source === 'path' && image.path) parts.push({ type: 'localImage', path: image.path });
    else if (image.source === 'data' && image.data) {
      parts.push({ type: 'image', url: `data:${image.mediaType ?? 'image/png'};base64,${image.data}` });
    } else {
      throw new ReinsError('invalid_input', 'An image needs a path (source "path") or base64 data (source "data").', {
        harness: HARNESS,
        operation: 'send',
      });
    }
  }
  return parts;
}
