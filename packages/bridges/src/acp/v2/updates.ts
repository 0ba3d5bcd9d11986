// Pure: the bridge's v1-shaped session updates (translate.ts) as ACP v2 (draft 2.0.0-alpha, the SDK's
// experimental/v2) carries them. No I/O; v2/agent.ts writes what comes back.
//
// Rules (docs/harnesses/acp.md, "ACP v2"):
// - Tool calls are upserts by id: v1's `tool_call` and `tool_call_update` both become `tool_call_update`
//   (the first one for an id creates the call, later ones patch it).
// - Every message has an id: text chunks keep theirs (the Reins item id); a user message (replayed
//   history) becomes one `user_message` upsert under a made-up id when it came without one.
// - The plan is one entity per session (Reins keeps one plan, each snapshot replaces it): `plan_update`
//   with items under a fixed plan id.
// - A v1 diff ({path, oldText, newText}) becomes a v2 diff change (add when there was no old text,
//   else modify); the texts ride in `_meta.reins`, since v2 carries text only as a git patch.
// - v2 has no modes (`current_mode_update` is dropped; posture stays a config option). Config options
//   are named by `configId` (v1: `id`), and a select needs at least one choice; commands are typed.
import type * as v2 from '@agentclientprotocol/sdk/experimental/v2';
import type { ForegroundState } from '../port.js';
import type {
  ContentBlock,
  RequestPermissionRequest,
  SessionConfigOption,
  SessionUpdate,
  ToolCallContent,
  ToolCallUpdate,
} from '../wire.js';

/** The one plan of a Reins session. */
export const PLAN_ID = 'reins-plan';

function toolContentOf(content: ToolCallContent): v2.ToolCallContent {
  if (content.type === 'diff') {
    const change: v2.DiffChange =
      content.oldText === null || content.oldText === undefined
        ? { operation: 'add', path: content.path }
        : { operation: 'modify', path: content.path };
    return {
      type: 'diff',
      changes: [change],
      _meta: { reins: { path: content.path, oldText: content.oldText ?? null, newText: content.newText } },
    };
  }
  return content as unknown as v2.ToolCallContent;
}

function toolCallOf(call: ToolCallUpdate & { _meta?: Record<string, unknown> | null }): v2.ToolCallUpdate {
  const { content, ...rest } = call;
  return {
    ...(rest as unknown as v2.ToolCallUpdate),
    ...(content ? { content: content.map(toolContentOf) } : {}),
  };
}

/** v1 config options -> v2's (`configId`; a select with no choices has no v2 form and is left out). */
export function v2ConfigOptionsOf(options: SessionConfigOption[]): v2.SessionConfigOption[] {
  return options
    .filter((option) => option.type !== 'select' || option.options.length > 0)
    .map(({ id, ...rest }) => ({ configId: id, ...rest }) as unknown as v2.SessionConfigOption);
}

/** Builds an update the SDK's v2 types describe (their unions also admit unknown variants). */
const as = (update: Record<string, unknown>) => update as unknown as v2.SessionUpdate;

/** One v1 update -> the v2 updates that say the same (none where v2 has no place for it). */
export function v2UpdatesOf(update: SessionUpdate, newMessageId: () => string): v2.SessionUpdate[] {
  switch (update.sessionUpdate) {
    case 'user_message_chunk':
      return [
        as({
          sessionUpdate: 'user_message',
          messageId: update.messageId ?? newMessageId(),
          content: [update.content],
          ...(update._meta ? { _meta: update._meta } : {}),
        }),
      ];
    case 'agent_message_chunk':
    case 'agent_thought_chunk':
      return [
        as({
          sessionUpdate: update.sessionUpdate,
          messageId: update.messageId ?? newMessageId(),
          content: update.content,
          ...(update._meta ? { _meta: update._meta } : {}),
        }),
      ];
    case 'tool_call':
    case 'tool_call_update': {
      const { sessionUpdate: _kind, ...call } = update;
      return [as({ sessionUpdate: 'tool_call_update', ...toolCallOf(call as ToolCallUpdate) })];
    }
    case 'plan':
      return [as({ sessionUpdate: 'plan_update', plan: { type: 'items', planId: PLAN_ID, entries: update.entries } })];
    case 'current_mode_update':
      return [];
    case 'config_option_update':
      return [as({ ...update, configOptions: v2ConfigOptionsOf(update.configOptions) })];
    case 'available_commands_update':
      return [
        as({
          ...update,
          availableCommands: update.availableCommands.map((command) => ({ type: 'command', ...command })),
        }),
      ];
    default:
      // The rest (commands, config options, session info, usage, notices, compaction) is the same shape.
      return [as(update)];
  }
}

/** A foreground state as a v2 `state_update`. */
export function stateUpdateOf(state: ForegroundState): v2.SessionUpdate {
  if (state.state !== 'idle') return as({ sessionUpdate: 'state_update', state: state.state });
  if (state.error) return as({ sessionUpdate: 'state_update', state: 'idle', stopReason: 'error', error: state.error });
  return as({
    sessionUpdate: 'state_update',
    state: 'idle',
    ...(state.stopReason ? { stopReason: state.stopReason } : {}),
  });
}

/** v1 `session/request_permission` params -> v2's (a title, the tool call as the subject). */
export function v2PermissionRequestOf(request: RequestPermissionRequest): v2.RequestPermissionRequest {
  const toolCall = toolCallOf(request.toolCall);
  return {
    sessionId: request.sessionId,
    title: request.toolCall.title || `Run ${request.toolCall.toolCallId}?`,
    subject: { type: 'tool_call', toolCall },
    options: request.options as unknown as v2.PermissionOption[],
  };
}

/** v2 prompt blocks as the v1 blocks requests.ts reads (text, images and links share their shape). */
export function v1PromptOf(blocks: v2.ContentBlock[]): ContentBlock[] {
  return blocks as unknown as ContentBlock[];
}
