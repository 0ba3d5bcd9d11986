// `reins run` and `reins chat` told to stop from outside, on the fake Claude Code (which starts a
// `sleep` in its process group, like a tool a harness runs): SIGTERM and SIGHUP close the session
// and exit 143 / 129 with the whole harness process group gone; with stdin piped, chat's Ctrl-C
// (SIGINT) interrupts the running turn and the chat goes on. Before, each of these signals ended
// Node at once, without the runtime's exit hook, and the harness outlived the CLI.
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fakeHarnessPath } from '@reins/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startCli } from './cli.js';

const FAKE_CLAUDE = fakeHarnessPath('claude-code');
const LOGGING_FAKE = fileURLToPath(new URL('../../daemon/test/fixtures/logging-fake.mjs', import.meta.url));
const FIXTURE = fileURLToPath(
  new URL('../../harnesses/src/claude-code/fixtures/text-turn.2.1.197.jsonl', import.meta.url),
);

let home: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'reins-cli-signals-'));
  await mkdir(join(home, 'user'));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    REINS_HOME: join(home, 'reins'),
    HOME: join(home, 'user'),
    TMPDIR: join(home, 'user'),
    IS_SANDBOX: '1',
    REINS_CLAUDE_CODE_BIN: LOGGING_FAKE,
    FAKE_TARGET: FAKE_CLAUDE,
    FAKE_CLAUDE_FIXTURE: FIXTURE,
    FAKE_GRANDCHILD_PIDS: join(home, 'grandchildren.pids'),
    ...extra,
  };
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** The `sleep` pids the fake started in its process group (one per harness start). */
async function grandchildren(): Promise<number[]> {
  const text = await readFile(join(home, 'grandchildren.pids'), 'utf8');
  return text
    .trim()
    .split('\n')
    .map((line) => Number(line));
}

/** Waits (bounded) until none of the pids runs; returns the ones still running. */
async function survivors(pids: number[]): Promise<number[]> {
  for (let attempt = 0; attempt < 100 && pids.some(alive); attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return pids.filter(alive);
}

describe('reins run stopped by a signal', () => {
  for (const [signal, code] of [
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const) {
    it(`${signal} during a turn closes the session: exit ${code}, no harness process left`, async () => {
      const cli = startCli(['run', '-H', 'claude-code', '--json', '-C', home, 'Take your time'], {
        env: env({ FAKE_CLAUDE_HANG: '1' }),
      });
      await cli.waitForOutput('"turn.started"');
      const pids = await grandchildren();
      expect(pids.length).toBeGreaterThan(0);
      expect(pids.every(alive)).toBe(true);
      cli.child.kill(signal);
      const result = await cli.done;
      expect(result.signal).toBeNull();
      expect(result.code).toBe(code);
      expect(result.stdout).toContain('"session.closed"');
      expect(await survivors(pids)).toEqual([]);
    });
  }
});

describe('reins chat with stdin piped', () => {
  it('SIGINT interrupts the running turn and the chat goes on; SIGTERM then ends it with no harness left', async () => {
    const cli = startCli(['chat', '-H', 'claude-code', '-C', home], {
      env: env({ FAKE_CLAUDE_SILENT_TURN: '1' }),
    });
    await cli.waitForOutput('/quit to leave');
    cli.child.stdin?.write('Take your time\n');
    const pids = await grandchildren();
    // The silent turn is running once the harness has it; Ctrl-C (SIGINT) interrupts only the turn.
    await new Promise((resolve) => setTimeout(resolve, 500));
    cli.child.kill('SIGINT');
    await cli.waitForOutput('■ cancelled');
    expect(cli.child.exitCode).toBeNull();
    cli.child.kill('SIGTERM');
    const result = await cli.done;
    expect(result.signal).toBeNull();
    expect(result.code).toBe(143);
    expect(await survivors(pids)).toEqual([]);
  });
});
