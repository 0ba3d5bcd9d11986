// The Anthropic dialect against the real @anthropic-ai/sdk client: streaming blocks, JSON form, errors.
import Anthropic from '@anthropic-ai/sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reply } from './builder.js';
import { type ModelServer, startModelServer } from './server.js';

let server: ModelServer;
let client: Anthropic;

beforeEach(async () => {
  server = await startModelServer({ strict: true });
  client = new Anthropic({ baseURL: server.url, apiKey: 'test-key', maxRetries: 0 });
});
afterEach(() => server.close());

const bashTool = {
  name: 'Bash',
  description: 'run a command',
  input_schema: { type: 'object' as const, properties: { command: { type: 'string' } }, required: ['command'] },
};

describe('anthropic dialect', () => {
  it('streams thinking, text and a tool_use that the SDK assembles into the final message', async () => {
    server.enqueue(
      reply()
        .reasoning('I should list the files first.')
        .text('Listing the files now.')
        .shell('ls -la')
        .usage({ input: 120, output: 30, cachedInput: 20 }),
    );
    const stream = client.messages.stream({
      model: 'claude-fake',
      max_tokens: 1024,
      tools: [bashTool],
      messages: [{ role: 'user', content: 'list files' }],
    });
    const textDeltas: string[] = [];
    stream.on('text', (delta) => textDeltas.push(delta));
    const message = await stream.finalMessage();

    expect(textDeltas.length).toBeGreaterThan(1);
    expect(message.model).toBe('claude-fake');
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content).toEqual([
      { type: 'thinking', thinking: 'I should list the files first.', signature: expect.any(String) },
      { type: 'text', text: 'Listing the files now.' },
      { type: 'tool_use', id: expect.stringMatching(/^toolu_/), name: 'Bash', input: { command: 'ls -la' } },
    ]);
    expect((message.content[0] as { signature: string }).signature).not.toBe('');
    expect(message.usage).toMatchObject({ input_tokens: 100, cache_read_input_tokens: 20, output_tokens: 30 });
    expect(server.requests[0]).toMatchObject({ dialect: 'anthropic', scripted: true, outcome: 'completed' });
  });

  it('answers the non-streaming JSON form when stream is absent', async () => {
    server.enqueue(reply().text('plain answer').usage({ input: 7, output: 2 }));
    const message = await client.messages.create({
      model: 'claude-fake',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(message.content).toEqual([{ type: 'text', text: 'plain answer' }]);
    expect(message.stop_reason).toBe('end_turn');
    expect(message.usage).toMatchObject({ input_tokens: 7, output_tokens: 2 });
  });

  it('surfaces httpError as the SDK error class with the dialect error body', async () => {
    server.enqueue(reply().httpError(404));
    const error = await client.messages
      .create({ model: 'no-such-model', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.NotFoundError);
    expect((error as InstanceType<typeof Anthropic.NotFoundError>).status).toBe(404);
    expect((error as InstanceType<typeof Anthropic.NotFoundError>).error).toMatchObject({
      type: 'error',
      error: { type: 'not_found_error' },
    });
  });

  it('sends an in-band `event: error` for failMidStream({ mode: "event" })', async () => {
    server.enqueue(reply().text('partial answer that').failMidStream({ mode: 'event', message: 'overloaded now' }));
    const stream = client.messages.stream({
      model: 'claude-fake',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'hi' }],
    });
    await expect(stream.finalMessage()).rejects.toThrow(/overloaded now/);
    await expect.poll(() => server.requests[0]?.outcome).toBe('failed');
  });

  it('redacts credential headers in the record but keeps the others', async () => {
    server.enqueue(reply().text('ok'));
    // SDK 1.x sends the API key as `authorization: Bearer`; Claude Code sends x-api-key.
    await new Anthropic({ baseURL: server.url, apiKey: 'secret-key', maxRetries: 0 }).messages.create(
      { model: 'claude-fake', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] },
      {
        headers: {
          'x-api-key': 'secret-x',
          cookie: 'session=secret',
          'x-goog-api-key': 'secret-g',
          'api-key': 'secret-a',
          'x-session': 's1',
        },
      },
    );
    expect(server.requests[0]?.headers).toMatchObject({
      authorization: '[redacted]',
      'x-api-key': '[redacted]',
      cookie: '[redacted]',
      'x-goog-api-key': '[redacted]',
      'api-key': '[redacted]',
      'x-session': 's1',
      'anthropic-version': expect.any(String),
    });
    expect(JSON.stringify(server.requests)).not.toContain('secret');
  });
});
