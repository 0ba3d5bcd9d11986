// Process level: a warm pool of real children (plain node, no harness). Pooled processes are
// ordinary HarnessProcess children: they count in liveProcessCount while ready, a taken one is its
// holder's, and dispose leaves no process of the pool behind.
import { isProcessAlive } from '@reins/testkit';
import { describe, expect, it } from 'vitest';
import { HarnessProcess, liveProcessCount } from './child-process.js';
import { WarmPool } from './warm-pool.js';

/** A child that says "ready" once up and keeps running until its stdin ends. */
async function startChild(): Promise<HarnessProcess> {
  const child = await HarnessProcess.start({
    command: process.execPath,
    args: ['-e', `console.log('ready'); process.stdin.resume(); process.stdin.on('end', () => process.exit(0));`],
    cwd: process.cwd(),
    env: { PATH: process.env.PATH },
    label: 'warm child',
  });
  await new Promise<void>((resolve) => child.onLine(() => resolve()));
  return child;
}

describe('WarmPool with real children', () => {
  it('keeps N started, counts them as live, replaces a taken one, and dispose leaves none', async () => {
    const before = liveProcessCount();
    const pool = new WarmPool<HarnessProcess>({
      start: startChild,
      stop: async (child) => {
        await child.close({ stdinGraceMs: 500, termGraceMs: 500 });
      },
      ended: (child) => child.exited,
    });
    await pool.resize(2);
    expect(liveProcessCount() - before).toBe(2);
    const taken = pool.take() as HarnessProcess;
    expect(taken.hasExited).toBe(false);
    // The replacement is being started beside the taken one.
    await expect.poll(() => pool.readyCount, { timeout: 10_000 }).toBe(2);
    expect(liveProcessCount() - before).toBe(3);
    await pool.dispose();
    expect(liveProcessCount() - before).toBe(1);
    expect(isProcessAlive(taken.pid)).toBe(true);
    await taken.close();
    expect(liveProcessCount()).toBe(before);
    expect(isProcessAlive(taken.pid)).toBe(false);
  });

  it('a ready child killed from outside is dropped and replaced; dispose leaves none', async () => {
    const before = liveProcessCount();
    const started: HarnessProcess[] = [];
    const pool = new WarmPool<HarnessProcess>({
      start: async () => {
        const child = await startChild();
        started.push(child);
        return child;
      },
      stop: async (child) => {
        await child.close({ stdinGraceMs: 500, termGraceMs: 500 });
      },
      ended: (child) => child.exited,
    });
    await pool.resize(1);
    const victim = started[0] as HarnessProcess;
    victim.killGroup('SIGKILL');
    await victim.exited;
    await expect.poll(() => started.length, { timeout: 10_000 }).toBe(2);
    await expect.poll(() => pool.readyCount, { timeout: 10_000 }).toBe(1);
    const replacement = pool.take();
    expect(replacement).toBe(started[1]);
    expect(replacement).not.toBe(victim);
    await replacement?.close();
    await pool.dispose();
    expect(liveProcessCount()).toBe(before);
    for (const child of started) expect(isProcessAlive(child.pid)).toBe(false);
  });
});
