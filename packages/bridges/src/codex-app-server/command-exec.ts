// command/exec and its follow-ups (write, terminate, resize): a command the client asks the server to run
// outside any thread, run by the bridge as a process of its own (no harness takes a command to run
// without its model). Processes belong to the connection that started them, as in Codex: their output
// deltas go to it alone, only it can name them, and they end when it goes away.
import { type ChildProcess, spawn } from 'node:child_process';
import { constants } from 'node:os';
import type { Client } from './clients.js';
import { type CommandExecSpec, commandEnvOf, commandExecSpecOf, exitCodeOf } from './command-exec-params.js';
import { RpcError } from './connection.js';
import { requiredString } from './requests.js';
import { RPC } from './wire.js';

type Params = Record<string, unknown>;

interface Running {
  child: ChildProcess;
  spec: CommandExecSpec;
}

/** What one stream of a command kept, and whether its cap cut it. */
class StreamCapture {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  capReached = false;

  constructor(private readonly cap: number | undefined) {}

  /** The part of `chunk` within the cap (empty once the cap is reached). */
  take(chunk: Buffer): Buffer {
    if (this.cap === undefined) return chunk;
    const room = Math.max(0, this.cap - this.kept);
    const part = chunk.subarray(0, room);
    this.kept += part.length;
    if (part.length < chunk.length) this.capReached = true;
    return part;
  }

  keep(part: Buffer): void {
    this.chunks.push(part);
  }

  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

export class CommandProcesses {
  private readonly byClient = new Map<Client, Map<string, Running>>();
  private buffered = 0;

  /** `serverCwd` is asked at each command (where one without `cwd` runs). */
  constructor(private readonly serverCwd: () => string) {}

  handlers(): Record<string, (params: Params, client: Client) => Promise<unknown>> {
    return {
      'command/exec': (params, client) => this.exec(params, client),
      'command/exec/write': async (params, client) => this.write(params, client),
      'command/exec/terminate': async (params, client) => this.terminate(params, client),
      'command/exec/resize': async (params, client) => {
        this.running(params, client);
        // command/exec refuses `tty`, so no process here has a terminal to resize.
        throw new RpcError(RPC.invalidRequest, 'this command was not started with a PTY; only PTY commands resize', {
          processId: params.processId,
        });
      },
    };
  }

  /** The client went away: its commands end with it. */
  disconnected(client: Client): void {
    const processes = this.byClient.get(client);
    this.byClient.delete(client);
    for (const { child } of processes?.values() ?? []) kill(child);
  }

  /** Every command of every client ends (the bridge is closing). */
  closeAll(): void {
    for (const client of [...this.byClient.keys()]) this.disconnected(client);
  }

  private exec(params: Params, client: Client): Promise<unknown> {
    const spec = commandExecSpecOf(params, this.serverCwd());
    const processes = this.byClient.get(client) ?? new Map<string, Running>();
    if (spec.processId !== undefined && processes.has(spec.processId))
      throw new RpcError(RPC.invalidRequest, `duplicate active command/exec process id: ${spec.processId}`, {
        processId: spec.processId,
      });
    const [program, ...args] = spec.argv;
    // Its own process group, so a timeout or terminate ends what the command started too.
    const child = spawn(program, args, {
      cwd: spec.cwd,
      env: commandEnvOf(process.env, spec.env),
      stdio: [spec.streamStdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
      detached: true,
    });
    // A buffered command without an id gets one no client can send (a NUL in it).
    const key = spec.processId ?? `\0buffered-${++this.buffered}`;
    processes.set(key, { child, spec });
    this.byClient.set(client, processes);
    const captures = { stdout: new StreamCapture(spec.outputCap), stderr: new StreamCapture(spec.outputCap) };
    for (const stream of ['stdout', 'stderr'] as const) {
      child[stream]?.on('data', (chunk: Buffer) => {
        const capture = captures[stream];
        const wasCapped = capture.capReached;
        const part = capture.take(chunk);
        if (!spec.streamOutput) return capture.keep(part);
        if (part.length === 0 && wasCapped) return;
        client.connection.notify('command/exec/outputDelta', {
          processId: spec.processId,
          stream,
          deltaBase64: part.toString('base64'),
          capReached: capture.capReached,
        });
      });
    }
    const timer = spec.timeoutMs === undefined ? undefined : setTimeout(() => kill(child), spec.timeoutMs).unref();
    return new Promise((resolve, reject) => {
      const settle = () => {
        clearTimeout(timer);
        if (this.byClient.get(client)?.get(key)?.child === child) this.byClient.get(client)?.delete(key);
      };
      child.on('error', (error) => {
        settle();
        reject(new RpcError(RPC.invalidRequest, `failed to start \`${program}\`: ${error.message}`, { program }));
      });
      child.on('close', (code, signal) => {
        settle();
        resolve({
          exitCode: exitCodeOf(code, signal, constants.signals),
          stdout: captures.stdout.text(),
          stderr: captures.stderr.text(),
        });
      });
    });
  }

  private running(params: Params, client: Client): Running {
    const processId = requiredString(params, 'processId');
    const found = this.byClient.get(client)?.get(processId);
    // Process ids are the connection's own: another client's id is as unknown as a made-up one.
    if (!found)
      throw new RpcError(RPC.invalidRequest, `no active command/exec for process id ${processId}`, { processId });
    return found;
  }

  private async write(params: Params, client: Client): Promise<Record<string, never>> {
    const { child, spec } = this.running(params, client);
    if (!spec.streamStdin || !child.stdin)
      throw new RpcError(RPC.invalidRequest, 'stdin streaming is not enabled for this command/exec', {
        processId: spec.processId,
      });
    const delta = params.deltaBase64;
    if (delta !== undefined && delta !== null) {
      if (typeof delta !== 'string') throw new RpcError(RPC.invalidParams, 'deltaBase64: must be a base64 string');
      const bytes = Buffer.from(delta, 'base64');
      await new Promise<void>((resolve, reject) =>
        child.stdin?.write(bytes, (error) => (error ? reject(error) : resolve())),
      );
    }
    if (params.closeStdin === true) child.stdin.end();
    return {};
  }

  private terminate(params: Params, client: Client): Record<string, never> {
    kill(this.running(params, client).child);
    return {};
  }
}

function kill(child: ChildProcess): void {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}
