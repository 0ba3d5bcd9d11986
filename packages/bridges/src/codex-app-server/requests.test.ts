// What a Codex client asks for -> what a Reins session takes, and the params it cannot take refused
// with the field named.
import { describe, expect, it } from 'vitest';
import {
  approvalAnswerOf,
  approvalPolicyOf,
  checkToolsNetwork,
  checkTurnOverrides,
  effortOf,
  mcpServersOf,
  ParamsError,
  postureOf,
  sandboxPolicyOf,
  threadRequestOf,
  turnInputOf,
} from './requests.js';

const DEFAULTS = { cwd: '/srv/work', posture: 'bypass' as const };

function refusal(run: () => unknown): ParamsError {
  try {
    run();
  } catch (error) {
    if (error instanceof ParamsError) return error;
    throw error;
  }
  throw new Error('expected a ParamsError');
}

describe('thread params', () => {
  it('take cwd, model, approval posture, developer instructions, MCP servers and ephemeral', () => {
    expect(
      threadRequestOf(
        {
          cwd: '/tmp/ws',
          model: 'sonnet',
          approvalPolicy: 'on-request',
          sandbox: 'workspace-write',
          developerInstructions: 'Be brief.',
          ephemeral: true,
          config: {
            mcp_servers: {
              echo: { command: 'node', args: ['echo.mjs'], env: { A: '1' } },
              web: { url: 'http://127.0.0.1:9/mcp', http_headers: { 'X-K': 'v' } },
            },
          },
        },
        DEFAULTS,
      ),
    ).toEqual({
      cwd: '/tmp/ws',
      model: 'sonnet',
      posture: 'ask',
      systemPrompt: { append: 'Be brief.' },
      ephemeral: true,
      mcpServers: [
        { name: 'echo', transport: 'stdio', command: 'node', args: ['echo.mjs'], env: { A: '1' } },
        { name: 'web', transport: 'http', url: 'http://127.0.0.1:9/mcp', headers: { 'X-K': 'v' } },
      ],
    });
  });

  it('fall back to the bridge defaults', () => {
    expect(threadRequestOf({}, { ...DEFAULTS, model: 'm' })).toEqual({
      cwd: '/srv/work',
      posture: 'bypass',
      model: 'm',
    });
    expect(threadRequestOf({ approvalPolicy: 'never', sandbox: 'danger-full-access' }, DEFAULTS).posture).toBe(
      'bypass',
    );
  });

  it('refuse what the bridge cannot honour, naming the field', () => {
    expect(refusal(() => threadRequestOf({ cwd: 'rel' }, DEFAULTS)).field).toBe('cwd');
    // A sandbox the bridge cannot enforce is refused when nothing asks first.
    const sandbox = refusal(() => threadRequestOf({ sandbox: 'read-only', approvalPolicy: 'never' }, DEFAULTS));
    expect(sandbox.field).toBe('sandbox');
    expect(sandbox.message).toMatch(/cannot make a harness read-only/);
    expect(refusal(() => threadRequestOf({ baseInstructions: 'You are…' }, DEFAULTS)).field).toBe('baseInstructions');
    expect(refusal(() => threadRequestOf({ modelProvider: 'openai' }, DEFAULTS)).field).toBe('modelProvider');
    expect(refusal(() => threadRequestOf({ config: { model_reasoning_effort: 'high' } }, DEFAULTS)).field).toBe(
      'config.model_reasoning_effort',
    );
    expect(refusal(() => mcpServersOf({ broken: { args: [] } })).field).toBe('config.mcp_servers.broken');
    expect(refusal(() => postureOf('sometimes')).field).toBe('approvalPolicy');
  });
});

