// The Codex app-server connection: one `codex app-server --strict-config` child, spoken to over
// newline-delimited JSON-RPC (Codex omits the "jsonrpc" member), initialized and ready. This module
// owns spawning, framing (one JSON value per line; anything else is handed on as a stray, never
// thrown), the deadline on every request (JsonRpcPeer), and the one-shot probes the Harness uses
// (catalog, account, session list, history). Sessions receive a `Connect` function, so their logic
// also runs against an in-memory peer in unit tests (session.test.ts).
import { type DiscoveredBinary, isRecord, type NativeFrame, ReinsError } from '@reins/core';
import { type CloseOptions, HarnessProcess } from '../runtime/child-process.js';
import { fingerprintBinary, locateBinary } from '../runtime/discovery.js';
import { type JsonRpcId, JsonRpcPeer } from '../runtime/json-rpc.js';
import { type HarnessOptions, mergeEnv } from '../runtime/options.js';
import { codexBinarySpec } from './discovery.js';
import { NATIVE_SOURCE, type NotificationFrame } from './translate.js';
import type { InitializeParams, InitializeResponse } from './wire.js';

export const HARNESS = 'codex' as const;
const LABEL = 'codex app-server';
const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
const CLIENT_INFO = { name: 'reins', title: 'Reins', version: '0.1.0' };

/** A live, initialized app-server as a session sees it. */
export interface CodexConnection {
  readonly peer: JsonRpcPeer;
  readonly initialize: InitializeResponse;
  /** The binary that was spawned (session.started names it). */
  readonly binaryPath: string;
  /** Settles once the app-server is gone. */
  readonly exited: Promise<unknown>;
  /** The process_exited error for how it ended, with its last stderr lines. */
  exitError(): ReinsError;
  /** Ends the app-server (stdin end, SIGTERM, SIGKILL on its group); idempotent. */
  close(options?: CloseOptions): Promise<void>;
}

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
    onNotification: (method, _params, frame) =>
      hooks.onNotification?.({ ...frame, method } as NotificationFrame, Date.now()),
    ...(hooks.onRequest ? { onRequest: hooks.onRequest } : {}),
    onStray: (frame) => hooks.onStray?.(frame, Date.now(), isResponse(frame) ? undefined : 'unparsable'),
  });
  const receiveLine = (line: string) => {
    if (line.trim() === '') return;
    let frame: unknown;
    try {
      frame = JSON.parse(line);
    } catch {
      // Not JSON: kept visible as a passthrough, never a reason to end the session.
      hooks.onStray?.(line, Date.now(), 'unparsable');
      return;
    }
    peer.receive(frame);
  };
  return { peer, receiveLine };
}

/** Spawns app-servers for one Harness: binary resolution (cached), environment, deadlines. */
export class CodexRuntime {
  private located: Promise<DiscoveredBinary> | undefined;

  constructor(readonly options: HarnessOptions) {}

  get requestTimeoutMs(): number {
    return this.options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  }

  env(additions?: Record<string, string>): Record<string, string> {
    return mergeEnv(this.options.baseEnv, additions);
  }

  /** The binary: the explicit path, else discovery; found once per Harness (a failure is not cached). */
  binary(): Promise<DiscoveredBinary> {
    this.located ??= (
      this.options.binaryPath
        ? fingerprintBinary(this.options.binaryPath, codexBinarySpec, 'explicit', this.env())
        : locateBinary(codexBinarySpec, this.env())
    ).catch((error: unknown) => {
      this.located = undefined;
      throw error;
    });
    return this.located;
  }

  /** Spawns `codex app-server --strict-config` and initializes it. */
  readonly connect: Connect = async (cwd, envAdditions, hooks) => {
    const env = this.env(envAdditions);
    const command = this.options.binaryPath ?? (await this.binary()).path;
    // --strict-config: without it an invalid config.toml silently falls back to the OpenAI provider
    // (seen on 0.169.0); a config error must be a visible start failure instead.
    const args = ['app-server', '--strict-config', ...(this.options.extraArgs ?? [])];
    const child = await HarnessProcess.start({
      command,
      args,
      cwd,
      env,
      label: LABEL,
      harness: HARNESS,
      ...(this.options.tap ? { tap: this.options.tap } : {}),
    });
    const exitError = () =>
      new ReinsError('process_exited', child.describeExit(), {
        harness: HARNESS,
        data: { exit: child.exitStatus, stderr: child.stderr.tail(8) },
      });
    const { peer, receiveLine } = codexPeer((line) => child.writeLine(line), hooks, this.requestTimeoutMs);
    child.onLine(receiveLine);
    child.onFault((fault) => {
      if (fault.kind === 'oversize_line') hooks.onOversizeLine?.(fault.bytes);
      // handler_error: the child is being stopped; the session hears it through `exited`.
    });
    void child.exited.then(() => peer.close(exitError()));
    try {
      const params: InitializeParams = {
        clientInfo: CLIENT_INFO,
        capabilities: { experimentalApi: false, requestAttestation: false },
      };
      const initialize = await peer.request<InitializeResponse>('initialize', params);
      peer.notify('initialized', {});
      return {
        peer,
        initialize,
        binaryPath: command,
        exited: child.exited,
        exitError,
        close: async (options) => {
          await child.close(options);
        },
      };
    } catch (error) {
      await child.close({ stdinGraceMs: 200, termGraceMs: 1000 });
      throw ReinsError.from(error, 'harness_unhealthy', { harness: HARNESS, operation: 'initialize' });
    }
  };

  /** Runs `fn` against a short-lived app-server (catalog, account, session list, history). */
  async probe<T>(cwd: string, fn: (peer: JsonRpcPeer) => Promise<T>): Promise<T> {
    const connection = await this.connect(cwd, undefined, {});
    try {
      return await fn(connection.peer);
    } finally {
      await connection.close({ stdinGraceMs: 500, termGraceMs: 1000 });
    }
  }
}
