import { describe, expect, it } from 'vitest';
import { enumFieldsFromJsonSchema, enumFieldsFromTypeScript, mergeEnumFields } from './wire-enums.js';

const valuesOf = (fields: { key: string; values: readonly string[] }[], key: string) =>
  fields.find((field) => field.key === key)?.values;

describe('enumFieldsFromTypeScript', () => {
  it('reads generated (ts-rs) unions, tagged unions and fields typed by a literal alias', () => {
    const fields = enumFieldsFromTypeScript([
      'export type TurnStatus = "completed" | "interrupted" | "failed" | "inProgress";',
      '// a comment with "quotes": "x"\nexport type Turn = { id: string, status: TurnStatus, error: TurnError | null, };',
      'export type ThreadStatus = { "type": "notLoaded" } | { "type": "active", activeFlags: Array<ThreadActiveFlag>, };',
    ]);
    expect(valuesOf(fields, 'status')).toEqual(['completed', 'failed', 'inProgress', 'interrupted']);
    expect(valuesOf(fields, 'type')).toEqual(['active', 'notLoaded']);
    expect(valuesOf(fields, 'id')).toBeUndefined();
  });

  it('reads hand-written interfaces with single quotes, optional fields and open unions', () => {
    const fields = enumFieldsFromTypeScript([
      `export type PiStopReason = 'stop' | 'error';
       export interface M { role: 'assistant'; stopReason?: PiStopReason; usage?: { n?: number } }
       export type E = | { type: 'text_start' | 'thinking_start'; contentIndex: number } | { type: 'done'; reason?: string };
       export interface C { state: 'final' | 'error' | string; }`,
    ]);
    expect(valuesOf(fields, 'stopReason')).toEqual(['error', 'stop']);
    expect(valuesOf(fields, 'role')).toEqual(['assistant']);
    expect(valuesOf(fields, 'type')).toEqual(['done', 'text_start', 'thinking_start']);
    expect(valuesOf(fields, 'state')).toEqual(['error', 'final']);
    expect(valuesOf(fields, 'reason')).toBeUndefined();
  });
});

describe('enumFieldsFromJsonSchema', () => {
  it('reads const, enum and oneOf of consts, through $ref', () => {
    const fields = enumFieldsFromJsonSchema({
      $defs: {
        StopReason: {
          oneOf: [
            { type: 'string', const: 'end_turn' },
            { type: 'string', const: 'cancelled' },
          ],
        },
        Update: {
          oneOf: [
            { type: 'object', properties: { sessionUpdate: { type: 'string', const: 'plan' } } },
            { type: 'object', properties: { sessionUpdate: { type: 'string', const: 'tool_call' } } },
          ],
        },
        Prompt: {
          type: 'object',
          properties: {
            stopReason: { $ref: '#/$defs/StopReason' },
            kind: { anyOf: [{ enum: ['read', 'edit'] }, { type: 'null' }] },
            severity: {
              anyOf: [
                { type: 'string', const: 'info' },
                { title: 'other', type: 'string' },
              ],
            },
            free: { anyOf: [{ type: 'string' }, { type: 'null' }] },
            text: { type: 'string' },
          },
        },
      },
    });
    expect(valuesOf(fields, 'stopReason')).toEqual(['cancelled', 'end_turn']);
    expect(valuesOf(fields, 'sessionUpdate')).toEqual(['plan', 'tool_call']);
    expect(valuesOf(fields, 'kind')).toEqual(['edit', 'read']);
    expect(valuesOf(fields, 'severity')).toEqual(['info']);
    expect(valuesOf(fields, 'free')).toBeUndefined();
    expect(valuesOf(fields, 'text')).toBeUndefined();
  });

  it('merges lists by key', () => {
    expect(
      mergeEnumFields(
        [{ key: 'a', values: ['x'] }],
        [
          { key: 'a', values: ['y', 'x'] },
          { key: 'b', values: ['z'] },
        ],
      ),
    ).toEqual([
      { key: 'a', values: ['x', 'y'] },
      { key: 'b', values: ['z'] },
    ]);
  });
});
