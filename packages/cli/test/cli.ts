// Runs the BUILT reins CLI as a subprocess (tests exercise the real bin, not its functions).
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const REINS_BIN = fileURLToPath(new URL('../bin/reins.js', import.meta.url));
const BUILT = fileURLToPath(new URL('../dist/bin.js', import.meta.url));

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunningCli {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Resolves when stdout contains the text (deadline in ms). */
  waitForOutput(text: string | RegExp, timeoutMs?: number): Promise<void>;
  done: Promise<CliResult>;
}

export function startCli(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; input?: string /** default: this Node */; node?: string } = {},
): RunningCli {
  if (!existsSync(BUILT)) throw new Error(`The CLI is not built (${BUILT}); run npm run build first.`);
  const child = spawn(options.node ?? process.execPath, [REINS_BIN, ...args], {
    env: options.env ?? process.env,
    cwd: options.cwd ?? process.cwd(),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const listeners = new Set<() => void>();
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
    for (const listener of listeners) listener();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  if (options.input !== undefined) child.stdin?.end(options.input);
  const done = new Promise<CliResult>((resolve) =>
    child.on('exit', (code, signal) => setTimeout(() => resolve({ code, signal, stdout, stderr }), 20)),
  );
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    done,
    waitForOutput(text, timeoutMs = 60_000) {
      const matches = () => (typeof text === 'string' ? stdout.includes(text) : text.test(stdout));
      if (matches()) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(
            new Error(`CLI output never showed ${text} within ${timeoutMs} ms.\nstdout: ${stdout}\nstderr: ${stderr}`),
          );
        }, timeoutMs);
        const check = () => {
          if (!matches()) return;
          clearTimeout(timer);
          listeners.delete(check);
          resolve();
        };
        listeners.add(check);
      });
    },
  };
}

export async function runCli(args: string[], options: Parameters<typeof startCli>[1] & { timeoutMs?: number } = {}) {
  const running = startCli(args, options);
  const timer = setTimeout(() => running.child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
  const result = await running.done;
  clearTimeout(timer);
  return result;
}
