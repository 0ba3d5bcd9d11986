// The Chat Completions dialect (Qwen Code, Copilot CLI, OpenCode, Pi, OpenClaw) against the real openai client.
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

// Pi 0.73.1 offers read, bash, edit, write (docs/harnesses/pi.md).
const piTools: OpenAI.Chat.ChatCompletionTool[] = [
  {
    type: 'function',
    function: { name: 'bash', parameters: { type: 'object', properties: { command: { type: 'string' } } } },
  },
  {
    type: 'function',
    function: {
      name: 'write',
      parameters: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } } },
    },
  },
];

describe('chat completions dialect', () => {
  it('streams reasoning_content, content, tool_calls and a final usage chunk', async () => {
    server.enqueue(
      reply()
        .reasoning('I will run a shell command.')
        .text('Running a command.')
        .shell('echo hello')
        .writeFile('out.txt', 'data')
        .usage({ input: 101, output: 20, cachedInput: 1, reasoning: 4 }),
    );
    const stream = await client.chat.completions.create({
      model: 'fake-model',
      messages: [{ role: 'user', content: 'run it' }],
      tools: piTools,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: OpenAI.Chat.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);

    const deltas = chunks.flatMap((chunk) => chunk.choices.map((choice) => choice.delta));
    const reasoning = deltas.map((delta) => (delta as { reasoning_content?: string }).reasoning_content ?? '').join('');
    expect(reasoning).toBe('I will run a shell command.');
    expect(deltas.map((delta) => delta.content ?? '').join('')).toBe('Running a command.');

    const calls = new Map<number, { id?: string; name?: string; args: string }>();
    for (const delta of deltas) {
      for (const call of delta.tool_calls ?? []) {
        const entry = calls.get(call.index) ?? { args: '' };
        entry.id ??= call.id;
        entry.name ??= call.function?.name;
        entry.args += call.function?.arguments ?? '';
        calls.set(call.index, entry);
      }
    }
    expect([...calls.values()].map((call) => ({ ...call, args: JSON.parse(call.args) }))).toEqual([
      { id: expect.stringMatching(/^call_/), name: 'bash', args: { command: 'echo hello' } },
      { id: expect.stringMatching(/^call_/), name: 'write', args: { path: 'out.txt', content: 'data' } },
    ]);
    expect(chunks.flatMap((chunk) => chunk.choices.map((choice) => choice.finish_reason)).filter(Boolean)).toEqual([
      'tool_calls',
    ]);
    expect(chunks.at(-1)).toMatchObject({
      choices: [],
      usage: {
        prompt_tokens: 101,
        completion_tokens: 20,
        total_tokens: 121,
        prompt_tokens_details: { cached_tokens: 1 },
        completion_tokens_details: { reasoning_tokens: 4 },
      },
    });
  });

  it('sends no usage chunk without stream_options.include_usage', async () => {
    server.enqueue(reply().text('hi'));
    const stream = await client.chat.completions.create({
      model: 'fake-model',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    const chunks: OpenAI.Chat.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.some((chunk) => chunk.usage)).toBe(false);
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('stop');
  });

  it('answers the non-streaming form with message, tool_calls and usage', async () => {
    server.enqueue(reply().text('Done.').toolCall('bash', { command: 'ls' }).usage({ input: 5, output: 3 }));
    const completion = await client.chat.completions.create({
      model: 'fake-model',
      messages: [{ role: 'user', content: 'hi' }],
      tools: piTools,
    });
    expect(completion.choices[0]).toMatchObject({
      finish_reason: 'tool_calls',
      message: {
        role: 'assistant',
        content: 'Done.',
        tool_calls: [{ type: 'function', function: { name: 'bash', arguments: '{"command":"ls"}' } }],
      },
    });
    expect(completion.usage).toMatchObject({ prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 });
  });

  it('raises the in-band error chunk of failMidStream({ mode: "event" }) as an APIError', async () => {
    server.enqueue(reply().text('partial').failMidStream({ mode: 'event', message: 'backend exploded' }));
    const stream = await client.chat.completions.create({
      model: 'fake-model',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    const consume = async () => {
      for await (const _chunk of stream) {
        // drain
      }
    };
    await expect(consume()).rejects.toThrow(/backend exploded/);
  });

  it('surfaces 429 with a retry-after header as RateLimitError', async () => {
    server.enqueue(reply().httpError(429, undefined, { 'retry-after': '1' }));
    // With tools: a non-streaming tool-less chat request would be taken as a Qwen side query (auxiliary.ts).
    const error = await client.chat.completions
      .create({ model: 'fake-model', messages: [{ role: 'user', content: 'hi' }], tools: piTools })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(error).toMatchObject({ status: 429, code: 'rate_limit_exceeded' });
    expect((error as InstanceType<typeof OpenAI.RateLimitError>).headers.get('retry-after')).toBe('1');
  });

  it('stall: the client aborts, the server records it, and close() does not hang', async () => {
    server.enqueue(reply().text('first words').stall());
    const controller = new AbortController();
    const stream = await client.chat.completions.create(
      { model: 'fake-model', messages: [{ role: 'user', content: 'hi' }], stream: true },
      { signal: controller.signal },
    );
    const seen: string[] = [];
    const consume = (async () => {
      for await (const chunk of stream) {
        seen.push(chunk.choices[0]?.delta.content ?? '');
        if (seen.join('').includes('words')) controller.abort();
      }
    })();
    // The openai client ends iteration quietly on its own abort.
    await consume.catch(() => undefined);
    expect(seen.join('')).toBe('first words');
    await expect.poll(() => server.requests[0]?.outcome).toBe('aborted');
    await server.close();
  });
});
