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
