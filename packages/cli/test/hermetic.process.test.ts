// A command that re-runs itself in the loopback-only namespace (demo, conformance) passes a
// SIGTERM, SIGHUP or SIGINT it gets on to the re-run command and exits with its status. Before, a
// SIGTERM to `reins demo` ended only the outer process and the demo went on with parent pid 1.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const SLEEPER = fileURLToPath(new URL('./fixtures/hermetic-sleeper.mjs', import.meta.url));

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reins-cli-hermetic-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('runHermetically', () => {
  for (const signal of ['SIGTERM', 'SIGHUP', 'SIGINT'] as const) {
    it(`passes ${signal} on to the re-run command, which stops; the outer one exits with its status`, async (context) => {
      const pidFile = join(dir, `${signal}.pid`);
      const outer = spawn(process.execPath, [SLEEPER], {
        env: { ...process.env, SLEEPER_PID_FILE: pidFile },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      outer.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString('utf8');
      });
      const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
        outer.on('exit', (code, signalName) => resolve({ code, signal: signalName })),
      );
      // Wait (bounded) for the re-run command inside the namespace to write its pid.
      for (let attempt = 0; attempt < 300 && !existsSync(pidFile) && outer.exitCode === null; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      if (!existsSync(pidFile)) {
        const result = await exited;
        // No namespace can be made here (the launcher refuses with exit 3 and says why), or this test
        // already runs inside one (nothing is re-run: exit 0).
        if (result.code === 3 || result.code === 0) return context.skip();
        throw new Error(`the re-run never started (exit ${result.code}): ${stderr}`);
      }
      const inner = Number(await readFile(pidFile, 'utf8'));
      expect(alive(inner)).toBe(true);
      outer.kill(signal);
      const result = await exited;
      expect(result.signal).toBeNull();
      expect(result.code).toBe(128 + { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 }[signal]);
      for (let attempt = 0; attempt < 100 && alive(inner); attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(alive(inner)).toBe(false);
    });
  }
});
