// Parsing and validating a structured result against the caller's ORIGINAL schema. Every harness's
// result goes through here, so an invalid or missing result fails the same way everywhere:
// `structured_output_invalid`, never an empty success.
import { ReinsError } from '../errors.js';
import type { JsonSchema } from '../spec.js';
// ajv lives in validators.ts, which the CLI's bundle evaluates on the first schema only (bundle.mjs).
import { validatorFor } from './validators.js';

/** The schema's compiled validator, or invalid_input when the schema itself is not valid JSON Schema. */
function checkedValidatorFor(schema: JsonSchema): ReturnType<typeof validatorFor> {
  try {
    return validatorFor(schema);
  } catch (cause) {
    throw new ReinsError('invalid_input', `The output schema is not a valid JSON Schema: ${(cause as Error).message}`, {
      operation: 'structured-output',
      cause,
    });
  }
}

/** Throws invalid_input when the schema itself is not valid JSON Schema (check specs early). */
export function assertValidSchema(schema: JsonSchema): void {
  checkedValidatorFor(schema);
}

export type ValidationResult = { ok: true; value: unknown } | { ok: false; errors: string[] };

export function validateAgainstSchema(schema: JsonSchema, value: unknown): ValidationResult {
  const validate = checkedValidatorFor(schema);
  if (validate(value)) return { ok: true, value };
  const errors = (validate.errors ?? []).map(
    (error) => `${error.instancePath || '/'} ${error.message ?? 'is invalid'}`,
  );
  return { ok: false, errors };
}

/**
 * Finds the JSON in a model's reply: the whole text, else a fenced ```json block, else the
 * outermost {...} or [...] span (emulated structured output often comes wrapped in prose).
 */
export function extractJson(text: string): { ok: true; value: unknown } | { ok: false } {
  const candidates = [text.trim()];
  const fenced = /```(?:json)?\s*\n([\s\S]*?)\n?```/.exec(text);
  if (fenced?.[1]) candidates.push(fenced[1].trim());
  for (const [open, close] of [
    ['{', '}'],
    ['[', ']'],
  ] as const) {
    const start = text.indexOf(open);
    const end = text.lastIndexOf(close);
    if (start !== -1 && end > start) candidates.push(text.slice(start, end + 1));
  }
  for (const candidate of candidates) {
    if (!candidate) continue;
    try {
      return { ok: true, value: JSON.parse(candidate) };
    } catch {
      // try the next candidate
    }
  }
  return { ok: false };
}

/**
 * The one place a turn's structured result is accepted or refused. `raw` is either text to parse
 * or an already-parsed value; `restore` undoes a harness-specific schema transform first.
 */
export function acceptStructuredOutput(
  schema: JsonSchema,
  raw: { text: string } | { value: unknown } | undefined,
  restore: (value: unknown) => unknown = (value) => value,
): unknown {
  if (raw === undefined || ('text' in raw && raw.text.trim() === '')) {
    throw new ReinsError('structured_output_invalid', 'The harness returned no structured output for this turn.', {
      operation: 'structured-output',
    });
  }
  let value: unknown;
  if ('text' in raw) {
    const parsed = extractJson(raw.text);
    if (!parsed.ok) {
      throw new ReinsError(
        'structured_output_invalid',
        'The reply is not JSON, so it cannot match the output schema.',
        {
          operation: 'structured-output',
          data: { text: raw.text.slice(0, 2000) },
        },
      );
    }
    value = parsed.value;
  } else {
    value = raw.value;
  }
  const restored = restore(value);
  const result = validateAgainstSchema(schema, restored);
  if (!result.ok) {
    throw new ReinsError(
      'structured_output_invalid',
      `The reply does not match the output schema: ${result.errors.slice(0, 5).join('; ')}`,
      { operation: 'structured-output', data: { errors: result.errors, value: restored } },
    );
  }
  return restored;
}

/** The instruction that emulates structured output on harnesses without it (ACP agents). */
export function structuredOutputInstruction(schema: JsonSchema): string {
  return [
    'Answer with a single JSON value that matches this JSON Schema, and nothing else:',
    'no prose, no Markdown fences.',
    JSON.stringify(schema),
  ].join(' ');
}
