// Pure translation of Reins session events into the `session/update` payloads an ACP agent sends its
// client. No process, no I/O: agent.ts feeds events in and writes out what comes back. Tool calls
// live in tools.ts, config options and modes in options.ts, the prompt answer and permission requests
// in answers.ts; this file holds the session's state and routes events to them.
//
// Rules:
// - An item's text reaches the client once. Deltas stream as chunks (messageId = the item id); the
//   completed item, which is the truth, adds only what the deltas did not already carry (all of it
//   when nothing streamed, e.g. an agent_message that arrives only as item.completed).
// - `notice` updates go only to a client that advertised `session.notices` (the ACP spec: an agent
//   MUST NOT send them otherwise). Without it their words have no other allowed place: a failed
//   prompt carries its error in its JSON-RPC answer, and the rest is left out (agent.ts logs it).
// - What ACP has no place for is dropped here on purpose, with the reason next to it; nothing is
//   made up to fill a field, except where ACP requires a field Reins may lack (said where it happens).
// - An event that does not validate against the Reins schema, or whose translation fails, gives no
//   update (translateSafely): a harness can only ever hurt its own session.
import type { Item, NoticeKind, ReinsEvent, PlanEntry as ReinsPlanEntry } from '@reins/core';
import { guarded, type TranslationFault } from '../events.js';
import { type BridgeSettings, configOptionsOf, modesOf } from './options.js';
import { finishTool, startTool, type ToolProgressMap, toolOutput } from './tools.js';
import type { PlanEntry, SessionConfigOption, SessionUpdate } from './wire.js';

interface StreamedText {
  /** Text already sent as chunks. */
  sent: string;
}

export interface BridgeState {
  texts: Map<string, StreamedText>;
  tools: ToolProgressMap;
  /** The last plan sent, to skip repeats. */
  lastPlan: string | undefined;
  settings: BridgeSettings;
  /** The config options the client was last given (JSON), so only changes go out. */
  sentOptions: string;
  nativeSessionId: string | undefined;
  /** The client advertised `session.notices`. */
  notices: boolean;
}

export function createBridgeState(settings: BridgeSettings, options: { notices?: boolean } = {}): BridgeState {
  return {
    texts: new Map(),
    tools: new Map(),
    lastPlan: undefined,
    settings,
    sentOptions: '[]',
    nativeSessionId: undefined,
    notices: options.notices === true,
  };
}

// ---- text ----

function chunk(kind: 'agent_message_chunk' | 'agent_thought_chunk', itemId: string, text: string): SessionUpdate {
  return { sessionUpdate: kind, content: { type: 'text', text }, messageId: itemId };
}

/** What the completed text item adds to what streamed. */
function finishText(state: BridgeState, item: Item & { kind: 'agent_message' | 'reasoning' }): SessionUpdate[] {
  const sent = state.texts.get(item.id)?.sent ?? '';
  state.texts.delete(item.id);
  const text = item.kind === 'reasoning' ? item.text || item.summary || '' : item.text;
  if (text === sent || text === '') return [];
  const kind = item.kind === 'agent_message' ? 'agent_message_chunk' : 'agent_thought_chunk';
  if (text.startsWith(sent)) return [chunk(kind, item.id, text.slice(sent.length))];
  // The streamed preview and the final text disagree. ACP cannot take chunks back, so the client
  // keeps what streamed rather than getting the text twice.
  return [];
}

// ---- plan, usage, notices, options ----

function planUpdate(state: BridgeState, entries: ReinsPlanEntry[]): SessionUpdate[] {
  const acpEntries: PlanEntry[] = entries.map((entry) => ({
    content: entry.text,
    status: entry.status,
    // ACP requires a priority; Reins leaves it absent when the harness gave none. Medium is the
    // neutral middle, the one value that claims nothing.
    priority: entry.priority ?? 'medium',
  }));
  const snapshot = JSON.stringify(acpEntries);
  if (snapshot === state.lastPlan) return [];
  state.lastPlan = snapshot;
  return [{ sessionUpdate: 'plan', entries: acpEntries }];
}

