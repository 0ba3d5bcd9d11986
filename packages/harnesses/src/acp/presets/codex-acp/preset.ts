// Codex through an ACP adapter (`codex-acp`). Two programs share the name (docs/architecture/acp.md):
// @agentclientprotocol/codex-acp 2.x (pinned 2.6.0), a TypeScript adapter on `codex app-server`, and Zed's
// Rust @zed-industries/codex-acp (stopped at 0.16.0, the previous pin), a native binary with an embedded
// Codex core. Both read CODEX_HOME like Codex. Tested by codex-acp.real.test.ts and the conformance suite.
//
// Quirks: 0.16.0 refuses `--version` (exit 2), so the version comes from `initialize`'s `agentInfo.version`
// (2.6.0 answers it too); 0.16.0's model catalog must suit its older core (the testkit's codex-acp home).
// 2.6.0 reports a provider's HTTP error as agent text with stopReason end_turn (codexAcpStatusChunk).

import { isRecord } from '@reins/core';
import { providerFailureOf } from '../../../runtime/chassis/provider-failure.js';
import { envOrHome } from '../../../runtime/confinement.js';
import type { VersionProber } from '../../../runtime/discovery.js';
import type { AcpPreset } from '../../preset.js';
import type { StatusChunk } from '../../translate.js';

/** codex-acp 0.16.0 refuses `--version`: its version comes from ACP `initialize` (loaded only when probed). */
const initializeVersionProbe: VersionProber = async (...args) =>
  (await import('../../discovery.js')).initializeVersionProbe(...args);

/** The HTTP status behind each error type of an OpenAI-style error body (the body carries no status). */
const ERROR_TYPE_STATUS: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  permission_error: 403,
  not_found_error: 404,
  rate_limit_error: 429,
  insufficient_quota: 429,
  server_error: 500,
  overloaded_error: 529,
};

/**
 * codex-acp 2.6.0 answers a provider's HTTP 400 with stopReason end_turn and the provider's error body as
 * the whole agent message: `{"error":{"message":...,"type":"invalid_request_error",...}}` plus a blank
 * line. Only a chunk that is exactly such a body (one `error` key, a message, a known OpenAI error type)
 * counts; model text that merely contains JSON does not. A body in Anthropic's shape
 * (`{"type":"error","status":...}`) reaches the client already rewritten to its bare message by codex-acp
 * and cannot be told from model text (a limitation, docs/architecture/acp.md).
 */
export function codexAcpStatusChunk(text: string): StatusChunk | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{') || !trimmed.endsWith('}')) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch {
    return undefined;
  }
  if (!isRecord(value) || Object.keys(value).length !== 1 || !isRecord(value.error)) return undefined;
  const { message, type } = value.error;
  if (typeof message !== 'string' || message.trim() === '' || typeof type !== 'string') return undefined;
  const status = Object.hasOwn(ERROR_TYPE_STATUS, type) ? ERROR_TYPE_STATUS[type] : undefined;
  if (status === undefined) return undefined;
  return { kind: 'provider_error', error: providerFailureOf(status, message) };
}

export const codexAcpPreset: AcpPreset = {
  id: 'codex-acp',
  displayName: 'Codex (ACP)',
  binary: {
    id: 'codex-acp',
    names: ['codex-acp'],
    versionProbe: initializeVersionProbe,
    // Its own Codex sandbox (workspace-write) runs each command under a nested bwrap that makes /tmp/.git
    // (2.6.0: "bwrap: Can't mkdir /tmp/.git: Read-only file system" when /tmp is not writable).
    stateFolders: (env) => [...envOrHome(env, 'CODEX_HOME', '.codex'), '/tmp'],
  },
  args: () => [],
  multiSession: true,
  quirks: { translate: { statusChunk: codexAcpStatusChunk } },
  testedVersions: ['2.6.0', '0.16.0'],
};
