// Test support: wraps a fake harness executable so that the first stdin line matching a pattern (a turn's
// prompt) makes the wrapper write a file in the cwd before passing the line on: an edit the fake makes
// during the turn, as a harness's shell command would, for checkpoint tests on the process tier.
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const WRAPPER = `#!/usr/bin/env node
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
const { EDIT_TARGET, EDIT_MATCH, EDIT_FILE, EDIT_TEXT } = process.env;
const child = spawn(process.execPath, [EDIT_TARGET, ...process.argv.slice(2)], { stdio: ['pipe', 'inherit', 'inherit'] });
let edited = false;
createInterface({ input: process.stdin })
  .on('line', (line) => {
    if (!edited && line.includes(EDIT_MATCH)) {
      edited = true;
      writeFileSync(EDIT_FILE, EDIT_TEXT);
    }
    child.stdin.write(line + '\\n');
  })
  .on('close', () => child.stdin.end());
process.on('SIGTERM', () => child.kill('SIGTERM'));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
`;

export interface EditOnInput {
  /** The wrapper, to use as the harness's binaryPath. */
  binaryPath: string;
  /** Its environment: merge into the harness's baseEnv. */
  env: Record<string, string>;
}

/** Writes the wrapper into `dir`; `file` (absolute) gets `text` when a stdin line contains `match`. */
export async function editOnInput(
  dir: string,
  options: { target: string; match: string; file: string; text: string },
): Promise<EditOnInput> {
  const binaryPath = join(dir, 'edit-on-input.mjs');
  await writeFile(binaryPath, WRAPPER);
  await chmod(binaryPath, 0o755);
  const env = {
    EDIT_TARGET: options.target,
    EDIT_MATCH: options.match,
    EDIT_FILE: options.file,
    EDIT_TEXT: options.text,
  };
  return { binaryPath, env };
}
