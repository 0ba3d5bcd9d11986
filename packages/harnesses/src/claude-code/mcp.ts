// MCP servers of a Claude Code session, as Claude Code reports them (docs/architecture/contract.md,
// "Capabilities": `mcpStatus`): the Agent SDK's `mcpServerStatus()` answer and the `mcp_servers` of
// each `system/init` frame, mapped to Reins' McpServerStatus, and the warning owed once for every
// server the spec passed that failed to attach. Pure translation and bookkeeping: the session owns
// the queries and the events.
//
// 2.1.332 (Agent SDK 0.3.332): statuses are connected, failed, needs-auth, pending, disabled; a stdio
// server whose command exits is `failed` with the reason in `error` (mcpServerStatus) and bare
// `failed` in system/init.
import { isRecord, MCP_SERVER_STATES, type McpServerState, type McpServerStatus } from '@reins/core';
import type { SdkMcpServerStatus } from './wire.js';

/** Claude Code's state names as Reins' (`needs-auth` is `needs_auth`); undefined for one Reins does not know. */
export function mcpState(status: unknown): McpServerState | undefined {
  if (typeof status !== 'string') return undefined;
  const state = status.replace('-', '_');
  return (MCP_SERVER_STATES as readonly string[]).includes(state) ? (state as McpServerState) : undefined;
}

/** The SDK's `mcpServerStatus()` answer as Reins' statuses (an entry Reins cannot read is left out). */
export function fromSdkStatus(entries: readonly SdkMcpServerStatus[] | unknown): McpServerStatus[] {
  if (!Array.isArray(entries)) return [];
  return entries.flatMap((entry: unknown) => {
    if (!isRecord(entry) || typeof entry.name !== 'string') return [];
    const status = mcpState(entry.status);
    if (!status) return [];
    const tools = Array.isArray(entry.tools)
      ? entry.tools.flatMap((tool: unknown) => (isRecord(tool) && typeof tool.name === 'string' ? [tool.name] : []))
      : [];
    return [
      {
        name: entry.name,
        status,
        ...(typeof entry.error === 'string' && entry.error ? { error: entry.error } : {}),
        ...(tools.length > 0 ? { tools } : {}),
      },
    ];
  });
}

/** The `mcp_servers` of a system/init frame, as statuses (no tools, no errors: the frame has none). */
export function fromInitFrame(frame: unknown): McpServerStatus[] {
  if (!isRecord(frame) || !Array.isArray(frame.mcp_servers)) return [];
  return fromSdkStatus(frame.mcp_servers);
}

export interface McpWarning {
  name: string;
  message: string;
  error?: string;
}

/** Which servers the spec passed, and which of their failures were told already. */
export class ClaudeMcpServers {
  private readonly warned = new Set<string>();

  constructor(readonly requested: readonly string[]) {}

  /** True while a server the spec passed has no final state yet (Claude Code connects in the background). */
  unsettled(statuses: readonly McpServerStatus[]): boolean {
    return this.requested.some((name) => {
      const seen = statuses.find((entry) => entry.name === name);
      return !seen || seen.status === 'pending';
    });
  }

  /**
   * The warnings owed for statuses seen now: a requested server failed, once per server (`dryRun`
   * answers without marking them told).
   */
  failures(statuses: readonly McpServerStatus[], options: { dryRun?: boolean } = {}): McpWarning[] {
    return statuses.flatMap((entry) => {
      if (entry.status !== 'failed' || !this.requested.includes(entry.name) || this.warned.has(entry.name)) return [];
      if (!options.dryRun) this.warned.add(entry.name);
      return [
        {
          name: entry.name,
          message: `The MCP server "${entry.name}" did not attach to Claude Code${entry.error ? `: ${entry.error}` : ''}; its tools are not available in this session.`,
          ...(entry.error ? { error: entry.error } : {}),
        },
      ];
    });
  }
}

/**
 * Claude Code connects MCP servers in the background (2.1.332: `pending` at first), so a launch is
 * followed by asking (`ask`, which also warns) until every server the spec passed is connected or
 * failed, `settleMs` pass, or the launch is no longer `current` (restarted, closed).
 */
export async function settleMcpServers(
  servers: ClaudeMcpServers,
  io: { ask(): Promise<McpServerStatus[] | undefined>; current(): boolean },
  timing: { settleMs: number; pollMs: number } = { settleMs: 60_000, pollMs: 500 },
): Promise<void> {
  if (servers.requested.length === 0) return;
  const until = Date.now() + timing.settleMs;
  while (io.current()) {
    const statuses = await io.ask();
    if (statuses && !servers.unsettled(statuses)) return;
    if (Date.now() > until) return;
    await new Promise((resolve) => setTimeout(resolve, timing.pollMs).unref?.());
  }
}
