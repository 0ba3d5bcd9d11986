// Opening a session's thread on an app-server: thread/start, thread/resume or thread/fork as the spec
// says, a failed resume or fork as resume_failed (never a fresh thread in its place: contract.md,
// "No silent fallback"), and the thread's id checked before anything is routed to it.
import { isRecord, ReinsError, type SessionSpec } from '@reins/core';
import type { JsonRpcPeer } from '../runtime/json-rpc.js';
import { HARNESS, type OpenedThread } from './peer.js';
import { threadForkParams, threadResumeParams, threadStartParams } from './thread-params.js';
import type { ThreadForkResponse, ThreadResumeResponse, ThreadStartResponse } from './wire.js';

export type { OpenedThread } from './peer.js';

export async function openThread(peer: JsonRpcPeer, spec: SessionSpec): Promise<OpenedThread> {
  const resume = spec.resume;
  let response: OpenedThread['response'];
  if (resume) {
    const fork = resume.fork === true;
    const method = fork ? 'thread/fork' : 'thread/resume';
    try {
      response = await peer.request<ThreadForkResponse | ThreadResumeResponse>(
        method,
        fork ? threadForkParams(spec, resume.nativeSessionId) : threadResumeParams(spec, resume.nativeSessionId),
      );
    } catch (error) {
      // 0.169.0: an unknown id answers -32600 "no rollout found for thread id ...". Never start fresh.
      const cause = ReinsError.from(error, 'resume_failed');
      throw new ReinsError(
        'resume_failed',
        `Codex could not ${fork ? 'fork' : 'resume'} session ${resume.nativeSessionId}: ${cause.message}`,
        { harness: HARNESS, operation: method, cause, ...(cause.data ? { data: cause.data } : {}) },
      );
    }
  } else {
    response = await peer.request<ThreadStartResponse>('thread/start', threadStartParams(spec));
  }
  const thread: unknown = isRecord(response) ? response.thread : undefined;
  if (!isRecord(thread) || typeof thread.id !== 'string') {
    throw new ReinsError('protocol_error', 'Codex opened a thread without saying its id.', {
      harness: HARNESS,
      operation: resume ? 'thread/resume' : 'thread/start',
      data: { response },
    });
  }
  return { response, thread: thread as OpenedThread['thread'] };
}
