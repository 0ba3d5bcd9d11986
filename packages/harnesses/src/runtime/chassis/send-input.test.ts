// The send guards: text and "no options" take a path without the schema's parse, which must give what
// the schema gives; everything else is judged by the schema as before.
import { ReinsError, SendOptionsSchema, TurnInputSchema } from '@reins/core';
import { describe, expect, it } from 'vitest';
import { parseInput, parseOptions } from './send-input.js';

const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return ReinsError.isInstance(error) ? { code: error.code, message: error.message } : error;
  }
  return undefined;
};

describe('parseInput', () => {
  it('takes text as the schema would, and refuses text that is only blanks', () => {
    for (const text of ['Hi', ' padded ', 'a\nb', '{"json":1}'])
      expect(parseInput(text, 'codex')).toEqual(TurnInputSchema.parse({ text }));
    for (const blank of ['', '  ', '\n\t'])
      expect(refusal(() => parseInput(blank, 'codex'))).toEqual({
        code: 'invalid_input',
        message: 'A turn needs text (or an image).',
      });
  });

  it('judges an object by the schema: unknown keys dropped, a wrong field named', () => {
    expect(parseInput({ text: 'Hi', extra: 1 } as never, 'codex')).toEqual({ text: 'Hi' });
    expect(parseInput({ text: '', images: [{ source: 'path', path: '/a.png' }] }, 'codex').images).toHaveLength(1);
    expect(refusal(() => parseInput({ text: 'Hi', images: 'a.png' } as never, 'codex'))).toMatchObject({
      code: 'invalid_input',
      message: expect.stringContaining('at images'),
    });
    expect(refusal(() => parseInput({ text: ' ' }, 'codex'))).toMatchObject({ code: 'invalid_input' });
  });
});

describe('parseOptions', () => {
  it('gives what the schema gives for no options, and judges any option that is set', () => {
    for (const none of [undefined, {}, { unknownKey: 'x' }])
      expect(parseOptions(none as never, 'codex')).toEqual(SendOptionsSchema.parse(none ?? {}));
    expect(parseOptions({ mode: 'steer' }, 'codex')).toEqual({ mode: 'steer' });
    for (const bad of [{ mode: 'later' }, { clientMessageId: '' }, { steerFallback: 1 }, []])
      expect(refusal(() => parseOptions(bad as never, 'codex'))).toMatchObject({ code: 'invalid_input' });
  });
});
