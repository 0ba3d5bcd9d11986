// The wire protocol's JSON Schema matches the checked-in file and judges messages as the zod schemas do.
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { METHOD_NAMES, METHODS } from './index.js';
import { NOTIFICATIONS, wireJsonSchema, wireJsonSchemaText } from './json-schema.js';

const checkedIn = new URL('../schema/protocol.schema.json', import.meta.url);

const ajv = new Ajv2020({ strict: false });
ajv.addSchema(wireJsonSchema(), 'wire');
const validatorFor = (id: string) => ajv.compile({ $ref: `wire#/$defs/${encodeURIComponent(id)}` });

describe('wire protocol JSON Schema', () => {
  it('matches the checked-in file (run `npm run schema:generate` after changing the zod schemas)', () => {
    expect(readFileSync(checkedIn, 'utf8')).toBe(wireJsonSchemaText());
  });

  it('names the params and result of every method and every notification', () => {
    const defs = Object.keys(wireJsonSchema().$defs as Record<string, unknown>);
    for (const method of METHOD_NAMES)
      expect(defs).toEqual(expect.arrayContaining([`${method}#params`, `${method}#result`]));
    for (const method of Object.keys(NOTIFICATIONS)) expect(defs).toContain(`${method}#notification`);
  });

  it('accepts and refuses params as the zod schemas do', () => {
    const cases: [keyof typeof METHODS, unknown][] = [
      ['session/create', { harness: 'codex', spec: { cwd: '/w' } }],
      ['session/create', { harness: 'nope', spec: { cwd: '/w' } }],
      ['session/create', { harness: 'codex' }],
      ['session/send', { sessionId: 's', input: 'hi' }],
      ['session/send', { sessionId: '', input: 'hi' }],
      ['session/subscribe', { sessionId: 's', afterSeq: -1 }],
      ['harness/sessions', { harness: 'codex', limit: 501 }],
      ['initialize', { token: 't', capabilities: { eventBatches: true } }],
    ];
    for (const [method, params] of cases) {
      const validate = validatorFor(`${method}#params`);
      expect(validate(params), `${method} ${JSON.stringify(params)}`).toBe(
        METHODS[method].params.safeParse(params).success,
      );
    }
  });

  it('refuses a session/events batch with no events, as the schema does', () => {
    const validate = validatorFor('session/events#notification');
    const event = { type: 'turn.started', seq: 1, sessionId: 's' };
    expect(validate({ sessionId: 's', events: [event] })).toBe(true);
    expect(validate({ sessionId: 's', events: [] })).toBe(false);
  });
});
