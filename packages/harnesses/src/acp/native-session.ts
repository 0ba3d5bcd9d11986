// The native ACP session's lifecycle for one AcpSession: creating or forking it (session/new,
// session/fork), resuming it (session/load, else session/resume) and closing it (session/close,
// session/delete for an ephemeral session). Turns and settings stay with the session (session.ts).
import { type HarnessId, isRecord, ReinsError, type SessionSpec } from '@reins/core';
import type { AcpConnection, SessionSink } from './connection.js';
import { forkSession, sessionParams } from './session-params.js';
import type { SessionSetupResponse } from './wire.js';

export interface NativeSessionContext {
  harness: HarnessId;
  /** The launch line, for messages about the process: 'gemini --acp'. */
  label: string;
  connection: AcpConnection;
  spec: SessionSpec;
  /** The agent's own `_meta` for session/new, load and resume. */
  sessionMeta?: Record<string, unknown>;
  requestTimeoutMs: number;
}

export function nativeSessionParams(context: NativeSessionContext): Record<string, unknown> {
  return sessionParams(context.spec, context.sessionMeta);
}

/** session/new, or session/fork of spec.resume; registers the sink for the new native id. */
export async function createNativeSession(
  context: NativeSessionContext,
  sink: SessionSink,
): Promise<{ nativeId: string; setup: SessionSetupResponse }> {
  const { connection, spec, harness, label } = context;
  const setup = spec.resume
    ? await forkSession(
        connection,
        { harness, label },
        {
          ...nativeSessionParams(context),
          sessionId: spec.resume.nativeSessionId,
        },
      )
    : await connection.request<SessionSetupResponse>('session/new', nativeSessionParams(context));
  if (!isRecord(setup) || typeof setup.sessionId !== 'string') {
    throw new ReinsError('protocol_error', `${label} answered session/new without a sessionId.`, {
      harness,
      operation: 'session/new',
    });
  }
  connection.register(setup.sessionId, sink);
  return { nativeId: setup.sessionId, setup };
}

/**
 * Resumes `nativeId` with session/load or session/resume. Once the agent can, the session adopts the id
 * and its sink is registered before the request, so the history session/load replays reaches it;
 * `replayed` runs once the agent answered (to settle what the replay left open).
 */
export async function resumeNativeSession(
  context: NativeSessionContext,
  nativeId: string,
  hooks: { sink: SessionSink; adopt: () => void; replayed: () => void },
): Promise<SessionSetupResponse> {
  const { connection, harness, label } = context;
  const caps = connection.initializeResponse?.agentCapabilities ?? {};
  const canLoad = caps.loadSession === true;
  const canResume = Boolean(caps.sessionCapabilities?.resume);
  if (!canLoad && !canResume) {
    throw new ReinsError(
      'unsupported_capability',
      `${label} cannot resume a session: it advertises neither session/load nor session/resume.`,
      { harness, operation: 'resume' },
    );
  }
  hooks.adopt();
  connection.register(nativeId, hooks.sink);
  // session/load replays the conversation (shown as history, outside any turn); session/resume
  // does not. Load first where offered, so a client sees what it is continuing.
  const methods = canLoad ? ['session/load', ...(canResume ? ['session/resume'] : [])] : ['session/resume'];
  let lastError: ReinsError | undefined;
  for (const method of methods) {
    try {
      const setup = await connection.request<SessionSetupResponse | null>(method, {
        ...nativeSessionParams(context),
        sessionId: nativeId,
      });
      hooks.replayed();
      return isRecord(setup) ? setup : {};
    } catch (error) {
      lastError = ReinsError.from(error, 'resume_failed', { harness, operation: method });
      if (lastError.code === 'auth_required' || lastError.code === 'process_exited') throw lastError;
      if (lastError.code !== 'unsupported_capability') break;
    }
  }
  connection.unregister(nativeId);
  throw new ReinsError(
    'resume_failed',
    `${label} could not resume session ${nativeId}: ${lastError?.message ?? 'unknown error'}`,
    {
      harness,
      operation: 'resume',
      cause: lastError,
      data: { nativeSessionId: nativeId, ...lastError?.data },
    },
  );
}

/**
 * Closes the native session on a live connection: cancels a running prompt, session/close where the
 * agent offers it, session/delete for an ephemeral session (a failure is a warning), then unregisters.
 */
export async function closeNativeSession(
  context: NativeSessionContext,
  sessionId: string,
  options: { running: boolean; warn: (message: string) => void },
): Promise<void> {
  const { connection } = context;
  if (options.running) connection.notify('session/cancel', { sessionId });
  const deadline = { timeoutMs: Math.min(context.requestTimeoutMs, 5000) };
  const caps = connection.initializeResponse?.agentCapabilities?.sessionCapabilities;
  if (caps?.close) await connection.request('session/close', { sessionId }, deadline).catch(() => {});
  // An ephemeral session is deleted from the agent's store (createSession checked it can be).
  if (context.spec.ephemeral) {
    await connection.request('session/delete', { sessionId }, deadline).catch((error: unknown) => {
      options.warn(
        `${context.label} did not delete the ephemeral session ${sessionId}: ${ReinsError.from(error, 'protocol_error').message}`,
      );
    });
  }
  connection.unregister(sessionId);
}
