// acp-check's judges of a session's updates by id, pure: tool calls and messages folded in the order the
// agent sent them (docs/architecture/acp.md, "acp-check", for the rules and where the spec states them).

export type Update = Record<string, unknown>;
export type Judgement = { status: 'pass' | 'fail' | 'skip'; detail: string };

/** One prompt turn as acp-check saw it: the session's updates from the prompt to its end, and how it ended. */
export interface TurnRecord {
  updates: Update[];
  stopReason?: string;
  cancelled?: boolean;
}

const FINAL_STATUSES = new Set(['completed', 'failed', 'cancelled']);
const ROLE_OF: Record<string, string> = {
  user_message: 'user',
  user_message_chunk: 'user',
  agent_message: 'agent',
  agent_message_chunk: 'agent',
  agent_thought: 'thought',
  agent_thought_chunk: 'thought',
};

const fail = (detail: string): Judgement => ({ status: 'fail', detail });

/**
 * updates-by-id: v1 creates a tool call once (`tool_call`) and updates only one it created; v2 upserts tool
 * calls (`tool_call_update`), appends content chunks only to a known one, and a messageId names one message
 * (one role).
 */
export function judgeUpdatesById(updates: readonly Update[], protocol: 1 | 2): Judgement {
  const toolCalls = new Set<string>();
  const roles = new Map<string, string>();
  for (const update of updates) {
    const kind = update.sessionUpdate;
    const toolCallId = update.toolCallId === undefined ? undefined : String(update.toolCallId);
    if (protocol === 1 && kind === 'tool_call' && toolCallId !== undefined) {
      if (toolCalls.has(toolCallId)) return fail(`a second tool_call creates ${toolCallId}`);
      toolCalls.add(toolCallId);
    }
    if (protocol === 1 && kind === 'tool_call_update' && toolCallId !== undefined && !toolCalls.has(toolCallId))
      return fail(`tool_call_update for ${toolCallId}, which no tool_call created`);
    if (protocol === 2 && kind === 'tool_call_update' && toolCallId !== undefined) toolCalls.add(toolCallId);
    if (protocol === 2 && kind === 'tool_call_content_chunk' && toolCallId !== undefined && !toolCalls.has(toolCallId))
      return fail(`tool_call_content_chunk for ${toolCallId}, which no tool_call_update created`);
    const role = ROLE_OF[String(kind)];
    const messageId = update.messageId;
    if (protocol === 2 && role && typeof messageId === 'string') {
      const before = roles.get(messageId);
      if (before && before !== role) return fail(`messageId ${messageId} names a ${before} and a ${role} message`);
      roles.set(messageId, role);
    }
  }
  if (toolCalls.size === 0 && roles.size === 0) return { status: 'skip', detail: 'no update by id was sent' };
  return { status: 'pass', detail: `${toolCalls.size} tool call(s), ${roles.size} message id(s)` };
}

/** tool-calls-end: every tool call of a turn that ended (not cancelled) is completed or failed by its end, and no final status is left again. */
export function judgeToolCallsEnd(turns: readonly TurnRecord[]): Judgement {
  let seen = 0;
  for (const turn of turns) {
    const status = new Map<string, string>();
    for (const update of turn.updates) {
      const kind = update.sessionUpdate;
      if ((kind !== 'tool_call' && kind !== 'tool_call_update') || update.toolCallId === undefined) continue;
      const id = String(update.toolCallId);
      const before = status.get(id);
      const next = typeof update.status === 'string' ? update.status : (before ?? 'pending');
      if (before && FINAL_STATUSES.has(before) && !FINAL_STATUSES.has(next))
        return fail(`tool call ${id} went from ${before} back to ${next}`);
      status.set(id, next);
    }
    seen += status.size;
    if (turn.cancelled || turn.stopReason === undefined) continue;
    const open = [...status].find(([, value]) => !FINAL_STATUSES.has(value));
    if (open) return fail(`tool call ${open[0]} is still ${open[1]} when the turn ended (${turn.stopReason})`);
  }
  return seen === 0
    ? { status: 'skip', detail: 'no tool call was made' }
    : { status: 'pass', detail: `${seen} tool call(s)` };
}

/** v2-state-updates: every v2 prompt turn reports running (or requires_action) before the idle that ends it. */
export function judgeStateAroundPrompts(turns: readonly TurnRecord[]): Judgement {
  if (turns.length === 0) return { status: 'skip', detail: 'no prompt turn ended' };
  for (const [index, turn] of turns.entries()) {
    const states = turn.updates.filter((u) => u.sessionUpdate === 'state_update').map((u) => String(u.state));
    const idle = states.lastIndexOf('idle');
    const active = states.findIndex((state) => state === 'running' || state === 'requires_action');
    if (active === -1 || idle === -1 || active > idle)
      return fail(`prompt ${index + 1} reported ${states.join(' -> ') || 'no state'}`);
  }
  return { status: 'pass', detail: `running -> idle around ${turns.length} prompt(s)` };
}
