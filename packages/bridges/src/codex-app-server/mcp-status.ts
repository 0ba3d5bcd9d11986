// mcpServerStatus/list and mcpServer/startupStatus/updated: the MCP servers of a thread as its harness
// reports them (`Session.mcpStatus`, docs/architecture/contract.md "Capabilities": `mcpStatus`), in the
// shape of the pinned Codex's McpServerStatus and paged as Codex pages them. The mapping and the
// paging are pure; `listMcpServerStatus` asks the sessions and `watchMcpStartup` follows a new
// thread's servers until each one settled.
//
// Codex 0.171.0 pages the list by name: the servers sorted, `limit` defaulting to all of them (at
// least 1), the cursor the decimal index of the next entry; a cursor that is no number is -32600
// "invalid cursor: <cursor>", one past the end -32600 "cursor <n> exceeds total MCP servers <total>".
import { type McpServerSpec, type McpServerState, type McpServerStatus, ReinsError } from '@reins/core';
import { withDeadline } from '../lifecycle.js';
import { RpcError } from './connection.js';
import { ParamsError } from './requests.js';
import type { BridgeThread } from './thread.js';
import {
  type BridgeNotification,
  type CodexMcpServerStatus,
  type ListMcpServerStatusResponse,
  type McpServerConnectionStatus,
  type McpServerStartupState,
  RPC,
} from './wire.js';

const CONNECTION: Record<McpServerState, McpServerConnectionStatus> = {
  connected: 'connected',
  pending: 'starting',
  failed: 'failed',
  needs_auth: 'authenticationRequired',
  disabled: 'disabled',
};

/** A startup state per Reins state; a disabled server is never started, so it has none (Codex tells none). */
const STARTUP: Partial<Record<McpServerState, McpServerStartupState>> = {
  pending: 'starting',
  connected: 'ready',
  failed: 'failed',
  needs_auth: 'failed',
};

/**
 * The HTTP origin of a server the thread's spec passed by URL (Codex leaves out credentials, path,
 * query and fragment); null for stdio and for servers the spec did not pass (the harness's own).
 */
function httpOriginOf(spec: McpServerSpec | undefined): string | null {
  if (!spec || spec.transport === 'stdio') return null;
  try {
    const origin = new URL(spec.url).origin;
    return origin === 'null' ? null : origin;
  } catch {
    return null;
  }
}

/**
 * One server as Codex describes it, from what the harness reported. What a Reins harness does not
 * report is sent as "not known" where the schema has a word for it (`authStatus: unknown`, null
 * server info and capabilities) and as nothing listed where it needs a list (no resources); a tool
 * is known by name only, so its input schema is the MCP minimum (`{"type":"object"}`: takes an
 * arguments object). See docs/architecture/bridges.md.
 */
export function codexMcpStatusOf(status: McpServerStatus, spec?: McpServerSpec): CodexMcpServerStatus {
  const unusable = status.status === 'failed' || status.status === 'needs_auth';
  return {
    name: status.name,
    runtimeStatus: CONNECTION[status.status],
    pluginId: null,
    httpOrigin: httpOriginOf(spec),
    serverInfo: null,
    serverCapabilities: null,
    toolListMeta: null,
    tools: Object.fromEntries((status.tools ?? []).map((name) => [name, { name, inputSchema: { type: 'object' } }])),
    // Codex: "tool discovery failed and no catalog was returned": what a failed server's error says.
    toolsError: unusable && status.error ? status.error : null,
    resources: [],
    resourceTemplates: [],
    authStatus: status.status === 'needs_auth' ? 'notLoggedIn' : 'unknown',
  };
}

// ---- the list ----

export interface McpListQuery {
  threadId?: string;
  serverName?: string;
  /** Named an environment: a Reins harness runs no environments, so nothing is registered there. */
  environment: boolean;
  cursor?: string;
  limit?: number;
}

