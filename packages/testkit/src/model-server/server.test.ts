// Server behaviour over plain fetch: reply selection (auxiliary, when, queue, default, strict), recording,
// waiting, routing of odd paths, and shutdown with a stalled exchange.
import { afterEach, describe, expect, it } from 'vitest';
import { reply } from './builder.js';
import { type ModelServer, type ModelServerOptions, startModelServer } from './server.js';

let server: ModelServer;
afterEach(() => server?.close());

async function start(options: ModelServerOptions = {}): Promise<ModelServer> {
  server = await startModelServer(options);
  return server;
}

async function post(path: string, body: unknown): Promise<{ status: number; text: string; json: () => unknown }> {
  const response = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, text, json: () => JSON.parse(text) };
}

/** Text of a non-streaming chat completion. */
async function chat(messages: unknown[], extra: Record<string, unknown> = {}): Promise<string> {
  const response = await post('/v1/chat/completions', { model: 'fake-model', messages, tools, ...extra });
  const body = response.json() as { choices: { message: { content: string } }[] };
  return body.choices[0]?.message.content ?? '';
}
const tools = [{ type: 'function', function: { name: 'bash', parameters: { type: 'object', properties: {} } } }];
const user = (content: string) => ({ role: 'user', content });

describe('reply selection', () => {
  it('serves the queue in order and counts pending replies', async () => {
    await start();
    server.enqueue(reply().text('first'), reply().text('second'));
    expect(server.pending).toBe(2);
    expect(await chat([user('a')])).toBe('first');
    expect(await chat([user('b')])).toBe('second');
    expect(server.pending).toBe(0);
    expect(server.requests.map((request) => request.source)).toEqual(['queue', 'queue']);
  });

  it('checks when() rules before the queue, one-shot by default, persistent on request', async () => {
    await start();
    server.enqueue(reply().text('queued'));
    server.when('magic words', reply().text('matched once'));
    server.when(/always/, reply().text('matched always'), { persistent: true });
    expect(await chat([user('say the magic words')])).toBe('matched once');
    expect(await chat([user('say the magic words')])).toBe('queued');
    expect(await chat([user('always here')])).toBe('matched always');
    expect(await chat([user('always there')])).toBe('matched always');
    expect(server.requests.map((request) => request.source)).toEqual(['when', 'queue', 'when', 'when']);
  });

  it('matches the trailing user text, not history, so a tool round does not match again', async () => {
    await start();
    server.when('magic', reply().text('matched'), { persistent: true });
    server.enqueue(reply().text('from queue'));
    const history = [
      user('magic please'),
      { role: 'assistant', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'bash', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'magic output' },
    ];
    expect(await chat(history)).toBe('from queue');
    expect(server.requests[0]?.userText).toBe('');
    // `in: 'body'` matches anywhere in the raw body instead.
    server.when('magic output', reply().text('body match'), { in: 'body' });
    expect(await chat(history)).toBe('body match');
  });

  it('gives unscripted requests the default reply with scripted:false, or 500 in strict mode', async () => {
    await start();
    expect(await chat([user('hello')])).toBe('ok');
    expect(server.requests[0]).toMatchObject({ scripted: false, source: 'default', outcome: 'completed' });
    await server.close();

    await start({ strict: true });
    const response = await post('/v1/messages', { model: 'm', max_tokens: 50, messages: [user('hello')] });
    expect(response.status).toBe(500);
    expect(response.json()).toEqual({
      type: 'error',
      error: { type: 'api_error', message: expect.stringContaining('nothing scripted for POST /v1/messages') },
    });
    expect(server.requests[0]).toMatchObject({ scripted: false, outcome: 'http-error' });
  });

  it('answers 500 naming the offered tools when shell() finds no known tool', async () => {
    await start();
    server.enqueue(reply().shell('echo hi'));
    const response = await post('/v1/messages', {
      model: 'm',
      max_tokens: 50,
      messages: [user('go')],
      tools: [{ name: 'Read', input_schema: { type: 'object', properties: {} } }],
    });
    expect(response.status).toBe(500);
    expect(response.text).toContain('offered [Read]');
    expect(server.requests[0]?.error).toMatch(/known shell tools are \[Bash, exec_command/);
  });

  it('json() becomes the StructuredOutput tool call when offered, else JSON text', async () => {
    await start();
    server.enqueue(reply().json({ answer: 42 }), reply().json({ answer: 42 }));
    const withTool = await post('/v1/messages', {
      model: 'm',
      max_tokens: 50,
      messages: [user('answer')],
      tools: [{ name: 'StructuredOutput', input_schema: { type: 'object', properties: { answer: {} } } }],
    });
    expect(withTool.json()).toMatchObject({
      stop_reason: 'tool_use',
      content: [{ type: 'tool_use', name: 'StructuredOutput', input: { answer: 42 } }],
    });
    expect(await chat([user('answer')])).toBe('{"answer":42}');
  });
});

describe('auxiliary requests', () => {
  it('never consume the queue and are recorded as scripted:false with the recognizer name', async () => {
    await start();
    server.enqueue(reply().text('the real turn'));
    // Claude Code's 1-token probe after setModel.
    const probe = await post('/v1/messages', { model: 'claude-x', max_tokens: 1, messages: [user('hi')] });
    expect(probe.json()).toMatchObject({ content: [{ type: 'text', text: 'ok' }] });
    // OpenCode's title generation (streaming, same provider).
    await post('/v1/chat/completions', {
      model: 'fake-model',
      stream: true,
      messages: [{ role: 'system', content: 'You are a title generator. You output ONLY a thread title.' }, user('hi')],
    });
    // Gemini CLI's model router: non-streaming generateContent with a response schema.
    const routed = await post('/v1beta/models/gemini-2.5-flash:generateContent', {
      contents: [{ role: 'user', parts: [{ text: 'route me' }] }],
      generationConfig: {
        responseMimeType: 'application/json',
        responseJsonSchema: {
          type: 'object',
          properties: { reasoning: { type: 'string' }, model_choice: { type: 'string', enum: ['flash', 'pro'] } },
          required: ['reasoning', 'model_choice'],
        },
      },
    });
    const routedText = (routed.json() as { candidates: { content: { parts: { text: string }[] } }[] }).candidates[0]
      ?.content.parts[0]?.text;
    expect(JSON.parse(routedText ?? '')).toEqual({ reasoning: 'scripted', model_choice: 'flash' });
    // Claude Code's /compact.
    await post('/v1/messages', {
      model: 'claude-x',
      max_tokens: 4000,
      tools: [{ name: 'Bash', input_schema: { type: 'object', properties: {} } }],
      messages: [user('Your task is to create a detailed summary of the conversation so far.')],
    });

    // Qwen Code 0.24.4's next-prompt suggestion and memory extraction (streaming, with tools).
    const qwenTools = [{ type: 'function', function: { name: 'run_shell_command', parameters: { type: 'object' } } }];
    await post('/v1/chat/completions', {
      model: 'fake-model',
      stream: true,
      tools: qwenTools,
      messages: [user('[SUGGESTION MODE: Suggest what the user might naturally type next.]')],
    });
    await post('/v1/chat/completions', {
      model: 'fake-model',
      stream: true,
      tools: qwenTools,
      messages: [
        { role: 'system', content: 'You are now acting as the managed memory extraction subagent.' },
        user('x'),
      ],
    });

    // codex-acp 2.6.0's title request after the first turn (Responses API, instructions in the user text).
    await post('/v1/responses', {
      model: 'gpt-5.6-luna',
      stream: true,
      input: [
        {
          type: 'message',
          role: 'user',
          content: [{ type: 'input_text', text: 'Your task is to generate a very short title for a conversation ...' }],
        },
      ],
    });

    expect(server.pending).toBe(1);
    expect(server.requests.map((request) => [request.scripted, request.auxiliary])).toEqual([
      [false, 'claude-code.model-probe'],
      [false, 'opencode.title'],
      [false, 'gemini-cli.json-side-query'],
      [false, 'claude-code.compact'],
      [false, 'qwen-code.suggestion'],
      [false, 'qwen-code.memory-extraction'],
      [false, 'codex-acp.title'],
    ]);
    expect(await chat([user('now the turn')])).toBe('the real turn');
  });

  it('can be turned off so every request is scripted', async () => {
    await start({ auxiliary: [] });
    server.enqueue(reply().text('scripted probe answer'));
    const probe = await post('/v1/messages', { model: 'claude-x', max_tokens: 1, messages: [user('hi')] });
    expect(probe.json()).toMatchObject({ content: [{ text: 'scripted probe answer' }] });
  });
});

describe('waiting, routing and lifecycle', () => {
  it('waitForRequests resolves with scripted requests and rejects clearly at the deadline', async () => {
    await start();
    server.enqueue(reply().text('one'));
    const waiting = server.waitForRequests(1, { timeoutMs: 2000 });
    await post('/v1/messages', { model: 'm', max_tokens: 1, messages: [user('probe')] }); // auxiliary: not counted
    await chat([user('real')]);
    const [first] = await waiting;
    expect(first).toMatchObject({ dialect: 'chat', userText: 'real' });
    await expect(server.waitForRequests(2, { timeoutMs: 30 })).rejects.toThrow(
      /expected 2 scripted request\(s\) within 30 ms, got 1; all requests: POST \/v1\/messages \[auxiliary claude-code.model-probe\]/,
    );
  });

  it('accepts ?beta=true on /v1/messages (Claude Code) and records the query', async () => {
    await start();
    server.enqueue(reply().text('beta ok'));
    const response = await post('/v1/messages?beta=true', { model: 'm', max_tokens: 50, messages: [user('hi')] });
    expect(response.json()).toMatchObject({ content: [{ text: 'beta ok' }] });
    expect(server.requests[0]).toMatchObject({ path: '/v1/messages', query: { beta: 'true' }, model: 'm' });
  });

  it('records unknown paths as 404 JSON, answers HEAD / and lists models', async () => {
    await start();
    const missing = await post('/v2/unknown', { hello: 'world' });
    expect(missing.status).toBe(404);
    expect(missing.json()).toMatchObject({ error: { message: expect.stringContaining('POST /v2/unknown') } });
    expect((await fetch(`${server.url}/`, { method: 'HEAD' })).status).toBe(200);
    const models = (await (await fetch(`${server.url}/v1/models`)).json()) as { data: { id: string }[] };
    expect(models.data[0]?.id).toBe('fake-model');
    expect(server.requests.map((request) => [request.method, request.path, request.body])).toEqual([
      ['POST', '/v2/unknown', { hello: 'world' }],
      ['HEAD', '/', undefined],
      ['GET', '/v1/models', undefined],
    ]);
  });

  it('close() ends a stalled exchange promptly and the client sees the connection drop', async () => {
    await start();
    server.enqueue(reply().stall());
    const pendingResponse = post('/v1/chat/completions', { model: 'm', messages: [user('hang')], tools }).then(
      () => 'answered',
      () => 'dropped',
    );
    await server.waitForRequests(1);
    const started = Date.now();
    await server.close();
    expect(Date.now() - started).toBeLessThan(1000);
    expect(await pendingResponse).toBe('dropped');
    expect(server.requests[0]?.outcome).toBe('aborted');
  });

  it('reset() drops queue, rules and records', async () => {
    await start();
    server.enqueue(reply().text('x'));
    server.when('y', reply().text('y'));
    await chat([user('z')]);
    server.reset();
    expect(server.pending).toBe(0);
    expect(server.requests).toEqual([]);
    expect(await chat([user('y')])).toBe('ok');
  });

  it('delayMs spaces the streamed chunks', async () => {
    await start();
    server.enqueue(reply().text('one two three four five six').delayMs(25));
    const started = Date.now();
    const response = await post('/v1/chat/completions', { model: 'm', messages: [user('go')], stream: true });
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
    expect(response.text.trim().endsWith('data: [DONE]')).toBe(true);
  });
});
