// One ACP text turn (initialize, session/new, session/prompt) over newline JSON-RPC, shared by the ACP smoke
// tests. Permission requests are allowed; other agent-to-client requests get -32601 (Qwen 0.24.4 sends
// craft/drainMidTurnQueue and continues after -32601).
import type { HarnessProcess } from './harness-process.js';
import { JsonRpcPeer, type RpcMessage } from './json-rpc.js';

export interface AcpTurn {
  initialize: Record<string, unknown>;
  sessionId: string;
  stopReason: unknown;
  /** agent_message_chunk texts joined. */
  text: string;
  peer: JsonRpcPeer;
}

function allowPermission(message: RpcMessage) {
  if (message.method !== 'session/request_permission') return undefined;
  const options = (message.params as { options?: { optionId: string; kind: string }[] }).options ?? [];
  const allow = options.find((option) => option.kind.startsWith('allow')) ?? options[0];
  return { result: { outcome: { outcome: 'selected', optionId: allow?.optionId } } };
}

const initializeParams = {
  protocolVersion: 1,
  clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
  clientInfo: { name: 'reins-smoke', version: '0.0.0' },
};

/** Just the initialize exchange: what the agent says about itself (agentInfo, capabilities). */
export async function runAcpInitialize(agent: HarnessProcess, deadlineMs: number): Promise<Record<string, unknown>> {
  const peer = new JsonRpcPeer(agent, { jsonrpcField: true });
  return (await peer.request('initialize', initializeParams, deadlineMs)) as Record<string, unknown>;
}

export async function runAcpTextTurn(
  agent: HarnessProcess,
  options: { cwd: string; prompt: string; initializeDeadlineMs?: number; turnDeadlineMs?: number },
): Promise<AcpTurn> {
  const peer = new JsonRpcPeer(agent, {
    jsonrpcField: true,
    onServerRequest: (message) =>
      allowPermission(message) ?? { error: { code: -32601, message: `method not found: ${message.method}` } },
  });
  const initialize = (await peer.request(
    'initialize',
    initializeParams,
    options.initializeDeadlineMs ?? 30_000,
  )) as Record<string, unknown>;
  const session = (await peer.request('session/new', { cwd: options.cwd, mcpServers: [] }, 30_000)) as {
    sessionId: string;
  };
  const response = (await peer.request(
    'session/prompt',
    { sessionId: session.sessionId, prompt: [{ type: 'text', text: options.prompt }] },
    options.turnDeadlineMs ?? 45_000,
  )) as { stopReason?: unknown };
  peer.pump();
  const text = peer.notifications
    .filter((m) => m.method === 'session/update')
    .map(
      (m) => (m.params as { update?: { sessionUpdate?: string; content?: { type?: string; text?: string } } }).update,
    )
    .filter((update) => update?.sessionUpdate === 'agent_message_chunk' && update.content?.type === 'text')
    .map((update) => update?.content?.text ?? '')
    .join('');
  return { initialize, sessionId: session.sessionId, stopReason: response.stopReason, text, peer };
}
