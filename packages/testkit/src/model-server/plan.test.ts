// Planning a reply without a server: default usage, chunking, builder snapshots, schema stubs.
import { describe, expect, it } from 'vitest';
import { valueForSchema } from './auxiliary.js';
import { reply } from './builder.js';
import { defaultToolRecipes } from './harness-tools.js';
import { chunkJson, chunkText, IdSource, planReply } from './plan.js';

const context = () => ({
  offered: [],
  recipes: defaultToolRecipes,
  ids: new IdSource(),
  callIdPrefix: 'call',
  requestBytes: 400,
});

describe('planReply', () => {
  it('estimates usage at ~4 characters per token when the script gives none', () => {
    const plan = planReply(reply().reasoning('12345678').text('1234567890123456').build(), context());
    // input 400 bytes -> 100; text 16 chars -> 4, reasoning 8 chars -> 2 (counted in output too).
    expect(plan.usage).toEqual({ input: 100, output: 6, cachedInput: 0, reasoning: 2 });
  });

  it('keeps explicit usage and the step order, with deterministic call ids', () => {
    const plan = planReply(
      reply().text('a').toolCall('custom_tool', { x: 1 }).text('b').usage({ input: 9, output: 8 }).build(),
      context(),
    );
    expect(plan.parts).toEqual([
      { type: 'text', text: 'a' },
      { type: 'tool', callId: 'call_scripted_1', name: 'custom_tool', input: { x: 1 }, custom: false },
      { type: 'text', text: 'b' },
    ]);
    expect(plan.usage).toEqual({ input: 9, output: 8, cachedInput: 0, reasoning: 0 });
  });

  it('build() snapshots: changing the builder later does not change a queued reply', () => {
    const builder = reply().text('first');
    const built = builder.build();
    builder.text('second').stall();
    expect(built.steps).toEqual([{ kind: 'text', text: 'first' }]);
    expect(built.ending).toEqual({ kind: 'complete' });
  });
});

describe('chunking', () => {
  it('splits text into a few word chunks that reassemble exactly', () => {
    const text = '  Hello from the fake model, with  spaces. ';
    const chunks = chunkText(text);
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.join('')).toBe(text);
    expect(chunkText('single')).toEqual(['single']);
  });

  it('splits JSON arguments into slices that reassemble exactly', () => {
    const json = JSON.stringify({ command: 'echo hello-from-tool > out.txt' });
    expect(chunkJson(json).length).toBe(3);
    expect(chunkJson(json).join('')).toBe(json);
  });
});

describe('valueForSchema', () => {
  it('fills required properties with the first enum value and typed placeholders', () => {
    expect(
      valueForSchema({
        type: 'OBJECT',
        properties: {
          next_speaker: { type: 'STRING', enum: ['user', 'model'] },
          confident: { type: 'boolean' },
          count: { type: 'integer' },
          tags: { type: 'array' },
          optional: { type: 'string' },
        },
        required: ['next_speaker', 'confident', 'count', 'tags'],
      }),
    ).toEqual({ next_speaker: 'user', confident: false, count: 0, tags: [] });
  });
});
