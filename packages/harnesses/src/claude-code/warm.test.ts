// Which specs start on a spare (coldReason), what the claim may carry of the environment (claimEnv),
// what keys a pool (hostKey), and that a taken spare serves one launch of a new conversation only.
import type { DiscoveredBinary, SessionSpec } from '@reins/core';
import { describe, expect, it } from 'vitest';
import { type ClaudeSpare, claimEnv, coldReason, type HostLaunch, hostKey, WarmStart } from './warm.js';

const binary: DiscoveredBinary = {
  path: '/opt/claude',
  version: '2.1.332',
  sha256: 'a'.repeat(64),
  source: 'explicit',
};
const host: HostLaunch = { binary, env: { PATH: '/bin', HOME: '/home/u' }, options: {} };
const spec: SessionSpec = { cwd: '/work' };

describe('coldReason', () => {
  it('lets a plain spec, model, effort, posture and an appended system prompt claim a spare', () => {
    expect(coldReason(spec, host.env, host)).toBeUndefined();
    const fitting: SessionSpec = { ...spec, model: 'm', effort: 'high', posture: 'ask', systemPrompt: { append: 'x' } };
    expect(coldReason(fitting, host.env, host)).toBeUndefined();
  });

  it('names the host-level field that keeps a session cold', () => {
    expect(coldReason({ ...spec, resume: { nativeSessionId: 'n' } }, host.env, host)).toBe('resume');
    expect(coldReason({ ...spec, resume: { nativeSessionId: 'n', fork: true } }, host.env, host)).toBe('fork');
    expect(coldReason({ ...spec, outputSchema: { type: 'object' } }, host.env, host)).toBe('outputSchema');
    const echo = { name: 'echo', transport: 'stdio' as const, command: 'echo' };
    expect(coldReason({ ...spec, mcpServers: [echo] }, host.env, host)).toBe('mcpServers');
    expect(coldReason({ ...spec, allowedTools: ['Read'] }, host.env, host)).toBe('allowedTools');
    expect(coldReason({ ...spec, ephemeral: true }, host.env, host)).toBe('ephemeral');
  });

  it('keeps a session cold whose environment differs beyond the claimable keys', () => {
    expect(coldReason(spec, { ...host.env, FOO: '1' }, host)).toBe('env');
    expect(coldReason(spec, { ...host.env, CLAUDE_CODE_OAUTH_TOKEN: 't' }, host)).toBeUndefined();
    expect(coldReason(spec, { ...host.env, NoDefaultCurrentDirectoryInExePath: '1' }, host)).toBeUndefined();
    expect(claimEnv({ ...host.env, CLAUDE_CODE_OAUTH_TOKEN: 't', FOO: '1' })).toEqual({ CLAUDE_CODE_OAUTH_TOKEN: 't' });
  });
});

describe('hostKey', () => {
  it('differs by binary, environment and extra arguments, not by the claimable keys', () => {
    const key = hostKey(host);
    expect(hostKey({ ...host, binary: { ...binary, sha256: 'b'.repeat(64) } })).not.toBe(key);
    expect(hostKey({ ...host, env: { ...host.env, HOME: '/elsewhere' } })).not.toBe(key);
    expect(hostKey({ ...host, options: { extraArgs: ['--debug'] } })).not.toBe(key);
    expect(hostKey({ ...host, env: { ...host.env, CLAUDE_CODE_HOST_SESSION_ID: 'h' } })).toBe(key);
    expect(key).not.toContain('/home/u');
  });
});

describe('WarmStart', () => {
  function fakeSpare(): ClaudeSpare & { closedTimes: number } {
    const spare = {
      sessionId: '11111111-2222-4333-8444-555555555555',
      closedTimes: 0,
      async close() {
        spare.closedTimes++;
      },
    };
    return spare as unknown as ClaudeSpare & { closedTimes: number };
  }

  it('hands its spare to the first launch of the new conversation under its id, once', () => {
    const spare = fakeSpare();
    const start = new WarmStart(spare);
    expect(start.take({ sessionId: spare.sessionId }, undefined)).toBe(spare);
    expect(start.take({ sessionId: spare.sessionId }, undefined)).toBeUndefined();
  });

  it('closes its spare when the first launch does not fit (another id, a resume, a schema)', () => {
    for (const [conversation, schema] of [
      [{ sessionId: 'other' }, undefined],
      [{ resume: '11111111-2222-4333-8444-555555555555' }, undefined],
      [{ sessionId: '11111111-2222-4333-8444-555555555555' }, { type: 'object' }],
    ] as const) {
      const spare = fakeSpare();
      expect(new WarmStart(spare).take(conversation, schema)).toBeUndefined();
      expect(spare.closedTimes).toBe(1);
    }
  });
});