describe('turn params', () => {
  it('join text parts, keep images and mentions', () => {
    expect(
      turnInputOf([
        { type: 'text', text: 'Look', text_elements: [] },
        { type: 'text', text: 'closely', text_elements: [] },
        { type: 'localImage', path: '/tmp/a.png' },
        { type: 'image', url: 'data:image/png;base64,iVBORw0KGgo=' },
        { type: 'mention', name: 'main.ts', path: 'src/main.ts' },
      ]),
    ).toEqual({
      text: 'Look\n\nclosely',
      images: [
        { source: 'path', path: '/tmp/a.png' },
        { source: 'data', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
      ],
      files: [{ path: 'src/main.ts' }],
    });
  });

  it('refuse input Reins has no place for rather than drop it', () => {
    expect(refusal(() => turnInputOf([])).field).toBe('input');
    expect(refusal(() => turnInputOf([{ type: 'text', text: '' }])).field).toBe('input');
    expect(
      refusal(() =>
        turnInputOf([
          { type: 'text', text: 'hi' },
          { type: 'skill', name: 's', path: '/s' },
        ]),
      ).field,
    ).toBe('input[1].type');
    expect(refusal(() => turnInputOf([{ type: 'image', url: 'https://example.com/a.png' }])).field).toBe(
      'input[0].url',
    );
    expect(refusal(() => effortOf('none')).message).toMatch(/^effort: must be one of minimal, low/);
    expect(effortOf('xhigh')).toBe('xhigh');
    expect(effortOf(null)).toBeUndefined();
  });

  it('take per-turn overrides only when they change nothing the session cannot change', () => {
    const thread = { cwd: '/tmp/ws', posture: 'bypass' as const };
    expect(() => checkTurnOverrides({ cwd: '/tmp/ws', approvalPolicy: 'never' }, thread)).not.toThrow();
    expect(refusal(() => checkTurnOverrides({ cwd: '/elsewhere' }, thread)).field).toBe('cwd');
    expect(refusal(() => checkTurnOverrides({ approvalPolicy: 'untrusted' }, thread)).field).toBe('approvalPolicy');
    expect(refusal(() => checkTurnOverrides({ sandboxPolicy: { type: 'readOnly' } }, thread)).field).toBe(
      'sandboxPolicy',
    );
    // A workspace thread takes its own sandbox again per turn, and nothing wider.
    const workspace = { cwd: '/tmp/ws', posture: 'workspace' as const };
    const same = { approvalPolicy: 'never', sandboxPolicy: { type: 'workspaceWrite' } };
    expect(() => checkTurnOverrides(same, workspace)).not.toThrow();
    expect(refusal(() => checkTurnOverrides({ sandboxPolicy: { type: 'dangerFullAccess' } }, workspace)).field).toBe(
      'sandboxPolicy',
    );
    expect(refusal(() => checkTurnOverrides({ sandboxPolicy: { type: 'workspaceWrite' } }, thread)).field).toBe(
      'sandboxPolicy',
    );
  });

  it('take workspace-write under "never" as posture workspace, and report it as that sandbox', () => {
    const request = threadRequestOf({ cwd: '/w', approvalPolicy: 'never', sandbox: 'workspace-write' }, DEFAULTS);
    expect(request.posture).toBe('workspace');
    expect(sandboxPolicyOf(request.posture)).toMatchObject({ type: 'workspaceWrite' });
    expect(sandboxPolicyOf('bypass')).toEqual({ type: 'dangerFullAccess' });
    expect(approvalPolicyOf('workspace')).toBe('never');
    // A bridge launched in workspace keeps it for a thread that names no sandbox, "never" or not.
    const workspaceBridge = { ...DEFAULTS, posture: 'workspace' as const };
    expect(threadRequestOf({ cwd: '/w' }, workspaceBridge).posture).toBe('workspace');
    expect(threadRequestOf({ cwd: '/w', approvalPolicy: 'never' }, workspaceBridge).posture).toBe('workspace');
  });

  it("take the tools' network off only where the harness's own sandbox cuts it", () => {
    const params = {
      cwd: '/w',
      approvalPolicy: 'never',
      sandbox: 'workspace-write',
      config: { sandbox_workspace_write: { network_access: false } },
    };
    const request = threadRequestOf(params, DEFAULTS);
    expect(request).toMatchObject({ posture: 'workspace', toolsNetworkOff: true });
    expect(() => checkToolsNetwork(request, 'native', 'claude-code')).not.toThrow();
    expect(refusal(() => checkToolsNetwork(request, 'reins-bubblewrap', 'pi')).field).toBe(
      'config.sandbox_workspace_write.network_access',
    );
    // Without a workspace-write sandbox the tuning has nothing to tune.
    const { sandbox: _, ...fullAccess } = params;
    expect(refusal(() => threadRequestOf(fullAccess, DEFAULTS)).field).toBe('config.sandbox_workspace_write');
  });
});

describe('approval answers', () => {
  const options = [
    { id: 'yes', kind: 'allow_once' as const, label: 'Yes' },
    { id: 'always', kind: 'allow_always' as const, label: 'Always' },
    { id: 'no', kind: 'reject_once' as const, label: 'No' },
  ];

  it('map Codex decisions onto the harness options', () => {
    expect(approvalAnswerOf({ decision: 'accept' }, options)).toEqual({
      decision: { behavior: 'allow', scope: 'once', optionId: 'yes' },
      stopTurn: false,
    });
    expect(approvalAnswerOf({ decision: 'acceptForSession' }, options).decision).toEqual({
      behavior: 'allow',
      scope: 'session',
      optionId: 'always',
    });
    expect(
      approvalAnswerOf({ decision: { acceptWithExecpolicyAmendment: { execpolicy_amendment: ['ls'] } } }, options)
        .decision.scope,
    ).toBe('session');
    expect(approvalAnswerOf({ decision: 'decline' }, options)).toEqual({
      decision: { behavior: 'deny', optionId: 'no' },
      stopTurn: false,
    });
    expect(approvalAnswerOf({ decision: 'cancel' }, []).stopTurn).toBe(true);
  });

  it('deny on an answer it cannot read', () => {
    expect(approvalAnswerOf({ decision: 'maybe' }, []).decision.behavior).toBe('deny');
    expect(approvalAnswerOf(undefined, options).decision).toMatchObject({ behavior: 'deny', optionId: 'no' });
  });
});
