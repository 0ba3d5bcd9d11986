// An agent command as acp-check's transport: spawned with stdin/stdout as the ACP channel, stdout split
// into lines as written (no re-framing, so a broken line stays visible: an over-long one is handed on
// as its first 64 KiB, which the peer reports as not one JSON message), stderr passed through.
import { spawn } from 'node:child_process';
import { LineSplitter } from '@reins/harnesses';
import type { AgentTransport } from './peer.js';

export interface StdioAgentOptions {
  command: string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Where the agent's stderr goes (the CLI's stderr; tests keep it). */
  stderr?: (chunk: string) => void;
}

/** How long an agent has to exit after its stdin closes, then after SIGTERM. */
const EXIT_GRACE_MS = 3_000;

export function stdioAgent(options: StdioAgentOptions): AgentTransport {
  const [program, ...args] = options.command;
  if (!program) throw new Error('acp-check needs an agent command after --');
  const child = spawn(program, args, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const exitListeners: ((how: string) => void)[] = [];
  const exited = new Promise<void>((resolve) => {
    const end = (how: string) => {
      for (const listener of exitListeners) listener(how);
      resolve();
    };
    // 'close', not 'exit': the lines it wrote before exiting are all read by then.
    child.once('close', (code, signal) => end(signal ? `was killed by ${signal}` : `exited with code ${code}`));
    child.once('error', (error) => end(`could not start: ${error.message}`));
  });
  const listeners: ((line: string) => void)[] = [];
  const deliver = (line: string) => {
    for (const listener of listeners) listener(line);
  };
  const splitter = new LineSplitter(deliver, undefined, (_bytes, prefix) => deliver(prefix));
  child.stdout.on('data', (chunk: Buffer) => splitter.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => options.stderr?.(chunk.toString('utf8')));
  // An agent that died takes no more input: writes after that are dropped, the missing answers time out.
  child.stdin.on('error', () => {});
  let closing: Promise<void> | undefined;
  return {
    write: (line) => {
      if (child.stdin.writable) child.stdin.write(`${line}\n`);
    },
    onLine: (listener) => listeners.push(listener),
    onExit: (listener) => exitListeners.push(listener),
    close: () => {
      closing ??= (async () => {
        child.stdin.end();
        if (await settles(exited, EXIT_GRACE_MS)) return;
        child.kill('SIGTERM');
        if (await settles(exited, EXIT_GRACE_MS)) return;
        child.kill('SIGKILL');
        await exited;
      })();
      return closing;
    },
  };
}

async function settles(promise: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const result = await Promise.race([promise.then(() => true), timeout]);
  clearTimeout(timer);
  return result;
}
