// The readable script for ONE sampling round (one HTTP request): what the fake model says, in order,
// and how the exchange ends. Dialect-neutral: tools.ts and the dialect writers turn it into wire frames.

/** Token counts reported for a reply. `input` excludes nothing: cachedInput is the cached share of it. */
export interface ReplyUsage {
  input: number;
  output: number;
  cachedInput?: number;
  reasoning?: number;
}

export type ReplyStep =
  | { kind: 'text'; text: string }
  | { kind: 'reasoning'; text: string }
  | { kind: 'toolCall'; name: string; input: unknown; namespace?: string }
  | { kind: 'shell'; command: string }
  | { kind: 'writeFile'; path: string; content: string }
  | { kind: 'json'; value: unknown };

/** How the exchange ends after the steps were sent. */
export type ReplyEnding =
  | { kind: 'complete' }
  /** Keep the request open (headers and the steps so far are sent) until the client leaves or the server closes. */
  | { kind: 'stall' }
  /**
   * Break the stream after the steps so far. `destroy` cuts the socket; `event` sends the dialect's in-band
   * error (Anthropic `event: error`, Responses `response.failed`, an error chunk for chat and Gemini).
   */
  | { kind: 'failMidStream'; mode: FailMode; message: string }
  /** Answer with an HTTP error status instead of any content. */
  | { kind: 'httpError'; status: number; body: unknown; headers: Record<string, string> };

export type FailMode = 'destroy' | 'event';

export interface ScriptedReply {
  readonly steps: readonly ReplyStep[];
  readonly usage: ReplyUsage | undefined;
  readonly ending: ReplyEnding;
  readonly delayMs: number;
}

export class ReplyBuilder {
  private readonly steps: ReplyStep[] = [];
  private usageValue: ReplyUsage | undefined;
  private ending: ReplyEnding = { kind: 'complete' };
  private delay = 0;

  /** Assistant text, streamed in a few chunks. */
  text(text: string): this {
    return this.push({ kind: 'text', text });
  }

  /** Reasoning / thinking content (Anthropic thinking, Responses reasoning summary, chat reasoning_content, Gemini thought). */
  reasoning(text: string): this {
    return this.push({ kind: 'reasoning', text });
  }

  /**
   * A tool call with the raw tool name, sent whether or not the request offered that tool. `namespace`
   * names the Responses tool namespace the tool was offered in (Codex 0.171.0 offers an MCP server's
   * tools as namespace `mcp__<server>`); the other dialects have none and ignore it.
   */
  toolCall(name: string, input: unknown, options: { namespace?: string } = {}): this {
    return this.push({ kind: 'toolCall', name, input, ...(options.namespace ? { namespace: options.namespace } : {}) });
  }

  /** Run a shell command through whichever known shell tool the request offers (see tools.ts). */
  shell(command: string): this {
    return this.push({ kind: 'shell', command });
  }

  /** Create a file through whichever known write tool the request offers (Codex: an apply_patch add). */
  writeFile(path: string, content: string): this {
    return this.push({ kind: 'writeFile', path, content });
  }

  /** Structured output: a `StructuredOutput` tool call when offered (Claude Code --json-schema), else JSON text. */
  json(value: unknown): this {
    return this.push({ kind: 'json', value });
  }

  usage(usage: ReplyUsage): this {
    this.usageValue = { ...usage };
    return this;
  }

  /** Pause between streamed chunks, to let a test interrupt mid-stream. */
  delayMs(ms: number): this {
    this.delay = Math.max(0, ms);
    return this;
  }

  stall(): this {
    this.ending = { kind: 'stall' };
    return this;
  }

  /** `body` replaces the dialect's default error JSON (a string is sent verbatim). */
  httpError(status: number, body?: unknown, headers: Record<string, string> = {}): this {
    this.ending = { kind: 'httpError', status, body, headers: { ...headers } };
    return this;
  }

  failMidStream(options: { mode?: FailMode; message?: string } = {}): this {
    this.ending = {
      kind: 'failMidStream',
      mode: options.mode ?? 'destroy',
      message: options.message ?? 'scripted mid-stream failure',
    };
    return this;
  }

  /** A frozen snapshot, so later builder calls do not change a reply already queued. */
  build(): ScriptedReply {
    return Object.freeze({
      steps: Object.freeze(this.steps.map((step) => ({ ...step }))),
      usage: this.usageValue ? { ...this.usageValue } : undefined,
      ending: this.ending,
      delayMs: this.delay,
    });
  }

  private push(step: ReplyStep): this {
    this.steps.push(step);
    return this;
  }
}

export function reply(): ReplyBuilder {
  return new ReplyBuilder();
}

export type ReplyInput = ReplyBuilder | ScriptedReply;

export function toScriptedReply(input: ReplyInput): ScriptedReply {
  return input instanceof ReplyBuilder ? input.build() : input;
}
