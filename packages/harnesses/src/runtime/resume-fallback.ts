// The resume that fails, handled the same way for every harness (docs/architecture/contract.md, principle
// 6 "No silent fallback"): an adapter ends a resume it cannot continue in `resume_failed` with the harness's own
// reason. Only where the caller allowed it (`spec.resume.fallback: 'new'`) does Reins then start a new
// conversation, and that session says so: `spec.resumeFallback` names the fallback, the conversation and
// the reason, and the chassis puts a `notice` (kind `warning`) right after its `session.started`.
import { type EventPayload, type Harness, ReinsError, type ReinsEvent, type SessionSpec } from '@reins/core';

/** `harness` whose createSession falls back to a new conversation where the spec allows it. */
export function withResumeFallback(harness: Harness): Harness {
  const createSession = harness.createSession.bind(harness);
  harness.createSession = async (spec: SessionSpec) => {
    const resume = spec.resume;
    try {
      return await createSession(spec);
    } catch (error) {
      if (!resume?.fallback || !ReinsError.isInstance(error) || error.code !== 'resume_failed') throw error;
      const { resume: _failed, ...fresh } = spec;
      return createSession({
        ...fresh,
        resumeFallback: { fallback: resume.fallback, nativeSessionId: resume.nativeSessionId, reason: error.message },
      });
    }
  };
  return harness;
}

/** The notice a fallback session gives, for the chassis to emit after `session.started`. */
export function resumeFallbackNotice(spec: Pick<SessionSpec, 'resumeFallback'> | undefined): EventPayload | undefined {
  const used = spec?.resumeFallback;
  if (!used) return undefined;
  return {
    type: 'notice',
    kind: 'warning',
    message: `Conversation ${used.nativeSessionId} could not be resumed (${used.reason}); as allowed (resume.fallback "${used.fallback}"), this session started a new one.`,
    data: { ...used },
  };
}

/** Watches a session's events and says its fallback once, right after its first `session.started`. */
export function sayResumeFallback(
  spec: Pick<SessionSpec, 'resumeFallback'> | undefined,
  emit: (notice: EventPayload) => void,
): (event: ReinsEvent) => void {
  let notice = resumeFallbackNotice(spec);
  return (event) => {
    if (!notice || event.type !== 'session.started') return;
    const said = notice;
    notice = undefined;
    queueMicrotask(() => emit(said)); // emitted from inside the stream's onEvent, it would be queued before session.started
  };
}
