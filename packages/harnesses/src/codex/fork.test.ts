// spec.resume.fork opens the thread with thread/fork (Codex 0.171.0's wire): the source thread id,
// the spec's overrides (cwd, posture, model, MCP servers), and no turns hydrated.
import { expect, it } from 'vitest';
import { threadForkParams } from './thread-params.js';

it('forks with the source thread and the spec overrides', () => {
  const params = threadForkParams(
    {
      cwd: '/w',
      model: 'gpt-5',
      resume: { nativeSessionId: 'thr_1', fork: true },
      mcpServers: [{ name: 'notes', transport: 'stdio', command: 'node', args: ['notes.mjs'] }],
    },
    'thr_1',
  );
  expect(params).toMatchObject({ threadId: 'thr_1', cwd: '/w', model: 'gpt-5', excludeTurns: true });
  expect(params.config).toEqual({ mcp_servers: { notes: expect.objectContaining({ command: 'node' }) } });
});

it('every other adapter that checks its spec refuses a fork it cannot do', async () => {
  const { acceptSessionSpec } = await import('../runtime/chassis/index.js');
  const support = {
    model: true,
    effort: true,
    resume: true,
    postures: ['bypass'] as const,
    ephemeral: true,
    allowedTools: true,
    systemPrompt: true,
    mcpServers: true,
  };
  const spec = { cwd: process.cwd(), resume: { nativeSessionId: 'x', fork: true } };
  expect(() => acceptSessionSpec(spec, support, { id: 'pi', displayName: 'Pi' })).toThrow(/cannot fork/);
  expect(acceptSessionSpec(spec, { ...support, fork: true }, { id: 'codex', displayName: 'Codex' }).resume).toEqual({
    nativeSessionId: 'x',
    fork: true,
  });
});
