// The Codex app-server connection: `codex app-server --strict-config` children, spoken to over
// newline-delimited JSON-RPC (Codex omits the "jsonrpc" member), initialized and ready. This module
// owns spawning, framing (one JSON value per line; anything else is handed on as a stray, never
// thrown), the deadline on every request (JsonRpcPeer), which process a session gets (its own, the
// shared one of its launch settings, or a warm one: hosts.ts) and the one-shot probes the Harness
// uses (catalog, account, session list, history). Sessions receive a `Connect` function, so their
// logic also runs against an in-memory peer in unit tests (session.test.ts).
import { type DiscoveredBinary, isRecord, type NativeFrame, ReinsError } from '@reins/core';
import { type CloseOptions, HarnessProcess } from '../runtime/child-process.js';
import { fingerprintBinary, locateBinary } from '../runtime/discovery.js';
import { parseHarnessLine } from '../runtime/json-depth.js';
import { type JsonRpcId, JsonRpcPeer } from '../runtime/json-rpc.js';
import { type HarnessOptions, mergeEnv } from '../runtime/options.js';
import { codexBinarySpec } from './discovery.js';
import { CodexHost, type HostTransport } from './host.js';
import { codexHosts, launchKey } from './hosts.js';
import { endThreadProcesses } from './thread-processes.js';
import { NATIVE_SOURCE, type NotificationFrame } from './translate.js';
import type { InitializeResponse } from './wire.js';

export const HARNESS = 'codex' as const;
const LABEL = 'codex app-server';
const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

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
  /**
   * Lets go of the app-server: its thread's running turn is interrupted and the thread unsubscribed
   * while other sessions use the process; the process ends (stdin end, SIGTERM, SIGKILL on its group)
   * with its last session. Idempotent.
   */
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

/** Spawns app-servers for one Harness: binary resolution (cached), environment, deadlines, sharing. */
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

  /** Spawns `codex app-server --strict-config` in `cwd` and initializes it. */
  async spawnHost(cwd: string, envAdditions: Record<string, string> | undefined): Promise<CodexHost> {
    const { command, args, env } = await this.launch(envAdditions);
    const child = await HarnessProcess.start({
      command,
      args,
      cwd,
      env,
      label: LABEL,
      harness: HARNESS,
      ...(this.options.tap ? { tap: this.options.tap } : {}),
    });
    try {
      return await CodexHost.open(processTransport(child, command), this.requestTimeoutMs);
    } catch (error) {
      throw ReinsError.from(error, 'harness_unhealthy', { harness: HARNESS, operation: 'initialize' });
    }
  }

  /** An app-server of the caller's own, ended when the connection closes (probes, sign-in). */
  readonly connect: Connect = async (cwd, envAdditions, hooks) =>
    (await this.spawnHost(cwd, envAdditions)).lease(hooks);

  /**
   * A session's app-server: the shared one of its launch settings (binary, arguments, environment:
   * the thread's cwd goes on thread/start, so it is no launch setting), else a warm one, else a new
   * one. With `shareProcess: false` each session has its own (warm ones are still used).
   */
  readonly lease: Connect = async (cwd, envAdditions, hooks, resumeThreadId) => {
    const share = this.options.shareProcess !== false;
    const key = await this.key(envAdditions);
    if (!share && !codexHosts.hasPool(key)) return this.connect(cwd, envAdditions, hooks);
    // A shared process outlives its first session, so it runs in Reins' cwd, not in that session's.
    return codexHosts.lease(key, () => this.spawnHost(share ? process.cwd() : cwd, envAdditions), hooks, {
      share,
      ...(resumeThreadId !== undefined ? { resumeThreadId } : {}),
    });
  };

  /** Keeps `count` app-servers of the Harness's launch settings started and initialised ahead; 0 stops them. */
  async warm(count: number): Promise<void> {
    if (!Number.isInteger(count) || count < 0) {
      throw new ReinsError('invalid_input', `warm needs a whole number of processes (0 or more), got ${count}.`, {
        harness: HARNESS,
        operation: 'warm',
      });
    }
    const key = await this.key(undefined);
    await codexHosts.warm(key, () => this.spawnHost(process.cwd(), undefined), count);
  }

  /**
   * Runs `fn` (catalog, account, session list, history: no thread, no state) on an app-server of the
   * Harness's launch settings: the shared or a ready warm one when running, else the shared one it
   * starts (a session arriving meanwhile joins it; it ends with the probe otherwise: hosts.ts). With
   * `shareProcess: false`, or a cwd other than Reins' own (the shared process runs in Reins' cwd, and
   * what Codex answers may depend on the cwd it runs in), a short-lived app-server of its own.
   */
  async probe<T>(cwd: string, fn: (peer: JsonRpcPeer) => Promise<T>): Promise<T> {
    if (this.options.shareProcess !== false && cwd === process.cwd()) {
      const key = await this.key(undefined);
      return codexHosts.probe(key, () => this.spawnHost(process.cwd(), undefined), fn);
    }
    const connection = await this.connect(cwd, undefined, {});
    try {
      return await fn(connection.peer);
    } finally {
      await connection.close({ stdinGraceMs: 500, termGraceMs: 1000 });
    }
  }

  private async launch(envAdditions: Record<string, string> | undefined) {
    const env = this.env(envAdditions);
    const command = this.options.binaryPath ?? (await this.binary()).path;
    // --strict-config: without it an invalid config.toml silently falls back to the OpenAI provider
    // (seen on 0.169.0); a config error must be a visible start failure instead.
    const args = ['app-server', '--strict-config', ...(this.options.extraArgs ?? [])];
    return { command, args, env };
  }

  private async key(envAdditions: Record<string, string> | undefined): Promise<string> {
    const { command, args, env } = await this.launch(envAdditions);
    return launchKey({ command, args, env, requestTimeoutMs: this.requestTimeoutMs, tap: this.options.tap });
  }
}

/** A HarnessProcess as a host's transport. */
function processTransport(child: HarnessProcess, binaryPath: string): HostTransport {
  return {
    send: (line) => child.writeLine(line),
    onLine: (handler) => child.onLine(handler),
    onOversizeLine: (handler) =>
      child.onFault((fault) => {
        if (fault.kind === 'oversize_line') handler(fault.bytes);
        // handler_error: the child is being stopped; the sessions hear it through `exited`.
      }),
    exited: child.exited,
    binaryPath,
    exitError: () =>
      new ReinsError('process_exited', child.describeExit(), {
        harness: HARNESS,
        data: { exit: child.exitStatus, stderr: child.stderr.tail(8) },
      }),
    close: async (options) => {
      await child.close(options);
    },
    endThreadProcesses: async (threads) => {
      if (!child.hasExited) await endThreadProcesses(child.pid, threads);
    },
  };
}
