// The template harness's pure translation, (state, frame) -> payloads (docs/architecture/adding-a-harness.md):
// never throws on what the harness sends; an unknown frame is a passthrough with reason `unknown`.
import { type EventPayload, isRecord } from '@reins/core';

export interface TemplateState {
  turn: number;
  answers: number;
}

export function createTemplateState(): TemplateState {
  return { turn: 0, answers: 0 };
}

export function beginTemplateTurn(state: TemplateState): void {
  state.turn++;
}

export function translateLine(state: TemplateState, frame: unknown): EventPayload[] {
  if (isRecord(frame) && frame.type === 'text' && typeof frame.text === 'string') {
    const id = `template-${state.turn}-${++state.answers}`;
    return [
      { type: 'item.started', item: { kind: 'agent_message', id, status: 'running', text: '' } },
      { type: 'item.completed', item: { kind: 'agent_message', id, status: 'completed', text: frame.text } },
    ];
  }
  if (isRecord(frame) && frame.type === 'done') {
    const stop = typeof frame.stop === 'string' ? frame.stop : 'end_turn';
    return [
      {
        type: 'turn.completed',
        outcome: { status: stop === 'cancelled' ? 'cancelled' : 'completed' },
        stopReason: stop,
      },
    ];
  }
  return [{ type: 'passthrough', frame, reason: 'unknown' }];
}
