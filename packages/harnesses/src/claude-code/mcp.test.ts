// Claude Code MCP bookkeeping: the Agent SDK's mcpServerStatus() answer and system/init's mcp_servers as
// Reins' statuses, the warning once per requested server that failed, and the settle loop's ends.
import { describe, expect, it } from 'vitest';
import { ClaudeMcpServers, fromInitFrame, fromSdkStatus, settleMcpServers } from './mcp.js';

describe('claude-code MCP servers', () => {
  it('maps the SDK answer: needs-auth as needs_auth, tool names, the error; unreadable entries left out', () => {
    expect(
      fromSdkStatus([
        { name: 'echo', status: 'connected', tools: [{ name: 'echo' }], serverInfo: { name: 'x', version: '1' } },
        { name: 'broken', status: 'failed', error: 'MCP error -32000: Connection closed' },
        { name: 'remote', status: 'needs-auth' },
        { name: 'odd', status: 'exploded' },
        { status: 'connected' },
        'garbage',
      ]),
    ).toEqual([
      { name: 'echo', status: 'connected', tools: ['echo'] },
      { name: 'broken', status: 'failed', error: 'MCP error -32000: Connection closed' },
      { name: 'remote', status: 'needs_auth' },
    ]);
    expect(fromSdkStatus(undefined)).toEqual([]);
    expect(fromInitFrame({ type: 'system', subtype: 'init', mcp_servers: [{ name: 'a', status: 'pending' }] })).toEqual(
      [{ name: 'a', status: 'pending' }],
    );
    expect(fromInitFrame({ type: 'system' })).toEqual([]);
  });

  it('warns once per requested server, never about one the spec did not pass; a dry run marks nothing', () => {
    const servers = new ClaudeMcpServers(['echo', 'broken']);
    const seen = [
      { name: 'broken', status: 'failed' as const, error: 'exit 1' },
      { name: 'user-config', status: 'failed' as const },
    ];
    expect(servers.failures(seen, { dryRun: true })).toHaveLength(1);
    const [warning, ...rest] = servers.failures(seen);
    expect(rest).toEqual([]);
    expect(warning).toMatchObject({ name: 'broken', error: 'exit 1' });
    expect(warning?.message).toContain('"broken"');
    expect(servers.failures(seen)).toEqual([]);
  });

  it('asks until every requested server has a final state', async () => {
    const servers = new ClaudeMcpServers(['echo']);
    const answers = [
      undefined,
      [{ name: 'echo', status: 'pending' as const }],
      [{ name: 'echo', status: 'connected' as const }],
    ];
    let asked = 0;
    await settleMcpServers(
      servers,
      { ask: async () => answers[asked++], current: () => true },
      { settleMs: 10_000, pollMs: 1 },
    );
    expect(asked).toBe(3);
    // A launch that is no longer current is not asked about; none requested: nothing is asked.
    let more = 0;
    const count = async () => {
      more++;
      return undefined;
    };
    await settleMcpServers(servers, { ask: count, current: () => false });
    await settleMcpServers(new ClaudeMcpServers([]), { ask: count, current: () => true });
    expect(more).toBe(0);
  });
});
