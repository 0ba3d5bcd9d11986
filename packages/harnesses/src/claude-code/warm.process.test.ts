// Warm starts on the fake `claude` (harnesses/src/claude-code/testing/fake.mjs: it answers every control
// request, the prewarm's initialize and the claim included, and replays a text turn recorded from
// 2.1.197): spares are ordinary HarnessProcess children (counted in liveProcessCount), a session takes
// one and runs its turn on it, and closing it, warm(0), or warm(0) while spares are still starting
// leaves no process behind. The real CLI's claim (2.1.332) is in warm.real.test.ts.
import { chmod, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeTempHome, SessionRecorder, type TempHome } from '@reins/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { FAKE_CLAUDE, FIXTURES_DIR } from '../../test/support/claude-rig.js';
import { liveProcessCount } from '../runtime/index.js';
import { createClaudeCodeHarness } from './adapter.js';

let temp: TempHome;
beforeAll(async () => {
  temp = await makeTempHome('reins-cc-warm-');
  await chmod(FAKE_CLAUDE, 0o755);
});
afterAll(async () => {
  await temp.cleanup();
});
const harnesses: Array<ReturnType<typeof createClaudeCodeHarness>> = [];
afterEach(async () => {
  await Promise.all(harnesses.splice(0).map((made) => made.warm?.(0)));
  expect(liveProcessCount()).toBe(0);
});

function harness(knobs: Record<string, string> = {}) {
  const made = createClaudeCodeHarness({
    binaryPath: FAKE_CLAUDE,
    baseEnv: {
      PATH: process.env.PATH,
      HOME: temp.home,
      TMPDIR: temp.tmp,
      IS_SANDBOX: '1',
      FAKE_CLAUDE_FIXTURE: join(FIXTURES_DIR, 'text-turn.2.1.197.jsonl'),
      ...knobs,
    },
    requestTimeoutMs: 10_000,
  });
  harnesses.push(made);
  return made;
}

describe('claude-code warm starts on the fake CLI', () => {
  test('a session runs on the spare, the pool replaces it, and close + warm(0) leave no process', async () => {
    const argvFile = join(temp.dir, 'argv-claim.json');
    const made = harness({ FAKE_CLAUDE_ARGV_FILE: argvFile });
    await made.warm?.(1);
    expect(liveProcessCount()).toBe(1);
    const spareArgv = JSON.parse(await readFile(argvFile, 'utf8')) as string[];
    expect(spareArgv).toContain('--await-claim');

    const session = await made.createSession({ cwd: temp.dir });
    const recorder = new SessionRecorder(session, 10_000);
    // The session is the spare's: it runs under the --session-id the spare was started with.
    expect(spareArgv).toContain(`--session-id=${session.nativeSessionId}`);
    // The replacement starts beside it.
    await expect.poll(() => liveProcessCount(), { timeout: 10_000 }).toBe(2);
    const turn = await session.send('Say hello');
    expect((await recorder.terminalOf(turn)).outcome).toEqual({ status: 'completed' });
    expect(recorder.ofType('item.delta').length).toBeGreaterThan(0);
    await recorder.close();
    expect(liveProcessCount()).toBe(1);
    await made.warm?.(0);
    expect(liveProcessCount()).toBe(0);
  });

  test('warm(0) while spares are still starting stops them too', async () => {
    const made = harness({ FAKE_CLAUDE_SLOW_START_MS: '500' });
    const starting = made.warm?.(2);
    await expect.poll(() => liveProcessCount(), { timeout: 10_000 }).toBe(2);
    await made.warm?.(0);
    await starting?.catch(() => {});
    await expect.poll(() => liveProcessCount(), { timeout: 10_000 }).toBe(0);
  });

  test('a session whose spec does not fit a claim starts cold and leaves the spare parked', async () => {
    const made = harness();
    await made.warm?.(1);
    const session = await made.createSession({ cwd: temp.dir, ephemeral: true });
    const recorder = new SessionRecorder(session, 10_000);
    // The spare still waits; the session has a process of its own.
    expect(liveProcessCount()).toBe(2);
    const turn = await session.send('Say hello');
    expect((await recorder.terminalOf(turn)).outcome).toEqual({ status: 'completed' });
    await recorder.close();
    expect(liveProcessCount()).toBe(1);
  });

  test('warm refuses a count that is not a whole number', async () => {
    await expect(harness().warm?.(-1)).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(harness().warm?.(1.5)).rejects.toMatchObject({ code: 'invalid_input' });
  });
});
