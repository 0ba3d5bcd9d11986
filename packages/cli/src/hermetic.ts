// Commands that run real harness CLIs (demo, conformance) do it only inside a loopback-only network
// namespace: outside one, they re-run themselves through the testkit's hermetic launcher, which
// refuses (exit 3, with the reason) where no namespace can be made.
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { fileURLToPath } from 'node:url';
import { isHermetic } from '@reins/testkit';
import { type CliIo, EXIT } from './io.js';

function hermeticLauncher(): string {
  return fileURLToPath(new URL('../bin/hermetic.mjs', import.meta.resolve('@reins/testkit')));
}

/** The signals a terminal, a supervisor or a timeout sends; each is passed on to the re-run command. */
const FORWARDED = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** undefined inside the namespace (go on); else the exit code of the same command re-run inside one. */
export async function runHermetically(command: string, argv: string[], io: CliIo): Promise<number | undefined> {
  if (await isHermetic()) return undefined;
  // The launcher gets a process group of its own, so a terminal's Ctrl-C reaches it once, from here
  // (it passes signals on to the command's group). Before, a SIGTERM to `reins demo` ended only this
  // process and the re-run demo went on to the end with parent pid 1.
  const child = spawn(
    process.execPath,
    [hermeticLauncher(), '--', process.execPath, process.argv[1] ?? '', command, ...argv],
    { stdio: 'inherit', env: io.env, detached: true },
  );
  const forward = (signal: NodeJS.Signals) => {
    try {
      child.kill(signal);
    } catch {
      // it has exited already
    }
  };
  for (const signal of FORWARDED) process.on(signal, forward);
  try {
    return await new Promise<number>((resolve) => {
      child.once('error', () => resolve(EXIT.failed));
      child.once('exit', (code, signal) =>
        resolve(code ?? (signal ? 128 + (constants.signals[signal] ?? 0) : EXIT.failed)),
      );
    });
  } finally {
    for (const signal of FORWARDED) process.off(signal, forward);
  }
}
