// MCP servers of a Codex session, as Codex reports them (docs/architecture/contract.md, "Capabilities":
// `mcpStatus`): the startup states pushed in `mcpServer/startupStatus/updated` and the inventory
// `mcpServerStatus/list` answers, mapped to Reins' McpServerStatus. Pure translation and bookkeeping:
// the session owns the requests and the events.
//
// 0.171.0: each configured stdio server gets `starting` then `ready` or `failed` (with `error`); the
// list's `runtimeStatus` is null when the thread's runtime has no state for it, so the last startup
// state seen is the status then.
import { type McpServerState, type McpServerStatus, ReinsError } from '@reins/core';
import { HARNESS } from './connection.js';
import type { CodexMcpServerStatus, ListMcpServerStatusResponse, McpServerStatusUpdatedNotification } from './wire.js';

type StartupState = McpServerStatusUpdatedNotification['status'];
type RuntimeState = NonNullable<CodexMcpServerStatus['runtimeStatus']>;

const FROM_STARTUP: Record<StartupState, McpServerState> = {
  starting: 'pending',
  ready: 'connected',
  failed: 'failed',
  cancelled: 'failed',
};

const FROM_RUNTIME: Record<RuntimeState, McpServerState> = {
  notStarted: 'pending',
  starting: 'pending',
  connected: 'connected',
  authenticationRequired: 'needs_auth',
  failed: 'failed',
  cancelled: 'failed',
  disabled: 'disabled',
};

interface Startup {
  state: McpServerState;
  error?: string;
}

/** What one session knows of its MCP servers: the startup states seen, and which failures were told. */
export class CodexMcpServers {
  private readonly startup = new Map<string, Startup>();
  private readonly warned = new Set<string>();

  /** @param requested the names of the servers the spec passed (only their failures are warned about). */
  constructor(private readonly requested: readonly string[]) {}

  /**
   * Records a startup notification; answers the warning to give when a requested server failed to
   * start (once per server), else undefined.
   */
  observe(params: unknown): { name: string; message: string; error?: string } | undefined {
    const update = parseStartup(params);
    if (!update) return undefined;
    this.startup.set(update.name, { state: update.state, ...(update.error ? { error: update.error } : {}) });
    if (update.state !== 'failed' || !this.requested.includes(update.name) || this.warned.has(update.name)) {
      return undefined;
    }
    this.warned.add(update.name);
    return {
      name: update.name,
      message: `The MCP server "${update.name}" did not start in Codex${update.error ? `: ${update.error}` : ''}; its tools are not available in this session.`,
      ...(update.error ? { error: update.error } : {}),
    };
  }

  /** One page of `mcpServerStatus/list` as Reins' statuses. */
  fromList(response: ListMcpServerStatusResponse): McpServerStatus[] {
    return (Array.isArray(response?.data) ? response.data : []).flatMap((entry) =>
      entry && typeof entry.name === 'string' ? [this.status(entry)] : [],
    );
  }

  /** Requested servers Codex's list left out: their startup state, else pending (none seen yet). */
  missing(listed: readonly McpServerStatus[]): McpServerStatus[] {
    const names = new Set(listed.map((entry) => entry.name));
    return this.requested
      .filter((name) => !names.has(name))
      .map((name) => {
        const seen = this.startup.get(name);
        return { name, status: seen?.state ?? 'pending', ...(seen?.error ? { error: seen.error } : {}) };
      });
  }

  private status(entry: CodexMcpServerStatus): McpServerStatus {
    const seen = this.startup.get(entry.name);
    // Only a state this version names (a key like "constructor" is not one, and a nested array as a key
    // would be stringified level by level until the stack runs out); otherwise what startup said.
    const runtimeStatus: unknown = entry.runtimeStatus;
    const runtime =
      typeof runtimeStatus === 'string' && Object.hasOwn(FROM_RUNTIME, runtimeStatus)
        ? FROM_RUNTIME[runtimeStatus as RuntimeState]
        : undefined;
    const state: McpServerState = runtime ?? seen?.state ?? (entry.serverInfo ? 'connected' : 'pending');
    const tools = entry.tools && typeof entry.tools === 'object' ? Object.keys(entry.tools) : [];
    const error = entry.toolsError ?? (state === 'failed' ? seen?.error : undefined);
    return {
      name: entry.name,
      status: state,
      ...(error ? { error } : {}),
      ...(tools.length > 0 ? { tools } : {}),
    };
  }
}

function parseStartup(params: unknown): { name: string; state: McpServerState; error?: string } | undefined {
  if (!params || typeof params !== 'object') return undefined;
  const { name, status, error } = params as Partial<McpServerStatusUpdatedNotification>;
  if (typeof name !== 'string' || typeof status !== 'string' || !Object.hasOwn(FROM_STARTUP, status)) return undefined;
  return { name, state: FROM_STARTUP[status], ...(typeof error === 'string' && error ? { error } : {}) };
}

/**
 * An app-server that does not serve `mcpServerStatus/list` (Codex answers a method it lacks with
 * -32600 "unknown variant", and so do Codex-compatible servers such as Reins' own bridge): the
 * report is not available, which is no failure of the session.
 */
export function unservedMcpStatus(error: unknown): ReinsError | undefined {
  const data = error instanceof ReinsError ? (error.data as { rpcCode?: unknown; rpcMessage?: unknown }) : undefined;
  if (data?.rpcCode !== -32600 || typeof data.rpcMessage !== 'string' || !data.rpcMessage.includes('unknown variant'))
    return undefined;
  return new ReinsError(
    'unsupported_capability',
    'This Codex app-server does not serve mcpServerStatus/list, so Reins cannot report its MCP servers.',
    { harness: HARNESS, operation: 'mcpServerStatus/list', cause: error },
  );
}
