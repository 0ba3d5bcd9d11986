// The connection's handlers for the UI-backend methods (HARNESS_METHODS in @reins/protocol): each
// checks the harness is offered and hands the call to the UiBackend. A daemon without one (a
// cluster gateway) answers unsupported_capability, naming what serves it.

import { type HarnessId, ReinsError } from '@reins/core';
import type { HARNESS_METHODS, ParamsOf, ResultOf } from '@reins/protocol';
import type { UiBackend } from './ui-backend.js';

type BackendMethod = keyof typeof HARNESS_METHODS;
export type BackendHandlers = {
  [M in BackendMethod]: (params: ParamsOf<M>) => Promise<{ result: ResultOf<M> }>;
};

export function backendHandlers(
  backend: () => UiBackend | undefined,
  harnesses: readonly HarnessId[],
): BackendHandlers {
  const serving = (method: string): UiBackend => {
    const found = backend();
    if (!found) {
      throw new ReinsError(
        'unsupported_capability',
        `This daemon does not serve ${method}: ask a daemon that runs harnesses itself (not a cluster gateway).`,
        { operation: method },
      );
    }
    return found;
  };
  const offered = (method: string, harness: HarnessId): UiBackend => {
    if (!harnesses.includes(harness)) {
      throw new ReinsError(
        'invalid_input',
        `This daemon does not offer the ${harness} harness. It offers: ${harnesses.join(', ') || 'none'}.`,
        { harness, operation: method },
      );
    }
    return serving(method);
  };
  return {
    'harness/models': async ({ harness }) => ({ result: await offered('harness/models', harness).models(harness) }),
    'harness/capabilities': async ({ harness }) => ({
      result: await offered('harness/capabilities', harness).capabilities(harness),
    }),
    'harness/sessions': async (params) => ({
      result: await offered('harness/sessions', params.harness).harnessSessions(params),
    }),
    'harness/history': async ({ harness, nativeSessionId, cwd }) => ({
      result: await offered('harness/history', harness).history(harness, nativeSessionId, cwd),
    }),
    'harness/auth/status': async ({ harness }) => ({
      result: await offered('harness/auth/status', harness).authStatus(harness),
    }),
    'harness/auth/login': async ({ harness, method }) => ({
      result: await offered('harness/auth/login', harness).login(harness, method),
    }),
    'harness/auth/cancel': async ({ ceremonyId }) => {
      await serving('harness/auth/cancel').cancelLogin(ceremonyId);
      return { result: {} };
    },
    'session/fork': async ({ sessionId }) => ({ result: await serving('session/fork').fork(sessionId) }),
    'session/mcpStatus': async ({ sessionId }) => ({
      result: await serving('session/mcpStatus').mcpStatus(sessionId),
    }),
  };
}
