// The JSON-RPC half of a Codex app-server connection, apart from the process (connection.ts spawns
// it): what a session holds (CodexConnection), the hooks it hands in, and the peer fed line by line.
import { isRecord, type NativeFrame, type ReinsError, type SessionSpec } from '@reins/core';
import type { CloseOptions } from '../runtime/child-process.js';
import { parseHarnessLine } from '../runtime/json-depth.js';
import { type JsonRpcId, JsonRpcPeer } from '../runtime/json-rpc.js';
import { NATIVE_SOURCE, type NotificationFrame } from './translate.js';
import type { InitializeResponse, ThreadForkResponse, ThreadResumeResponse, ThreadStartResponse } from './wire.js';

export const HARNESS = 'codex' as const;
export const LABEL = 'codex app-server';

/**
 * A session's hold on a live, initialized app-server (a lease of a CodexHost, host.ts): the process
 * may be the session's alone or shared with other sessions of the same launch settings.
 */
export interface CodexConnection {
  readonly peer: JsonRpcPeer;
  readonly initialize: InitializeResponse;
  /** The binary that was spawned (session.started names it). */
  readonly binaryPath: string;
  /** Settles once the app-server is gone. */
  readonly exited: Promise<unknown>;
  /** The process_exited error for how it ended, with its last stderr lines. */
  exitError(): ReinsError;
  /** Frames of this thread go to this session from now on (with those that came before it was known). */
  bindThread(threadId: string): void;
  /** The thread the app-server opened ahead when the spec fits it (host.ts); absent on in-memory test peers. */
  claimThreadAhead?(spec: SessionSpec): Promise<ThreadAheadClaim>;
  /**
   * Lets go of the app-server: its thread's running turn is interrupted and the thread unsubscribed
   * while other sessions use the process; the process ends (stdin end, SIGTERM, SIGKILL on its group)
   * with its last session. Idempotent.
   */
  close(options?: CloseOptions): Promise<void>;
}

/** A thread opened on the app-server (open-thread.ts): Codex's answer and its thread, id checked. */
export type OpenedThread = {
  response: ThreadStartResponse | ThreadResumeResponse | ThreadForkResponse;
  thread: Record<string, unknown> & { id: string };
};

/** Why a session did not take the thread opened ahead (thread-ahead.ts says each in words). */
export type ThreadAheadMiss =
  | 'resume'
  | 'fork'
  | 'cwd'
  | 'model'
  | 'posture'
  | 'systemPrompt'
  | 'mcpServers'
  | 'ephemeral'
  | 'settings'
  | 'taken'
  | 'instructions_changed'
  | 'thread_start_failed';

/** A session's claim on the thread opened ahead: taken, missed (and why), or there was none. */
export type ThreadAheadClaim =
  | { kind: 'claimed'; opened: OpenedThread }
  | { kind: 'miss'; reason: ThreadAheadMiss }
  | { kind: 'none' };

/** What the connection hands to its session. Every hook runs inside the child's line handler. */
export interface ConnectionHooks {
  onNotification?: (frame: NotificationFrame, at: number) => void;
  onRequest?: (method: string, params: unknown, id: JsonRpcId, frame: Record<string, unknown>) => Promise<unknown>;
  /**
   * A line that is no JSON-RPC message (`unparsable`: not JSON, or JSON that is no message) or a
   * response nobody waits for any more (no reason: a late answer is protocol, just late).
   */
  onStray?: (frame: unknown, at: number, reason: 'unparsable' | undefined) => void;
  /** A stdout line over Reins' limit was skipped whole. */
  onOversizeLine?: (bytes: number) => void;
}

export type Connect = (
  cwd: string,
  envAdditions: Record<string, string> | undefined,
  hooks: ConnectionHooks,
  /** The thread the session will resume (a process already holding it is not shared for it). */
  resumeThreadId?: string,
) => Promise<CodexConnection>;

/** A frame as the `native` of an event, with its JSON-RPC method when it has one. */
export function nativeFrame(frame: unknown): NativeFrame {
  const method = isRecord(frame) && typeof frame.method === 'string' ? frame.method : undefined;
  return method === undefined ? { source: NATIVE_SOURCE, frame } : { source: NATIVE_SOURCE, method, frame };
}

function isResponse(frame: unknown): boolean {
  if (!isRecord(frame)) return false;
  return (typeof frame.id === 'number' || typeof frame.id === 'string') && ('result' in frame || 'error' in frame);
}

/**
 * The JSON-RPC half of a connection, apart from the process: a peer wired to the session's hooks and
 * the line handler that feeds it (unit tests drive a session through it with no process).
 */
export function codexPeer(
  send: (line: string) => boolean,
  hooks: ConnectionHooks,
  timeoutMs: number,
): { peer: JsonRpcPeer; receiveLine: (line: string) => void } {
  const peer = new JsonRpcPeer({
    label: LABEL,
    harness: HARNESS,
    send,
    defaultTimeoutMs: timeoutMs,
    includeVersion: false,
    // The peer calls this only for a frame whose `method` is a string: the frame is a NotificationFrame
    // as parsed (a copy per frame would be one more object for nothing).
    onNotification: (_method, _params, frame) => hooks.onNotification?.(frame as NotificationFrame, Date.now()),
    ...(hooks.onRequest ? { onRequest: hooks.onRequest } : {}),
    onStray: (frame) => hooks.onStray?.(frame, Date.now(), isResponse(frame) ? undefined : 'unparsable'),
  });
  const receiveLine = (line: string) => {
    // A line that opens an object is no blank line: the trim is for the others only.
    if (line.charCodeAt(0) !== 123 && line.trim() === '') return;
    // Too deep to parse holds every session's event loop; not JSON is kept visible; neither ends the session.
    const read = parseHarnessLine(line);
    if (!read.parsed) {
      hooks.onStray?.(read.shown, Date.now(), 'unparsable');
      return;
    }
    peer.receive(read.value);
  };
  return { peer, receiveLine };
}
