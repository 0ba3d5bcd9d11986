import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acceptSessionSpec } from '../runtime/chassis/index.js';
import { assertWorkspaceSandbox, missingSandboxTools, postureOptions } from './posture.js';
import { coldReason } from './warm.js';

describe('Claude Code postures', () => {
  it("workspace: Claude Code's sandbox on (no unsandboxed escape, no network, refuse to start without it), edits in the cwd only", () => {
    expect(postureOptions({ cwd: '/w', posture: 'workspace' }, undefined)).toEqual({
      permissionMode: 'acceptEdits',
      sandbox: {
        enabled: true,
        failIfUnavailable: true,
        autoAllowBashIfSandboxed: true,
        allowUnsandboxedCommands: false,
        network: { allowedDomains: [] },
      },
    });
    expect(coldReason({ cwd: '/w', posture: 'workspace' }, {}, { env: {} } as never)).toBe('posture');
  });

  it('bypass and ask keep their modes', () => {
    expect(postureOptions({ cwd: '/w' }, undefined)).toEqual({
      permissionMode: 'bypassPermissions',
      allowDangerouslySkipPermissions: true,
    });
    const canUseTool = async () => ({ behavior: 'deny' as const, message: 'no' });
    expect(postureOptions({ cwd: '/w', posture: 'ask' }, canUseTool)).toEqual({
      permissionMode: 'default',
      canUseTool,
    });
  });

  it('a harness without a sandbox refuses workspace with unsupported_capability, naming the postures it has', () => {
    const support = {
      model: true,
      effort: true,
      resume: true,
      postures: ['bypass', 'ask'] as const,
      ephemeral: true,
      allowedTools: true,
      systemPrompt: true,
      mcpServers: true,
    };
    expect(() =>
      acceptSessionSpec({ cwd: '/tmp', posture: 'workspace' }, support, { id: 'pi', displayName: 'Pi' }),
    ).toThrow(expect.objectContaining({ code: 'unsupported_capability', data: { field: 'posture' } }));
  });

  it.runIf(process.platform === 'linux')(
    'workspace is refused up front, naming what to install, when bwrap or socat is missing',
    () => {
      const bin = mkdtempSync(join(tmpdir(), 'reins-sandbox-tools-'));
      try {
        writeFileSync(join(bin, 'bwrap'), '#!/bin/sh\n');
        chmodSync(join(bin, 'bwrap'), 0o755);
        writeFileSync(join(bin, 'socat'), 'not executable');
        expect(missingSandboxTools(bin)).toEqual(['socat']);
        expect(() => assertWorkspaceSandbox({ cwd: '/w', posture: 'workspace' }, { PATH: bin })).toThrow(
          expect.objectContaining({
            code: 'unsupported_capability',
            message: expect.stringMatching(/needs socat on PATH/),
          }),
        );
        expect(() => assertWorkspaceSandbox({ cwd: '/w', posture: 'bypass' }, { PATH: bin })).not.toThrow();
        chmodSync(join(bin, 'socat'), 0o755);
        expect(() => assertWorkspaceSandbox({ cwd: '/w', posture: 'workspace' }, { PATH: bin })).not.toThrow();
      } finally {
        rmSync(bin, { recursive: true, force: true });
      }
    },
  );
});
