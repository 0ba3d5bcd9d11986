// Structured output for one chassis turn (docs/architecture/contract.md, "Turn rules"): the emulated
// instruction added to the prompt, and the result accepted or refused against the turn's original schema.
import {
  acceptStructuredOutput,
  type JsonSchema,
  type PayloadOf,
  ReinsError,
  structuredOutputInstruction,
  type TurnInput,
} from '@reins/core';
import type { ChassisOptions, StructuredResult } from './turn-host.js';

type Completion = Omit<PayloadOf<'turn.completed'>, 'type'>;

/** What goes to the harness: the input, plus the instruction when structured output is emulated. */
export function structuredPrompt(
  input: TurnInput,
  schema: JsonSchema | undefined,
  mode: ChassisOptions['structuredOutput'],
): TurnInput {
  if (!schema || mode !== 'emulated') return input;
  return { ...input, text: `${input.text}\n\n${structuredOutputInstruction(schema)}` };
}

/** The completion with its accepted `structuredOutput`, or turned failed when the result does not fit. */
export function structuredCompletion(
  schema: JsonSchema,
  completion: Completion,
  structured: {
    result: StructuredResult | undefined;
    restore: ((value: unknown) => unknown) | undefined;
    harness: string;
  },
): Completion {
  try {
    const value = acceptStructuredOutput(schema, structured.result, structured.restore);
    return { ...completion, structuredOutput: value };
  } catch (error) {
    const { structuredOutput: _dropped, ...rest } = completion;
    const info = ReinsError.from(error, 'structured_output_invalid', { harness: structured.harness });
    return { ...rest, outcome: { status: 'failed', error: info.toInfo() } };
  }
}
