// A session spec and a turn input as Codex's wire forms (pure).
import { describe, expect, it } from 'vitest';
import { assertCodexSpec, threadResumeParams, threadStartParams, toUserInput } from './thread-params.js';

describe('codex thread params', () => {
  it('a turn input becomes UserInput parts: file mentions in the text, a local image, a data URL', () => {
    expect(
      toUserInput({
        text: 'Look',
        files: [{ path: 'src/a.ts', lines: { start: 3, end: 9 } }, { path: 'README.md' }],
        images: [
          { source: 'path', path: '/tmp/shot.png' },
          { source: 'data', data: 'AAAA', mediaType: 'image/jpeg' },
        ],
      }),
    ).toEqual([
      { type: 'text', text: 'Look\n@src/a.ts:3-9\n@README.md', text_elements: [] },
      { type: 'localImage', path: '/tmp/shot.png' },
      { type: 'image', url: 'data:image/jpeg;base64,AAAA' },
    ]);
    expect(() => toUserInput({ text: 'x', images: [{ source: 'path' }] })).toThrow(
      expect.objectContaining({ code: 'invalid_input' }),
    );
  });

  it('thread/start takes ephemeral; thread/resume takes the rest but not ephemeral, and excludes past turns', () => {
    const spec = { cwd: '/w', model: 'm', ephemeral: true, posture: 'bypass' as const };
    expect(threadStartParams(spec)).toEqual({
      cwd: '/w',
      model: 'm',
      approvalPolicy: 'never',
      sandbox: 'danger-full-access',
      ephemeral: true,
    });
    const { ephemeral: _e, ...resumable } = spec;
    expect(threadResumeParams(resumable, 'thr_1')).toEqual({
      threadId: 'thr_1',
      cwd: '/w',
      model: 'm',
      approvalPolicy: 'never',
      sandbox: 'danger-full-access',
      excludeTurns: true,
    });
    expect(() => assertCodexSpec({ cwd: '/w', ephemeral: true, resume: { nativeSessionId: 'thr_1' } })).toThrow(
      expect.objectContaining({ code: 'unsupported_capability', data: { field: 'ephemeral' } }),
    );
  });

  it("posture workspace: Codex's own workspace-write sandbox, never asking, the tools' network off", () => {
    const mcp = { name: 'm', transport: 'http' as const, url: 'http://127.0.0.1:1/mcp' };
    expect(threadStartParams({ cwd: '/w', posture: 'workspace', mcpServers: [mcp] })).toEqual({
      cwd: '/w',
      approvalPolicy: 'never',
      sandbox: 'workspace-write',
      config: {
        mcp_servers: { m: { url: 'http://127.0.0.1:1/mcp' } },
        sandbox_workspace_write: { network_access: false },
      },
    });
    expect(threadResumeParams({ cwd: '/w', posture: 'workspace' }, 'thr_1')).toMatchObject({
      sandbox: 'workspace-write',
      config: { sandbox_workspace_write: { network_access: false } },
    });
    expect(threadStartParams({ cwd: '/w', posture: 'ask' })).not.toHaveProperty('config');
  });
});
