// `reins demo` end to end, as the README tells people to run it: `npx reins demo` from the checkout, through
// the CLI bin, every pinned lane (already inside the namespace here, so it does not re-launch itself).
// Versions come from the pins (harness-clis/), never from the test.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { assertHermetic, conformanceTargetIds, harnessBinary } from '@reins/testkit';
import { describe, expect, it } from 'vitest';
import { runCli } from './cli.js';

const CHECKOUT = fileURLToPath(new URL('../../../', import.meta.url));
/** Nine real CLIs, two at a time, three turns each (OpenClaw's gateway alone takes 15-19 s to open). */
const DEMO_DEADLINE_MS = 900_000;

function pinnedVersion(id: string): string {
  return harnessBinary(id as Parameters<typeof harnessBinary>[0]).version;
}

/** The README's command line, verbatim, in the checkout; its whole process group ends at the deadline. */
function readmeDemo(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn('npx', ['reins', 'demo'], {
    cwd: CHECKOUT,
    env: { ...process.env, COLUMNS: '200' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const timer = setTimeout(() => {
    if (child.pid) process.kill(-child.pid, 'SIGKILL');
  }, DEMO_DEADLINE_MS);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

describe('reins demo', () => {
  it(
    'npx reins demo (the README command) passes every pinned lane',
    async () => {
      await assertHermetic();
      const lanes = conformanceTargetIds();
      const result = await readmeDemo();
      expect(result.stderr).toBe('');
      expect(result.stdout).not.toMatch(/Not installed|Failed:/);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`Scripted session through ${lanes.join(', ')} `);
      for (const id of lanes) expect(result.stdout).toContain(`● ${id} ${pinnedVersion(id)}`);
      expect(result.stdout.match(/▶ Run the tests\./g)).toHaveLength(lanes.length);
      expect(result.stdout.match(/✓ completed/g)).toHaveLength(3 * lanes.length);
      // Each lane's stream checked against the script; a lane that differs elsewhere (replies, item kinds) is
      // named with what differed, never counted as "the same".
      expect(result.stdout.match(/✓ turn outcomes/g)).toHaveLength(lanes.length);
      expect(result.stdout.match(/✓ NOTES\.md on disk/g)).toHaveLength(lanes.length);
      const differed = /Differed: (.+)$/m.exec(result.stdout)?.[1]?.split(', ') ?? [];
      if (differed.length === 0)
        expect(result.stdout).toMatch(
          new RegExp(`All ${lanes.length} harnesses gave the same normalized stream \\(checked: `),
        );
      for (const id of differed) expect(result.stdout).toMatch(new RegExp(`^${id} \\S+ differed: `, 'm'));
    },
    DEMO_DEADLINE_MS + 60_000,
  );

  it('--json prints the normalized events of every lane', async () => {
    const result = await runCli(['demo', '-H', 'codex', '--json'], { timeoutMs: 240_000 });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const events = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; harness: string });
    expect(events.filter((event) => event.type === 'turn.completed')).toHaveLength(3);
    expect(new Set(events.map((event) => event.harness))).toEqual(new Set(['codex']));
  });

  it('rejects a harness it has no pinned CLI for', async () => {
    const result = await runCli(['demo', '-H', 'amp']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/no pinned CLI for amp/);
  });
});
