// Real tier: `reins acp-check`'s run against the pinned claude-agent-acp (current pin) in ACP v1, on the
// scripted model server inside the loopback-only namespace. The second prompt's reply stalls, so the
// cancel requirement races a running turn. Its result is the claude-agent-acp row of docs/acp-matrix.md.
import { assertHermetic, harnessLaunch, type ModelServer, makeTempHome, reply, startModelServer } from '@reins/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAcpCheck } from '../src/acp-check/run.js';
import { stdioAgent } from '../src/acp-check/stdio.js';

let server: ModelServer;
beforeAll(async () => {
  await assertHermetic();
  server = await startModelServer();
});
afterAll(async () => {
  await server?.close();
});

describe('reins acp-check against the pinned claude-agent-acp', () => {
  it('v1: CONFORMANT, every MANDATORY requirement passes', async () => {
    const temp = await makeTempHome('reins-acp-check-');
    try {
      const launch = await harnessLaunch('claude-agent-acp', { modelServerUrl: server.url, tempHome: temp });
      server.enqueue(reply().text('Hello.'));
      server.enqueue(reply().text('1, 2, 3').stall());
      const command = [launch.command, ...launch.args];
      const report = await runAcpCheck({
        start: () => stdioAgent({ command, cwd: temp.dir, env: launch.env }),
        command,
        protocol: 1,
        cwd: temp.dir,
        timeoutMs: 60_000,
      });
      const failed = report.results.filter((result) => result.status === 'fail');
      expect(
        failed.filter((result) => result.tier === 'MANDATORY'),
        JSON.stringify(report.results),
      ).toEqual([]);
      expect(report.verdict).toBe('CONFORMANT');
      expect(report.agent.version).toBe(launch.binary.version);
    } finally {
      await temp.cleanup();
    }
  }, 180_000);
});
