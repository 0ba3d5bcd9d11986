// Commands that run real harness CLIs (demo, conformance) do it only inside a loopback-only network
// namespace: outside one, they re-run themselves through the testkit's hermetic launcher, which
// refuses (exit 3, with the reason) where no namespace can be made.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { isHermetic } from '@reins/testkit';
import { type CliIo, EXIT } from './io.js';

function hermeticLauncher(): string {
  return fileURLToPath(new URL('../bin/hermetic.mjs', import.meta.resolve('@reins/testkit')));
}

/** undefined inside the namespace (go on); else the exit code of the same command re-run inside one. */
export async function runHermetically(command: string, argv: string[], io: CliIo): Promise<number | undefined> {
  if (await isHermetic()) return undefined;
  const result = spawnSync(
    process.execPath,
    [hermeticLauncher(), '--', process.execPath, process.argv[1] ?? '', command, ...argv],
    { stdio: 'inherit', env: io.env },
  );
  return result.status ?? EXIT.failed;
}
