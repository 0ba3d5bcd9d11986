// Process level: `reins acp-check` (a real subprocess) judging `reins bridge acp -H <id>` in front of the
// fake of every harness that has one (<id>/testing/fake.mjs), in ACP v1 and v2. Each fake holds the second turn open
// until cancelled (Claude Code FAKE_CLAUDE_SILENT_TURN, Codex FAKE_CODEX_HOLD_TURN, Pi FAKE_PI_HOLD_PROMPT,
// the generic ACP agent a waitForCancel step, the OpenClaw gateway the message "stall"), so acp-check's
// cancel races a running turn. The fake Amp cannot hold a turn open, so its cancel would race the turn's
// end: not here (docs/acp-matrix.md says why). The JSON report is read back: CONFORMANT, and each status is
// the bridge's row in docs/acp-matrix.md.
import { spawn } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fakeHarnessPath } from '@reins/testkit';
import { beforeAll, describe, expect, it } from 'vitest';
import { matrixRows, rowDifferences } from './support/acp-matrix.js';
import { HARNESS_FIXTURES, REINS } from './support/processes.js';

const fixture = (harness: string, name: string) => join(HARNESS_FIXTURES, harness, 'fixtures', name);

/** The generic fake ACP agent's script: a hello, a turn that waits for the cancel; sessions kept for load. */
const ACP_SCENARIO = JSON.stringify({
  agentCapabilities: { loadSession: true },
  replies: [
    { match: 'Count slowly', steps: [{ text: '1, ' }, { waitForCancel: true }] },
    { steps: [{ text: 'Hello.' }] },
  ],
});

interface Harness {
  id: string;
  fake: string;
  /** The fake's knobs; `{dir}` becomes a folder of this run. */
  env: Record<string, string>;
  /** More acp-check options. */
  check?: string[];
}

const HARNESSES: Harness[] = [
  {
    id: 'claude-code',
    fake: fakeHarnessPath('claude-code'),
    env: {
      FAKE_CLAUDE_FIXTURE: fixture('claude-code', 'text-turn.2.1.197.jsonl'),
      FAKE_CLAUDE_SILENT_TURN: '2',
      // The fake runs as root here; Claude Code's bypass posture wants to be told it is in a sandbox.
      IS_SANDBOX: '1',
    },
  },
  {
    id: 'codex',
    fake: fakeHarnessPath('codex'),
    env: { FAKE_CODEX_TRANSCRIPT: fixture('codex', 'resume.0.169.0.jsonl'), FAKE_CODEX_HOLD_TURN: '2' },
  },
  {
    id: 'pi',
    fake: fakeHarnessPath('pi'),
    env: { FAKE_PI_TRANSCRIPT: fixture('pi', 'text.0.73.1.jsonl'), FAKE_PI_HOLD_PROMPT: '2' },
  },
  // The fake gateway holds a turn open only for the message "stall".
  { id: 'openclaw', fake: fakeHarnessPath('openclaw'), env: {}, check: ['--cancel-prompt', 'stall'] },
  // Every ACP preset runs the same adapter; gemini stands for them before the generic fake agent.
  {
    id: 'gemini',
    fake: fakeHarnessPath('acp'),
    env: { FAKE_ACP_SCENARIO: ACP_SCENARIO, FAKE_ACP_STORE: '{dir}/acp-store' },
  },
];

let workdir: string;
beforeAll(async () => {
  workdir = await mkdtemp(join(tmpdir(), 'reins-acp-check-'));
  for (const harness of HARNESSES) await chmod(harness.fake, 0o755);
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
  results: { id: string; tier: string; status: string; detail: string }[];
};

const cases = HARNESSES.flatMap((harness) => [1, 2].map((protocol) => [harness.id, protocol, harness] as const));

describe.concurrent('reins acp-check -- reins bridge acp -H <id> before the fake of every harness', () => {
  it.each(cases)(
    '%s, ACP v%i: CONFORMANT, each requirement as the matrix says',
    async (id, protocol, harness) => {
      const dir = await mkdtemp(join(workdir, `${id}-v${protocol}-`));
      const json = join(dir, 'report.json');
      const bridge = [process.execPath, REINS, 'bridge', 'acp', '-H', id, '--binary', harness.fake];
      const env = Object.fromEntries(
        Object.entries(harness.env).map(([key, value]) => [key, value.replace('{dir}', dir)]),
      );
      const options = ['--protocol', String(protocol), '--json', json, ...(harness.check ?? [])];
      const run = await reins(['acp-check', ...options, '--', ...bridge], {
        ...env,
        REINS_HOME: join(dir, 'home'),
      });
      const report = JSON.parse(await readFile(json, 'utf8')) as Report;
      const mandatory = report.results.filter((result) => result.tier === 'MANDATORY' && result.status === 'fail');
      expect(mandatory, run.stdout).toEqual([]);
      expect(report.verdict).toBe('CONFORMANT');
      expect(report.protocol.negotiated).toBe(protocol);
      const measured = Object.fromEntries(report.results.map((r) => [r.id, r.status.charAt(0).toUpperCase()]));
      const row = matrixRows().get(`\`reins bridge acp -H ${id}\`|${protocol}`);
      expect(rowDifferences(row, report.verdict, measured), run.stdout).toEqual([]);
      expect(run.stdout).toMatch(/Verdict: CONFORMANT/);
      expect(run.code).toBe(0);
    },
    180_000,
  );
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