const NOTICE_SEVERITY: Record<NoticeKind, 'info' | 'warning'> = {
  retry: 'info',
  rate_limit: 'warning',
  compaction: 'info',
  hook: 'info',
  warning: 'warning',
  metered_key: 'warning',
  deprecation: 'warning',
  info: 'info',
};

function notice(
  state: BridgeState,
  severity: 'info' | 'warning' | 'error',
  title: string,
  meta: Record<string, unknown>,
): SessionUpdate[] {
  if (!state.notices) return [];
  // ACP requires a non-empty title that can stand alone.
  return [
    {
      sessionUpdate: 'notice',
      severity,
      title: title.trim() || `A ${severity} from the harness.`,
      _meta: { reins: meta },
    },
  ];
}

const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

/** The current options, recorded as what the client now has (for answers that carry them). */
export function takeConfigOptions(state: BridgeState): SessionConfigOption[] {
  const options = configOptionsOf(state.settings);
  state.sentOptions = JSON.stringify(options);
  return options;
}

function optionsUpdate(state: BridgeState): SessionUpdate[] {
  const options = configOptionsOf(state.settings);
  const snapshot = JSON.stringify(options);
  if (snapshot === state.sentOptions) return [];
  state.sentOptions = snapshot;
  return [{ sessionUpdate: 'config_option_update', configOptions: options }];
}

/** The session's mode changed (session/set_mode): the update that says so. */
export function modeUpdate(state: BridgeState): SessionUpdate[] {
  const modes = modesOf(state.settings);
  return modes ? [{ sessionUpdate: 'current_mode_update', currentModeId: modes.currentModeId }] : [];
}

// ---- items ----

function itemStarted(state: BridgeState, item: Item, parentItemId: string | undefined): SessionUpdate[] {
  switch (item.kind) {
    case 'agent_message':
    case 'reasoning':
      state.texts.set(item.id, { sent: '' });
      return [];
    case 'tool_call':
      return startTool(state.tools, item, parentItemId);
    case 'plan':
      return item.entries.length > 0 ? planUpdate(state, item.entries) : [];
    case 'compaction':
      return [{ sessionUpdate: 'compaction_update', compactionId: item.id, status: 'in_progress' }];
    // The client sent the prompt itself; echoing it would show it twice.
    default:
      return [];
  }
}

function itemDelta(state: BridgeState, event: ReinsEvent & { type: 'item.delta' }): SessionUpdate[] {
  switch (event.kind) {
    case 'text':
    case 'reasoning': {
      // A subagent's words are not the agent's answer, and ACP v1 has no lane for them.
      if (event.parentItemId || event.text === '') return [];
      const streamed = state.texts.get(event.itemId) ?? { sent: '' };
      state.texts.set(event.itemId, streamed);
      streamed.sent += event.text;
      return [chunk(event.kind === 'text' ? 'agent_message_chunk' : 'agent_thought_chunk', event.itemId, event.text)];
    }
    case 'tool_output':
      return toolOutput(state.tools, event.itemId, event.text);
    // Tool input previews are partial JSON in some harnesses; ACP's rawInput wants the whole value,
    // which the completed item carries.
    default:
      return [];
  }
}

function itemCompleted(state: BridgeState, item: Item, parentItemId: string | undefined): SessionUpdate[] {
  switch (item.kind) {
    case 'agent_message':
    case 'reasoning':
      if (parentItemId) {
        state.texts.delete(item.id);
        return [];
      }
      return finishText(state, item);
    case 'tool_call':
      return finishTool(state.tools, item, parentItemId);
    case 'plan':
      return planUpdate(state, item.entries);
    case 'compaction':
      return [
        {
          sessionUpdate: 'compaction_update',
          compactionId: item.id,
          status: item.status === 'running' ? 'in_progress' : item.status === 'declined' ? 'cancelled' : item.status,
        },
      ];
    default:
      // Replayed history (resume) is shown as the user's words; a live prompt is the client's own.
      return item.replay && item.text && item.origin !== 'synthetic'
        ? [{ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: item.text } }]
        : [];
  }
}

