// Amp stream-json -> Reins payloads: the shared Claude-compatible translation (protocols/stream-json)
// with Amp's tool names, plus Amp's own terminal rule.
//
// Terminal rule: Amp may not emit `result` while stdin stays open (known from other clients; NOT
// observed live here). A turn therefore ends at the terminal assistant stop: an assistant frame on
// the main lane with stop_reason "end_turn" while no tool use of the turn awaits its result. That is
// decided from the frame itself (a settle rule), never from a timer. If a `result` does arrive it
// ends the turn instead when it comes first; one that comes after the settle only adds its usage.
import { type EventPayload, isRecord, type ToolKind } from '@reins/core';
import {
  type Emission,
  EmissionList,
  type EmissionSink,
  resetTurnState,
  resolveStreamJsonOptions,
  TranslationState,
  translateTypedFrameInto,
} from '../protocols/stream-json/index.js';

/** Amp's built-in tool names (Amp documentation; not observed live). */
export function ampToolKind(name: string): ToolKind | 'plan' {
  if (name.startsWith('mcp__')) return 'mcp';
  switch (name) {
    case 'Bash':
      return 'command';
    case 'create_file':
    case 'edit_file':
    case 'undo_edit':
      return 'file_change';
    case 'Task':
      return 'subagent';
    case 'web_search':
    case 'read_web_page':
      return 'web_search';
    case 'todo_write':
      return 'plan';
    default:
      return 'other';
  }
}

export interface AmpTranslateState {
  inner: TranslationState;
  /** The running turn already ended by the settle rule; a late `result` must not end another. */
  settled: boolean;
  /**
   * The previous turn ended by the settle rule and the new turn has seen no frame of its own yet: a
   * `result` now is the previous turn's late one (Reins starts the next turn as soon as one settles,
   * so that result can arrive after the next user message went out).
   */
  previousSettled: boolean;
  /** The sink a late result translates into, made on the first one and kept: no object per late result. */
  withoutTerminal: WithoutTerminal | undefined;
}

// The shared translation gives a plain command result exit code 0 because Claude Code 2.1.197 reports
// non-zero exits as "Exit code N" errors. Amp's result format was not observed, so an exit code is
// only kept when Amp itself wrote it that way (a failed result). Resolved once, shared by every session.
const AMP_OPTIONS = resolveStreamJsonOptions({
  source: 'amp.stream-json',
  harnessName: 'Amp',
  classifyTool: ampToolKind,
  plainResultExitsZero: false,
});

export function createAmpTranslateState(): AmpTranslateState {
  return {
    inner: new TranslationState(AMP_OPTIONS),
    settled: false,
    previousSettled: false,
    withoutTerminal: undefined,
  };
}

export function beginAmpTurn(state: AmpTranslateState): void {
  state.previousSettled = state.settled;
  state.settled = false;
}

/** True when this frame is Amp's terminal assistant stop (see header). */
export function isTerminalAssistantStop(state: AmpTranslateState, frame: unknown): boolean {
  return isRecord(frame) && frame.type === 'assistant' && isTerminalStop(state, frame);
}

/** isTerminalAssistantStop for a frame known to be an assistant frame. */
function isTerminalStop(state: AmpTranslateState, frame: Record<string, unknown>): boolean {
  if (frame.parent_tool_use_id) return false;
  const message = isRecord(frame.message) ? frame.message : undefined;
  if (message?.stop_reason !== 'end_turn') return false;
  const tools = state.inner.toolCalls;
  if (tools) for (const tool of tools.values()) if (tool.kind === 'tool_call' || tool.kind === 'plan') return false;
  return true;
}

/** Translates one Amp frame into a list (translateAmpFrameInto's emissions). */
export function translateAmpFrame(state: AmpTranslateState, frame: unknown): Emission[] {
  const list = new EmissionList();
  translateAmpFrameInto(state, frame, list);
  return list.emissions;
}

/** Passes emissions on except a turn's terminal: a result that comes after its turn ended adds only the rest. */
class WithoutTerminal implements EmissionSink {
  /** Where the emissions go: the sink of the frame being translated. */
  target: EmissionSink;

  constructor(target: EmissionSink) {
    this.target = target;
  }

  emit(payload: EventPayload, parentItemId: string | undefined, background: boolean): void {
    if (payload.type !== 'turn.completed') this.target.emit(payload, parentItemId, background);
  }
}

/** Translates one Amp frame into `sink`: the shared translation, with the settle rule (see header). */
export function translateAmpFrameInto(state: AmpTranslateState, frame: unknown, sink: EmissionSink): void {
  // The frame's type, read once (the shared translation is handed it): only an assistant frame can be the
  // terminal stop.
  const type = isRecord(frame) ? frame.type : undefined;
  if (type === 'result') {
    // A result after the turn already ended (at its assistant stop, or the previous turn's late one):
    // keep what it adds (usage), not a second terminal.
    const late = state.previousSettled || state.settled;
    if (!state.previousSettled) state.settled = false;
    state.previousSettled = false;
    let target = sink;
    if (late) {
      state.withoutTerminal ??= new WithoutTerminal(sink);
      state.withoutTerminal.target = sink;
      target = state.withoutTerminal;
    }
    translateTypedFrameInto(state.inner, frame, type, target);
    return;
  }
  state.previousSettled = false;
  translateTypedFrameInto(state.inner, frame, type, sink);
  if (type === 'assistant' && !state.settled && isTerminalStop(state, frame as Record<string, unknown>)) {
    state.settled = true;
    const outcome: EventPayload = state.inner.turnError
      ? { type: 'turn.completed', outcome: { status: 'failed', error: state.inner.turnError }, stopReason: 'end_turn' }
      : state.inner.interruptRequested
        ? { type: 'turn.completed', outcome: { status: 'cancelled' }, stopReason: 'end_turn' }
        : { type: 'turn.completed', outcome: { status: 'completed' }, stopReason: 'end_turn' };
    resetTurnState(state.inner);
    sink.emit(outcome, undefined, false);
  }
}
