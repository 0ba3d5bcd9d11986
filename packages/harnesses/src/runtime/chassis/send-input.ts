// The send guards of every adapter: a turn's input and options are checked at the boundary, so a bad
// call is `invalid_input` naming the field before anything is queued or sent.
import { ReinsError, type SendOptions, SendOptionsSchema, type TurnInput, TurnInputSchema } from '@reins/core';

export function parseInput(raw: TurnInput | string, harness: string): TurnInput {
  const parsed = TurnInputSchema.safeParse(typeof raw === 'string' ? { text: raw } : raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ReinsError(
      'invalid_input',
      `Invalid turn input${issue ? ` at ${issue.path.join('.') || 'input'}: ${issue.message}` : ''}.`,
      { harness, operation: 'send' },
    );
  }
  if (parsed.data.text.trim() === '' && !parsed.data.images?.length) {
    throw new ReinsError('invalid_input', 'A turn needs text (or an image).', { harness, operation: 'send' });
  }
  return parsed.data;
}

export function parseOptions(raw: SendOptions, harness: string): SendOptions {
  const parsed = SendOptionsSchema.safeParse(raw ?? {});
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
