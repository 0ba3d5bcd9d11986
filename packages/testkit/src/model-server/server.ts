// The scripted model server: one node:http server on 127.0.0.1 that routes each request to its dialect,
// picks the reply (auxiliary recognizer, then `when` rules, then the queue, then the default), records
// the request, and writes the reply. close() ends stalled exchanges instead of waiting for them.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type AuxiliaryRecognizer,
  type AuxiliaryRequest,
  defaultAuxiliaryRecognizers,
  defaultReply,
} from './auxiliary.js';
import { type ReplyInput, type ScriptedReply, toScriptedReply } from './builder.js';
import { anthropicDialect } from './dialects/anthropic.js';
import { chatDialect } from './dialects/chat.js';
import type { Dialect, DialectName } from './dialects/dialect.js';
import { geminiDialect } from './dialects/gemini.js';
import { responsesDialect } from './dialects/responses.js';
import { defaultToolRecipes } from './harness-tools.js';
import { asRecord, asString, type JsonRecord } from './json.js';
import { IdSource, planReply } from './plan.js';
import { type Route, readBody, redactHeaders, redactQuery, route } from './request.js';
import { type RecordedRequest, Script, type WhenMatcher, type WhenOptions } from './script.js';
import { ExchangeAborted, sendJson } from './sse.js';
import { type ShellToolRecipe, ToolResolutionError, type WriteToolRecipe } from './tools.js';

const dialects: Record<DialectName, Dialect> = {
  anthropic: anthropicDialect,
  responses: responsesDialect,
  chat: chatDialect,
  'gemini-api': geminiDialect,
};

export interface ModelServerOptions {
  /** Default 0 (any free port). The host is always 127.0.0.1. */
  port?: number;
  /** Answer 500 "nothing scripted" instead of the default reply when the queue is empty and no rule matches. */
  strict?: boolean;
  /** Replaces the built-in recognizers (pass [] to script every request yourself). */
  auxiliary?: readonly AuxiliaryRecognizer[];
  /** Extra tool recipes, tried before the harnesses' own (harness-tools.ts). */
  tools?: { shell?: readonly ShellToolRecipe[]; write?: readonly WriteToolRecipe[] };
  /** What unscripted and unmatched requests get; default a short "ok". */
  defaultReply?: ReplyInput;
}

export interface ModelServer {
  /** `http://127.0.0.1:PORT`, no trailing slash: append `/v1` for OpenAI-style base URLs. */
  readonly url: string;
  readonly port: number;
  /** Every request in arrival order, including auxiliary and unrouted ones. */
  readonly requests: readonly RecordedRequest[];
  /** Queued replies not yet used (`when` rules are not counted). */
  readonly pending: number;
  enqueue(...replies: ReplyInput[]): void;
  /** A reply for the request whose trailing user text matches; checked before the queue. */
  when(matcher: WhenMatcher, reply: ReplyInput, options?: WhenOptions): void;
  /** Resolves with the first `count` scripted requests once they arrived; rejects after timeoutMs (default 5000). */
  waitForRequests(count: number, options?: { timeoutMs?: number }): Promise<RecordedRequest[]>;
  /** Drops the queue, rules and records (pending waiters are rejected). */
  reset(): void;
  close(): Promise<void>;
}

