// What a bridge session writes to its client, whichever ACP version the client chose at initialize:
// sessions speak v1-shaped updates (translate.ts), and the port carries them as that version does
// (v1 as they are; v2 through v2/updates.ts). The foreground state exists only in v2.
import type { AgentConnection } from '@agentclientprotocol/sdk/unstable';
import type { ContentBlock, RequestPermissionRequest, RequestPermissionResponse, SessionUpdate } from './wire.js';

/** A session's foreground state (ACP v2 `state_update`); `stopReason`/`error` only with idle. */
export type ForegroundState =
  | { state: 'running' | 'requires_action' }
  | { state: 'idle'; stopReason?: string; error?: { code: number; message: string; data?: unknown } };

/** What only v2 says: the foreground state, and the user message a prompt inserted (its id is the ack's). */
export type V2Only =
  | { kind: 'state'; state: ForegroundState }
  | { kind: 'user_message'; messageId: string; content: ContentBlock[] };

export interface ClientPort {
  /** The protocol version the client chose. */
  readonly version: 1 | 2;
  /** Aborted once the connection is gone. */
  readonly signal: AbortSignal;
  update(sessionId: string, update: SessionUpdate): Promise<void>;
  /** v2 only; a v1 port drops it (v1 ends a turn with the prompt's answer, and echoes no prompt). */
  v2Only(sessionId: string, message: V2Only): Promise<void>;
  requestPermission(request: RequestPermissionRequest, signal: AbortSignal): Promise<RequestPermissionResponse>;
  close(): void;
}

/** The v1 port: updates and requests exactly as the SDK's v1 types have them. */
export function v1Port(connection: AgentConnection): ClientPort {
  return {
    version: 1,
    signal: connection.signal,
    update: (sessionId, update) => connection.client.notify('session/update', { sessionId, update }),
    v2Only: async () => {},
    requestPermission: (request, signal) =>
      connection.client.request<RequestPermissionResponse>('session/request_permission', request, {
        cancellationSignal: signal,
        stopWaitingOnCancel: true,
      }),
    close: () => connection.close(),
  };
}
