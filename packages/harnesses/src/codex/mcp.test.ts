// Codex MCP bookkeeping: startup notifications and mcpServerStatus/list pages as Reins' statuses,
// and the warning for a requested server that failed (once per server). Frames as Codex 0.171.0 sends them.
import { ReinsError } from '@reins/core';
import { deeplyNested } from '@reins/testkit';
import { describe, expect, it } from 'vitest';
import { CodexMcpServers, unservedMcpStatus } from './mcp.js';
import type { ListMcpServerStatusResponse } from './wire.js';

const startup = (name: string, status: string, error: string | null = null) => ({
  threadId: 't1',
  name,
  environmentId: null,
  status,
  error,
  failureReason: null,
});

const listed = (name: string, extra: Record<string, unknown> = {}) =>
  ({
    name,
    runtimeStatus: null,
    pluginId: null,
    httpOrigin: null,
    serverInfo: null,
    serverCapabilities: null,
    toolListMeta: null,
    tools: {},
    toolsError: null,
    resources: [],
    resourceTemplates: [],
    authStatus: 'unsupported',
    ...extra,
  }) as ListMcpServerStatusResponse['data'][number];

describe('codex MCP servers', () => {
  it('warns once about a requested server that failed, never about one the spec did not pass', () => {
    const mcp = new CodexMcpServers(['echo', 'broken']);
    expect(mcp.observe(startup('broken', 'starting'))).toBeUndefined();
    const warning = mcp.observe(startup('broken', 'failed', 'handshaking with MCP server failed'));
    expect(warning).toMatchObject({ name: 'broken', error: 'handshaking with MCP server failed' });
    expect(warning?.message).toContain('"broken"');
    expect(mcp.observe(startup('broken', 'failed', 'again'))).toBeUndefined();
    expect(mcp.observe(startup('user-config-server', 'failed', 'x'))).toBeUndefined();
    expect(mcp.observe({ name: 'echo', status: 'exploded' })).toBeUndefined();
    // A name Object.prototype has is no startup state: nothing is noted (the list then says pending).
    expect(mcp.observe({ name: 'echo', status: 'constructor' })).toBeUndefined();
    expect(mcp.missing([])).toContainEqual({ name: 'echo', status: 'pending' });
    expect(mcp.observe('garbage')).toBeUndefined();
  });

  it('maps the list: runtime state first, then the startup state seen, with tool names', () => {
    const mcp = new CodexMcpServers(['echo', 'broken', 'slow']);
    mcp.observe(startup('echo', 'ready'));
    mcp.observe(startup('broken', 'failed', 'exit 1'));
    const statuses = mcp.fromList({
      data: [
        listed('echo', { tools: { echo: { name: 'echo', inputSchema: {} } } }),
        listed('broken'),
        listed('authy', { runtimeStatus: 'authenticationRequired' }),
      ],
      nextCursor: null,
    });
    expect(statuses).toEqual([
      { name: 'echo', status: 'connected', tools: ['echo'] },
      { name: 'broken', status: 'failed', error: 'exit 1' },
      { name: 'authy', status: 'needs_auth' },
    ]);
    // A requested server the list leaves out is still reported, as far as Codex said.
    expect(mcp.missing(statuses)).toEqual([{ name: 'slow', status: 'pending' }]);
  });

  it('takes only a runtime state it names: others fall back to the startup state seen', () => {
    const mcp = new CodexMcpServers(['echo']);
    mcp.observe(startup('echo', 'ready'));
    const page = (runtimeStatus: unknown) =>
      mcp.fromList({ data: [listed('echo', { runtimeStatus })], nextCursor: null })[0]?.status;
    expect(page('constructor')).toBe('connected');
    expect(page('hibernating')).toBe('connected');
    expect(page(deeplyNested(50_000, 'array'))).toBe('connected');
    expect(page('failed')).toBe('failed');
  });

  it('survives a malformed list answer', () => {
    const mcp = new CodexMcpServers([]);
    expect(mcp.fromList({} as ListMcpServerStatusResponse)).toEqual([]);
    expect(mcp.fromList({ data: [null, { nope: 1 }], nextCursor: null } as never)).toEqual([]);
  });
});

describe('an app-server without mcpServerStatus/list', () => {
  const answered = (rpcCode: number, rpcMessage: string) =>
    new ReinsError('protocol_error', `codex app-server answered mcpServerStatus/list with error ${rpcCode}`, {
      data: { rpcCode, rpcMessage },
    });

  it('is unsupported_capability for Codex\'s "unknown variant" answer, and nothing else', () => {
    const unserved = unservedMcpStatus(answered(-32600, 'Invalid request: unknown variant `mcpServerStatus/list`'));
    expect(unserved?.code).toBe('unsupported_capability');
    expect(unservedMcpStatus(answered(-32600, 'thread not found'))).toBeUndefined();
    expect(unservedMcpStatus(answered(-32603, 'unknown variant'))).toBeUndefined();
    expect(unservedMcpStatus(new Error('socket closed'))).toBeUndefined();
  });
});
