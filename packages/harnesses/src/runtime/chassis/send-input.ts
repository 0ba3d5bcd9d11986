// The send guards of every adapter: a turn's input and options are checked at the boundary, so a bad
// call is `invalid_input` naming the field before anything is queued or sent.
import { ReinsError, type SendOptions, SendOptionsSchema, type TurnInput, TurnInputSchema } from '@reins/core';

const noText = (harness: string) =>
  new ReinsError('invalid_input', 'A turn needs text (or an image).', { harness, operation: 'send' });

export function parseInput(raw: TurnInput | string, harness: string): TurnInput {
  // Text, the common call: what the schema would return, without its parse (a warm turn's send runs
  // it once, out of the caches: ~0.1 ms of the send's CPU before the harness gets the message).
  if (typeof raw === 'string') {
    if (raw.trim() === '') throw noText(harness);
    return { text: raw };
  }
  const parsed = TurnInputSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ReinsError(
      'invalid_input',
      `Invalid turn input${issue ? ` at ${issue.path.join('.') || 'input'}: ${issue.message}` : ''}.`,
      { harness, operation: 'send' },
    );
  }
  if (parsed.data.text.trim() === '' && !parsed.data.images?.length) throw noText(harness);
  return parsed.data;
}

export function parseOptions(raw: SendOptions | undefined, harness: string): SendOptions {
  // No options set, the common call: what the schema returns for it (unknown keys dropped), without its parse.
  if (
    raw === undefined ||
    raw === null ||
    (typeof raw === 'object' &&
      !Array.isArray(raw) &&
      raw.mode === undefined &&
      raw.steerFallback === undefined &&
      raw.outputSchema === undefined &&
      raw.clientMessageId === undefined)
  )
    return {};
  const parsed = SendOptionsSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ReinsError(
      'invalid_input',
      `Invalid send options${issue ? ` at ${issue.path.join('.') || 'options'}: ${issue.message}` : ''}.`,
      { harness, operation: 'send' },
    );
  }
  return parsed.data;
}
