// A child started before Reins loaded (prestartHarness in packages/cli/bin/reins.js) is handed to the
// first launch with exactly its settings, runs like any other child from there, reports a failed start
// as a spawn here would, and is ended by discardPrestartedChild when nobody took it. A first line
// (Codex's initialize) is written once, by whoever spawned the child, and its answer is not lost when it
// comes before the reader is set.
import { type ChildProcess, spawn } from 'node:child_process';
import { isProcessAlive } from '@reins/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { discardPrestartedChild, HarnessProcess, type SpawnSpec } from './child-process.js';

const PRESTARTED = Symbol.for('reins.prestartedChild');
const ECHO = `process.stdin.on('data', (d) => process.stdout.write('echo ' + d)); console.log('up');`;

function specOf(args: string[], command = process.execPath): SpawnSpec {
  return { command, args, cwd: process.cwd(), env: { PATH: process.env.PATH }, label: 'test child', harness: 'codex' };
}

/** What bin/reins.js's prestartHarness leaves for the harness: the same spawn, and its record on the global. */
function prestart(spec: SpawnSpec): ChildProcess {
  const child = spawn(spec.command, spec.args, {
    cwd: spec.cwd,
    env: spec.env,
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  const record: Record<string, unknown> = { ...spec, child, spawned: false, claimed: false };
  if (spec.firstLine !== undefined) child.stdin?.write(`${spec.firstLine}\n`);
  // Its output waits in the pipes for the harness (a child that exits unread has it drained and dropped).
  for (const stream of [child.stdout, child.stderr]) stream?.on('readable', () => {});
  child.once('spawn', () => {
    record.spawned = true;
  });
  child.on('error', (error) => {
    if (!record.spawned) record.error ??= error;
  });
  (globalThis as Record<symbol, unknown>)[PRESTARTED] = record;
  return child;
}

afterEach(() => {
  discardPrestartedChild();
  delete (globalThis as Record<symbol, unknown>)[PRESTARTED];
});

describe('a first line', () => {
  it('is written as the child spawns, and what the child says before its reader is set waits for it', async () => {
    const child = await HarnessProcess.start({ ...specOf(['-e', ECHO]), firstLine: 'initialize' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const lines: string[] = [];
    child.onLine((line) => lines.push(line));
    child.writeLine('next');
    await expect.poll(() => lines).toEqual(['up', 'echo initialize', 'echo next']);
    await child.close();
  });
});

describe('a prestarted child', () => {
  it('is the process the first launch with its settings gets, with the output it wrote meanwhile', async () => {
    const spec = specOf(['-e', ECHO]);
    const early = prestart(spec);
    // Output written before the handover waits in the pipe for the new owner.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const child = await HarnessProcess.start(spec);
    expect(child.pid).toBe(early.pid);
    const lines: string[] = [];
    child.onLine((line) => lines.push(line));
    child.writeLine('hello');
    await expect.poll(() => lines).toEqual(['up', 'echo hello']);
    // Taken once only: the next launch spawns its own.
    const second = await HarnessProcess.start(spec);
    expect(second.pid).not.toBe(early.pid);
    await Promise.all([child.close(), second.close()]);
    expect(isProcessAlive(early.pid as number)).toBe(false);
  });

  it('is not handed to a launch with other settings, and discardPrestartedChild ends it', async () => {
    const spec = specOf(['-e', ECHO]);
    const early = prestart(spec);
    const other = await HarnessProcess.start({ ...spec, env: { ...spec.env, EXTRA: '1' } });
    const otherArgs = await HarnessProcess.start(specOf(['-e', `${ECHO} // other`]));
    expect([other.pid, otherArgs.pid]).not.toContain(early.pid);
    await Promise.all([other.close(), otherArgs.close()]);
    expect(isProcessAlive(early.pid as number)).toBe(true);
    const exited = new Promise((resolve) => early.once('exit', resolve));
    discardPrestartedChild();
    await exited;
    expect(isProcessAlive(early.pid as number)).toBe(false);
  });

  it('wrote the first line already: handed over only with the same line, which is not written again', async () => {
    const spec = { ...specOf(['-e', ECHO]), firstLine: 'initialize' };
    const early = prestart(spec);
    const other = await HarnessProcess.start({ ...spec, firstLine: 'another initialize' });
    expect(other.pid).not.toBe(early.pid);
    // The answer comes before the new owner reads: it waits for the reader.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const child = await HarnessProcess.start(spec);
    expect(child.pid).toBe(early.pid);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const lines: string[] = [];
    child.onLine((line) => lines.push(line));
    child.writeLine('next');
    await expect.poll(() => lines).toEqual(['up', 'echo initialize', 'echo next']);
    await Promise.all([child.close(), other.close()]);
  });

  it('that could not start fails its launch exactly as a spawn there would', async () => {
    const spec = specOf(['app-server'], '/nonexistent/reins-test/codex');
    const direct = await HarnessProcess.start(spec).catch((error: unknown) => error);
    prestart(spec);
    await new Promise((resolve) => setTimeout(resolve, 100)); // its 'error' has come
    const handed = HarnessProcess.launch(spec);
    const error = await handed.started.catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'binary_not_found', message: (direct as Error).message });
    expect(await handed.exited).toEqual({ code: null, signal: null });
  });

  it('that ended before the handover reports its exit', async () => {
    const spec = specOf(['-e', `console.error('gone early'); process.exit(3)`]);
    const early = prestart(spec);
    await new Promise((resolve) => early.once('exit', resolve));
    const child = await HarnessProcess.start(spec);
    expect(await child.exited).toEqual({ code: 3, signal: null });
    // Its stderr waited in the pipe: the exit is described with it at once, as for a child spawned here.
    expect(child.describeExit()).toMatch(/exited with code 3.*\n.*gone early/s);
  });
});
