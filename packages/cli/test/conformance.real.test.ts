// `reins conformance` on the user's installed binary, then `reins doctor`: observed capabilities
// appear only after the suite ran for that exact binary (the turn behaviours, and mcpStatus, fork and
// history from theirs).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertHermetic, harnessBinary } from '@reins/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './cli.js';

let reinsHome: string;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  await assertHermetic();
  reinsHome = await mkdtemp(join(tmpdir(), 'reins-home-'));
  const codex = harnessBinary('codex');
  env = {
    PATH: '/usr/bin:/bin',
    HOME: reinsHome,
    REINS_HOME: reinsHome,
    REINS_CODEX_BIN: codex.command,
    SHELL: '/bin/false',
  };
});
afterAll(async () => {
  await rm(reinsHome, { recursive: true, force: true });
});

interface DoctorCapability {
  observed: { state: string };
}
async function codexObserved(): Promise<Record<string, string>> {
  const doctor = await runCli(['doctor', '--json', 'codex'], { env, timeoutMs: 120_000 });
  const report = JSON.parse(doctor.stdout) as {
    harnesses: { id: string; capabilities?: Record<string, DoctorCapability> }[];
  };
  const codex = report.harnesses.find((h) => h.id === 'codex');
  return Object.fromEntries(
    Object.entries(codex?.capabilities ?? {}).map(([key, value]) => [key, value.observed.state]),
  );
}

describe('reins conformance -H codex', () => {
  it('records evidence that doctor then shows as observed, only for what ran', async () => {
    const before = await codexObserved();
    expect(before.interrupt).toBe('unknown');

    const result = await runCli(['conformance', '-H', 'codex', '--only', 'text turn,interrupt', '--json'], {
      env,
      timeoutMs: 240_000,
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.filter((line) => line.status === 'passed').map((line) => line.behaviour)).toEqual([
      'text turn',
      'interrupt',
    ]);
    expect(lines.at(-1)).toMatchObject({ harness: 'codex', summary: { passed: 2, failed: 0 } });

    const after = await codexObserved();
    expect(after.interrupt).toBe('yes');
    expect(after.tokenDeltas).toBe('yes');
    expect(after.resume).toBe('unknown');
  });

  it('records mcpStatus, fork, sessionList and history as observed after their behaviours pass', async () => {
    const before = await codexObserved();
    expect([before.mcpStatus, before.fork, before.history]).toEqual(['unknown', 'unknown', 'unknown']);
    const result = await runCli(['conformance', '-H', 'codex', '--only', 'mcp server status,fork,history', '--json'], {
      env,
      timeoutMs: 240_000,
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const summary = JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '{}') as { summary?: unknown };
    expect(summary.summary).toMatchObject({ passed: 3, failed: 0, evidence: { records: 4 } });
    const after = await codexObserved();
    expect([after.mcpStatus, after.fork, after.sessionList, after.history]).toEqual(['yes', 'yes', 'yes', 'yes']);
  });

  it('prints a failing behaviour with its reason and exits 1', async () => {
    // A binary that is not Codex: every behaviour fails, with the reason shown.
    const fake = join(reinsHome, 'codex');
    await import('node:fs/promises').then((fs) =>
      fs.writeFile(fake, '#!/bin/sh\nif [ "$1" = "--version" ]; then echo "codex-cli 9.9.9"; exit 0; fi\nexit 3\n', {
        mode: 0o755,
      }),
    );
    const result = await runCli(['conformance', '-H', 'codex', '--only', 'text turn'], {
      env: { ...env, REINS_CODEX_BIN: fake },
      timeoutMs: 120_000,
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/✗ text turn .*— /);
    expect(result.stdout).toMatch(/0 passed, 1 failed/);
  });
});
