import { describe, expect, it } from 'vitest';
import { ReinsError } from '../errors.js';
import { acceptStructuredOutput, assertValidSchema, extractJson, validateAgainstSchema } from './validate.js';

const schema = {
  type: 'object',
  properties: { verdict: { enum: ['pass', 'fail'] }, score: { type: 'number', minimum: 0 } },
  required: ['verdict'],
  additionalProperties: false,
};

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return ReinsError.isInstance(error) ? error.code : 'not-a-reins-error';
  }
  return undefined;
}

describe('structured output validation', () => {
  it('accepts a valid reply given as text or as a value', () => {
    expect(acceptStructuredOutput(schema, { text: '{"verdict":"pass","score":3}' })).toEqual({
      verdict: 'pass',
      score: 3,
    });
    expect(acceptStructuredOutput(schema, { value: { verdict: 'fail' } })).toEqual({ verdict: 'fail' });
  });

  it('finds JSON inside fences or prose (emulated structured output)', () => {
    expect(extractJson('Sure:\n```json\n{"a":1}\n```\n')).toEqual({ ok: true, value: { a: 1 } });
    expect(extractJson('Here it is {"a":[1,2]} done')).toEqual({ ok: true, value: { a: [1, 2] } });
    expect(extractJson('no json here')).toEqual({ ok: false });
  });

  it('fails with structured_output_invalid on missing, empty, non-JSON and mismatching results', () => {
    expect(codeOf(() => acceptStructuredOutput(schema, undefined))).toBe('structured_output_invalid');
    expect(codeOf(() => acceptStructuredOutput(schema, { text: '   ' }))).toBe('structured_output_invalid');
    expect(codeOf(() => acceptStructuredOutput(schema, { text: 'I think it passes' }))).toBe(
      'structured_output_invalid',
    );
    expect(codeOf(() => acceptStructuredOutput(schema, { text: '{"verdict":"maybe"}' }))).toBe(
      'structured_output_invalid',
    );
    expect(codeOf(() => acceptStructuredOutput(schema, { value: { verdict: 'pass', extra: 1 } }))).toBe(
      'structured_output_invalid',
    );
  });

  it('names what did not match', () => {
    const result = validateAgainstSchema(schema, { score: -1 });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.errors.join('\n')).toMatch(/verdict/);
  });

  it('supports draft-07 schemas with definitions', () => {
    const draft7 = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      definitions: { n: { type: 'number' } },
      type: 'object',
      properties: { a: { $ref: '#/definitions/n' } },
    };
    expect(validateAgainstSchema(draft7, { a: 1 }).ok).toBe(true);
    expect(validateAgainstSchema(draft7, { a: 'x' }).ok).toBe(false);
  });

  it('rejects a schema that is not valid JSON Schema with invalid_input', () => {
    expect(codeOf(() => assertValidSchema({ type: 'not-a-type' }))).toBe('invalid_input');
  });
});
