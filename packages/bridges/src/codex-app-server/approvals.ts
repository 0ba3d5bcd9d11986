// Approvals: a Reins permission request (posture ask) becomes a server -> client Codex request, and
// the client's answer a Reins decision. Codex asks only for commands and file edits; any other tool
// is asked for as a command whose `reason` names the tool it really is.
import type { PermissionRequestedEvent } from '@reins/core';
import { threadItemOf } from './items.js';
import { openTurnIdOf, type ThreadState } from './state.js';
import type { ApprovalRequest } from './wire.js';

function summarize(value: unknown): string {
  let text: string;
  try {
    text = value === undefined ? 'no input' : JSON.stringify(value);
  } catch {
    text = 'input that cannot be shown';
  }
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}

/** The request to send the client for a Reins permission request (pure). */
export function approvalRequestOf(state: ThreadState, event: PermissionRequestedEvent): ApprovalRequest {
  const turnId = openTurnIdOf(state, event.turnId) ?? state.turn?.id ?? state.lastTurnId ?? '';
  const itemId = event.itemId ?? `permission-${event.requestId}`;
  const common = { threadId: state.threadId, turnId, itemId, startedAtMs: event.at };
  if (event.tool.kind === 'file_change') {
    return { method: 'item/fileChange/requestApproval', params: { ...common, reason: null, grantRoot: null } };
  }
  const command =
    event.tool.kind === 'command'
      ? threadItemOf({ kind: 'tool_call', id: itemId, status: 'running', tool: event.tool, input: event.input }, state)
      : undefined;
  return {
    method: 'item/commandExecution/requestApproval',
    params: {
      ...common,
      kind: 'command',
      environmentId: null,
      command: command?.type === 'commandExecution' ? command.command : (event.tool.title ?? event.tool.name),
      cwd: command?.type === 'commandExecution' ? command.cwd : state.cwd,
      commandActions: [],
      ...(event.tool.kind === 'command'
        ? {}
        : { reason: `Approve the ${event.tool.name} tool (${event.tool.kind}): ${summarize(event.input)}` }),
    },
  };
}
