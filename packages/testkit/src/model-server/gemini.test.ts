// The Gemini dialect (what Gemini CLI speaks) against the real @google/genai client.
import { ApiError, type GenerateContentResponse, GoogleGenAI, type Tool } from '@google/genai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reply } from './builder.js';
import { type ModelServer, startModelServer } from './server.js';

let server: ModelServer;
let client: GoogleGenAI;

beforeEach(async () => {
  server = await startModelServer({ strict: true });
  client = new GoogleGenAI({ apiKey: 'fake-gemini-key', httpOptions: { baseUrl: server.url } });
});
afterEach(() => server.close());

// Gemini CLI 0.61.0's shell and write tools (ACP frames: run_shell_command, write to written-by-tool.txt).
const geminiTools: Tool[] = [
  {
    functionDeclarations: [
      {
        name: 'run_shell_command',
        parametersJsonSchema: {
          type: 'object',
          properties: { command: { type: 'string' }, description: { type: 'string' } },
          required: ['command'],
        },
      },
      {
        name: 'write_file',
        parametersJsonSchema: {
          type: 'object',
          properties: { file_path: { type: 'string' }, content: { type: 'string' } },
        },
      },
    ],
  },
];

describe('gemini dialect', () => {
  it('streams thought parts, text and a functionCall with finishReason and usageMetadata', async () => {
    server.enqueue(
      reply()
        .reasoning('Thinking about a greeting.')
        .text('Hello from the fake model.')
        .shell('echo hi')
        .usage({ input: 40, output: 12, reasoning: 5 }),
    );
    const stream = await client.models.generateContentStream({
      model: 'gemini-2.5-flash',
      contents: [{ role: 'user', parts: [{ text: 'Say hello please.' }] }],
      config: { tools: geminiTools },
    });
    const chunks: GenerateContentResponse[] = [];
    for await (const chunk of stream) chunks.push(chunk);

    const parts = chunks.flatMap((chunk) => chunk.candidates?.[0]?.content?.parts ?? []);
    expect(
      parts
        .filter((part) => part.thought)
        .map((part) => part.text)
        .join(''),
    ).toBe('Thinking about a greeting.');
    expect(
      parts
        .filter((part) => !part.thought && part.text)
        .map((part) => part.text)
        .join(''),
    ).toBe('Hello from the fake model.');
    expect(parts.filter((part) => part.functionCall).map((part) => part.functionCall)).toEqual([
      { name: 'run_shell_command', args: { command: 'echo hi', description: 'Run a scripted command' } },
    ]);
    const last = chunks.at(-1);
    expect(last?.candidates?.[0]?.finishReason).toBe('STOP');
    expect(last?.usageMetadata).toEqual({
      promptTokenCount: 40,
      candidatesTokenCount: 7,
      thoughtsTokenCount: 5,
      totalTokenCount: 52,
    });
    expect(chunks.slice(0, -1).every((chunk) => chunk.usageMetadata === undefined)).toBe(true);
    expect(server.requests[0]).toMatchObject({
      dialect: 'gemini-api',
      path: '/v1beta/models/gemini-2.5-flash:streamGenerateContent',
      query: { alt: 'sse' },
      model: 'gemini-2.5-flash',
      userText: 'Say hello please.',
      headers: { 'x-goog-api-key': '[redacted]' },
    });
  });

  it('answers :generateContent with one response', async () => {
    server.enqueue(reply().writeFile('written-by-tool.txt', 'written by fake model\n'));
    const response = await client.models.generateContent({
      model: 'gemini-2.5-pro',
      contents: 'write the file',
      config: { tools: geminiTools },
    });
    expect(response.functionCalls).toEqual([
      { name: 'write_file', args: { file_path: 'written-by-tool.txt', content: 'written by fake model\n' } },
    ]);
    expect(response.candidates?.[0]?.finishReason).toBe('STOP');
  });

  it('surfaces httpError as ApiError with the status', async () => {
    server.enqueue(reply().httpError(400));
    const error = await client.models
      .generateContent({ model: 'gemini-2.5-flash', contents: 'hi' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(400);
    expect((error as ApiError).message).toContain('INVALID_ARGUMENT');
  });

  it('raises an in-band error chunk from failMidStream({ mode: "event" })', async () => {
    server.enqueue(reply().text('partial words here').failMidStream({ mode: 'event', message: 'stream broke' }));
    const stream = await client.models.generateContentStream({ model: 'gemini-2.5-flash', contents: 'hi' });
    const consume = async () => {
      for await (const _chunk of stream) {
        // drain
      }
    };
    await expect(consume()).rejects.toThrow(/stream broke/);
  });

  it('answers :countTokens without touching the queue', async () => {
    server.enqueue(reply().text('kept'));
    const counted = await client.models.countTokens({ model: 'gemini-2.5-flash', contents: 'count me' });
    expect(counted.totalTokens).toBeGreaterThan(0);
    expect(server.pending).toBe(1);
    expect(server.requests[0]).toMatchObject({ scripted: false, auxiliary: 'gemini-api.count-tokens' });
  });
});