// ---- events ----

/** One Reins event -> the `session/update` payloads it becomes (often none). */
export function translateEvent(state: BridgeState, event: ReinsEvent): SessionUpdate[] {
  switch (event.type) {
    case 'session.started':
      if (event.model && !state.settings.model) state.settings.model = event.model;
      return optionsUpdate(state);
    case 'session.updated': {
      const out: SessionUpdate[] = [];
      if (event.model) state.settings.model = event.model;
      if (event.effort) state.settings.effort = event.effort;
      out.push(...optionsUpdate(state));
      const nativeChanged = event.nativeSessionId !== undefined && event.nativeSessionId !== state.nativeSessionId;
      if (event.nativeSessionId) state.nativeSessionId = event.nativeSessionId;
      // The native id rides in _meta: the ACP session id never changes, and a client that got a
      // bridge-made id (see agent.ts) learns the id to load later. The harness's own mode names,
      // tools and apiKeySource have no ACP field (the bridge's modes are its postures) and are dropped.
      if (event.title !== undefined || nativeChanged) {
        out.push({
          sessionUpdate: 'session_info_update',
          ...(event.title !== undefined ? { title: event.title } : {}),
          ...(nativeChanged ? { _meta: { reins: { nativeSessionId: event.nativeSessionId } } } : {}),
        });
      }
      return out;
    }
    case 'item.started':
      return itemStarted(state, event.item, event.parentItemId);
    case 'item.delta':
      return itemDelta(state, event);
    case 'item.completed':
      return itemCompleted(state, event.item, event.parentItemId);
    case 'usage.updated': {
      const used = event.context?.used;
      const size = event.context?.window;
      // usage_update needs both used and size as counts; absent is not zero, so without them nothing
      // is sent (token counts ride on the session/prompt answer instead).
      if (!isCount(used) || !isCount(size)) return [];
      const cost = event.costUsd;
      return [
        {
          sessionUpdate: 'usage_update',
          used,
          size,
          ...(cost && Number.isFinite(cost.amount) ? { cost: { amount: cost.amount, currency: cost.currency } } : {}),
        },
      ];
    }
    case 'notice':
      return notice(state, NOTICE_SEVERITY[event.kind], event.message, { kind: event.kind });
    case 'error':
      return notice(state, 'error', event.message, { code: event.code, fatal: event.fatal });
    case 'session.closed':
      // ACP has no "session ended" message: a harness that went away is told as an error notice
      // (a running turn fails on its own request). A close the client asked for needs no word.
      if (event.reason === 'requested') return [];
      return notice(state, 'error', `The ${event.harness} session ended: ${event.error?.message ?? event.reason}`, {
        reason: event.reason,
        ...(event.error ? { error: event.error } : {}),
      });
    // The session/prompt request is the turn on ACP: its start and end are the request and its
    // answer (see answers.ts promptAnswer), and its lifetime is the status. agent.ts sends permission
    // requests (client requests, not updates). Native frames mean nothing to an ACP client.
    default:
      return [];
  }
}

export function translateSafely(
  state: BridgeState,
  event: unknown,
  onFault: (fault: TranslationFault) => void = () => {},
): SessionUpdate[] {
  return guarded(event, (checked) => translateEvent(state, checked), onFault);
}

/** Settled items of a stored conversation (session/load replay) -> updates, each item once. */
export function historyUpdates(items: Item[]): SessionUpdate[] {
  const state = createBridgeState({ effortSwitch: false, posture: 'bypass', modes: false });
  const out: SessionUpdate[] = [];
  for (const item of items) {
    if (item.kind === 'user_message') {
      if (item.text && item.origin !== 'synthetic')
        out.push({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: item.text } });
      continue;
    }
    out.push(...itemCompleted(state, item, undefined));
  }
  return out;
}
