// `reins demo` end to end: the built CLI runs the scripted session through the pinned Codex and
// Claude Code CLIs (already inside the namespace here, so it does not re-launch itself).
import { assertHermetic } from '@reins/testkit';
import { describe, expect, it } from 'vitest';
import { runCli } from './cli.js';

describe('reins demo', () => {
  it('runs the same scripted session through two harnesses and shows both lanes', async () => {
    await assertHermetic();
    const result = await runCli(['demo', '-H', 'codex,claude-code'], {
      timeoutMs: 240_000,
      env: { ...process.env, COLUMNS: '160' },
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/● codex 0\.169\.0\s+● claude-code 2\.1\.197/);
    expect(result.stdout.match(/NOTES\.md is on disk/g)).toHaveLength(2);
    expect(result.stdout.match(/▶ Run the tests\./g)).toHaveLength(2);
    expect(result.stdout).toMatch(/command exec_command completed exit 0/);
    expect(result.stdout).toMatch(/command Bash completed exit 0/);
    expect(result.stdout).toContain('All 2 harnesses gave the same normalized stream.');
  });

  it('--json prints the normalized events of every lane', async () => {
    const result = await runCli(['demo', '-H', 'codex', '--json'], { timeoutMs: 240_000 });
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
