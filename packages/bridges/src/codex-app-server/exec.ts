// `codex exec` in front of any harness: one turn on a new or resumed thread of an in-memory
// CodexAppServerBridge, its notifications printed as exec's JSONL events (exec-events.ts) or, in the
// human form, the final answer on stdout and progress on stderr. SIGTERM or SIGINT (how
// @openai/codex-sdk aborts: it kills the process) interrupts the turn and closes the harness.
import { readFile, writeFile } from 'node:fs/promises';
import type { Readable, Writable } from 'node:stream';
import { runUntilStopped } from '../lifecycle.js';
import type { ExecRequest } from './exec-args.js';
import { type ExecEvent, ExecEventTranslator } from './exec-events.js';
import { CodexAppServerBridge, type CodexAppServerBridgeOptions } from './server.js';

export interface ExecOptions extends CodexAppServerBridgeOptions {
  request: ExecRequest;
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  cwd: string;
}

type Message = {
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
  result?: unknown;
  error?: { message: string };
};

async function readAll(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

/** Runs one exec turn; resolves to the exit code (0: the turn completed). */
export async function runCodexExec(options: ExecOptions): Promise<number> {
  const { request } = options;
  const prompt =
    request.prompt !== undefined && request.prompt !== '-' ? request.prompt : (await readAll(options.stdin)).trim();
  if (prompt === '' && request.images.length === 0) {
    options.stderr.write('No prompt provided. Pass one as an argument or on stdin.\n');
    return 1;
  }
  const outputSchema = request.outputSchemaFile
    ? (JSON.parse(await readFile(request.outputSchemaFile, 'utf8')) as unknown)
    : undefined;
  const bridge = new CodexAppServerBridge({ ...options, cwd: request.cwd ?? options.cwd });
  const translator = new ExecEventTranslator();
  const print = (event: ExecEvent) => {
    if (request.json) options.stdout.write(`${JSON.stringify(event)}\n`);
    else if (
      event.type === 'item.completed' &&
      event.item &&
      (event.item as { type: string }).type === 'command_execution'
    ) {
      options.stderr.write(`exec ${(event.item as { command: string }).command}\n`);
    } else if (event.type === 'error' || event.type === 'turn.failed') {
      options.stderr.write(`ERROR: ${JSON.stringify(event.error ?? event.message)}\n`);
    }
  };

  const waiting = new Map<number, (message: Message) => void>();
  let ended: (status: string) => void = () => {};
  const turnEnd = new Promise<string>((resolve) => {
    ended = resolve;
  });
  let threadId: string | undefined;
  let turnId: string | undefined;
  const { receive } = bridge.connect((line) => {
    const message = JSON.parse(line) as Message;
    if (message.method && message.id !== undefined) {
      // No one at the terminal to ask: an approval is declined, as exec does.
      receive(JSON.stringify({ id: message.id, result: { decision: 'decline' } }));
      return;
    }
    if (message.method) {
      if (message.params?.threadId !== undefined && message.params.threadId !== threadId) return;
      for (const event of translator.translate(message.method, message.params ?? {})) print(event);
      if (message.method === 'turn/started') turnId = (message.params?.turn as { id?: string } | undefined)?.id;
      if (message.method === 'turn/completed')
        ended(String((message.params?.turn as { status?: string } | undefined)?.status));
      return;
    }
    if (typeof message.id === 'number') waiting.get(message.id)?.(message);
  });
  let nextId = 0;
  const call = async (method: string, params: unknown): Promise<Record<string, unknown>> => {
    const id = nextId++;
    const answer = new Promise<Message>((resolve) => waiting.set(id, resolve));
    receive(JSON.stringify({ id, method, params }));
    const message = await answer;
    waiting.delete(id);
    if (message.error) throw new Error(message.error.message);
    return message.result as Record<string, unknown>;
  };

  const run = async (): Promise<number> => {
    await call('initialize', { clientInfo: { name: 'codex_exec', title: null, version: '0' }, capabilities: null });
    receive(JSON.stringify({ method: 'initialized' }));
    const threadParams = {
      ...(request.model ? { model: request.model } : {}),
      ...(request.sandbox ? { sandbox: request.sandbox } : {}),
      ...(request.cwd ? { cwd: request.cwd } : {}),
    };
    const opened = request.resume
      ? await call('thread/resume', { threadId: request.resume, excludeTurns: true, ...threadParams })
      : await call('thread/start', threadParams);
    threadId = (opened.thread as { id: string }).id;
    print(translator.threadStarted(threadId));
    const input = [
      ...(prompt ? [{ type: 'text', text: prompt, text_elements: [] }] : []),
      ...request.images.map((path) => ({ type: 'localImage', path })),
    ];
    await call('turn/start', { threadId, input, ...(outputSchema ? { outputSchema } : {}) });
    const status = await turnEnd;
    if (!request.json && translator.lastMessage !== undefined) options.stdout.write(`${translator.lastMessage}\n`);
    if (request.outputLastMessage) await writeFile(request.outputLastMessage, translator.lastMessage ?? '');
    return status === 'completed' ? 0 : 1;
  };

  let code = 1;
  let finished = false;
  const done = run().then(
    (result) => {
      code = result;
      finished = true;
    },
    (error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      print({ type: 'error', message });
      if (request.json) options.stderr.write(`Error: ${message}\n`);
    },
  );
  const reason = await runUntilStopped(
    done,
    async () => {
      // Stopped by a signal mid-turn: the harness stops too (finished turns need nothing).
      if (!finished && threadId && turnId) await call('turn/interrupt', { threadId, turnId }).catch(() => {});
      await bridge.close();
    },
    2_500,
  );
  return reason === 'eof' ? code : 130;
}
