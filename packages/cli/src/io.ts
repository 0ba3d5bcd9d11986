// What a command gets from the outside world, injectable so commands run in tests without a terminal.
import type { Readable, Writable } from 'node:stream';
import type { ErrorCode } from '@reins/core';

export interface CliIo {
  stdout: Writable & { isTTY?: boolean };
  stderr: Writable & { isTTY?: boolean };
  stdin: Readable & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  cwd: string;
}

export function processIo(): CliIo {
  return { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env, cwd: process.cwd() };
}

/** Colors only on a TTY, and never when NO_COLOR is set (no-color.org). */
export function wantsColor(io: CliIo): boolean {
  return Boolean(io.stdout.isTTY) && !io.env.NO_COLOR && io.env.TERM !== 'dumb';
}

/** Exit codes (stable: scripts depend on them). */
export const EXIT = { completed: 0, failed: 1, usage: 2, cancelled: 130 } as const;

/** Bad usage: printed with a hint and exit code 2 (`code` is what --json output names it). */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly hint?: string,
    readonly code: ErrorCode = 'invalid_input',
  ) {
    super(message);
  }
}
