// What session/new, load, resume and fork all take from the session spec (the cwd, the spec's MCP
// servers in ACP's shape, and the preset's `_meta` for spec fields ACP has no field for), and the
// fork itself: ACP's unstable session/fork, which answers a NEW session on a copy of the source's
// conversation (claude-agent-acp 0.23.1: a new id, the Agent SDK's resume + forkSession).
import { type HarnessId, isRecord, ReinsError, type SessionSpec } from '@reins/core';
import type { AcpConnection } from './connection.js';
import type { SessionSetupResponse } from './wire.js';

export function sessionParams(spec: SessionSpec, sessionMeta?: Record<string, unknown>): Record<string, unknown> {
  const mcpServers = (spec.mcpServers ?? []).map((server) =>
    server.transport === 'stdio'
      ? {
          name: server.name,
          command: server.command,
          args: server.args ?? [],
          env: Object.entries(server.env ?? {}).map(([name, value]) => ({ name, value })),
        }
      : {
          type: server.transport,
          name: server.name,
          url: server.url,
          headers: Object.entries(server.headers ?? {}).map(([name, value]) => ({ name, value })),
        },
  );
  return { cwd: spec.cwd, mcpServers, ...(sessionMeta ? { _meta: sessionMeta } : {}) };
}

/** session/fork of `params.sessionId`; refuses an answer that is not a new session. */
export async function forkSession(
  connection: Pick<AcpConnection, 'request'>,
  agent: { harness: HarnessId; label: string },
  params: Record<string, unknown> & { sessionId: string },
): Promise<SessionSetupResponse> {
  const sourceId = params.sessionId;
  let setup: SessionSetupResponse;
  try {
    setup = await connection.request<SessionSetupResponse>('session/fork', params);
  } catch (error) {
    const cause = ReinsError.from(error, 'resume_failed', { harness: agent.harness, operation: 'session/fork' });
    throw new ReinsError('resume_failed', `${agent.label} could not fork session ${sourceId}: ${cause.message}`, {
      harness: agent.harness,
      operation: 'session/fork',
      cause,
      data: { nativeSessionId: sourceId, ...cause.data },
    });
  }
  // The source's own id back would make two Reins sessions share one conversation.
  if (!isRecord(setup) || typeof setup.sessionId !== 'string' || setup.sessionId === sourceId) {
    throw new ReinsError(
      'resume_failed',
      `${agent.label} answered session/fork of ${sourceId} without a new sessionId.`,
      {
        harness: agent.harness,
        operation: 'session/fork',
        data: { nativeSessionId: sourceId },
      },
    );
  }
  return setup;
}
