// The OpenAI Responses dialect (what Codex speaks) against the real openai client.
import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reply } from './builder.js';
import { type ModelServer, startModelServer } from './server.js';

let server: ModelServer;
let client: OpenAI;

beforeEach(async () => {
  server = await startModelServer({ strict: true });
  client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'test-key', maxRetries: 0 });
});
afterEach(() => server.close());

// The tools Codex 0.169.0 offers for shell and file edits (docs/harnesses/codex.md).
const codexTools: OpenAI.Responses.Tool[] = [
  {
    type: 'function',
    name: 'exec_command',
    strict: false,
    parameters: { type: 'object', properties: { cmd: { type: 'string' } }, required: ['cmd'] },
  },
  { type: 'custom', name: 'apply_patch', description: 'Apply a patch' },
];

describe('responses dialect', () => {
  it('streams reasoning summary, text, function_call and custom_tool_call with usage', async () => {
    server.enqueue(
      reply()
        .reasoning('Planning to run echo')
        .text('Running it now.')
        .shell('echo hi')
        .writeFile('notes/f.txt', 'x\n')
        .usage({ input: 50, output: 20, cachedInput: 10, reasoning: 5 }),
    );
    const stream = client.responses.stream({ model: 'fake-model', input: 'say hi', tools: codexTools });
    const types: string[] = [];
    stream.on('event', (event) => types.push(event.type));
    const response = await stream.finalResponse();

    expect(types.slice(0, 2)).toEqual(['response.created', 'response.in_progress']);
    expect(types).toContain('response.reasoning_summary_part.added');
    expect(types).toContain('response.reasoning_summary_text.delta');
    expect(types).toContain('response.output_text.done');
    expect(types).toContain('response.function_call_arguments.delta');
    expect(types).toContain('response.custom_tool_call_input.delta');
    expect(types.filter((type) => type === 'response.output_item.done')).toHaveLength(4);
    expect(types.at(-1)).toBe('response.completed');

    expect(response.output).toEqual([
      expect.objectContaining({ type: 'reasoning', summary: [{ type: 'summary_text', text: 'Planning to run echo' }] }),
      expect.objectContaining({
        type: 'message',
        role: 'assistant',
        content: [expect.objectContaining({ type: 'output_text', text: 'Running it now.' })],
      }),
      expect.objectContaining({
        type: 'function_call',
        call_id: expect.stringMatching(/^call_/),
        name: 'exec_command',
        arguments: '{"cmd":"echo hi"}',
      }),
      expect.objectContaining({
        type: 'custom_tool_call',
        name: 'apply_patch',
        input: '*** Begin Patch\n*** Add File: notes/f.txt\n+x\n*** End Patch\n',
      }),
    ]);
    expect(response.output_text).toBe('Running it now.');
    expect(response.usage).toEqual({
      input_tokens: 50,
      input_tokens_details: { cached_tokens: 10 },
      output_tokens: 20,
      output_tokens_details: { reasoning_tokens: 5 },
      total_tokens: 70,
    });
  });

  it('works with create({ stream: true }) and records the model', async () => {
    server.enqueue(reply().text('hello there'));
    const stream = await client.responses.create({ model: 'fake-model-2', input: 'hi', stream: true });
    let text = '';
    for await (const event of stream) if (event.type === 'response.output_text.delta') text += event.delta;
    expect(text).toBe('hello there');
    expect(server.requests[0]).toMatchObject({ dialect: 'responses', model: 'fake-model-2', userText: 'hi' });
  });

  it('surfaces a 404 model_not_found as NotFoundError', async () => {
    server.enqueue(reply().httpError(404));
    const error = await client.responses.create({ model: 'nope', input: 'hi' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect(error).toMatchObject({ status: 404, code: 'model_not_found', type: 'invalid_request_error' });
  });

  it('ends with response.failed for failMidStream({ mode: "event" })', async () => {
    server.enqueue(reply().text('partial').failMidStream({ mode: 'event', message: 'upstream broke' }));
    const stream = await client.responses.create({ model: 'fake-model', input: 'hi', stream: true });
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    const last = events.at(-1);
    expect(last?.type).toBe('response.failed');
    expect(last?.type === 'response.failed' && last.response.error).toMatchObject({ message: 'upstream broke' });
    expect(events.some((event) => event.type === 'response.completed')).toBe(false);
  });

  it('cuts the socket for failMidStream() after some content, and the client sees an error', async () => {
    server.enqueue(reply().text('some words before the cut').failMidStream());
    const stream = await client.responses.create({ model: 'fake-model', input: 'hi', stream: true });
    const seen: string[] = [];
    const consume = async () => {
      for await (const event of stream) seen.push(event.type);
    };
    await expect(consume()).rejects.toThrow();
    expect(seen).toContain('response.output_text.delta');
    expect(server.requests[0]?.outcome).toBe('failed');
  });
});
