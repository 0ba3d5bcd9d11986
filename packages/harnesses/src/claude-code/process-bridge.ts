// Runs the Claude Code CLI that the Agent SDK asks for through our HarnessProcess (own process
// group, close ladder, stderr ring, frame tap) and hands the SDK the SpawnedProcess it expects.
// The bridge also keeps stdout honest for the SDK: a line that is not a JSON object (a crash dump,
// stray output) is reported to the adapter instead of reaching the SDK's parser.
import { EventEmitter } from 'node:events';
import { PassThrough, Writable } from 'node:stream';
import type { SpawnedProcess, SpawnOptions } from '@anthropic-ai/claude-agent-sdk';
import { type FrameTap, HarnessProcess, LineSplitter, type ProcessFault } from '../runtime/index.js';

export interface BridgeHooks {
  label: string;
  tap?: FrameTap;
  /** A stdout line that is not JSON: the adapter reports it (passthrough), the SDK never sees it. */
  onGarbage: (line: string) => void;
  /** A stdout line over the limit was skipped, or the line handler threw (the child is then stopped). */
  onFault?: (fault: ProcessFault) => void;
}

export class SdkProcessBridge extends EventEmitter implements SpawnedProcess {
  readonly stdin: Writable;
  readonly stdout = new PassThrough();
  readonly process: HarnessProcess;

  constructor(options: SpawnOptions, hooks: BridgeHooks) {
    super();
    this.process = HarnessProcess.launch({
      command: options.command,
      args: options.args,
      cwd: options.cwd ?? process.cwd(),
      env: options.env,
      label: hooks.label,
      harness: 'claude-code',
      ...(hooks.tap ? { tap: hooks.tap } : {}),
    });
    const child = this.process;
    if (hooks.onFault) child.onFault(hooks.onFault);
    child.onLine((line) => {
      const trimmed = line.trim();
      if (trimmed === '') return;
      if (!trimmed.startsWith('{')) return hooks.onGarbage(line);
      try {
        JSON.parse(trimmed);
      } catch {
        return hooks.onGarbage(line);
      }
      this.stdout.write(`${trimmed}\n`);
    });
    const splitter = new LineSplitter((line) => {
      child.writeLine(line.toString());
    });
    this.stdin = new Writable({
      write(chunk: Buffer | string, _encoding, callback) {
        splitter.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
        callback();
      },
      final(callback) {
        splitter.flush();
        // The SDK is done with the CLI: end it (stdin end, then SIGTERM, then SIGKILL on the group).
        void child.close();
        callback();
      },
    });
    child.started.catch((error: unknown) => this.emit('error', error));
    void child.exited.then(async (info) => {
      await Promise.race([child.outputEnded, new Promise((resolve) => setTimeout(resolve, 500))]);
      this.stdout.end();
      this.emit('exit', info.code, info.signal);
    });
  }

  get killed(): boolean {
    return this.process.hasExited && this.process.exitStatus?.signal !== null;
  }

  get exitCode(): number | null {
    return this.process.exitStatus?.code ?? null;
  }

  get signalCode(): NodeJS.Signals | null {
    return this.process.exitStatus?.signal ?? null;
  }

  kill(signal: NodeJS.Signals): boolean {
    return this.process.killGroup(signal);
  }
}