function optionalText(params: Record<string, unknown>, field: string): string | undefined {
  const value = params[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new ParamsError(field, 'must be a string.');
  return value;
}

/** mcpServerStatus/list params, checked. */
export function mcpListQueryOf(params: Record<string, unknown>): McpListQuery {
  const limit = params.limit;
  if (limit !== undefined && limit !== null && (!Number.isInteger(limit) || (limit as number) < 0)) {
    throw new ParamsError('limit', 'must be a whole number.');
  }
  const detail = params.detail;
  if (detail !== undefined && detail !== null && detail !== 'full' && detail !== 'toolsAndAuthOnly') {
    throw new ParamsError('detail', 'must be "full" or "toolsAndAuthOnly".');
  }
  const threadId = optionalText(params, 'threadId');
  const serverName = optionalText(params, 'serverName');
  const cursor = optionalText(params, 'cursor');
  return {
    ...(threadId ? { threadId } : {}),
    ...(serverName !== undefined ? { serverName } : {}),
    environment: optionalText(params, 'environmentId') !== undefined,
    ...(cursor !== undefined ? { cursor } : {}),
    ...(typeof limit === 'number' ? { limit } : {}),
  };
}

/** One page of entries, sorted by name and paged as Codex pages them (see the header). */
export function mcpStatusPage(entries: CodexMcpServerStatus[], query: McpListQuery): ListMcpServerStatusResponse {
  const sorted = [...entries].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const total = sorted.length;
  let start = 0;
  if (query.cursor !== undefined) {
    if (!/^\d+$/.test(query.cursor)) throw new RpcError(RPC.invalidRequest, `invalid cursor: ${query.cursor}`);
    start = Number(query.cursor);
    if (start > total) throw new RpcError(RPC.invalidRequest, `cursor ${start} exceeds total MCP servers ${total}`);
  }
  const limit = Math.max(query.limit ?? total, 1);
  const end = Math.min(start + limit, total);
  return { data: sorted.slice(start, end), nextCursor: end < total ? String(end) : null };
}

// ---- asking the sessions ----

export interface McpStatusContext {
  threads: ReadonlyMap<string, BridgeThread>;
  requestTimeoutMs: number;
  log: (message: string) => void;
  /** The answer to a method the bridge does not serve (Codex's "unknown variant"). */
  unserved: () => Promise<RpcError>;
}

/** A thread's servers as Codex entries; undefined when its harness reports none (no mcpStatus). */
async function threadStatuses(
  context: McpStatusContext,
  thread: BridgeThread,
): Promise<CodexMcpServerStatus[] | undefined> {
  const ask = thread.session.mcpStatus?.bind(thread.session);
  if (!ask) return undefined;
  try {
    const statuses = await withDeadline(ask(), context.requestTimeoutMs, 'mcpStatus');
    const specs = new Map((thread.request.mcpServers ?? []).map((spec) => [spec.name, spec]));
    return statuses.map((status) => codexMcpStatusOf(status, specs.get(status.name)));
  } catch (error) {
    if (ReinsError.isInstance(error) && error.code === 'unsupported_capability') return undefined;
    throw error;
  }
}

/**
 * mcpServerStatus/list. With `threadId`: that thread's servers (a thread this bridge does not run
 * is Codex's "thread not found"). Without: the servers of every thread open here, each name once
 * (the longest-open thread's entry), since a Reins harness attaches servers per session and the
 * bridge has no configuration of its own. A thread whose harness cannot report them is the
 * unsupported-method answer when named, and left out otherwise.
 */
export async function listMcpServerStatus(
  context: McpStatusContext,
  params: Record<string, unknown>,
): Promise<ListMcpServerStatusResponse> {
  const query = mcpListQueryOf(params);
  let entries: CodexMcpServerStatus[] = [];
  if (query.threadId) {
    const thread = context.threads.get(query.threadId);
    if (!thread) {
      throw new RpcError(RPC.invalidRequest, `thread not found: ${query.threadId}`, { threadId: query.threadId });
    }
    const found = await threadStatuses(context, thread);
    if (!found) throw await context.unserved();
    entries = found;
  } else {
    const byName = new Map<string, CodexMcpServerStatus>();
    for (const thread of context.threads.values()) {
      const found = (await threadStatuses(context, thread)) ?? [];
      for (const entry of found) if (!byName.has(entry.name)) byName.set(entry.name, entry);
    }
    entries = [...byName.values()];
  }
  if (query.environment) entries = [];
  if (query.serverName !== undefined) entries = entries.filter((entry) => entry.name === query.serverName);
  return mcpStatusPage(entries, query);
}

// ---- startup notifications ----

/**
 * The mcpServer/startupStatus/updated notifications owed for `statuses`, given what `told` holds
 * (server name -> the startup state already told; updated here). A server first seen settled gets
 * its settled state alone: the bridge did not see it start.
 */
export function startupUpdates(
  threadId: string,
  statuses: readonly McpServerStatus[],
  told: Map<string, McpServerStartupState>,
): BridgeNotification[] {
  return statuses.flatMap((status): BridgeNotification[] => {
    const state = STARTUP[status.status];
    if (!state || told.get(status.name) === state) return [];
    told.set(status.name, state);
    const error = state === 'failed' ? (status.error ?? null) : null;
    return [
      {
        method: 'mcpServer/startupStatus/updated',
        params: { threadId, name: status.name, environmentId: null, status: state, error, failureReason: null },
      },
    ];
  });
}

export interface McpStartupTiming {
  /** How long to follow servers that are still starting (default 60 s: a cold `node` on a busy machine). */
  settleMs: number;
  pollMs: number;
}

export const DEFAULT_MCP_STARTUP: McpStartupTiming = { settleMs: 60_000, pollMs: 500 };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref?.());

/**
 * Follows a new thread's MCP servers as Codex announces its own at thread start: asks the harness
 * (a Reins event stream carries no MCP status, so asking is the only way to hear of one), tells each
 * server's startup state once it is seen, and asks again while any is still starting, until the
 * settle time passes or the thread closes. A harness that cannot answer ends the watch quietly.
 */
export async function watchMcpStartup(
  thread: BridgeThread,
  options: { requestTimeoutMs: number; log: (message: string) => void; timing?: McpStartupTiming },
): Promise<void> {
  const ask = thread.session.mcpStatus?.bind(thread.session);
  if (!ask) return;
  const timing = options.timing ?? DEFAULT_MCP_STARTUP;
  const told = new Map<string, McpServerStartupState>();
  const until = Date.now() + timing.settleMs;
  while (!thread.state.closed) {
    let statuses: McpServerStatus[];
    try {
      statuses = await withDeadline(ask(), options.requestTimeoutMs, 'mcpStatus');
    } catch (error) {
      options.log(`thread ${thread.id}: no MCP startup status (${String(error)})`);
      return;
    }
    if (thread.state.closed) return;
    const updates = startupUpdates(thread.id, statuses, told);
    if (updates.length > 0) thread.emit(updates);
    if (!statuses.some((status) => status.status === 'pending') || Date.now() >= until) return;
    await sleep(timing.pollMs);
  }
}
