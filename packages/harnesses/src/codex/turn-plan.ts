// The per-turn data a Codex session makes at send time (docs/architecture/contract.md, "Turn rules").
import type { StrictSchemaPlan } from '@reins/core';
import type { UserInput } from './wire.js';

/** Per-turn data made at send time (TurnHost.planTurn): bad input is refused before anything is queued. */
export interface CodexTurnPlan {
  /** The input as Codex takes it. */
  input: UserInput[];
  /** Codex's strict form of the turn's output schema, with the function that undoes its changes. */
  strict: StrictSchemaPlan | undefined;
}