export async function startModelServer(options: ModelServerOptions = {}): Promise<ModelServer> {
  const script = new Script();
  const ids = new IdSource();
  const recognizers = options.auxiliary ?? defaultAuxiliaryRecognizers;
  const recipes = {
    shell: [...(options.tools?.shell ?? []), ...defaultToolRecipes.shell],
    write: [...(options.tools?.write ?? []), ...defaultToolRecipes.write],
  };
  const fallback = toScriptedReply(options.defaultReply ?? defaultReply);
  const active = new Set<AbortController>();
  let closed: Promise<void> | undefined;

  /** Auxiliary recognizers first, then `when` rules and the queue, then the default (none when strict). */
  function chooseReply(record: RecordedRequest, request: AuxiliaryRequest, rawBody: string): ScriptedReply | undefined {
    const recognizer = recognizers.find((candidate) => candidate.matches(request));
    if (recognizer) {
      record.source = 'auxiliary';
      record.auxiliary = recognizer.name;
      return toScriptedReply(recognizer.reply(request));
    }
    const taken = script.take(record, rawBody);
    if (taken) {
      record.scripted = true;
      record.source = taken.source;
      return taken.reply;
    }
    record.source = 'default';
    return options.strict ? undefined : fallback;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const controller = new AbortController();
    active.add(controller);
    res.on('close', () => {
      active.delete(controller);
      controller.abort();
    });
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const method = req.method ?? 'GET';
    const target = route(method, url.pathname);
    const { body, bytes } = await readBody(req);
    const bodyRecord: JsonRecord = asRecord(body) ?? {};
    const record: RecordedRequest = {
      dialect: target.kind === 'dialect' || target.kind === 'count-tokens' ? target.dialect : 'other',
      method,
      path: url.pathname,
      query: redactQuery(url.searchParams),
      headers: redactHeaders(req.headers),
      body,
      model: ('model' in target ? target.model : undefined) ?? asString(bodyRecord.model),
      userText: '',
      scripted: false,
      source: 'none',
      outcome: 'completed',
      at: Date.now(),
    };

    if (target.kind !== 'dialect') {
      script.record(record);
      return answerUtilityRoute(target, record, res, bytes);
    }

    const dialect = dialects[target.dialect];
    const streaming = target.streaming === 'always' || (target.streaming === 'body' && bodyRecord.stream === true);
    const offeredTools = dialect.offeredTools(bodyRecord);
    record.userText = dialect.latestUserText(bodyRecord);
    record.outcome = 'pending';
    const auxiliaryRequest: AuxiliaryRequest = {
      dialect: dialect.name,
      body: bodyRecord,
      streaming,
      offeredTools,
      latestUserText: record.userText,
      systemText: dialect.systemText(bodyRecord),
    };

    const chosen = chooseReply(record, auxiliaryRequest, typeof body === 'string' ? body : JSON.stringify(body ?? ''));
    script.record(record);

    const fail = (status: number, message: string) => {
      record.error = message;
      record.outcome = 'http-error';
      sendJson(res, status, dialect.errorBody(status, message));
    };
    if (!chosen) {
      return fail(500, `scripted model server (strict): nothing scripted for ${method} ${url.pathname}`);
    }
    const ending = chosen.ending;
    if (ending.kind === 'httpError') {
      record.outcome = 'http-error';
      const errorBody =
        ending.body ?? dialect.errorBody(ending.status, defaultErrorMessage(ending.status, record.model));
      return sendJson(res, ending.status, errorBody, ending.headers);
    }
    let plan: ReturnType<typeof planReply>;
    try {
      plan = planReply(chosen, {
        offered: offeredTools,
        recipes,
        ids,
        callIdPrefix: dialect.callIdPrefix,
        requestBytes: bytes,
      });
    } catch (error) {
      if (error instanceof ToolResolutionError) return fail(500, error.message);
      throw error;
    }
    const model = record.model ?? 'fake-model';
    try {
      await dialect.write({ res, signal: controller.signal }, { body: bodyRecord, streaming, model, ids }, plan);
      record.outcome = ending.kind === 'failMidStream' ? 'failed' : 'completed';
    } catch (error) {
      if (!(error instanceof ExchangeAborted)) throw error;
      record.outcome = ending.kind === 'failMidStream' && ending.mode === 'destroy' ? 'failed' : 'aborted';
      if (!res.writableEnded) res.destroy();
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      // A bug in the server itself: surface it to the client rather than hang the test.
      if (!res.headersSent) sendJson(res, 500, { error: { message: `scripted model server: ${String(error)}` } });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    get requests() {
      return script.requests;
    },
    get pending() {
      return script.queue.length;
    },
    enqueue: (...replies) => script.enqueue(replies),
    when: (matcher, reply, whenOptions) => script.when(matcher, reply, whenOptions),
    waitForRequests: (count, waitOptions) => script.waitFor(count, waitOptions?.timeoutMs ?? 5000),
    reset: () => script.reset(),
    close() {
      closed ??= new Promise<void>((resolve) => {
        script.cancelWaiters('the server was closed');
        server.close(() => resolve());
        for (const controller of active) controller.abort();
        server.closeAllConnections();
      });
      return closed;
    },
  };
}

/** Routes that are not a model call: probes, the model list, token counts and unknown paths. */
function answerUtilityRoute(
  target: Exclude<Route, { kind: 'dialect' }>,
  record: RecordedRequest,
  res: ServerResponse,
  bytes: number,
): void {
  switch (target.kind) {
    case 'probe':
      res.writeHead(200).end();
      return;
    case 'models':
      sendJson(res, 200, {
        object: 'list',
        data: [{ id: 'fake-model', object: 'model', created: 0, owned_by: 'reins-testkit' }],
      });
      return;
    case 'count-tokens': {
      record.source = 'auxiliary';
      record.auxiliary = `${target.dialect}.count-tokens`;
      const tokens = Math.max(1, Math.ceil(bytes / 4));
      sendJson(res, 200, target.dialect === 'anthropic' ? { input_tokens: tokens } : { totalTokens: tokens });
      return;
    }
    case 'unknown':
      record.outcome = 'http-error';
      sendJson(res, 404, {
        error: { message: `scripted model server: no route for ${record.method} ${record.path}`, type: 'not_found' },
      });
      return;
  }
}

/** Like the real providers, a 404 from a model endpoint names the model it could not find. */
function defaultErrorMessage(status: number, model: string | undefined): string {
  return status === 404 ? `scripted 404 error: model ${model ?? '(none named)'} not found` : `scripted ${status} error`;
}
