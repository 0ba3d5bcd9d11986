// The template harness's wire: one JSON object a line each way. A made-up protocol, the smallest a
// harness speaks; a real harness types its CLI's own frames here (from its published schema where it has one).

/** Reins -> harness: one user turn. */
export interface PromptLine {
  type: 'prompt';
  text: string;
}

/** Harness -> Reins: a piece of the answer, then the turn's end. */
export type OutputLine = { type: 'text'; text: string } | { type: 'done'; stop: 'end_turn' | 'cancelled' };
