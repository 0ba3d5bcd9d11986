// Process level: real children, no harness. Proves the group kill, the close ladder and exit reporting.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { isProcessAlive } from '@reins/testkit';
import { describe, expect, it } from 'vitest';
import { HarnessProcess, liveProcessCount } from './child-process.js';

const node = process.execPath;
const spawnNode = (script: string, label = 'test child') =>
  HarnessProcess.start({
    command: node,
    args: ['-e', script],
    cwd: process.cwd(),
    env: { PATH: process.env.PATH },
    label,
  });

describe('HarnessProcess', () => {
  it('a line handler that throws stops only that child, says why, and never reaches the Reins process', async () => {
    const child = await spawnNode(`console.log('boom'); setInterval(() => console.log('tick'), 50);`);
    const faults: string[] = [];
    child.onFault((fault) => faults.push(fault.kind));
    child.onLine(() => {
      throw new TypeError("Cannot read properties of undefined (reading 'type')");
    });
    await child.exited;
    expect(faults).toEqual(['handler_error']);
    expect(child.describeExit()).toMatch(/could not handle a line from test child .*reading 'type'.*stopped it/);
  });

  it('skips an over-long stdout line whole and reports it; the next line arrives intact', async () => {
    const child = await spawnNode(
      `process.stdout.write('x'.repeat(${64 * 1024 * 1024 + 10}) + '\\nafter\\n', () => process.exit(0));`,
    );
    const faults: unknown[] = [];
    const lines: string[] = [];
    child.onFault((fault) => faults.push(fault));
    child.onLine((line) => lines.push(line));
    await child.outputEnded;
    expect(faults).toEqual([{ kind: 'oversize_line', bytes: 64 * 1024 * 1024 + 10 }]);
    expect(lines).toEqual(['after']);
  });

  it('streams stdout lines and writes stdin lines', async () => {
    const child = await spawnNode(
      `process.stdin.on('data', d => process.stdout.write('echo:' + d)); process.stdin.on('end', () => process.exit(0));`,
    );
    const line = new Promise<string>((resolve) => child.onLine(resolve));
    child.writeLine('hello');
    expect(await line).toBe('echo:hello');
    const exit = await child.close();
    expect(exit).toEqual({ code: 0, signal: null });
  });

  it('ends the whole process group on close, grandchildren included, via SIGTERM when stdin end is ignored', async () => {
    const child = await spawnNode(
      `const { spawn } = require('node:child_process');
       const g = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
       console.log(String(g.pid));
       process.stdin.resume();
       process.stdin.on('end', () => {});
       setInterval(() => {}, 1000);`,
    );
    const grandchild = await new Promise<number>((resolve) => child.onLine((line) => resolve(Number(line))));
    expect(isProcessAlive(grandchild)).toBe(true);
    const exit = await child.close({ stdinGraceMs: 100, termGraceMs: 2000 });
    expect(exit.signal).toBe('SIGTERM');
    // Signals land asynchronously; give a loaded machine a few seconds before calling it a survivor.
    const deadline = Date.now() + 5000;
    while (isProcessAlive(grandchild) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(isProcessAlive(grandchild)).toBe(false);
    expect(liveProcessCount()).toBe(0);
  });

  it('escalates to SIGKILL when SIGTERM is ignored', async () => {
    const child = await spawnNode(
      `process.on('SIGTERM', () => {}); process.stdin.resume(); console.log('ready'); setInterval(() => {}, 1000);`,
    );
    await new Promise<void>((resolve) => child.onLine(() => resolve()));
    const exit = await child.close({ stdinGraceMs: 50, termGraceMs: 200 });
    expect(exit.signal).toBe('SIGKILL');
  });

  it('reports a crash with the exit code and the stderr tail', async () => {
    const child = await spawnNode(`console.error('fatal: config broken'); process.exit(3);`, 'fake harness');
    const exit = await child.exited;
    expect(exit.code).toBe(3);
    expect(child.describeExit()).toMatch(/fake harness exited with code 3[\s\S]*fatal: config broken/);
    expect(child.writeLine('late')).toBe(false);
  });

  it('fails to start a missing binary with binary_not_found', async () => {
    await expect(
      HarnessProcess.start({ command: '/nonexistent/harness', args: [], cwd: process.cwd(), env: {}, label: 'ghost' }),
    ).rejects.toMatchObject({ code: 'binary_not_found', message: expect.stringMatching(/Could not start ghost/) });
  });

  it('kills live children when the parent process exits', async () => {
    // A parent that starts a long-lived child through HarnessProcess and exits without closing it.
    // Runs the built module (npm test builds first) in a separate Node process.
    const built = new URL('../../dist/runtime/child-process.js', import.meta.url).pathname;
    expect(existsSync(built), `build first (npm run build): ${built}`).toBe(true);
    const script = `
      import('${built}').then(async ({ HarnessProcess }) => {
        const c = await HarnessProcess.start({ command: process.execPath, args: ['-e', 'setInterval(()=>{},1000)'], cwd: '/', env: {}, label: 'x' });
        console.log(c.pid);
        process.exit(0);
      });`;
    const out = execFileSync(node, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    const pid = Number(out.trim());
    expect(pid).toBeGreaterThan(0);
    // The kill is sent as the parent exits; the child's death follows a few milliseconds later.
    await expect.poll(() => isProcessAlive(pid), { timeout: 10_000, interval: 20 }).toBe(false);
  });
});
