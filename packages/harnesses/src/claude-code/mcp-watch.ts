// A session's watch over the MCP servers its spec passed (docs/architecture/contract.md,
// "Capabilities": `mcpStatus`): after each launch it asks Claude Code until every server attached or
// failed, asks again when a system/init shows one failed (init names the state, not the reason), and
// warns once per server that failed. The bookkeeping and the mapping are mcp.ts's.
import type { McpServerStatus } from '@reins/core';
import { ClaudeMcpServers, fromInitFrame, fromSdkStatus, settleMcpServers } from './mcp.js';
import type { SdkMcpServerStatus } from './wire.js';

/** The part of a running query the watch asks (query.ts). */
export interface McpAsker {
  mcpServerStatus(timeoutMs: number): Promise<SdkMcpServerStatus[]>;
}

export interface McpWatchHost {
  /** The query now running; a restart replaces it, and answers of the old one are dropped. */
  current(): McpAsker | undefined;
  /** The session is closed: nothing more is told. */
  closed(): boolean;
  warn(message: string, data: { name: string; error?: string }): void;
  timeoutMs: number;
}

export class ClaudeMcpWatch {
  private readonly servers: ClaudeMcpServers;

  constructor(
    requested: readonly string[],
    private readonly host: McpWatchHost,
  ) {
    this.servers = new ClaudeMcpServers(requested);
  }

  /** A new launch: asks until every server the spec passed attached or failed (mcp.ts). */
  launched(query: McpAsker): Promise<void> {
    return settleMcpServers(this.servers, {
      ask: () => this.check(query),
      current: () => this.host.current() === query && !this.host.closed(),
    });
  }

  /** A system/init frame: when it shows a requested server failed, ask why (and warn). */
  onInit(frame: unknown): void {
    const query = this.host.current();
    if (query && this.servers.failures(fromInitFrame(frame), { dryRun: true }).length > 0) void this.check(query);
  }

  /** Claude Code's own report of the servers (the Agent SDK's `mcpServerStatus()`). */
  async status(query: McpAsker): Promise<McpServerStatus[]> {
    return fromSdkStatus(await query.mcpServerStatus(this.host.timeoutMs));
  }

  /** One status query; a warning for each requested server newly seen failed. */
  private async check(query: McpAsker): Promise<McpServerStatus[] | undefined> {
    const statuses = await this.status(query).catch(() => undefined);
    if (!statuses || this.host.current() !== query || this.host.closed()) return statuses;
    for (const { message, ...data } of this.servers.failures(statuses)) this.host.warn(message, data);
    return statuses;
  }
}
