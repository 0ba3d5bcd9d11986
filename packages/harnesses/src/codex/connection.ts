// The Codex app-server connection: `codex app-server --strict-config` children, spoken to over
// newline-delimited JSON-RPC (Codex omits the "jsonrpc" member), initialized and ready. This module
// owns spawning, which process a session gets (its own, the shared one of its launch settings, or a
// warm one: hosts.ts) and the one-shot probes the Harness uses (catalog, account, session list,
// history); the JSON-RPC half (framing, one JSON value per line, anything else a stray, never thrown;
// the deadline on every request) is peer.ts. Sessions receive a `Connect` function, so their logic
// also runs against an in-memory peer in unit tests (session.test.ts).
import { type DiscoveredBinary, ReinsError } from '@reins/core';
import { fileStamp } from '../runtime/binary-hashes.js';
import { HarnessBinary } from '../runtime/chassis/harness-binary.js';
import { HarnessProcess } from '../runtime/child-process.js';
import type { JsonRpcPeer } from '../runtime/json-rpc.js';
import { type HarnessOptions, mergeEnv } from '../runtime/options.js';
import { CODEX_INSTALL, codexBinarySpec } from './discovery.js';
import { CodexHost, type HostTransport, INITIALIZE_LINE } from './host.js';
import { codexHosts, launchKey } from './hosts.js';
import { type Connect, HARNESS, LABEL } from './peer.js';
import type { ThreadAheadSource } from './thread-ahead.js';
import { endThreadProcesses } from './thread-processes.js';

// The JSON-RPC half lives in peer.ts (host.ts and hosts.ts import it there, without this module).
export {
  type CodexConnection,
  type Connect,
  type ConnectionHooks,
  codexPeer,
  HARNESS,
  nativeFrame,
} from './peer.js';

const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/** Spawns app-servers for one Harness: binary resolution (cached), environment, deadlines, sharing. */
export class CodexRuntime {
  private readonly located: HarnessBinary;

  constructor(readonly options: HarnessOptions) {
    this.located = new HarnessBinary(codexBinarySpec, options, CODEX_INSTALL);
  }

  get requestTimeoutMs(): number {
    return this.options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  }

  env(additions?: Record<string, string>): Record<string, string> {
    return mergeEnv(this.options.baseEnv, additions);
  }

  /** The binary: the explicit path, else discovery; kept while its file is unchanged (harness-binary.ts). */
  binary(): Promise<DiscoveredBinary> {
    return this.located.resolve();
  }

  /** Spawns `codex app-server --strict-config` in `cwd` and initializes it. */
  async spawnHost(cwd: string, envAdditions: Record<string, string> | undefined): Promise<CodexHost> {
    const { command, args, env } = await this.launch(envAdditions);
    // Taken before the spawn: an upgrade meanwhile makes this host one of the old executable.
    const binaryStamp = await fileStamp(command);
    const child = await HarnessProcess.start({
      command,
      args,
      cwd,
      env,
      label: LABEL,
      harness: HARNESS,
      firstLine: INITIALIZE_LINE,
      ...(this.options.tap ? { tap: this.options.tap } : {}),
    });
    try {
      return await CodexHost.open(processTransport(child, command, binaryStamp), this.requestTimeoutMs);
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
    const { key, binaryStamp } = await this.keyed(envAdditions);
    if (!share && !codexHosts.hasPool(key)) return this.connect(cwd, envAdditions, hooks);
    // A shared process outlives its first session, so it runs in Reins' cwd, not in that session's.
    return codexHosts.lease(key, () => this.spawnHost(share ? process.cwd() : cwd, envAdditions), hooks, {
      share,
      binaryStamp,
      ...(resumeThreadId !== undefined ? { resumeThreadId } : {}),
    });
  };

  /**
   * Keeps `count` app-servers of the Harness's launch settings started and initialised ahead, each
   * with a thread opened ahead from `ahead`'s template when it has one, and following the sessions'
   * settings when it learns them (host.ts); 0 stops them.
   */
  async warm(count: number, ahead?: ThreadAheadSource): Promise<void> {
    if (!Number.isInteger(count) || count < 0) {
      throw new ReinsError('invalid_input', `warm needs a whole number of processes (0 or more), got ${count}.`, {
        harness: HARNESS,
        operation: 'warm',
      });
    }
    const { key } = await this.keyed(undefined);
    await codexHosts.warm(
      key,
      async () => {
        const host = await this.spawnHost(process.cwd(), undefined);
        if (ahead?.learn) host.followSessions = (spec) => ahead.learn?.(spec);
        const template = ahead?.current();
        if (template) await host.openThreadAhead(template);
        return host;
      },
      count,
    );
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
      const { key, binaryStamp } = await this.keyed(undefined);
      return codexHosts.probe(key, () => this.spawnHost(process.cwd(), undefined), fn, binaryStamp);
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

  /**
   * The launch key (the path, not the file: a warm pool outlives an upgrade in place, its refills
   * start the new executable) and the executable's stamp now, which picks among the key's hosts.
   */
  private async keyed(envAdditions: Record<string, string> | undefined) {
    const { command, args, env } = await this.launch(envAdditions);
    const key = launchKey({ command, args, env, requestTimeoutMs: this.requestTimeoutMs, tap: this.options.tap });
    return { key, binaryStamp: await fileStamp(command) };
  }
}

/** A HarnessProcess as a host's transport. */
function processTransport(child: HarnessProcess, binaryPath: string, binaryStamp: string): HostTransport {
  return {
    binaryStamp,
    wroteInitialize: true,
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
