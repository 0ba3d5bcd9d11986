// `reins demo` and `reins conformance` inside the namespace (their re-run) stopped by a signal, on the
// fake Claude Code hanging mid-turn (fixtures/stoppable-lanes.mjs): SIGINT, SIGTERM and SIGHUP close the
// sessions — the harness's process group, the `sleep` it started included, is gone — remove the
// `reins-demo-*` / `reins-conformance-*` folders, and exit 130 / 143 / 129. Before, Node died at once:
// the harness lived on until its stdin closed, its tool's `sleep` with parent pid 1, and the folders stayed.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const RUNNER = fileURLToPath(new URL('./fixtures/stoppable-lanes.mjs', import.meta.url));
const BUILT = fileURLToPath(new URL('../dist/commands/conformance-cleanup.js', import.meta.url));

let dir: string;
beforeEach(async () => {
  if (!existsSync(BUILT)) throw new Error(`The CLI is not built (${BUILT} is missing): run \`npx tsc -b\` first.`);
  dir = await mkdtemp(join(tmpdir(), 'reins-cli-stop-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Running: it exists and is not a zombie (a killed orphan waits for pid 1 to reap it; it runs nothing). */
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

const pause = () => new Promise((resolve) => setTimeout(resolve, 100));

/** The pids of the `sleep`s the fake harness started (one per harness start), once there is one (bounded wait). */
async function grandchildren(file: string, running: () => boolean): Promise<number[]> {
  for (let attempt = 0; attempt < 300 && running(); attempt++) {
    const text = existsSync(file) ? await readFile(file, 'utf8') : '';
    if (text.trim()) return text.trim().split('\n').map(Number);
    await pause();
  }
  return [];
}

const CODES = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 } as const;

describe('reins demo and reins conformance stopped by a signal', () => {
  for (const [mode, prefix] of [
    ['demo', 'reins-demo-claude-code-'],
    ['conformance', 'reins-conformance-claude-code-'],
  ] as const) {
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
      it(`${mode}: ${signal} mid-turn closes the session, removes its folder, exits ${CODES[signal]}`, async () => {
        const pidFile = join(dir, 'grandchildren.pids');
        const child = spawn(process.execPath, [RUNNER, mode], {
          env: { ...process.env, TMPDIR: dir, FAKE_GRANDCHILD_PIDS: pidFile },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let output = '';
        const collect = (chunk: Buffer) => {
          output += chunk.toString('utf8');
        };
        child.stdout.on('data', collect);
        child.stderr.on('data', collect);
        const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
          child.on('exit', (code, signalName) => resolve({ code, signal: signalName })),
        );
        const pids = await grandchildren(pidFile, () => child.exitCode === null);
        expect(pids.length, output).toBeGreaterThan(0);
        expect(pids.every(alive)).toBe(true);
        const folders = (await readdir(dir)).filter((name) => name.startsWith(prefix));
        expect(folders.length, `the ${prefix}* folder while it runs`).toBe(1);

        child.kill(signal);
        expect(await exited, output).toEqual({ code: CODES[signal], signal: null });
        // Killed with the group as the command exits (a SIGKILL lands a few milliseconds later), not left running.
        await expect.poll(() => pids.filter(alive), { timeout: 10_000, interval: 20 }).toEqual([]);
        expect((await readdir(dir)).filter((name) => name.startsWith(prefix))).toEqual([]);
      });
    }
  }
});
