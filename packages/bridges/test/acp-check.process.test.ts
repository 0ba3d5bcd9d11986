// Process level: `reins acp-check` (a real subprocess) judging `reins bridge acp -H claude-code` in front
// of the FAKE Claude Code (recorded 2.1.197 transcripts), in ACP v1 and v2. The fake's second user
// message stays silent until interrupted (FAKE_CLAUDE_SILENT_TURN=2), so acp-check's cancel races a
// running turn. The JSON report is read back: CONFORMANT, every MANDATORY requirement passed.
import { spawn } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { FAKES, HARNESS_FIXTURES, REINS } from './support/processes.js';

const FAKE_CLAUDE = join(FAKES, 'claude-stream-json.mjs');

let workdir: string;
beforeAll(async () => {
  workdir = await mkdtemp(join(tmpdir(), 'reins-acp-check-'));
  await chmod(FAKE_CLAUDE, 0o755);
  return () => rm(workdir, { recursive: true, force: true });
});

function reins(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [REINS, ...args], {
    // Only what the check needs: no credentials of the machine reach the bridge or the fake.
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
    cwd: workdir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('exit', (code) => resolve({ code, stdout, stderr })),
  );
}

type Report = {
  verdict: string;
  protocol: { negotiated?: number };
  results: { id: string; tier: string; status: string }[];
};

describe.each([1, 2])('reins acp-check --protocol %i -- reins bridge acp -H claude-code (fake)', (protocol) => {
  it('is CONFORMANT: every MANDATORY requirement passes, and the JSON report says so', async () => {
    const json = join(workdir, `report-v${protocol}.json`);
    const bridge = [process.execPath, REINS, 'bridge', 'acp', '-H', 'claude-code', '--binary', FAKE_CLAUDE];
    const run = await reins(['acp-check', '--protocol', String(protocol), '--json', json, '--', ...bridge], {
      FAKE_CLAUDE_FIXTURE: join(HARNESS_FIXTURES, 'claude-code', 'fixtures', 'text-turn.2.1.197.jsonl'),
      FAKE_CLAUDE_SILENT_TURN: '2',
      // The fake runs as root here; Claude Code's bypass posture wants to be told it is in a sandbox.
      IS_SANDBOX: '1',
      REINS_HOME: join(workdir, `home-v${protocol}`),
    });
    const report = JSON.parse(await readFile(json, 'utf8')) as Report;
    const failed = report.results.filter((result) => result.status === 'fail');
    expect(failed, run.stdout).toEqual([]);
    expect(report.verdict).toBe('CONFORMANT');
    expect(report.protocol.negotiated).toBe(protocol);
    const status = Object.fromEntries(report.results.map((result) => [result.id, result.status]));
    expect(status).toMatchObject({ 'prompt-turn': 'pass', cancel: 'pass', 'session-resume': 'pass' });
    expect(status['session-load']).toBe(protocol === 1 ? 'pass' : 'skip');
    expect(status['v2-lifecycle']).toBe(protocol === 1 ? 'skip' : 'pass');
    expect(run.stdout).toMatch(/Verdict: CONFORMANT/);
    expect(run.code).toBe(0);
  }, 120_000);
});

describe('reins acp-check usage', () => {
  it('--help names the tiers and the verdict and fits a 110-column terminal (examples aside)', async () => {
    const run = await reins(['acp-check', '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/MANDATORY[\s\S]*CAPABILITY[\s\S]*ADVISORY/);
    expect(run.stdout).toMatch(/NOT CONFORMANT/);
    const body = run.stdout.split('\nExample')[0] ?? '';
    for (const line of body.split('\n')) expect(line.length, line).toBeLessThanOrEqual(110);
  });

  it('without an agent command after "--": exit 2 with a sentence saying what is missing', async () => {
    const run = await reins(['acp-check', '--protocol', '1']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/acp-check needs the agent command after "--"/);
  });

  it('an unknown protocol version: exit 2 naming the versions it takes', async () => {
    const run = await reins(['acp-check', '--protocol', '3', '--', 'true']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--protocol takes 1 or 2/);
  });
});
