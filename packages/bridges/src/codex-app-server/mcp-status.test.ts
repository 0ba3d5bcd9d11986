// The pure parts of mcpServerStatus/list and mcpServer/startupStatus/updated: each Reins state as
// Codex names it (runtime and startup), every entry valid against the pinned Codex's JSON Schema, and
// Codex's paging at its edges.
import type { McpServerState, McpServerStatus } from '@reins/core';
import { describe, expect, it } from 'vitest';
import { codexSchema } from '../../test/support/codex-schema.js';
import { codexMcpStatusOf, mcpListQueryOf, mcpStatusPage, startupUpdates } from './mcp-status.js';
import type { McpServerStartupState } from './wire.js';

const STATES: McpServerState[] = ['connected', 'pending', 'failed', 'needs_auth', 'disabled'];

describe('MCP status as Codex says it', () => {
  it('maps every Reins state; each answer and notification is schema-valid', () => {
    const schema = codexSchema();
    const entries = STATES.map((status) => codexMcpStatusOf({ name: status, status, error: 'why', tools: ['t'] }));
    expect(entries.map((entry) => [entry.runtimeStatus, entry.authStatus, entry.toolsError])).toEqual([
      ['connected', 'unknown', null],
      ['starting', 'unknown', null],
      ['failed', 'unknown', 'why'],
      ['authenticationRequired', 'notLoggedIn', 'why'],
      ['disabled', 'unknown', null],
    ]);
    expect(schema.response('mcpServerStatus/list', { result: { data: entries, nextCursor: null } })).toBeUndefined();
    const told = new Map<string, McpServerStartupState>();
    const statuses: McpServerStatus[] = STATES.map((status) => ({ name: status, status, error: 'why' }));
    const updates = startupUpdates('t1', statuses, told);
    // A disabled server never starts: Codex tells nothing of it.
    expect(
      updates.map((update) => {
        const params = update.params as { name: string; status: string };
        return [params.name, params.status];
      }),
    ).toEqual([
      ['connected', 'ready'],
      ['pending', 'starting'],
      ['failed', 'failed'],
      ['needs_auth', 'failed'],
    ]);
    for (const update of updates) expect(schema.notification(update)).toBeUndefined();
    // Told once: the same states again say nothing.
    expect(startupUpdates('t1', statuses, told)).toEqual([]);
  });

  it('pages like Codex: limit 0 is one entry, the last page has no cursor, an empty list pages fine', () => {
    const entries = ['c', 'a', 'b'].map((name) => codexMcpStatusOf({ name, status: 'connected' }));
    expect(mcpStatusPage(entries, mcpListQueryOf({ limit: 0 }))).toMatchObject({
      data: [{ name: 'a' }],
      nextCursor: '1',
    });
    expect(mcpStatusPage(entries, mcpListQueryOf({ cursor: '2', limit: 5 }))).toMatchObject({
      data: [{ name: 'c' }],
      nextCursor: null,
    });
    expect(mcpStatusPage(entries, mcpListQueryOf({ cursor: '3' }))).toEqual({ data: [], nextCursor: null });
    expect(mcpStatusPage([], mcpListQueryOf({}))).toEqual({ data: [], nextCursor: null });
    expect(() => mcpListQueryOf({ detail: 'everything' })).toThrow(/detail/);
    expect(() => mcpListQueryOf({ threadId: 5 })).toThrow(/threadId/);
  });
});
