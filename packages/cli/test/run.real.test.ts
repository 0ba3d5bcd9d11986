// `reins run` as a subprocess against the real pinned Codex and Claude Code CLIs, hermetically.
import type { ReinsEvent } from '@reins/core';
import { assertHermetic, assertStreamInvariants, type ModelServer, reply, startModelServer } from '@reins/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startCli } from './cli.js';
import { type UserEnv, userEnvFor } from './harness-env.js';

let server: ModelServer;
beforeAll(async () => {
  await assertHermetic();
  server = await startModelServer();
});
afterAll(async () => {
  await server?.close();
});

const parse = (stdout: string): ReinsEvent[] =>
  stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as ReinsEvent);

for (const id of ['codex', 'claude-code'] as const) {
  describe(`reins run -H ${id}`, () => {
    let user: UserEnv;
    afterEach(async () => {
      server.reset();
      await user?.temp.cleanup();
    });

    it('--json prints exactly the core events, one per line, and exits 0', async () => {
      user = await userEnvFor(id, server);
      server.enqueue(reply().text('Hello from the CLI test.'));
      const result = await runCli(['run', '-H', id, '--json', '-C', user.workdir, 'Say hello'], {
        env: user.env,
        timeoutMs: 120_000,
      });
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      const events = parse(result.stdout);
      assertStreamInvariants(events);
      expect(events[0]?.type).toBe('session.started');
      expect(events.at(-1)?.type).toBe('session.closed');
      const text = events.flatMap((e) =>
        e.type === 'item.completed' && e.item.kind === 'agent_message' ? [e.item.text] : [],
      );
      expect(text.join('')).toContain('Hello from the CLI test.');
      expect(events.filter((e) => e.type === 'turn.completed')).toHaveLength(1);
    });

    it('human output shows the tool line and the resume hint', async () => {
      user = await userEnvFor(id, server);
      server.enqueue(reply().shell('echo cli-tool-ok'), reply().text('Ran it.'));
      const result = await runCli(['run', '-H', id, '-C', user.workdir, 'Run the tool'], {
        env: user.env,
        timeoutMs: 120_000,
      });
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/▸ command \S+ .*completed exit 0/);
      expect(result.stdout).toContain('Ran it.');
      expect(result.stdout).toMatch(/✓ completed/);
      expect(result.stdout).toMatch(new RegExp(`resume: reins run -H ${id} --resume \\S+`));
      // No colors when stdout is not a TTY.
      expect(result.stdout).not.toContain('\x1b[');
    });

    it('SIGINT mid-turn interrupts cleanly: cancelled outcome and exit 130', async () => {
      user = await userEnvFor(id, server);
      server.enqueue(reply().text('Thinking about it').stall());
      const cli = startCli(['run', '-H', id, '--json', '-C', user.workdir, 'Take your time'], { env: user.env });
      await server.waitForRequests(1, { timeoutMs: 60_000 });
      await cli.waitForOutput('"turn.started"');
      cli.child.kill('SIGINT');
      const result = await cli.done;
      expect(result.code).toBe(130);
      const terminal = parse(result.stdout).find((e) => e.type === 'turn.completed');
      expect(terminal?.type === 'turn.completed' && terminal.outcome.status).toBe('cancelled');
      expect(result.stderr).toMatch(/interrupting/);
    });
  });
}
