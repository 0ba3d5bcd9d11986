// Runs a short harness command (a catalog dump, a version probe) inside a loopback-only namespace: directly
// when this process already is in one, otherwise through bin/hermetic.mjs. Never on the open network.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { isHermetic } from '../hermetic/assert-hermetic.js';

const launcher = fileURLToPath(new URL('../../bin/hermetic.mjs', import.meta.url));

export interface HermeticRunResult {
  stdout: string;
  stderr: string;
}

export async function runHermetic(
  command: string,
  args: readonly string[],
  env: Record<string, string>,
  timeoutMs = 20_000,
): Promise<HermeticRunResult> {
  const inside = await isHermetic();
  const [file, fileArgs] = inside ? [command, [...args]] : [process.execPath, [launcher, '--', command, ...args]];
  return new Promise((resolve, reject) => {
    execFile(
      file,
      fileArgs,
      { env, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`${command} ${args.join(' ')} failed: ${error.message}\n${stderr}`));
        else resolve({ stdout, stderr });
      },
    );
  });
}
