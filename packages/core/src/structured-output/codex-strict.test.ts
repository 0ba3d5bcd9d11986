import { describe, expect, it } from 'vitest';
import { ReinsError } from '../errors.js';
import { toCodexStrictSchema } from './codex-strict.js';
import { acceptStructuredOutput, validateAgainstSchema } from './validate.js';

const person = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    age: { type: 'integer' },
    nickname: { type: 'string' },
    address: {
      type: 'object',
      properties: { city: { type: 'string' }, zip: { type: 'string' } },
      required: ['city'],
    },
    tags: { type: 'array', items: { type: 'object', properties: { label: { type: 'string' } } } },
    role: { enum: ['admin', 'user'], type: 'string' },
    note: { type: ['string', 'null'] },
  },
  required: ['name', 'note'],
};

describe('toCodexStrictSchema', () => {
  it('makes every field required, optional ones nullable, and closes objects, recursively', () => {
    const plan = toCodexStrictSchema(person);
    expect(plan.wrapped).toBe(false);
    expect(plan.schema).toEqual({
      type: 'object',
      properties: {
        name: { type: 'string' },
        age: { type: ['integer', 'null'] },
        nickname: { type: ['string', 'null'] },
        address: {
          type: ['object', 'null'],
          properties: { city: { type: 'string' }, zip: { type: ['string', 'null'] } },
          required: ['city', 'zip'],
          additionalProperties: false,
        },
        tags: {
          type: ['array', 'null'],
          items: {
            type: 'object',
            properties: { label: { type: ['string', 'null'] } },
            required: ['label'],
            additionalProperties: false,
          },
        },
        role: { enum: ['admin', 'user', null], type: ['string', 'null'] },
        note: { type: ['string', 'null'] },
      },
      required: ['name', 'age', 'nickname', 'address', 'tags', 'role', 'note'],
      additionalProperties: false,
    });
  });

  it('strips the nulls emitted for optional fields but keeps nulls the original allowed', () => {
    const plan = toCodexStrictSchema(person);
    const fromModel = {
      name: 'Ada',
      age: null,
      nickname: null,
      address: { city: 'London', zip: null },
      tags: [{ label: null }, { label: 'x' }],
      role: null,
      note: null,
    };
    const restored = plan.restore(fromModel);
    expect(restored).toEqual({ name: 'Ada', address: { city: 'London' }, tags: [{}, { label: 'x' }], note: null });
    expect(validateAgainstSchema(person, restored)).toEqual({ ok: true, value: restored });
  });

  it('turns oneOf into anyOf', () => {
    const plan = toCodexStrictSchema({
      type: 'object',
      properties: { v: { oneOf: [{ type: 'string' }, { type: 'number' }] } },
      required: ['v'],
    });
    expect(plan.schema.properties).toEqual({ v: { anyOf: [{ type: 'string' }, { type: 'number' }] } });
  });

  it('wraps a root union in one envelope object and unwraps the result', () => {
    const union = {
      oneOf: [
        { type: 'object', properties: { ok: { const: true }, value: { type: 'string' } }, required: ['ok', 'value'] },
        { type: 'object', properties: { ok: { const: false }, reason: { type: 'string' } }, required: ['ok'] },
      ],
    };
    const plan = toCodexStrictSchema(union);
    expect(plan.wrapped).toBe(true);
    expect(plan.schema).toMatchObject({
      type: 'object',
      required: ['value'],
      additionalProperties: false,
      properties: { value: { anyOf: [expect.any(Object), expect.any(Object)] } },
    });
    const restored = acceptStructuredOutput(union, { text: '{"value":{"ok":false,"reason":null}}' }, plan.restore);
    expect(restored).toEqual({ ok: false });
  });

  it('wraps a root array or scalar', () => {
    const plan = toCodexStrictSchema({ type: 'array', items: { type: 'string' } });
    expect(plan.wrapped).toBe(true);
    expect(plan.restore({ value: ['a', 'b'] })).toEqual(['a', 'b']);
  });

  it('transforms local $defs and keeps them at the root when wrapping', () => {
    const schema = {
      type: 'array',
      items: { $ref: '#/$defs/point' },
      $defs: {
        point: { type: 'object', properties: { x: { type: 'number' }, y: { type: 'number' } }, required: ['x'] },
      },
    };
    const plan = toCodexStrictSchema(schema);
    expect(plan.schema.$defs).toEqual({
      point: {
        type: 'object',
        properties: { x: { type: 'number' }, y: { type: ['number', 'null'] } },
        required: ['x', 'y'],
        additionalProperties: false,
      },
    });
    expect(plan.restore({ value: [{ x: 1, y: null }] })).toEqual([{ x: 1 }]);
  });

  it('drops annotations strict mode rejects', () => {
    const plan = toCodexStrictSchema({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { a: { type: 'string', default: 'x', description: 'kept' } },
      required: ['a'],
    });
    expect(plan.schema).toEqual({
      type: 'object',
      properties: { a: { type: 'string', description: 'kept' } },
      required: ['a'],
      additionalProperties: false,
    });
  });

  it.each([
    ['an open map', { type: 'object', additionalProperties: { type: 'string' } }, /open maps|list its properties/],
    [
      'additionalProperties true',
      { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: true },
      /open maps/,
    ],
    ['allOf', { allOf: [{ type: 'object' }] }, /"allOf" is not supported/],
    ['not', { type: 'object', properties: { a: { not: { type: 'string' } } } }, /properties\/a: "not"/],
    ['a remote $ref', { $ref: 'https://example.com/s.json' }, /only local \$ref/],
    ['a schema that accepts anything', { type: 'object', properties: { a: {} } }, /accepts any value/],
    ['an empty object type', { type: 'object' }, /list its properties/],
    ['tuple items', { type: 'array', items: [{ type: 'string' }] }, /tuple/],
    ['an unknown keyword', { type: 'string', contentEncoding: 'base64' }, /unknown keyword "contentEncoding"/],
  ])('refuses %s with a clear invalid_input error', (_name, schema, message) => {
    try {
      toCodexStrictSchema(schema);
      expect.unreachable('should have thrown');
    } catch (error) {
      expect(ReinsError.isInstance(error)).toBe(true);
      expect((error as ReinsError).code).toBe('invalid_input');
      expect((error as ReinsError).message).toMatch(message);
    }
  });
});
