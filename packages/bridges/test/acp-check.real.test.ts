// Real tier: `reins acp-check` against every pinned ACP agent in harness-clis (current and previous pins;
// v1, and v2 where the agent serves it) on the scripted model server inside the loopback-only namespace,
// three agents at a time. A prompt asking to count stalls at the model, so cancel races a running turn.
// Each report must equal its row in docs/acp-matrix.md (verdict and every requirement's P/F/S): a verdict
// that changes fails here, so the matrix cannot go stale.
import {
  assertHermetic,
  type HarnessBinary,
  harnessLaunch,
  type ModelServer,
  makeTempHome,
  previousHarnessBinary,
  reply,
  startModelServer,
} from '@reins/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AcpCheckReport, REQUIREMENTS } from '../src/acp-check/report.js';
import { runAcpCheck } from '../src/acp-check/run.js';
import { stdioAgent } from '../src/acp-check/stdio.js';
import { matrixHeader, matrixRows, rowDifferences } from './support/acp-matrix.js';

/** How many agents run at once: the machine has 2 cores, and each check starts the agent three times. */
const AT_ONCE = 3;

interface Case {
  id: 'claude-agent-acp' | 'codex-acp' | 'gemini' | 'qwen-code' | 'opencode' | 'copilot';
  previous?: boolean;
  protocol: 1 | 2;
  env?: Record<string, string>;
}

const CASES: Case[] = [
  { id: 'claude-agent-acp', protocol: 1 },
  // Under this variable 0.101.0 serves v2 only (docs/harnesses/acp.md).
  { id: 'claude-agent-acp', protocol: 2, env: { CLAUDE_AGENT_ACP_PROTOCOL: 'v2' } },
  { id: 'claude-agent-acp', previous: true, protocol: 1 },
  { id: 'codex-acp', protocol: 1 },
  { id: 'codex-acp', protocol: 2 },
  { id: 'codex-acp', previous: true, protocol: 1 },
  { id: 'gemini', protocol: 1 },
  { id: 'qwen-code', protocol: 1 },
  { id: 'opencode', protocol: 1 },
  { id: 'copilot', protocol: 1 },
];

type Outcome = { label: string; report: AcpCheckReport };

let server: ModelServer;
const outcomes = new Map<Case, Promise<Outcome>>();

beforeAll(async () => {
  await assertHermetic();
  server = await startModelServer();
  server.when(/Count slowly/, reply().text('1, 2, 3').stall(), { persistent: true });
  server.when(/Say hello/, reply().text('Hello.'), { persistent: true });
  const slot = slots(AT_ONCE);
  for (const entry of CASES) {
    const outcome = slot(() => check(entry));
    // Its test reports a failure; until that test awaits it, the rejection is not unhandled.
    outcome.catch(() => {});
    outcomes.set(entry, outcome);
  }
});
afterAll(async () => {
  await Promise.allSettled(outcomes.values());
  await server?.close();
});

async function check(entry: Case): Promise<Outcome> {
  const temp = await makeTempHome(`reins-acp-check-${entry.id}-`);
  try {
    const binary: HarnessBinary | undefined = entry.previous
      ? previousHarnessBinary(entry.id as 'claude-agent-acp' | 'codex-acp')
      : undefined;
    const launch = await harnessLaunch(entry.id, { modelServerUrl: server.url, tempHome: temp, binary });
    const command = [launch.command, ...launch.args];
    const env = { ...launch.env, ...entry.env };
    const report = await runAcpCheck({
      start: () => stdioAgent({ command, cwd: temp.dir, env }),
      command,
      protocol: entry.protocol,
      cwd: temp.dir,
      timeoutMs: 90_000,
    });
    const label = `${entry.id} ${launch.binary.version}${entry.previous ? ' (previous pin)' : ''}`;
    return { label, report };
  } finally {
    await temp.cleanup();
  }
}

describe('reins acp-check against every pinned ACP agent, as docs/acp-matrix.md says', () => {
  it('the matrix has a column for every requirement', () => {
    for (const requirement of REQUIREMENTS) expect(matrixHeader()).toContain(` ${requirement.id} `);
  });

  it.each(CASES.map((entry) => [`${entry.id}${entry.previous ? ' (previous pin)' : ''} v${entry.protocol}`, entry]))(
    '%s',
    async (_name, entry) => {
      const { label, report } = await (outcomes.get(entry as Case) as Promise<Outcome>);
      const measured = Object.fromEntries(report.results.map((r) => [r.id, r.status.charAt(0).toUpperCase()]));
      // The row as the matrix would print it, so a changed result can be copied in after a look.
      const printed = `| ${label} | ${report.date.slice(0, 10)} | ${report.protocol.requested} | ${report.verdict} | ${REQUIREMENTS.map((r) => measured[r.id]).join(' | ')} |`;
      const details = report.results.map((r) => `${r.id}: ${r.status} ${r.detail}`).join('\n');
      const row = matrixRows().get(`${label}|${report.protocol.requested}`);
      const differences = rowDifferences(row, report.verdict, measured);
      expect(differences, `"${label}" v${report.protocol.requested} measured:\n${printed}\n${details}`).toEqual([]);
    },
    600_000,
  );
});

/** Runs at most `count` of the functions given at once, in the order given. */
function slots(count: number): <T>(run: () => Promise<T>) => Promise<T> {
  let free = count;
  const waiting: (() => void)[] = [];
  return async (run) => {
    if (free === 0) await new Promise<void>((resolve) => waiting.push(resolve));
    else free -= 1;
    try {
      return await run();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else free += 1;
    }
  };
}
